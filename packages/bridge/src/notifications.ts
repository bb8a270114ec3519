/**
 * Server→client notifications (docs/design.md §5). `progress` reports the checks of a running
 * `session.verify_commands`; `request_id` is that request's JSON-RPC id.
 */
import * as z from "zod";
import { VerificationStatusSchema } from "./wire/domain.js";

const common = {
  request_id: z
    .union([z.string(), z.number()])
    .describe("id of the request this progress belongs to"),
  index: z.int().nonnegative().describe("0-based position of the check in `commands`"),
  total: z.int().nonnegative().describe("number of commands in the call"),
  check_id: z.string().describe("the command's `id`"),
  command: z.string().describe("the command text"),
};

/** Params of a `progress` notification. */
export const ProgressParamsSchema = z.discriminatedUnion("event", [
  z.strictObject({ event: z.literal("check_started"), ...common }),
  z.strictObject({
    event: z.literal("check_finished"),
    ...common,
    status: VerificationStatusSchema,
    exit_code: z.int().nullable().describe("null when the command never ran"),
    duration_ms: z.number().nonnegative().describe("wall time of the check in milliseconds"),
  }),
]);

/** Every notification the server sends: name → description and params schema. */
export const notificationTable = {
  progress: {
    description:
      "Progress of session.verify_commands: check_started before a check runs, check_finished (status, exit code, duration) after it.",
    params: ProgressParamsSchema,
  },
} as const;
