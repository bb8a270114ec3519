import { describe, expect, test } from "vitest";
import { Fnv1a64, fnv1a64 } from "../../src/index.js";

// Expected values: Harn's file_table.rs reference vectors ("" and "hello world"), the
// hosttest bytes and standard FNV-1a vectors (reference §3.1); the non-ASCII and byte-range
// values were computed independently with a Python big-int FNV-1a.
describe("fnv1a64", () => {
  test("reference vectors give the unsigned decimal hash", () => {
    expect(fnv1a64("")).toBe("14695981039346656037");
    expect(fnv1a64("hello world")).toBe("8618312879776256743");
    expect(fnv1a64("# project\n")).toBe("3395764039283917591");
    expect(fnv1a64("export const y = 2;\n")).toBe("11054360425636411347");
    expect(fnv1a64("a")).toBe("12638187200555641996");
    expect(fnv1a64("foobar")).toBe("9625390261332436968");
  });

  test("non-ASCII text hashes its UTF-8 bytes", () => {
    expect(fnv1a64("é")).toBe("775207407765167617");
    expect(fnv1a64(new Uint8Array([0xc3, 0xa9]))).toBe("775207407765167617");
    expect(fnv1a64("naïve café ✓ 😀")).toBe("5248044898274778043");
    // A lone surrogate is hashed as U+FFFD (EF BF BD), as TextEncoder encodes it.
    expect(fnv1a64("a\ud800b")).toBe(fnv1a64(new Uint8Array([0x61, 0xef, 0xbf, 0xbd, 0x62])));
    expect(fnv1a64("é".repeat(5000))).toBe(
      new Fnv1a64().update(new Uint8Array(10000).map((_, i) => (i % 2 ? 0xa9 : 0xc3))).digest(),
    );
  });

  test("raw bytes are hashed without decoding", () => {
    const all = new Uint8Array(256).map((_, i) => i);
    expect(fnv1a64(all)).toBe("4774620800949106213");
    expect(fnv1a64(new Uint8Array([0xff, 0x00, 0xfe]))).toBe("17951404309582500604");
  });

  test("incremental updates equal one pass over the same bytes", () => {
    const big = new Uint8Array(1_000_000).map((_, i) => i % 251);
    const h = new Fnv1a64();
    for (let i = 0; i < big.length; i += 65_536) h.update(big.subarray(i, i + 65_536));
    expect(h.digest()).toBe("4529795169249947525");
    expect(fnv1a64(big)).toBe("4529795169249947525");
  });
});
