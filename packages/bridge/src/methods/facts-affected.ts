/**
 * `facts.affected_targets` and `facts.code_index_changes_since` (server only: they run
 * adapter commands and read the workspace through `@turngate/node`; harn-verification.md
 * §1.3, §1.3.2, §6.1, docs/design.md §4).
 */
import { statSync } from "node:fs";
import { FILE_HASH_SNAPSHOT_MAX_PATHS } from "@turngate/core";
import { affectedTargets, detectAdapters, fileHashSnapshot, openCodeIndex } from "@turngate/node";
import * as z from "zod";
import { BridgeError } from "../errors.js";
import { defineMethod } from "../method.js";
import { AffectedTargetsFactSchema, CodeIndexChangesSchema } from "../wire/affected.js";
import { VerificationFileHashSnapshotSchema } from "../wire/facts.js";
import { jsonObject } from "../wire/json-object.js";

const Root = z
  .string()
  .min(1)
  .describe("workspace root: an existing directory, absolute or relative to the bridge's cwd");
const StateDir = z
  .string()
  .min(1)
  .optional()
  .describe("folder holding code-index.json; default <root>/.turngate");

/** Throws `invalid_params` (path `root`) unless `root` is an existing directory. */
function requireDirectory(root: string): void {
  let ok = false;
  try {
    ok = statSync(root).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok)
    throw new BridgeError("invalid_params", `root is not an existing directory: ${root}`, "root");
}

export const affectedFactsMethods = {
  "facts.affected_targets": defineMethod({
    description:
      "Which build/test targets a change touches, and why (harn-verification.md §1.3; docs/design.md §4). Runs each adapter row ({id|name, parser_id|parser, spec|command, template_context, command_options}; spec strings rendered with changed_paths, changed_paths_json, changed_paths_space (shell-quoted) and root) in root, one after another, and parses stdout with harn.targets_json.v1, harn.targets_lines.v1, cargo.metadata.v1, js.workspace_graph.v1, pnpm.workspace.v1 (no spec needed: reads pnpm-workspace.yaml) or go.list.v1. Every target has a reason: direct, dependent (with via), global_file, lockfile, unmapped or fallback; unmapped changed files are listed, never dropped; run_all says when every check should run. The code-index fallback (the changed file plus its importers, transitively) runs when no adapter gives a target, or with include_fallback. A failing command, a bad spec or garbage stdout is an adapter fact, never an error. Errors: invalid_params naming the field.",
    params: z.strictObject({
      root: Root,
      changed_paths: z
        .array(z.string())
        .describe(
          "changed workspace-relative paths; give a renamed or deleted file's old path too",
        ),
      adapters: z
        .array(jsonObject())
        .nullable()
        .default(null)
        .describe("adapter rows; null: the rows detect_adapters finds (pnpm, cargo, go)"),
      fallback: z.boolean().default(true).describe("false disables the code-index fallback"),
      include_fallback: z.boolean().default(false),
      fail_on_adapter_error: z.boolean().default(false),
      global_files: z
        .array(z.string())
        .optional()
        .describe("extra root config globs (Harn match_name) whose change affects every target"),
      template_context: jsonObject().optional(),
      command_options: jsonObject().optional().describe("timeout_ms (ms) of each command"),
      use_code_index: z
        .boolean()
        .default(true)
        .describe("open (build or refresh) the code index in state_dir for the fallback"),
      state_dir: StateDir,
    }),
    result: AffectedTargetsFactSchema,
    handler: async (p) => {
      requireDirectory(p.root);
      const codeIndex = p.use_code_index
        ? (await openCodeIndex(p.root, p.state_dir !== undefined ? { stateDir: p.state_dir } : {}))
            .index
        : null;
      const fact = await affectedTargets(p.changed_paths, p.adapters ?? detectAdapters(p.root), {
        root: p.root,
        fallback: p.fallback,
        include_fallback: p.include_fallback,
        fail_on_adapter_error: p.fail_on_adapter_error,
        ...(p.global_files !== undefined ? { global_files: p.global_files } : {}),
        ...(p.template_context !== undefined ? { template_context: p.template_context } : {}),
        ...(p.command_options !== undefined ? { command_options: p.command_options } : {}),
        codeIndex,
      });
      return fact as z.output<typeof AffectedTargetsFactSchema>;
    },
  }),
  "facts.code_index_changes_since": defineMethod({
    description:
      "The code index's version-log entries after since (harn-verification.md §6.2; docs/design.md §4). Opens <state_dir>/code-index.json for root and brings it up to date with the workspace (only files whose SHA-256 changed are read again; built cold when there is none), saves it, and returns {current_seq, since, complete, changes: [{seq, path, change, hash}], files, built, go_imports: {source: go_list|import_lines|none, reason?, modules, packages, duration_ms?, changed_workspace?, frozen?}}; Go imports come from `go list -json ./...` in each module root (GOFLAGS=-mod=readonly, GOPROXY=off, GOTOOLCHAIN=local, bounded) when go is on PATH, else from import lines; seq grows by one per recorded change, hash is the FNV-1a 64 decimal of the new bytes. Errors: invalid_params naming the field.",
    params: z.strictObject({
      root: Root,
      since: z.number().int().min(0).default(0),
      state_dir: StateDir,
    }),
    result: CodeIndexChangesSchema,
    handler: async (p) => {
      requireDirectory(p.root);
      const opened = await openCodeIndex(
        p.root,
        p.state_dir !== undefined ? { stateDir: p.state_dir } : {},
      );
      return {
        ...opened.index.changesSince(p.since),
        files: opened.index.size,
        built: opened.built,
        go_imports: opened.index.goImports,
      };
    },
  }),
  "facts.code_index_file_hash_snapshot": defineMethod({
    description: `A file-hash snapshot through the code index (harn-verification.md §1.1, §2.1; Harn's code_index.file_hash_snapshot): opens <state_dir>/code-index.json for root (brought up to date, or built cold), then {seq, captured_at_ms, algorithm, snapshot, missing, files} as facts.file_hash_snapshot, with seq = the index's version-log seq, known = the path is indexed, indexed_hash / indexed_mtime_ms its indexed values, last_edit_seq its newest log entry, and hash_source indexed for a file whose size and mtime equal the indexed ones (not read again). 1 to ${FILE_HASH_SNAPSHOT_MAX_PATHS} paths. Errors: invalid_params with path root, paths or paths.N.`,
    params: z.strictObject({
      root: Root,
      paths: z.array(z.string().min(1)).min(1).max(FILE_HASH_SNAPSHOT_MAX_PATHS),
      algorithm: z.enum(["fnv1a64", "sha256"]).default("fnv1a64"),
      state_dir: StateDir,
    }),
    result: VerificationFileHashSnapshotSchema,
    handler: async (p) => {
      requireDirectory(p.root);
      const opened = await openCodeIndex(
        p.root,
        p.state_dir !== undefined ? { stateDir: p.state_dir } : {},
      );
      return await fileHashSnapshot(p.root, p.paths, {
        algorithm: p.algorithm,
        index: opened.index,
      });
    },
  }),
};
