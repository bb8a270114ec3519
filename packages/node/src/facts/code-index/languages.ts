/** Which files the code index reads imports from, by extension. */

/** A language whose imports the index reads. */
export type IndexLanguage = "typescript" | "javascript" | "python" | "go" | "rust";

const BY_EXT: Readonly<Record<string, IndexLanguage>> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
};

/** The language of a workspace path by its extension, or null (data, docs, config). */
export function languageOf(path: string): IndexLanguage | null {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  return BY_EXT[name.slice(dot + 1).toLowerCase()] ?? null;
}
