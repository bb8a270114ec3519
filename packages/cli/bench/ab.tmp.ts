import { changeFifty, createVerifyRepo, TURNGATE_BIN } from "./verify-turn.bench.js";
import { runOk, timed } from "./lib/run.js";
const files = 20000;
const repo = process.env.AB_REPO ?? createVerifyRepo(files);
const rooms = `${repo}-rooms`;
const mode = process.env.AB_MODE ?? "in-place";
const pairs = Number(process.env.AB_PAIRS ?? 8);
const envA = { TURNGATE_ROOM_DIR: rooms, ...(JSON.parse(process.env.AB_A ?? "{}")) };
const envB = { TURNGATE_ROOM_DIR: rooms, ...(JSON.parse(process.env.AB_B ?? "{}")) };
let round = 1000;
const one = (env: Record<string,string>) => {
  runOk(process.execPath, [TURNGATE_BIN, "baseline"], repo, env);
  changeFifty(repo, files, round++);
  return timed(() => { const out = runOk(process.execPath, [TURNGATE_BIN, "verify", "--check", "true", "--isolation", mode], repo, env); if (!out.stdout.includes("verified: effect digest")) throw new Error(out.stdout); });
};
one(envA); one(envB);
const a: number[] = [], b: number[] = [];
for (let i = 0; i < pairs; i++) { if (i % 2) { a.push(one(envA)); b.push(one(envB)); } else { b.push(one(envB)); a.push(one(envA)); } }
const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
console.log(`${mode}: A median ${med(a).toFixed(0)} min ${Math.min(...a).toFixed(0)} | B median ${med(b).toFixed(0)} min ${Math.min(...b).toFixed(0)}`);
