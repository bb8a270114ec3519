import { hudText, ladderPlan, recordCheckResult } from "@turngate/core";

// Three checks of a TypeScript repo, cheapest first once timed.
let profiles: unknown = {
  schemaVersion: 1,
  rows: [
    { id: "typecheck", check: { rung: "R1", command: "tsc --noEmit", resourceClass: "cheap" } },
    { id: "unit", scope: { dir: "src/**" }, check: { rung: "R2", command: "vitest run" } },
    { id: "e2e", check: { rung: "R4", command: "playwright test", resourceClass: "heavy" } },
  ],
};
// Three turns: each check's exit and duration (ms) as the command runner reported them.
const turns = [
  { typecheck: [0, 4200], unit: [1, 9100], e2e: [0, 95000] },
  { typecheck: [0, 3900], unit: [0, 8700], e2e: [0, 91000] },
  { typecheck: [0, 4100], unit: [0, 8800], e2e: [1, 99000] },
];
const t0 = Date.UTC(2026, 4, 1, 9, 0, 0);
turns.forEach((turn, i) => {
  for (const [id, [exit, ms]] of Object.entries(turn)) {
    const result = { exit_code: exit, duration_ms: ms, stderr: exit ? `${id} failed` : "" };
    profiles = recordCheckResult(id, result, { profiles, now_ms: t0 + i * 600_000 }).profiles;
  }
});

const plan = ladderPlan({ path: "src/app.ts" }, { profiles });
for (const e of plan.selected) console.log(e.rung, e.row_id.padEnd(9), `p95 ${e.p95_ms} ms`);

const now = t0 + 2 * 600_000 + 45_000;
console.log(
  hudText(
    {
      started_ms: t0 + 2 * 600_000,
      last_edit_ms: now - 20_000,
      path: "src/app.ts",
      last_check: {
        rung: "R4",
        verdict: "failed",
        at_ms: now - 30_000,
        bound_snapshot: { "src/app.ts": "1" },
      },
      current_hashes: { "src/app.ts": "2" },
    },
    { profiles, now_ms: now },
  ),
);
