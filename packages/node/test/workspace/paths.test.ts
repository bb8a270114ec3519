import { describe, expect, test } from "vitest";
import { isHarnessPath, normalizeRelativePath } from "../../src/workspace/index.js";

describe("workspace path normalisation", () => {
  test("normalizeRelativePath: no leading './', NFC, '\\' converted only on Windows", () => {
    expect(normalizeRelativePath("./././src\\lib\\a.ts", "\\")).toBe("src/lib/a.ts");
    expect(normalizeRelativePath("./src/back\\slash.ts", "/")).toBe("src/back\\slash.ts");
    expect(normalizeRelativePath("cafe\u0301/x")).toBe("caf\u00e9/x");
    expect(normalizeRelativePath("with space.txt")).toBe("with space.txt");
  });

  test("isHarnessPath: .git, .turngate, .a3s, .a3s-code as any segment", () => {
    expect(isHarnessPath(".git")).toBe(true);
    expect(isHarnessPath(".turngate/logs/x.log")).toBe(true);
    expect(isHarnessPath("pkg/.a3s/state")).toBe(true);
    expect(isHarnessPath("pkg/.a3s-code")).toBe(true);
    expect(isHarnessPath(".gitignore")).toBe(false);
    expect(isHarnessPath("docs/.github/x.yml")).toBe(false);
    expect(isHarnessPath("my.git/x")).toBe(false);
  });
});
