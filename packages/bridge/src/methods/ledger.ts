/**
 * `ledger.*` methods (stateless, pure): the effect digest of a set of mutation records and
 * the content digest of tool metadata (a3s-completion-gate.md §2.2, DESIGN §3).
 */
import { contentDigest, effectDigest } from "@turngate/core";
import { z } from "zod";
import { defineMethod } from "../method.js";
import { MutationRecordSchema } from "../wire/domain.js";
import { jsonObject } from "../wire/json-object.js";
import { withFieldPath } from "./field-path.js";

const Digest = z.string().describe('lowercase hex SHA-256 (64 chars), or "" for no records');

export const ledgerMethods = {
  "ledger.digest": defineMethod({
    description:
      'Effect digest of mutation records: SHA-256 over the escaped rows `tool|path|content_digest` sorted by (path, tool), joined by newlines; "" when there are no records.',
    params: z.strictObject({ records: z.array(MutationRecordSchema) }),
    result: z.strictObject({ effect_digest: Digest }),
    handler: ({ records }) => ({ effect_digest: effectDigest(records) }),
  }),
  "ledger.content_digest": defineMethod({
    description:
      "Content digest of a tool's metadata: SHA-256 of `after` when it is a string, else of the RFC 8785 canonical JSON of the whole metadata object.",
    params: z.strictObject({ metadata: jsonObject() }),
    result: z.strictObject({ content_digest: z.string() }),
    handler: ({ metadata }) => ({
      content_digest: withFieldPath("metadata", () => contentDigest(metadata)),
    }),
  }),
};
