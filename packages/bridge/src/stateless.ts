/**
 * The stateless part of the method table: methods that need only `@turngate/core`.
 * Pure (no `node:` imports, no `@turngate/node`), so the Pyodide transport can serve the
 * same table in-process.
 */
import type { MethodTable } from "./method.js";
import { cacheMethods } from "./methods/cache.js";
import { evidenceMethods } from "./methods/evidence.js";
import { factsMethods } from "./methods/facts.js";
import { affectedPureMethods } from "./methods/facts-affected-pure.js";
import { factsProfileMethods } from "./methods/facts-profiles.js";
import { factsTestResultsMethods } from "./methods/facts-test-results.js";
import { gateMethods } from "./methods/gate.js";
import { ledgerMethods } from "./methods/ledger.js";
import { lifecycleMethods } from "./methods/lifecycle.js";
import { reportMethods } from "./methods/report.js";
import { verificationMethods } from "./methods/verification.js";
import { waiverMethods } from "./methods/waiver.js";

/**
 * Merges namespace tables into one, refusing a name defined twice.
 * @throws Error naming the duplicated method.
 */
export function mergeTables(...tables: MethodTable[]): MethodTable {
  const out: Record<string, MethodTable[string]> = {};
  for (const table of tables) {
    for (const [name, spec] of Object.entries(table)) {
      if (Object.hasOwn(out, name)) throw new Error(`duplicate bridge method: ${name}`);
      out[name] = spec;
    }
  }
  return out;
}

/**
 * `base` with each method of `overrides` replaced by the override's entry (a server-side
 * version of a stateless method, e.g. one that may also read files).
 * @throws Error naming an override that `base` does not define.
 */
export function overrideMethods(base: MethodTable, overrides: MethodTable): MethodTable {
  const out: Record<string, MethodTable[string]> = { ...base };
  for (const [name, spec] of Object.entries(overrides)) {
    if (!Object.hasOwn(base, name)) throw new Error(`no bridge method ${name} to override`);
    out[name] = spec;
  }
  return out;
}

/** `initialize`, `shutdown` and every method that needs only `@turngate/core`. */
export const statelessTable: MethodTable = mergeTables(
  lifecycleMethods,
  ledgerMethods,
  gateMethods,
  reportMethods,
  verificationMethods,
  waiverMethods,
  evidenceMethods,
  factsMethods,
  factsTestResultsMethods,
  factsProfileMethods,
  affectedPureMethods,
  cacheMethods,
);
