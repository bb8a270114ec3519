/**
 * Where `turngate run` and `turngate verify` keep the view of each turn, for `turngate show`
 * (issue 21): `<state>/views/last.json` (the last turn) and `<state>/views/<effect
 * digest>.json` (a turn that changed something). A view is a display, not evidence: `turngate
 * proof verify` checks a proof; an agent that edits a stored view changes what `show` prints,
 * never the gate.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TurngateValidationError, type TurnView } from "@turngate/core";
import { TurnViewSchema } from "@turngate/core/schemas";
import { writeJsonAtomic } from "@turngate/node";

/** `<state dir>/views`. */
export function viewsDir(stateDir: string): string {
  return join(stateDir, "views");
}

/**
 * Write `view` as `views/last.json` and, when its digest is not empty,
 * `views/<digest>.json` (atomic writes, folders created). Errors: the `fs` error.
 */
export async function storeView(stateDir: string, view: TurnView): Promise<void> {
  const dir = viewsDir(stateDir);
  if (view.effect_digest !== "")
    await writeJsonAtomic(join(dir, `${view.effect_digest}.json`), view);
  await writeJsonAtomic(join(dir, "last.json"), view);
}

/**
 * Parse a stored or given view file's JSON. Errors: `TurngateValidationError` naming the file
 * and the first bad field.
 */
export function parseViewJson(value: unknown, file: string): TurnView {
  const parsed = TurnViewSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new TurngateValidationError(`turn view ${file}`, [
    { path: issue?.path.join(".") ?? "", message: issue?.message ?? "not a turngate.turn_view.v1" },
  ]);
}

/** The stored view `views/<name>.json`, or undefined when there is none. Errors: a bad file. */
export function readStoredView(stateDir: string, name: string): TurnView | undefined {
  const file = join(viewsDir(stateDir), `${name}.json`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return parseViewJson(JSON.parse(text), file);
}

/**
 * The full digests in `dir` (files `<64 hex>.json`) that start with `prefix`. Used to
 * resolve `turngate show <digest prefix>`.
 */
export function digestsWithPrefix(dir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => /^[0-9a-f]{64}\.json$/.test(name) && name.startsWith(prefix))
    .map((name) => name.slice(0, 64))
    .sort();
}
