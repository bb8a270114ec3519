/**
 * The record of the last turn chain turngate wrote for a state folder (docs/cli.md "Gapless
 * turns", docs/design.md §3b "Gapless turns"): `chain-record.json` beside the chain's entries files, outside the workspace
 * (`snapshotStoreDir`), holding the SHA-256 of the chain file's bytes and when its turn
 * ended. With it, a chain that was removed (an agent's `rm -rf .turngate` in the turn that
 * broke the code) or replaced (a chain a nested `turngate run --state-dir` wrote, copied in)
 * is refused instead of read as a first run or as turngate's own: the next turn cannot start
 * over silently. A state folder without a record (chains written before it, another cache
 * folder) reads its chain as before.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@turngate/node";
import * as z from "zod";

/** The record's file name in the chain's entries folder. */
export const CHAIN_RECORD_FILE = "chain-record.json";

const RecordSchema = z.object({
  schema: z.literal("turngate.turn-chain-record.v1"),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  ended_at: z.string(),
});

/** What the record says about the last chain written. */
export interface ChainRecord {
  /** SHA-256 (hex) of the chain file's bytes. */
  sha256: string;
  /** When that chain's turn ended (ISO 8601). */
  endedAt: string;
}

/** The SHA-256 (hex) of a chain file's text, as the record holds it. Pure. */
export function chainTextDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Write the record of the chain text `text` (turn ended `endedAt`) into `dir` (the chain's
 * entries folder, created when missing), atomically. Errors: the `fs` error of the write.
 */
export async function writeChainRecord(dir: string, text: string, endedAt: string): Promise<void> {
  const record = {
    schema: "turngate.turn-chain-record.v1",
    sha256: chainTextDigest(text),
    ended_at: endedAt,
  };
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, CHAIN_RECORD_FILE), `${JSON.stringify(record)}\n`);
}

/**
 * The record in `dir`, or undefined when there is none or it cannot be read as one (a
 * record is evidence only when intact; a damaged one is treated as absent). Never throws.
 */
export async function readChainRecord(dir: string): Promise<ChainRecord | undefined> {
  try {
    const parsed = RecordSchema.safeParse(
      JSON.parse(await readFile(join(dir, CHAIN_RECORD_FILE), "utf8")),
    );
    return parsed.success
      ? { sha256: parsed.data.sha256, endedAt: parsed.data.ended_at }
      : undefined;
  } catch {
    return undefined;
  }
}
