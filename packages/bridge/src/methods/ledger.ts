/**
 * `ledger.*` methods (stateless, pure): the effect digest of a set of mutation records and
 * the content digest of tool metadata (a3s-completion-gate.md §2.2, docs/design.md §3).
 */
import { canonicalLedgerText, contentDigest, effectDigest } from "@turngate/core";
import * as z from "zod";
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
    // With the endpoint's SHA-256 (the stdio server's node:crypto) the digest is, by its
    // definition, the hash of core's canonical text; else core hashes it (pure noble).
    handler: ({ records }, ctx) => ({
      effect_digest:
        ctx.sha256Hex === undefined
          ? effectDigest(records)
          : records.length === 0
            ? ""
            : ctx.sha256Hex(canonicalLedgerText(records)),
    }),
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
