// zod schemas, exported from the "@turngate/core/schemas" subpath (kept out of the main API).
// scripts/gen-json-schema.ts writes every export named `*Schema` to packages/core/schema/.
export {};
