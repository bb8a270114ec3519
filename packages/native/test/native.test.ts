/**
 * `@turngate/native` (issue 10, "Child subreaper"): the built addon toggles this process's
 * child-subreaper attribute, reaps only the pid it is given, and the loader reports an
 * absent addon (`available: false`, `reason`, typed error) instead of failing to import.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const native = createRequire(import.meta.url)("../index.js") as typeof import("../index.js");

describe("@turngate/native", () => {
  test("the addon is built and loads on this platform", () => {
    expect({ available: native.available, reason: native.reason }).toEqual({
      available: true,
      reason: null,
    });
  });

  test("setChildSubreaper turns PR_SET_CHILD_SUBREAPER on and off and returns the previous state", () => {
    expect(native.isChildSubreaper()).toBe(false);
    expect(native.setChildSubreaper(true)).toBe(false);
    expect(native.isChildSubreaper()).toBe(true);
    expect(native.setChildSubreaper(false)).toBe(true);
    expect(native.isChildSubreaper()).toBe(false);
  });

  test("reapChild waits only for the pid it is given: not_child for another process, a typed error for pid 0", () => {
    expect(native.reapChild(process.ppid)).toEqual({ state: "not_child" });
    expect(() => native.reapChild(0)).toThrow("pid: must be a positive integer");
  });

  test("without the built addon the loader reports why and every function throws ERR_TURNGATE_NATIVE_UNAVAILABLE", () => {
    const script = `const n = require(${JSON.stringify(join(here, "../index.js"))});
let code = null; try { n.setChildSubreaper(true); } catch (e) { code = e.code + ": " + e.message; }
console.log(JSON.stringify({ available: n.available, reason: n.reason, code }));`;
    const out = spawnSync(process.execPath, ["-e", script], {
      env: { ...process.env, TURNGATE_NATIVE_DISABLE: "1" },
      encoding: "utf8",
    });
    expect(JSON.parse(out.stdout)).toEqual({
      available: false,
      reason: "disabled by TURNGATE_NATIVE_DISABLE=1",
      code: "ERR_TURNGATE_NATIVE_UNAVAILABLE: @turngate/native is unavailable: disabled by TURNGATE_NATIVE_DISABLE=1",
    });
  });
});
