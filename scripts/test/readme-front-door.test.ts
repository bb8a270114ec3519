/**
 * The README is the front door and the reference lives in docs/ (issue 34 item 9): README.md
 * stays short, links every docs/*.md file, keeps the test command CI runs, and no relative link
 * in README.md or docs/*.md points at a file that does not exist (anchors are not checked).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { checkLinkTarget, findLocalLinks } from "../capabilities/links.js";

const root = path.resolve(import.meta.dirname, "../..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const docsFiles = fs
  .readdirSync(path.join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .sort();

/** The files a Markdown file links to, as repository-relative paths (anchors dropped). */
function linkedFiles(file: string): Set<string> {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const dir = path.dirname(path.join(root, file));
  return new Set(
    findLocalLinks(text).map((link) =>
      path.relative(root, path.resolve(dir, decodeURIComponent(link.target.replace(/#.*$/, "")))),
    ),
  );
}

describe("README front door", () => {
  test("README.md has at most 250 lines", () => {
    const lines = readme.endsWith("\n") ? readme.split("\n").length - 1 : readme.split("\n").length;
    expect(lines).toBeLessThanOrEqual(250);
  });

  test("README.md keeps the test command CI runs", () => {
    expect(readme).toContain("\n./scripts/dev test ");
  });

  test("README.md links every docs/*.md file", () => {
    const linked = linkedFiles("README.md");
    expect(docsFiles.filter((name) => !linked.has(`docs/${name}`))).toEqual([]);
  });

  test("docs/README.md links every other docs/*.md file", () => {
    const linked = linkedFiles("docs/README.md");
    expect(docsFiles.filter((name) => name !== "README.md" && !linked.has(`docs/${name}`))).toEqual(
      [],
    );
  });

  test("every relative link in README.md and docs/*.md resolves to a file in the repository", () => {
    const problems: string[] = [];
    for (const file of ["README.md", ...docsFiles.map((name) => `docs/${name}`)]) {
      const text = fs.readFileSync(path.join(root, file), "utf8");
      for (const link of findLocalLinks(text)) {
        const problem = checkLinkTarget(root, path.dirname(path.join(root, file)), link.target);
        if (problem) problems.push(`${file}:${link.line}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
