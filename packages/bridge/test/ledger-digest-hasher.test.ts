/**
 * `ledger.digest` served with the stdio server's SHA-256 (node:crypto, issue #17 item 5)
 * gives exactly core's `effectDigest` (pure noble) for every input: random rows with
 * separators, newlines, control characters, astral and lone-surrogate code units, and the
 * empty ledger. Bad rows are still refused by name.
 */
import { effectDigest } from "@turngate/core";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { invoke } from "../src/rpc/dispatch.js";
import { nodeSha256Hex } from "../src/server/node-sha256.js";
import { statelessTable } from "../src/stateless.js";

const ctx = {
  requestId: 1,
  notify: () => {},
  methods: [],
  requestShutdown: () => {},
  sha256Hex: nodeSha256Hex,
};
const field = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({
    unit: fc.constantFrom("a", "|", "\n", "\\", "\u0000", "\ud800", "\udc00", "é", "😀"),
  }),
);
const record = fc.record({ tool: field, path: field, content_digest: field });

describe("ledger.digest on the stdio server's SHA-256", () => {
  test("equals core's effectDigest for random rows (lone surrogates and escapes included)", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), (records) => {
        expect(invoke(statelessTable, "ledger.digest", { records }, ctx)).toEqual({
          effect_digest: effectDigest(records),
        });
      }),
      { numRuns: 1000 },
    );
  });

  test("the known digest of one row, and a row without content_digest is refused by name", () => {
    const records = [{ tool: "write", path: "a.txt", content_digest: "x" }];
    expect(invoke(statelessTable, "ledger.digest", { records }, ctx)).toEqual({
      effect_digest: "6491a350c728bc945b64b3f7d2710c43fb194e0b7cd49b5a79da586a7083b5e2",
    });
    expect(() =>
      invoke(statelessTable, "ledger.digest", { records: [{ tool: "write", path: "a" }] }, ctx),
    ).toThrow(
      expect.objectContaining({ code: "invalid_params", path: "records.0.content_digest" }),
    );
  });
});
