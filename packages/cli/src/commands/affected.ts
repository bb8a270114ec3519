import { existsSync } from "node:fs";
import { join } from "node:path";
import { TurngateError } from "@turngate/core";
import {
  affectedTargets,
  detectAdapters,
  openCodeIndex,
  runGit,
  WorkspaceObserver,
} from "@turngate/node";
import { readBaseline } from "../baseline-store.js";
import { loadConfig } from "../config.js";
import { EXIT_OK } from "../context.js";
import { renderAffectedText } from "../render-affected.js";
import { resolveStatePaths } from "../state-dir.js";
import { addLocationOptions, resolveWorkspaceRoot } from "./options.js";
import type { CliCommand } from "./types.js";

/**
 * Changed paths against a git ref: `git diff --name-status -M REF` of the work tree (a
 * rename gives its old and new path, a deletion its path) plus untracked files git does
 * not ignore. Throws `TurngateError` `git_failed` naming the ref.
 */
export async function changedSinceRef(root: string, ref: string): Promise<string[]> {
  const diff = await runGit(["diff", "--name-status", "-z", "-M", ref, "--"], root);
  if (diff.code !== 0) {
    throw new TurngateError(
      "git_failed",
      `cannot diff the work tree against ${ref}: ${diff.stderr || `git exited ${diff.code}`}; check that the ref exists (git rev-parse ${ref}) and that ${root} is a git work tree`,
    );
  }
  const out: string[] = [];
  const parts = diff.stdout.toString("utf8").split("\0");
  for (let i = 0; i < parts.length; ) {
    const status = parts[i++] ?? "";
    if (status === "") continue;
    const n = status.startsWith("R") || status.startsWith("C") ? 2 : 1;
    for (let k = 0; k < n; k++) out.push(parts[i++] ?? "");
  }
  const untracked = await runGit(["ls-files", "--others", "--exclude-standard", "-z"], root);
  if (untracked.code === 0) out.push(...untracked.stdout.toString("utf8").split("\0"));
  return [...new Set(out.filter((p) => p !== ""))];
}

/**
 * `turngate affected [--base REF | --since-baseline] [--json]` (issue 15 item 5): which
 * targets the changes touch, and why, from the adapters of the configuration
 * (`affected_adapters`, else those detected: pnpm, cargo, go) and the code index.
 */
export const affectedCommand: CliCommand = {
  name: "affected",
  register(program, ctx, state) {
    addLocationOptions(
      program
        .command("affected")
        .summary("show which targets the changes touch, and why")
        .description(
          "List the build/test targets the changes touch, each with its reason: direct (a changed file is in it), dependent (via the chain shown), global_file (a root config such as tsconfig.base.json or turbo.json changed: everything), lockfile, unmapped (a changed file nothing maps: listed, never dropped) or fallback (the code index's changed file; its importers, transitively, are dependent). Changes are those since the stored baseline (--since-baseline, the default when one exists) or against a git ref (--base REF, default HEAD). Adapters come from affected_adapters in turngate.config.json, else from pnpm-workspace.yaml, Cargo.toml and go.mod; the code index is kept in the state folder (code-index.json).",
        )
        .option(
          "--base <ref>",
          "changes of the work tree against this git ref (and untracked files)",
        )
        .option("--since-baseline", "changes since the baseline stored by `turngate baseline`")
        .option("--no-fallback", "do not use the code-index fallback")
        .option("--json", "print the affected-targets fact as JSON"),
    ).action(
      async (flags: {
        root?: string;
        stateDir?: string;
        base?: string;
        sinceBaseline?: boolean;
        fallback?: boolean;
        json?: boolean;
      }) => {
        if (flags.base !== undefined && flags.sinceBaseline === true) {
          throw new TurngateError(
            "invalid_input",
            "use either --base REF or --since-baseline, not both",
          );
        }
        const root = resolveWorkspaceRoot(ctx.cwd, flags.root);
        const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
        const config = loadConfig(root);
        const useBaseline =
          flags.sinceBaseline === true || (flags.base === undefined && existsSync(paths.baseline));
        const observerOptions = {
          ignores: config.ignores,
          ...(config.outputs !== undefined ? { outputs: config.outputs } : {}),
          ...(config.defaultOutputs !== undefined ? { defaultOutputs: config.defaultOutputs } : {}),
        };
        let changed: string[];
        let source: string;
        let ref = flags.base ?? "HEAD";
        if (useBaseline) {
          const baseline = await readBaseline(paths.baseline, {
            historyPath: paths.baselineHistory,
          });
          const observer = new WorkspaceObserver(root, observerOptions);
          try {
            observer.restoreBaseline(baseline.snapshot);
            const delta = await observer.delta();
            changed = delta.changes.filter((c) => c.scope === "source").map((c) => c.path);
          } finally {
            await observer.close();
          }
          source = "since the stored baseline";
          ref = "HEAD";
        } else {
          changed = await changedSinceRef(root, ref);
          source = `against ${ref}`;
        }
        const codeIndex =
          flags.fallback === false
            ? null
            : (await openCodeIndex(root, { stateDir: paths.dir, observer: observerOptions })).index;
        const fact = await affectedTargets(
          changed,
          config.affectedAdapters ?? detectAdapters(root),
          {
            root,
            fallback: flags.fallback !== false,
            codeIndex,
            ...(config.affectedGlobalFiles !== undefined
              ? { global_files: config.affectedGlobalFiles }
              : {}),
            lockfileBefore: async (path) => {
              const shown = await runGit(["show", `${ref}:${path}`], root);
              if (shown.code === 0) return shown.stdout.toString("utf8");
              // Absent at the ref: new on this side (null) only when it exists now.
              return existsSync(join(root, path)) ? null : undefined;
            },
          },
        );
        if (flags.json) ctx.stdout.write(`${JSON.stringify(fact, null, 2)}\n`);
        else ctx.stdout.write(`${renderAffectedText(fact, source)}\n`);
        state.exitCode = EXIT_OK;
      },
    );
  },
};
