import * as z from "zod";

/**
 * One mutation-ledger row, A3S §1.8: the lowercased tool name (or `"workspace"` /
 * `"task"`), the workspace-relative path as observed, and its content digest (lowercase
 * 64-hex SHA-256, `""` when unknown, `DELETED_CONTENT_DIGEST` for a deleted file).
 */
export const MutationRecordSchema = z
  .object({
    tool: z.string(),
    path: z.string(),
    content_digest: z.string(),
  })
  .describe("Mutation ledger row (A3S §1.8).");

export type MutationRecord = z.output<typeof MutationRecordSchema>;

/**
 * A background writer that shares the workspace and has not been observed yet, A3S §1.8 /
 * §2.4. `porcelain` and `head` are the git snapshot taken when it started (if any);
 * `nongit` marks a child started in a non-git workspace.
 */
export const OpenWorkspaceChildSchema = z
  .object({
    task_id: z.string().regex(/\S/, { message: "must not be blank" }),
    porcelain: z.array(z.string()).optional(),
    head: z.string().optional(),
    nongit: z.boolean().optional(),
  })
  .describe("Open workspace child (A3S §1.8).");

export type OpenWorkspaceChild = z.output<typeof OpenWorkspaceChildSchema>;

/**
 * The serialisable state of a `MutationLedger` (`toJSON` / `fromJSON`): rows in canonical
 * order, the effect digest over them (`""` when empty), open children (omitted when none)
 * and the incomplete-observation flag (omitted when false).
 */
export const LedgerSnapshotSchema = z
  .object({
    records: z.array(MutationRecordSchema),
    digest: z.string(),
    open_children: z.array(OpenWorkspaceChildSchema).optional(),
    observation_incomplete: z.boolean().optional(),
  })
  .describe("Mutation ledger snapshot.");

export type LedgerSnapshot = z.output<typeof LedgerSnapshotSchema>;
