/**
 * Files over 2 GiB hash by streaming (issue 10 "Hash files by streaming"): reading one whole
 * failed with `ERR_FS_FILE_TOO_LARGE`. A sparse 2200 MiB file (`truncate -s 2200M`, no disk
 * used) is observed by the session and re-hashed by `verifyTurnProof`; both give the
 * SHA-256 of 2200 MiB of zero bytes, a constant computed once with `sha256sum`.
 */
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { effectDigest } from "@turngate/core";
import { describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { verifyTurnProof } from "../../src/session/proof-verify.js";
import { Session } from "../../src/session/session.js";
import { tempDir } from "../runner/helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(180_000), hookTimeout: testTimeout(180_000) });

/** `truncate -s 2200M zeros && sha256sum zeros` */
const ZEROS_2200_MIB_SHA256 = "c4b8c0f7000ac9d6e28912c7a9efa49f8fd305de518d4d72dcb131118bfe1a8b";

describe("streaming hashes of a file over 2 GiB", () => {
  test("a sparse 2200 MiB file is observed and its proof row re-hashed with the exact SHA-256", async () => {
    const dir = await tempDir("large");
    try {
      const root = realpathSync(dir.path);
      const session = await Session.start({ root, useGit: false, recordTrees: false });
      execFileSync("truncate", ["-s", "2200M", join(root, "zeros.bin")]);
      const delta = await session.observeWorkspace();
      expect(delta.changes).toEqual([
        {
          path: "zeros.bin",
          change: "added",
          content_digest: ZEROS_2200_MIB_SHA256,
          scope: "source",
        },
      ]);
      const records = [
        { tool: "workspace", path: "zeros.bin", content_digest: ZEROS_2200_MIB_SHA256 },
      ];
      const digest = effectDigest(records);
      const terminal = { kind: "waived", effect_digest: digest } as const;
      const result = await verifyTurnProof(
        {
          schema: "turn_proof.v1",
          effect_digest: digest,
          records,
          reports: [],
          waivers_used: [{ effect_digest: digest, reason: "test" }],
          terminal,
          outcome: { kind: "allow", terminal },
          tool_versions: {},
          started_at: "2026-01-01T00:00:00Z",
          finished_at: "2026-01-01T00:00:01Z",
        },
        root,
      );
      expect(result.problems).toEqual([]);
      expect(result.rows).toEqual([
        {
          tool: "workspace",
          path: "zeros.bin",
          recorded: ZEROS_2200_MIB_SHA256,
          actual: ZEROS_2200_MIB_SHA256,
          status: "match",
        },
      ]);
    } finally {
      await dir.cleanup();
    }
  });
});
