/**
 * Issue 17 item 2: the mutation ledger takes an injectable content hasher; the pure default
 * stays `@noble/hashes`. An injected hasher is used for every content digest and for the
 * effect digest, and must give the same digests as the default.
 */
import { describe, expect, test } from "vitest";
import {
  type ContentHasher,
  contentDigest,
  effectDigest,
  MutationLedger,
  NOBLE_CONTENT_HASHER,
  observeToolResult,
  sortRecords,
  TurngateValidationError,
} from "../src/index.js";

/** The noble hasher, counting the calls that reach it. */
function counting(): { hasher: ContentHasher; calls: { sha256Hex: number; sinks: number } } {
  const calls = { sha256Hex: 0, sinks: 0 };
  return {
    calls,
    hasher: {
      sha256Hex(text) {
        calls.sha256Hex++;
        return NOBLE_CONTENT_HASHER.sha256Hex(text);
      },
      textSink() {
        calls.sinks++;
        return NOBLE_CONTENT_HASHER.textSink();
      },
    },
  };
}

describe("MutationLedger content hasher (issue 17)", () => {
  test("the default is noble: sha256('hello') and the A3S effect digest of one write row", () => {
    const ledger = new MutationLedger();
    expect(ledger.hasher).toBe(NOBLE_CONTENT_HASHER);
    ledger.observeTool("write", 0, { file_path: "a.txt", after: "hello" });
    expect(ledger.records).toEqual([
      {
        tool: "write",
        path: "a.txt",
        content_digest: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
      },
    ]);
    // printf 'write|a.txt|2cf24dba…9824' | sha256sum
    expect(ledger.digest).toBe("28d36346fea19e6cc08458fd2ad65031d3c527ddde591c72c3b997965158793c");
  });

  test("an injected hasher computes every content digest and the effect digest, with the default's results", () => {
    const { hasher, calls } = counting();
    const injected = new MutationLedger({ hasher });
    const plain = new MutationLedger();
    for (const ledger of [injected, plain]) {
      ledger.observeTool("write", 0, { file_path: "a.txt", after: "hello" });
      ledger.observeTool("edit", 0, { file_path: "b|c.txt", before: "x", after: "y\n" });
      ledger.observeTool("bash", 0, { changed_paths: ["c.txt", "d.txt"], command: "make" });
    }
    expect(calls).toEqual({ sha256Hex: 3, sinks: 0 });
    expect(injected.digest).toBe(plain.digest);
    expect(calls.sinks).toBe(1);
    expect(injected.toJSON()).toEqual(plain.toJSON());
    const restored = MutationLedger.fromJSON(plain.toJSON(), { hasher });
    expect(restored.digest).toBe(plain.digest);
    expect(calls.sinks).toBe(2);
  });

  test("a hasher without sha256Hex and textSink is refused naming the option", () => {
    expect(
      () => new MutationLedger({ hasher: { sha256Hex: () => "" } as unknown as ContentHasher }),
    ).toThrow(TurngateValidationError);
    expect(() => new MutationLedger({ hasher: {} as ContentHasher })).toThrow(
      expect.objectContaining({
        path: "hasher",
        message:
          "invalid ledger options at hasher: expected an object with sha256Hex(text) and textSink() functions",
      }),
    );
  });

  test("a hasher's ledgerDigest sorts and hashes the rows in one call; its order is checked to be a permutation", () => {
    const calls: number[] = [];
    const withOrder = (order: (n: number) => Uint32Array, digest?: unknown): ContentHasher => ({
      ...NOBLE_CONTENT_HASHER,
      ledgerDigest(rows) {
        calls.push(rows.length);
        const indexed = rows.map((r, index) => ({ ...r, index }));
        return {
          order: order(rows.length) ?? Uint32Array.from(sortRecords(indexed).map((r) => r.index)),
          digest: (digest ?? effectDigest(rows)) as string,
        };
      },
    });
    const plain = new MutationLedger();
    const fast = new MutationLedger({
      hasher: withOrder(() => undefined as unknown as Uint32Array),
    });
    for (const ledger of [plain, fast]) {
      ledger.observeTool("write", 0, { file_path: "b.txt", after: "2" });
      ledger.observeTool("edit", 0, { file_path: "a.txt", after: "1" });
      ledger.observeTool("bash", 0, { changed_paths: ["b.txt"], command: "x" });
    }
    expect(fast.digest).toBe(plain.digest);
    expect(fast.records).toEqual(plain.records);
    expect(fast.records.map((r) => `${r.path} ${r.tool}`)).toEqual([
      "a.txt edit",
      "b.txt bash",
      "b.txt write",
    ]);
    // Rows added after a read: merged with the sorted ones, then one call for all of them.
    for (const ledger of [plain, fast]) ledger.observeUnseenPaths(["0.txt"]);
    expect(fast.digest).toBe(plain.digest);
    expect(fast.records).toEqual(plain.records);
    expect(calls).toEqual([3, 4]);

    const refused = (hasher: ContentHasher) => {
      const ledger = new MutationLedger({ hasher });
      ledger.observeTool("write", 0, { file_path: "a", after: "x" });
      ledger.observeTool("write", 0, { file_path: "b", after: "y" });
      try {
        void ledger.digest;
      } catch (error) {
        return (error as TurngateValidationError).message;
      }
      return "accepted";
    };
    expect(refused(withOrder(() => new Uint32Array([0, 0])))).toBe(
      "invalid ledger hasher at hasher.ledgerDigest: order is not a permutation of the rows",
    );
    expect(refused(withOrder(() => new Uint32Array([0])))).toBe(
      "invalid ledger hasher at hasher.ledgerDigest: expected order: a Uint32Array of 2 row indices",
    );
    expect(refused(withOrder(() => new Uint32Array([1, 2])))).toBe(
      "invalid ledger hasher at hasher.ledgerDigest: order is not a permutation of the rows",
    );
    expect(refused(withOrder(() => new Uint32Array([1, 0]), 7))).toBe(
      "invalid ledger hasher at hasher.ledgerDigest: expected digest: a string",
    );
    expect(
      () =>
        new MutationLedger({
          hasher: { ...NOBLE_CONTENT_HASHER, ledgerDigest: 1 } as unknown as ContentHasher,
        }),
    ).toThrow(
      expect.objectContaining({
        path: "hasher.ledgerDigest",
        message: "invalid ledger options at hasher.ledgerDigest: expected a function when present",
      }),
    );
  });

  test("contentDigest and observeToolResult take a hasher too, and refuse a malformed one by name", () => {
    const { hasher, calls } = counting();
    expect(contentDigest({ after: "hello" }, hasher)).toBe(
      "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    );
    expect(observeToolResult("write", 0, { file_path: "a", after: "hello" }, hasher).rows).toEqual([
      {
        tool: "write",
        path: "a",
        content_digest: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
      },
    ]);
    expect(calls.sha256Hex).toBe(2);
    const bad = { sha256Hex: 1 } as unknown as ContentHasher;
    expect(() => contentDigest({ after: "x" }, bad)).toThrow(
      expect.objectContaining({ path: "hasher" }),
    );
    expect(() => observeToolResult("write", 0, {}, bad)).toThrow(
      expect.objectContaining({ path: "hasher" }),
    );
  });
});
