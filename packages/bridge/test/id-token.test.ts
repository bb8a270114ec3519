/**
 * `idToken` (the exact source text of a request's top-level `"id"`) against lines built
 * from known parts: the token returned must be the one written as the last top-level `id`
 * member, whatever the other members hold (strings with quotes, backslashes and `"id"` in
 * them, nested `id` keys, escaped keys, whitespace).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { idToken } from "../src/rpc/id-token.js";

const numberToken = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom("12345678901234567890", "1.0", "1e3", "-0", "1E+2", "0.5e-7", "1e400"),
);
/** Strings likely to confuse a scanner: quotes, backslashes, braces and `"id":` inside. */
const trickyString = fc.oneof(
  fc.string(),
  fc.constantFrom('"', "\\", '\\"', '"id":1}', '{"id":2}', "\\\\", "\u0000", "id"),
);
const member = fc.oneof(
  fc.tuple(trickyString, fc.jsonValue()),
  fc.tuple(
    fc.constant("params"),
    fc.dictionary(fc.oneof(fc.constant("id"), trickyString), fc.jsonValue()),
  ),
);
const ws = fc.constantFrom("", " ", "\n", "\t ", "\r\n");

describe("idToken", () => {
  test("returns the token of the last top-level id member, whatever else the line holds", () => {
    fc.assert(
      fc.property(
        fc.array(member, { maxLength: 5 }),
        fc.array(numberToken, { minLength: 1, maxLength: 2 }),
        fc.array(fc.nat(5), { minLength: 2, maxLength: 2 }),
        ws,
        fc.boolean(),
        (members, ids, positions, space, escapeKey) => {
          const parts: Array<{ text: string; id?: string }> = members
            .filter(([key]) => key !== "id")
            .map(([key, value]) => ({
              text: `${JSON.stringify(key)}${space}:${space}${JSON.stringify(value)}`,
            }));
          const key = escapeKey ? '"\\u0069d"' : '"id"';
          ids.forEach((token, n) => {
            const at = Math.min(positions[n] ?? 0, parts.length);
            parts.splice(at, 0, { text: `${key}${space}:${space}${token}`, id: token });
          });
          const body = parts.map((part) => part.text).join(`${space},${space}`);
          const line = `${space}{${space}${body}${space}}${space}`;
          expect(() => JSON.parse(line)).not.toThrow();
          // The last id member in text order is the one JSON.parse keeps.
          const last = parts.filter((part) => part.id !== undefined).at(-1)?.id;
          expect(idToken(line)).toBe(last);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("null without a top-level id, and for a line that is not an object", () => {
    expect(idToken('{"jsonrpc":"2.0","params":{"id":3},"method":"m"}')).toBeNull();
    expect(idToken('{"a":"\\"id\\":4"}')).toBeNull();
    expect(idToken("[1]")).toBeNull();
    expect(idToken('{"id":"x\\\\","b":1}')).toBe('"x\\\\"');
  });

  test("the tail fast path (id written last, as the Python binding does) never takes a nested id", () => {
    expect(idToken('{"params":{"x":{"id":5}},"id":7}')).toBe("7");
    expect(idToken('{"params":{"x":{"id":5}},"id" :\n-7.5e+3 }\n')).toBe("-7.5e+3");
    expect(idToken('{"a":{"b":1,"id":5}}')).toBeNull();
    expect(idToken('{"id":1,"p":{"id":2}}')).toBe("1");
    const quoted = String.raw`{"id":1,"p":"\",\"id\":2}"}`;
    expect(JSON.parse(quoted)).toEqual({ id: 1, p: '","id":2}' });
    expect(idToken(quoted)).toBe("1");
    expect(idToken(`{"p":"${"x".repeat(200)}","id":${"9".repeat(120)}}`)).toBe("9".repeat(120));
  });
});
