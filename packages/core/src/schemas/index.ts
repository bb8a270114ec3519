// zod schemas, exported from the "@turngate/core/schemas" subpath (kept out of the main API).
// scripts/gen-json-schema.ts writes every export named `*Schema` to packages/core/schema/.

export * from "../facts/profiles/schemas.js";
export * from "../facts/schemas.js";
export * from "./check.js";
export * from "./command.js";
export * from "./ledger.js";
export * from "./observation.js";
export * from "./outcome.js";
export * from "./perf-qualification.js";
export * from "./proof.js";
export * from "./report.js";
export * from "./signed-proof.js";
export * from "./status.js";
export * from "./summary.js";
export * from "./terminal.js";
export * from "./turn-view.js";
export * from "./waiver.js";
