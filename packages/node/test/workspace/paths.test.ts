import { describe, expect, test } from "vitest";
import { isHarnessEntry, isHarnessPath, normalizeRelativePath } from "../../src/workspace/index.js";

describe("workspace path normalisation", () => {
  test("normalizeRelativePath: no leading './', NFC, '\\' converted only on Windows", () => {
    expect(normalizeRelativePath("./././src\\lib\\a.ts", "\\")).toBe("src/lib/a.ts");
    expect(normalizeRelativePath("./src/back\\slash.ts", "/")).toBe("src/back\\slash.ts");
    expect(normalizeRelativePath("cafe\u0301/x")).toBe("caf\u00e9/x");
    expect(normalizeRelativePath("with space.txt")).toBe("with space.txt");
  });

  test("isHarnessPath: .git at any depth; .turngate, .a3s, .a3s-code only as the first segment", () => {
    expect(isHarnessPath(".git")).toBe(true);
    expect(isHarnessPath(".git/info/exclude")).toBe(true);
    expect(isHarnessPath("vendor/lib/.git/HEAD")).toBe(true);
    expect(isHarnessPath("vendor/.git")).toBe(true);
    expect(isHarnessPath(".turngate/logs/x.log")).toBe(true);
    expect(isHarnessPath(".a3s")).toBe(true);
    expect(isHarnessPath(".a3s-code/state.json")).toBe(true);
    expect(isHarnessPath("pkg/.a3s/state")).toBe(false);
    expect(isHarnessPath("pkg/.a3s-code")).toBe(false);
    expect(isHarnessPath("src/.turngate/y.js")).toBe(false);
    expect(isHarnessPath(".gitignore")).toBe(false);
    expect(isHarnessPath(".a3s-codex/x")).toBe(false);
    expect(isHarnessPath("docs/.github/x.yml")).toBe(false);
    expect(isHarnessPath("my.git/x")).toBe(false);
  });

  test("isHarnessEntry: .git in any directory, the other names only in the root", () => {
    expect(isHarnessEntry("", ".git")).toBe(true);
    expect(isHarnessEntry("src/deep", ".git")).toBe(true);
    expect(isHarnessEntry("", ".turngate")).toBe(true);
    expect(isHarnessEntry("", ".a3s")).toBe(true);
    expect(isHarnessEntry("", ".a3s-code")).toBe(true);
    expect(isHarnessEntry("src", ".turngate")).toBe(false);
    expect(isHarnessEntry("src", ".a3s")).toBe(false);
    expect(isHarnessEntry("", ".gitignore")).toBe(false);
  });
});
