/**
 * The shape of one method-table entry (docs/design.md §5): zod params and result schemas, a
 * description, and the handler. The table is the single source of truth — the dispatcher
 * validates params with `params`, tests validate results with `result`, and
 * `schema/protocol.json` is generated from both.
 */
import type * as z from "zod";

/** What every handler may use besides its params. */
export interface MethodContext {
  /** JSON-RPC id of the request being served; null for in-process calls. */
  readonly requestId: string | number | null;
  /** Sends a server→client notification (a no-op when there is no client). */
  notify(method: string, params: Record<string, unknown>): void;
  /** Names of the methods this endpoint serves (what `initialize` reports), sorted. */
  readonly methods: readonly string[];
  /** Asks the endpoint to stop after this reply (`shutdown`); a no-op in-process. */
  requestShutdown(): void;
  /**
   * The SHA-256 the endpoint gives hashing methods (`ledger.digest`): lowercase 64-hex of
   * the UTF-8 bytes of `text`, a lone surrogate as U+FFFD. The stdio server passes
   * `node:crypto`'s (OpenSSL; issue #17 item 5); absent (in-process, Pyodide) the methods use
   * core's pure `@noble/hashes` one. Both give the same digest for every text.
   */
  readonly sha256Hex?: (text: string) => string;
}

/** One method: `handler` receives params already validated (defaults applied). */
export interface MethodSpec<
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  C extends MethodContext = MethodContext,
> {
  readonly description: string;
  readonly params: P;
  readonly result: R;
  handler(params: z.output<P>, ctx: C): z.output<R> | Promise<z.output<R>>;
}

/** A method table: wire name ("ledger.digest") → entry. */
// biome-ignore lint/suspicious/noExplicitAny: a table holds entries of differing schemas.
export type MethodTable<C extends MethodContext = any> = Readonly<
  // biome-ignore lint/suspicious/noExplicitAny: see above.
  Record<string, MethodSpec<any, any, C>>
>;

/**
 * Declares one method entry; exists only so TypeScript infers the handler's param and result
 * types from the schemas. Returns its argument unchanged.
 */
export function defineMethod<P extends z.ZodType, R extends z.ZodType, C extends MethodContext>(
  spec: MethodSpec<P, R, C>,
): MethodSpec<P, R, C> {
  return spec;
}
