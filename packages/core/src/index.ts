// @turngate/core — pure TypeScript: schemas, ledger, digest, gate, reports, facts.
// No `node:` imports: this package runs unchanged in Node, a browser and Pyodide's JS host.
export const CORE_VERSION = "0.1.0";
