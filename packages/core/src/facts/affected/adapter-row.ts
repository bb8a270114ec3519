/** Reading one adapter row (harn-verification.md §1.3 "Adapter row fields"). */
import { type Dict, isDict, isNil, trimmedText } from "../harn-values.js";
import { DEFAULT_AFFECTED_PARSER_ID } from "./parsers/index.js";

/** An adapter row as read: the id, parser id, command spec (if any) and per-row options. */
export interface AdapterRow {
  id: string;
  parser_id: string;
  /** `spec ?? command`; undefined when the row has none (`not_configured`). */
  spec: unknown;
  template_context: Dict;
  command_options: Dict;
}

/**
 * `id` = trimmed `id ?? name`, else `adapter/<index>` (0-based); `parser_id` = trimmed
 * `parser_id ?? parser`, blank → `harn.targets_json.v1`; `spec` = `spec ?? command`;
 * `template_context` / `command_options` = the row's dicts (else `{}`). A row that is
 * not a dict reads as `{}`. Never throws.
 */
export function readAdapterRow(row: unknown, index: number): AdapterRow {
  const r: Dict = isDict(row) ? row : {};
  const at = Number.isSafeInteger(index) && index >= 0 ? index : 0;
  const id = trimmedText(r.id ?? r.name ?? "");
  const parser = trimmedText(r.parser_id ?? r.parser ?? "");
  const spec = isNil(r.spec) ? r.command : r.spec;
  return {
    id: id === "" ? `adapter/${at}` : id,
    parser_id: parser === "" ? DEFAULT_AFFECTED_PARSER_ID : parser,
    spec: isNil(spec) ? undefined : spec,
    template_context: isDict(r.template_context) ? r.template_context : {},
    command_options: isDict(r.command_options) ? r.command_options : {},
  };
}
