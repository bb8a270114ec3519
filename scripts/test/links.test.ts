import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { checkLinkTarget, findLocalLinks } from "../capabilities/links.js";

const parent = fs.mkdtempSync(path.join(os.tmpdir(), "tg-links-"));
const root = path.join(parent, "repo");
fs.mkdirSync(path.join(root, "docs"), { recursive: true });
fs.writeFileSync(path.join(root, "docs", "a b.md"), "x");
fs.writeFileSync(path.join(parent, "secret.md"), "x");
fs.symlinkSync(path.join(parent, "secret.md"), path.join(root, "docs", "link.md"));
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

describe("ledger links", () => {
  test("finds local inline, angle-bracket, image and reference links outside code", () => {
    const md = [
      '[a](docs/a.md) and ![img](<img/x y.png> "title") and [web](https://x.y) [m](mailto:a@b)',
      "`[not](code.md)` [frag](#top) [q](b.md?raw=1#L2)",
      "```",
      "[fenced](fenced.md)",
      "```",
      "[ref]: refs/r.md",
    ].join("\n");
    expect(findLocalLinks(md)).toEqual([
      { line: 1, target: "docs/a.md" },
      { line: 1, target: "img/x y.png" },
      { line: 2, target: "b.md?raw=1#L2" },
      { line: 6, target: "refs/r.md" },
    ]);
  });

  test("resolves inside the repository, decoding and dropping fragments", () => {
    expect(checkLinkTarget(root, root, "docs/a%20b.md#L1")).toBeUndefined();
    expect(checkLinkTarget(root, root, "/docs")).toBeUndefined();
    expect(checkLinkTarget(root, root, "docs/missing.md")).toBe(
      "link target does not exist: docs/missing.md",
    );
    expect(checkLinkTarget(root, root, "../secret.md")).toBe(
      "link escapes the repository: ../secret.md",
    );
    expect(checkLinkTarget(root, root, "/../secret.md")).toBe(
      "link escapes the repository: /../secret.md",
    );
    expect(checkLinkTarget(root, root, "docs/link.md")).toBe(
      "link escapes the repository: docs/link.md",
    );
    expect(checkLinkTarget(root, root, "docs/%E0%A4%A.md")).toBe(
      "link target is not valid percent-encoding: docs/%E0%A4%A.md",
    );
  });
});
