/**
 * The part of a `Session` that fixes and watches the checks' environment (issue 10,
 * shellenv; docs/design.md §3a): the environment baseline taken when the session starts (or the
 * stored one), the user-level file changes that become `environment` ledger rows, the
 * review checks that end a turn `needs_review`, and the controlled environment each
 * `verifyCommands` call runs in.
 */
import { isAbsolute, relative } from "node:path";
import type { VerificationCheck } from "@turngate/core";
import {
  type EnvironmentBaseline,
  fileFingerprint,
  fingerprintTree,
  hookFileFingerprint,
  takeEnvironmentBaseline,
} from "../environment/environment-baseline.js";
import {
  changedUserFiles,
  fingerprintUserFiles,
  isAncestorLabel,
  pathFolderLabels,
  userFilesHome,
} from "../environment/user-files.js";
import { turngatePaths } from "../fs/paths.js";
import { nestedHarnessSettings } from "../isolation/harness-programs.js";
import {
  checkCargoTargetDir,
  type PreparedCheckEnvironment,
  prepareCheckEnvironment,
} from "../runner/check-env.js";
import type { SessionCheckEnvironment } from "./types.js";

/** A user-level file changed since the baseline: the row's path and digest now. */
export interface EnvironmentChange {
  path: string;
  contentDigest: string;
}

/** See the module docs. Create with `SessionEnvironment.take`. */
export class SessionEnvironment {
  readonly baseline: EnvironmentBaseline;
  readonly #options: SessionCheckEnvironment;
  readonly #env: NodeJS.ProcessEnv;
  readonly #root: string;
  readonly #stateDir: string;
  readonly #cargoDir: string;
  /** The cargo target fingerprint the next check run is compared with. */
  #cargoReference: string | null;
  #changes: EnvironmentChange[] = [];

  private constructor(
    baseline: EnvironmentBaseline,
    options: SessionCheckEnvironment,
    env: NodeJS.ProcessEnv,
    root: string,
    stateDir: string,
  ) {
    this.baseline = baseline;
    this.#options = options;
    this.#env = env;
    this.#root = root;
    this.#stateDir = stateDir;
    this.#cargoDir = checkCargoTargetDir(stateDir);
    this.#cargoReference = baseline.cargoTarget;
  }

  /**
   * Adopt `options.baseline`, or take the environment baseline now
   * (`takeEnvironmentBaseline`: shell and PATH, user-level fingerprints, the cargo target
   * folder `<stateDir>/cargo-target` — default state folder `<root>/.turngate` — and the
   * review files).
   * Input: the session's `checkEnvironment` options, its base environment and root.
   * Errors: `TurngateValidationError` (path `shell`) for a shell that cannot be found.
   */
  static take(
    options: SessionCheckEnvironment | undefined,
    env: NodeJS.ProcessEnv,
    root: string,
  ): SessionEnvironment {
    const opts = options ?? {};
    const stateDir = opts.stateDir ?? turngatePaths(root).dir;
    const baseline =
      opts.baseline ??
      takeEnvironmentBaseline({
        env,
        root,
        cargoTargetDir: checkCargoTargetDir(stateDir),
        ...(opts.shell !== undefined ? { shell: opts.shell } : {}),
        ...(opts.home !== undefined ? { home: opts.home } : {}),
        ...(opts.reviewFiles !== undefined ? { reviewFiles: opts.reviewFiles } : {}),
        ...(opts.hookFiles !== undefined ? { hookFiles: opts.hookFiles } : {}),
      });
    return new SessionEnvironment(baseline, opts, env, root, stateDir);
  }

  /** The changes found by the latest `observeUserFiles()` (copies). */
  get changes(): EnvironmentChange[] {
    return this.#changes.map((change) => ({ ...change }));
  }

  /**
   * Fingerprint the user-level files now and return those that differ from the baseline
   * (`changedUserFiles`), in code-point order; kept for `changes`. Never throws.
   */
  observeUserFiles(): EnvironmentChange[] {
    this.#changes = changedUserFiles(
      this.baseline.userFiles,
      fingerprintUserFiles(this.#fingerprintOptions()),
    );
    return this.changes;
  }

  #fingerprintOptions(): Parameters<typeof fingerprintUserFiles>[0] {
    const options: Parameters<typeof fingerprintUserFiles>[0] = {
      env: this.#env,
      root: this.#root,
    };
    if (this.#options.home !== undefined) options.home = this.#options.home;
    return options;
  }

  /**
   * The checks that make the report `needs_review` because the turn changed what the
   * checks depend on: `turngate:config` for each review file (the configuration) that
   * differs from its baseline fingerprint; `turngate:path` when, as of the latest
   * `observeUserFiles()`, an executable was added, changed or removed in a fingerprinted
   * folder of the checks' `PATH` (`pathFolders`: inside the home directory, or outside it
   * and alterable by the user — `~/.local/bin/bash`, `/tmp/tools/node`: the checks would
   * run it); `turngate:ancestors` when a tool configuration or `node_modules` entry in a
   * parent folder of the workspace changed (`isAncestorLabel`; `../.cargo/config.toml`,
   * `../conftest.py`: the checks read it); `turngate:cargo-target` when the checks' cargo target folder changed since the
   * baseline (or since the last check run); `turngate:hook-settings` when a hook settings
   * path of the baseline (`hookFiles`: Claude Code's, Codex's, Cursor's or goose's in the
   * workspace) was created, changed or removed (docs/design.md §3b: a harness reads them at
   * its next start, so the agent must not be able to change the gate that way), or when
   * one of `workspacePaths` (the turn's ledger paths) is a harness's settings in a subfolder
   * (`nestedHarnessSettings`). Kind `review`, required, with a residual risk naming the
   * files and what to do.
   */
  reviewChecks(workspacePaths: readonly string[] = []): VerificationCheck[] {
    const checks: VerificationCheck[] = [];
    const folders = pathFolderLabels(
      this.baseline.plan.path,
      userFilesHome(this.#fingerprintOptions()),
    );
    const planted = this.#changes
      .map((change) => change.path)
      .filter((label) => folders.some((folder) => label.startsWith(folder)));
    if (planted.length > 0) {
      checks.push({
        id: "turngate:path",
        kind: "review",
        description: "no program on the checks' PATH changed since the baseline",
        status: "needs_review",
        required: true,
        residual_risk: `${planted.join(", ")} changed during the turn in a folder of the checks' PATH, so the checks may have run it: review it, then start a new turn`,
      });
    }
    const home = userFilesHome(this.#fingerprintOptions());
    const ancestors = this.#changes
      .map((change) => change.path)
      .filter((label) => isAncestorLabel(label, this.#root, home));
    if (ancestors.length > 0) {
      checks.push({
        id: "turngate:ancestors",
        kind: "review",
        description:
          "no tool configuration in the workspace's parent folders changed since the baseline",
        status: "needs_review",
        required: true,
        residual_risk: `${ancestors.join(", ")} changed during the turn in a parent folder of the workspace (cargo, pytest, Node and Go read them), so the checks may have used it: review it, then start a new turn`,
      });
    }
    for (const [path, digest] of Object.entries(this.baseline.reviewFiles)) {
      if (fileFingerprint(path) === digest) continue;
      const shown = relative(this.#root, path);
      const label = shown.startsWith("..") || isAbsolute(shown) ? path : shown;
      checks.push({
        id: "turngate:config",
        kind: "review",
        description: `${label} unchanged since the baseline`,
        status: "needs_review",
        required: true,
        residual_risk: `${label} changed during the turn: the checks ran with the configuration read before the agent ran, the edit was not applied, and later turns keep that configuration until you accept the edit: review it, then waive this change or start over (--fresh)`,
      });
    }
    const hookSettings = Object.entries(this.baseline.hookFiles ?? {})
      .filter(([path, fingerprint]) => hookFileFingerprint(path) !== fingerprint)
      .map(([path]) => {
        const shown = relative(this.#root, path);
        return shown.startsWith("..") || isAbsolute(shown) ? path : shown;
      });
    for (const path of nestedHarnessSettings(workspacePaths)) {
      if (!hookSettings.includes(path)) hookSettings.push(path);
    }
    if (hookSettings.length > 0) {
      checks.push({
        id: "turngate:hook-settings",
        kind: "review",
        description:
          "the agent harnesses' hook settings, and the workspace programs they run, unchanged since the baseline",
        status: "needs_review",
        required: true,
        residual_risk: `${hookSettings.join(", ")} changed during the turn (created, edited or removed): these files configure an agent harness's hooks and sandbox, or are programs its hooks and MCP servers run — the gate itself — and the harness reads or runs them outside every check, so turngate does not accept such a change without you: put the file back as it was, or review it and waive this change`,
      });
    }
    if (this.#cargoReference !== null && fingerprintTree(this.#cargoDir) !== this.#cargoReference) {
      checks.push({
        id: "turngate:cargo-target",
        kind: "review",
        description: "the checks' CARGO_TARGET_DIR unchanged since the baseline",
        status: "needs_review",
        required: true,
        residual_risk: `the checks' cargo target folder ${this.#cargoDir} changed during the turn (a planted build artifact would be trusted by cargo): delete the folder, then run the checks again`,
      });
    }
    return checks;
  }

  /**
   * The controlled environment for one `verifyCommands` call (`prepareCheckEnvironment`)
   * plus the shell's absolute path. Call `finish(prepared)` after the checks, also when
   * they throw. Errors: the `fs` error when the fresh folder cannot be created.
   */
  prepare(): PreparedCheckEnvironment & { shell: string } {
    const prepared = prepareCheckEnvironment(this.baseline.plan, {
      env: this.#env,
      stateDir: this.#stateDir,
      ...(this.#options.allowEnv ? { allowEnv: this.#options.allowEnv } : {}),
    });
    return { ...prepared, shell: this.baseline.plan.shell.path };
  }

  /** Remove the prepared folder and take the cargo target as the checks left it as the next reference. */
  finish(prepared: PreparedCheckEnvironment): void {
    prepared.dispose();
    this.#cargoReference = fingerprintTree(this.#cargoDir);
  }
}
