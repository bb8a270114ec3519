/**
 * Adapter command templates (harn-verification.md §1.3 steps 2–3, §2.12, §6.2): the
 * built-in bindings and the recursive rendering of a command spec.
 */
import { TurngateValidationError } from "../../errors.js";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "../../ledger/json.js";
import { type Dict, display, isDict, isNil } from "../harn-values.js";

function invalid(path: string, message: string): never {
  throw new TurngateValidationError("adapter template", [{ path, message }]);
}

/** Harn's `shell_quote` (§2.12): always single-quoted, each `'` written as `'"'"'`. */
export function shellQuote(value: unknown): string {
  const text = typeof value === "string" ? value : isNil(value) ? "" : display(value);
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

/**
 * Template context of one adapter: `options.template_context`, then the row's, then the
 * built-ins (which win): `changed_paths` (the list), `changed_paths_json` (compact JSON
 * of it), `changed_paths_space` (each path shell-quoted, joined by one space), `root`.
 */
export function adapterTemplateContext(
  changedPaths: readonly string[],
  root: string,
  ...extra: unknown[]
): Dict {
  if (!Array.isArray(changedPaths) || changedPaths.some((p) => typeof p !== "string")) {
    invalid("changed_paths", "must be a list of strings");
  }
  if (typeof root !== "string") invalid("root", "must be a string");
  const ctx: Dict = {};
  for (const e of extra) if (isDict(e)) Object.assign(ctx, e);
  ctx.changed_paths = [...changedPaths];
  ctx.changed_paths_json = JSON.stringify(changedPaths);
  ctx.changed_paths_space = changedPaths.map(shellQuote).join(" ");
  ctx.root = root;
  return ctx;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;

function lookup(ctx: Dict, path: string): { found: boolean; value?: unknown } {
  let cur: unknown = ctx;
  for (const part of path.split(".")) {
    if (!isDict(cur) || !Object.hasOwn(cur, part)) return { found: false };
    cur = cur[part];
  }
  return { found: true, value: cur };
}

/**
 * Renders `{{ name }}` and `{{ a.b }}` (whitespace inside the braces allowed) from `ctx`:
 * a string is inserted as is, another value as Harn displays it (`[a, b]`); a name that
 * does not resolve is left as written (§6.2). Nothing else of Harn's template language.
 */
export function renderTemplate(text: string, ctx: Dict): string {
  if (typeof text !== "string") invalid("text", "must be a string");
  if (!isDict(ctx)) invalid("context", "must be an object");
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    const hit = lookup(ctx, name);
    if (!hit.found) return whole;
    return typeof hit.value === "string" ? hit.value : display(hit.value);
  });
}

/**
 * Renders every string of `spec` at any depth (list items and dict values; dict keys are
 * untouched); other scalars are kept (§1.3 step 3). Returns a new value.
 */
export function renderSpec(spec: unknown, ctx: Dict): unknown {
  if (!isDict(ctx)) invalid("context", "must be an object");
  if (exceedsJsonDepth(spec)) invalid("spec", `is nested deeper than ${MAX_JSON_DEPTH} levels`);
  return renderValue(spec, ctx);
}

function renderValue(spec: unknown, ctx: Dict): unknown {
  if (typeof spec === "string") return renderTemplate(spec, ctx);
  if (Array.isArray(spec)) return spec.map((v) => renderValue(v, ctx));
  if (isDict(spec)) {
    const out: Dict = {};
    for (const [k, v] of Object.entries(spec)) out[k] = renderValue(v, ctx);
    return out;
  }
  return spec;
}
