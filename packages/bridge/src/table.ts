/**
 * The full bridge method table served by the stdio server: `initialize`, `shutdown`, the
 * stateless methods (the pure `facts.*` among them), the `session.*` methods and
 * `facts.file_hash_snapshot`, the profile store behind `store_dir` of the profile, ladder
 * and HUD methods, and the signed-proof methods (`session.signed_proof`,
 * `proof.verify`). `schema/protocol.json` is generated from it. Namespaces join
 * through `mergeTables`, which rejects duplicates.
 */
import type { MethodTable } from "./method.js";
import { affectedFactsMethods } from "./methods/facts-affected.js";
import { factsCheckMethods } from "./methods/facts-checks.js";
import { nodeFactsMethods } from "./methods/facts-node.js";
import { factsProfileStoreMethods } from "./methods/facts-profiles-store.js";
import { proofMethods } from "./methods/proof.js";
import { type SessionContext, sessionMethods } from "./methods/session.js";
import { mergeTables, overrideMethods, statelessTable } from "./stateless.js";

/** What every server-side handler receives. */
export type ServerContext = SessionContext;

/** Every method the stdio server serves, by wire name. */
export const bridgeTable: MethodTable<ServerContext> = mergeTables(
  // The profile, ladder and HUD methods also read the profile store here (store_dir).
  overrideMethods(statelessTable, factsProfileStoreMethods),
  sessionMethods,
  nodeFactsMethods,
  proofMethods,
  factsCheckMethods,
  affectedFactsMethods,
);
