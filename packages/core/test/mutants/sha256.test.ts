/**
 * Issue #11 §5: exact-value tests for the SHA-256 wrapper of the ledger
 * (packages/core/src/ledger/sha256.ts), written against the mutants Stryker found alive:
 * the hex rendering of the 32-byte digest, the UTF-8 encoding into the 64 KiB scratch
 * (the short-ASCII copy, texts longer than the scratch, lone surrogates and pairs at the edge
 * of a piece) and the batches of `NOBLE_CONTENT_HASHER.textSink()`. Expected digests are
 * literal (from `node:crypto`) and every long text is also checked against
 * `createHash("sha256").update(Buffer.from(text))`, which encodes a lone surrogate as U+FFFD
 * like `TextEncoder`. Texts of at most 55 ASCII units are hashed as one padded block
 * (`oneBlockHex`): every length to 56 and the non-ASCII and stale-buffer cases are checked
 * against `node:crypto` too. The mutants that stay alive are listed in
 * stryker/equivalent/ledger.md.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { NOBLE_CONTENT_HASHER, sha256Hex } from "../../src/index.js";

/** SHA-256 of what Node's Buffer makes of `text` (UTF-8, a lone surrogate as U+FFFD). */
function nodeSha256(text: string): string {
  return createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
}

/** The sink digest of `pieces`, written one by one. */
function sinkHex(pieces: readonly string[]): string {
  const sink = NOBLE_CONTENT_HASHER.textSink();
  for (const piece of pieces) sink.write(piece);
  return sink.hex();
}

describe("hex32: the digest as 64 lowercase hex digits", () => {
  test("every digit value appears in its place (digests with 0–9 and a–f)", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    // Two digests in a row: the reused 32-byte scratch leaves nothing of the first behind.
    expect([sha256Hex("abc"), sha256Hex("")]).toEqual([nodeSha256("abc"), nodeSha256("")]);
  });
});

describe("sha256Hex: UTF-8 of short and long texts", () => {
  test("U+007F is one byte, U+0080 is the two bytes c2 80", () => {
    expect(sha256Hex("\u007f")).toBe(
      "620bfdaa346b088fb49998d92f19a7eaf6bfc2fb0aee015753966da1028cb731",
    );
    expect(sha256Hex("\u0080")).toBe(
      "ea0add9a514e94de9abd0ba721eed15b15aa0b3a0f09ebee5e54a9dfae943153",
    );
    expect(sha256Hex("\u0080")).toBe(nodeSha256("\u0080"));
  });

  test("ASCII of 256 and 257 units (the short-text limit and one past it)", () => {
    expect(sha256Hex("a".repeat(256))).toBe(
      "02d7160d77e18c6447be80c2e355c7ed4388545271702c50253b0914c65ce5fe",
    );
    expect(sha256Hex("a".repeat(257))).toBe(
      "e8d95cc2b4bc198c54b40bd214df958afb65f5e73d2c2eafe0593cf5c635c1f0",
    );
  });

  test("ASCII longer than the 64 KiB scratch is hashed whole", () => {
    const text = "a".repeat(65537);
    expect(sha256Hex(text)).toBe(
      "008ffc88d3c96a9f307524eb361e47c5222a887fc45fa0c1fb8d429c5c23b430",
    );
    expect(sha256Hex(text)).toBe(nodeSha256(text));
  });

  test.each([
    ["two-byte characters over 80 000 bytes", "é".repeat(40_000)],
    ["three-byte characters over 90 000 bytes", "€".repeat(30_000)],
    ["surrogate pairs over 80 000 bytes", "\u{1F600}".repeat(20_000)],
    ["a mix over three pieces", "a€é\u{1F600}".repeat(20_000)],
  ])("non-ASCII text longer than the scratch: %s", (_, text) => {
    expect(sha256Hex(text)).toBe(nodeSha256(text));
  });

  // A piece is as much as fits in 65 536 bytes: after "é" (2 bytes) and 65 532 or 65 533
  // ASCII bytes, the next 3- or 4-byte character no longer fits and starts the next piece.
  test.each([
    ["a lone high surrogate first in a piece", `é${"a".repeat(65_533)}\ud800b`],
    ["a lone low surrogate first in a piece", `é${"a".repeat(65_533)}\udc00b`],
    ["a pair first in a piece", `é${"a".repeat(65_532)}\u{1F600}b`],
    ["a lone high surrogate last in a piece", `é${"a".repeat(65_531)}\ud800b`],
    ["a lone high surrogate before a pair at the edge", `é${"a".repeat(65_532)}\ud800\u{1F600}`],
    ["a lone surrogate ending the text past the scratch", `é${"a".repeat(70_000)}\ud800`],
    ["a lone low surrogate starting a long text", `\udc00${"a".repeat(70_000)}`],
  ])("%s", (_, text) => {
    expect(sha256Hex(text)).toBe(nodeSha256(text));
  });

  test("a lone surrogate hashes as U+FFFD", () => {
    expect(sha256Hex("\ud83d\ud83d")).toBe(
      "52793f8dc1d85e409f8c88be99d8b31d58f676246340150f406289e04a11151e",
    );
    expect(sha256Hex("\ud83d\ud83d")).toBe(sha256Hex("\ufffd\ufffd"));
  });
});

describe("sha256Hex: one-block texts (at most 55 ASCII units)", () => {
  test("every ASCII length 0–56 equals node:crypto (55 is one block, 56 two)", () => {
    for (let n = 0; n <= 56; n++) {
      const text = Array.from({ length: n }, (_, i) =>
        String.fromCharCode(0x20 + ((i * 7) % 95)),
      ).join("");
      expect(sha256Hex(text)).toBe(nodeSha256(text));
    }
    expect(sha256Hex("a".repeat(55))).toBe(
      "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
    );
    expect(sha256Hex("a".repeat(56))).toBe(
      "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
    );
  });

  test("U+007F is ASCII; a non-ASCII unit within 55 units is encoded as UTF-8", () => {
    expect(sha256Hex("\u007f".repeat(55))).toBe(
      "1c17b403c59d64cebc2b898c5aecd2dd6d97c11819b6936d61480db0b1e36c83",
    );
    expect(sha256Hex(`${"a".repeat(54)}é`)).toBe(
      "ec932f92242e6d3091e83bc2b7dfb62d2afe3810bb91a8f15cf75732a727c453",
    );
    expect(sha256Hex("é")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
    expect(sha256Hex("\ud800")).toBe(sha256Hex("\ufffd"));
  });

  test("a value that is not a string throws a TypeError, as before the one-block path", () => {
    // Untyped callers (JavaScript, a host's bridge) must not get the digest of a zero block.
    for (const value of [123, 1.5, true, undefined, null, { length: 3 }]) {
      expect(() => sha256Hex(value as unknown as string)).toThrow(TypeError);
    }
  });

  test("a one-block text after longer ones reads no stale byte of the block", () => {
    // A longer text leaves its bytes (and its digest) in the shared block buffer.
    for (const before of ["z".repeat(63), "y".repeat(200), "é".repeat(40), ""]) {
      sha256Hex(before);
      expect(sha256Hex("abc")).toBe(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      );
      sha256Hex(before);
      expect(sha256Hex("")).toBe(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      );
      sha256Hex("a".repeat(55));
      expect(sha256Hex("a".repeat(54))).toBe(nodeSha256("a".repeat(54)));
    }
  });
});

describe("textSink: pieces joined in batches of 1024", () => {
  test("no piece at all is the SHA-256 of nothing", () => {
    expect(sinkHex([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  test.each([1, 1023, 1024, 1025, 2048, 2500])("%i pieces equal sha256Hex of their join", (n) => {
    const pieces = Array.from({ length: n }, (_, i) => `write|f${i}.ts|é\n`);
    expect(sinkHex(pieces)).toBe(sha256Hex(pieces.join("")));
    expect(sinkHex(pieces)).toBe(nodeSha256(pieces.join("")));
  });

  test("a surrogate pair split between pieces of one batch is encoded as the pair", () => {
    expect(sinkHex(["\ud83d", "\ude00"])).toBe(
      "f0443a342c5ef54783a111b51ba56c938e474c32324d90c3a60c9c8e3a37e2d9",
    );
    expect(sinkHex(["\ud83d", "\ude00"])).toBe(sha256Hex("\u{1F600}"));
  });

  test("a pair split between the 1024th and the 1025th piece is two U+FFFD", () => {
    const pieces = [...Array.from({ length: 1023 }, () => "a"), "\ud83d", "\ude00"];
    expect(sinkHex(pieces)).toBe(
      "8644de7694eb73de1874617b364d2f0e59e7de28437be0af25fc7f950928c0e2",
    );
    expect(sinkHex(pieces)).toBe(sha256Hex(`${"a".repeat(1023)}\ufffd\ufffd`));
  });

  test("the pair split between the 1023rd and 1024th piece is still one batch", () => {
    const pieces = [...Array.from({ length: 1022 }, () => "a"), "\ud83d", "\ude00"];
    expect(sinkHex(pieces)).toBe(sha256Hex(`${"a".repeat(1022)}\u{1F600}`));
  });
});
