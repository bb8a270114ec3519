/** The HUD's command label (harn-verification.md §4.2). */
import { display, isDict, isNil, rustTrim } from "../harn-values.js";

/**
 * nil → `""`; a string → trimmed; a dict with a non-blank `command` → it, trimmed; a dict
 * with an `argv` (or `args`) list → its items' display strings joined by one space,
 * trimmed; anything else → its compact JSON text, trimmed (a bare argv list prints as JSON).
 */
export function commandLabel(command: unknown): string {
  if (isNil(command)) return "";
  if (typeof command === "string") return rustTrim(command);
  if (isDict(command)) {
    if (typeof command.command === "string" && rustTrim(command.command) !== "") {
      return rustTrim(command.command);
    }
    const argv = command.argv ?? command.args;
    if (Array.isArray(argv)) return rustTrim(argv.map((item) => display(item)).join(" "));
  }
  return rustTrim(JSON.stringify(command) ?? "");
}
