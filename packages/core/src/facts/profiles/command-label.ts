/** The HUD's command label (harn-verification.md §4.2). */
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "../../ledger/json.js";
import { invalid } from "../../validate.js";
import { display, isDict, isNil, rustTrim } from "../harn-values.js";

/**
 * nil → `""`; a string → trimmed; a dict with a non-blank `command` → it, trimmed; a dict
 * with an `argv` (or `args`) list → its items' display strings joined by one space,
 * trimmed; anything else → its compact JSON text, trimmed (a bare argv list prints as JSON).
 * Throws `TurngateValidationError` (path `command`) when that JSON text cannot be written:
 * a value nested deeper than `MAX_JSON_DEPTH` (512) levels or holding itself, a BigInt.
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
  if (exceedsJsonDepth(command)) {
    invalid("command label", "command", `nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(command);
  } catch (error) {
    const why = error instanceof Error ? error.message : "its toJSON threw";
    invalid("command label", "command", `is not JSON: ${why}`);
  }
  return rustTrim(json ?? "");
}
