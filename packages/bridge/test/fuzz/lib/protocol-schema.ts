/**
 * JSON-Schema checks against the published protocol (packages/bridge/schema/protocol.json):
 * every successful result must validate against its method's result schema (ajv, draft
 * 2020-12), and every error must carry a documented `data.code` and a field path that
 * names a field of the params as sent (issue #11 §1).
 */
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

interface ProtocolDoc {
  methods: Record<string, { params: object; result: object; description: string }>;
  error_codes: Record<string, { rpc_code: number; description: string }>;
}

/** The checked-in protocol document. */
export const PROTOCOL: ProtocolDoc = JSON.parse(
  readFileSync(new URL("../../../schema/protocol.json", import.meta.url), "utf8"),
);

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/i;
const ajv = new Ajv2020({ strict: false, allErrors: false, formats: { "date-time": RFC3339 } });
const results = new Map<string, ValidateFunction>();

/**
 * Checks a successful result of `method` against protocol.json.
 * @returns null when it validates, else the first ajv error as "instancePath: message".
 * @throws Error for a method protocol.json does not list.
 */
export function resultProblem(method: string, result: unknown): string | null {
  let validate = results.get(method);
  if (validate === undefined) {
    const spec = PROTOCOL.methods[method];
    if (!spec) throw new Error(`protocol.json has no method ${method}`);
    validate = ajv.compile(spec.result);
    results.set(method, validate);
  }
  if (validate(result)) return null;
  const e = validate.errors?.[0];
  return `${e?.instancePath || "(root)"}: ${e?.message ?? "invalid"} ${JSON.stringify(e?.params ?? {})}`;
}

/** The documented `data.code` values. */
export const DOCUMENTED_CODES = new Set(Object.keys(PROTOCOL.error_codes));

/**
 * True when the dotted wire `path` names a field of `params` as sent. Keys may hold dots
 * themselves, so each step tries every own key that prefixes the rest of the path. With
 * `allowMissing(key)` true, the last member may be absent from an object (a required field
 * left out).
 * "" is the params object itself. Iterative over the path, recursive only over keys that
 * contain dots.
 */
export function pathResolves(
  params: unknown,
  path: string,
  allowMissing: (key: string) => boolean = () => false,
): boolean {
  if (path === "") return true;
  const step = (node: unknown, rest: string): boolean => {
    if (Array.isArray(node)) {
      const m = /^(0|[1-9]\d*)(?:\.|$)/.exec(rest);
      if (!m) return false;
      const i = Number(m[1]);
      if (i >= node.length) return false;
      const tail = rest.slice((m[1] as string).length + 1);
      return tail === "" && rest.length === (m[1] as string).length ? true : step(node[i], tail);
    }
    if (typeof node !== "object" || node === null) return false;
    if (Object.hasOwn(node, rest)) return true;
    for (const key of Object.keys(node)) {
      if (
        rest.startsWith(`${key}.`) &&
        step((node as Record<string, unknown>)[key], rest.slice(key.length + 1))
      ) {
        return true;
      }
    }
    return allowMissing(rest);
  };
  return step(params, path);
}

/**
 * True when `path` lies under a top-level params member that `method`'s params schema leaves
 * opaque (`{}`: any JSON) and that member is present in `params`.
 */
function underOpaqueMember(method: string, params: unknown, path: string): boolean {
  const props = (PROTOCOL.methods[method]?.params as { properties?: Record<string, unknown> })
    ?.properties;
  if (typeof props !== "object" || props === null) return false;
  const dot = path.indexOf(".");
  const member = dot < 0 ? path : path.slice(0, dot);
  const schema = props[member];
  if (typeof schema !== "object" || schema === null || Object.keys(schema).length > 0) return false;
  return typeof params === "object" && params !== null && Object.hasOwn(params, member);
}

const declaredCache = new Map<string, Set<string>>();

/** Every property name declared anywhere in `method`'s params schema (its wire names). */
export function declaredNames(method: string): Set<string> {
  let names = declaredCache.get(method);
  if (names !== undefined) return names;
  names = new Set<string>();
  const todo: unknown[] = [PROTOCOL.methods[method]?.params];
  while (todo.length > 0) {
    const node = todo.pop();
    if (Array.isArray(node)) todo.push(...node);
    else if (typeof node === "object" && node !== null) {
      const props = (node as { properties?: unknown }).properties;
      if (typeof props === "object" && props !== null)
        for (const k of Object.keys(props)) names.add(k);
      todo.push(...Object.values(node));
    }
  }
  declaredCache.set(method, names);
  return names;
}

/** A wire error as the bridge sends it. */
export interface WireErrorShape {
  code: number;
  message: string;
  data: { code: string; path?: string; message: string };
}

/**
 * The problem with an error answer to `params`, or null when it is well-formed: a
 * documented code other than internal_error, the JSON-RPC number of the table, a message,
 * `invalid_params` with a path, and a path that resolves in `params`.
 * `text`-pathed parser errors (`diagnostic_parse_error`) resolve too: `text` is a param.
 */
export function errorProblem(
  method: string,
  params: unknown,
  error: WireErrorShape,
): string | null {
  const { data } = error;
  if (!data || typeof data.code !== "string") return "error without data.code";
  if (!DOCUMENTED_CODES.has(data.code)) return `undocumented data.code ${data.code}`;
  if (data.code === "internal_error") return `internal_error: ${data.message}`;
  const rpc = PROTOCOL.error_codes[data.code]?.rpc_code;
  if (rpc !== error.code)
    return `data.code ${data.code} with JSON-RPC code ${error.code}, not ${rpc}`;
  if (typeof error.message !== "string" || error.message === "") return "empty message";
  if (data.code === "invalid_params" && data.path === undefined)
    return "invalid_params without path";
  // Envelope errors name a member of the request object, not of params.
  if (data.code === "invalid_request") {
    const envelope = ["jsonrpc", "id", "method", "params"];
    return data.path === undefined || envelope.includes(data.path)
      ? null
      : `invalid_request at ${data.path}`;
  }
  // A member left out is named by its wire name: one the params schema declares. Under an
  // opaque member (schema `{}`, e.g. cache.key's `input`, passed to core verbatim, so no
  // name is translated) core names the missing field: the member itself must have been sent.
  const declared = declaredNames(method);
  if (data.path !== undefined && underOpaqueMember(method, params, data.path)) return null;
  if (data.path !== undefined && !pathResolves(params, data.path, (k) => declared.has(k))) {
    return `path ${JSON.stringify(data.path)} names no field of the params sent`;
  }
  return null;
}
