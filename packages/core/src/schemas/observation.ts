import * as z from "zod";
import { utf8ByteLength } from "./utf8.js";

/** Schema id turngate uses for external observations. */
export const EXTERNAL_OBSERVATION_SCHEMA = "external_observation.v1";
/** A3S Code's schema id (A3S §1.14), accepted on input. */
export const A3S_EXTERNAL_OBSERVATION_SCHEMA = "a3s.code.external-observation.v1";
/** Largest payload an external observation may carry, in UTF-8 bytes (A3S §3). */
export const EXTERNAL_OBSERVATION_PAYLOAD_MAX_BYTES = 8192;

/**
 * Evidence from outside the workspace (a CI run, a review), A3S §1.14. `digest` must be
 * non-blank; `payload` is at most 8192 UTF-8 bytes. `required_action`: `none` never
 * blocks, `address` never blocks success, `workspace_change` blocks until a newer
 * observation of the same subject or a waiver clears it (A3S §2.12).
 * `schema` may be turngate's or A3S's id; absent → turngate's; reading keeps what was given.
 */
export const ExternalObservationSchema = z
  .object({
    schema: z
      .enum([EXTERNAL_OBSERVATION_SCHEMA, A3S_EXTERNAL_OBSERVATION_SCHEMA])
      .default(EXTERNAL_OBSERVATION_SCHEMA),
    kind: z.string(),
    subject: z.string(),
    digest: z.string().regex(/\S/, { message: "must not be blank" }),
    payload: z.string().refine((p) => utf8ByteLength(p) <= EXTERNAL_OBSERVATION_PAYLOAD_MAX_BYTES, {
      message: `must be at most ${EXTERNAL_OBSERVATION_PAYLOAD_MAX_BYTES} UTF-8 bytes`,
    }),
    source_revision: z.string().optional(),
    required_action: z.enum(["none", "workspace_change", "address"]),
  })
  .describe("external_observation.v1 (A3S §1.14).");

export type ExternalObservation = z.output<typeof ExternalObservationSchema>;
export type ExternalObservationInput = z.input<typeof ExternalObservationSchema>;
