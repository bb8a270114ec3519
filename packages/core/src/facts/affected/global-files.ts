/**
 * Root configuration files and lockfiles (our change, docs/design.md §4): the changed files
 * that affect every target (`global_file`) and those that affect the targets whose
 * dependencies they pin (`lockfile`). Affected-target tools miss these again and again
 * (reference/landscape.md §2.2); here they are explicit.
 */
import { TurngateValidationError } from "../../errors.js";
import { matchName } from "../profiles/scope-glob.js";

/**
 * Workspace-root files whose change affects every target: shared compiler, transpiler,
 * lint and test configuration, the workspace manifests, toolchain pins, turngate's own
 * configuration. Matched against the whole workspace-relative path (so only at the root).
 */
export const DEFAULT_GLOBAL_FILE_PATTERNS: readonly RegExp[] = [
  /^tsconfig(\.[^/]+)?\.json$/,
  /^jsconfig\.json$/,
  /^babel\.config\.[^/]+$/,
  /^\.babelrc(\.[^/]+)?$/,
  /^\.eslintrc(\.[^/]+)?$/,
  /^eslint\.config\.[^/]+$/,
  /^\.prettierrc(\.[^/]+)?$/,
  /^prettier\.config\.[^/]+$/,
  /^biome\.jsonc?$/,
  /^\.swcrc$/,
  /^turbo\.json$/,
  /^nx\.json$/,
  /^lerna\.json$/,
  /^rush\.json$/,
  /^package\.json$/,
  /^pnpm-workspace\.yaml$/,
  /^\.npmrc$/,
  /^\.yarnrc(\.yml)?$/,
  /^\.nvmrc$/,
  /^\.node-version$/,
  /^\.tool-versions$/,
  /^(jest|vitest|vite|webpack|rollup|esbuild)\.(config|workspace)\.[^/]+$/,
  /^vitest\.workspace\.[^/]+$/,
  /^Cargo\.toml$/,
  /^rust-toolchain(\.toml)?$/,
  /^\.cargo\/config(\.toml)?$/,
  /^clippy\.toml$/,
  /^rustfmt\.toml$/,
  /^go\.work$/,
  /^pyproject\.toml$/,
  /^setup\.cfg$/,
  /^tox\.ini$/,
  /^pytest\.ini$/,
  /^conftest\.py$/,
  /^\.python-version$/,
  /^turngate\.config\.json$/,
  /^\.github\/workflows\/[^/]+$/,
  /^\.github\/actions\//,
  /^\.gitlab-ci\.yml$/,
  /^\.circleci\//,
  /^\.buildkite\//,
  /^azure-pipelines\.ya?ml$/,
  /^Jenkinsfile$/,
  /^\.ci\//,
];

/**
 * Lockfile names, at any depth: they pin dependency versions for the project around them
 * (the workspace, for a root lockfile).
 */
export const LOCKFILE_NAMES: readonly string[] = [
  "pnpm-lock.yaml",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "bun.lock",
  "bun.lockb",
  "Cargo.lock",
  "go.sum",
  "go.work.sum",
  "go.mod",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "pdm.lock",
  "Gemfile.lock",
  "composer.lock",
];

/** How one changed path is classified. */
export type ChangedFileClass = "global_file" | "lockfile" | "source";

/**
 * Classifies a workspace-relative path: `lockfile` when its file name is one of
 * {@link LOCKFILE_NAMES}, `global_file` when the whole path matches a default pattern or
 * one of `extra` (Harn `match_name` globs, §3.5, e.g. `config/*.yaml`), else `source`.
 */
export function classifyChangedFile(path: string, extra: readonly string[] = []): ChangedFileClass {
  if (typeof path !== "string") {
    throw new TurngateValidationError("changed path", [
      { path: "path", message: "must be a string" },
    ]);
  }
  if (!Array.isArray(extra) || extra.some((p) => typeof p !== "string")) {
    throw new TurngateValidationError("changed path", [
      { path: "global_files", message: "must be a list of strings" },
    ]);
  }
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (LOCKFILE_NAMES.includes(name)) return "lockfile";
  if (DEFAULT_GLOBAL_FILE_PATTERNS.some((re) => re.test(path))) return "global_file";
  if (extra.some((p) => matchName(p, path))) return "global_file";
  return "source";
}
