import { existsSync } from "node:fs";
import ignore from "ignore";
import { WorkspaceObserverError } from "../errors.js";
import { absolutePath } from "../stat/stat-cache.js";

/**
 * The output locations turngate assumes by default (issue 10 "outputs stay outputs"):
 * where the tools of the ecosystems turngate detects write caches, bytecode, coverage and
 * test reports. gitignore syntax, matched at any depth; `target/` only in a directory that
 * holds a `Cargo.toml` (a Rust crate or workspace). Files there that git does not track are
 * outside the source scope (`scope: "output"`); `"default_outputs": false` turns the list
 * off, `"outputs"` adds patterns. Shown in `turngate run --help` and docs/guarantees.md ("Scope").
 */
export const DEFAULT_OUTPUT_LOCATIONS: readonly string[] = Object.freeze([
  "__pycache__/",
  "*.py[co]",
  ".pytest_cache/",
  ".mypy_cache/",
  ".ruff_cache/",
  ".hypothesis/",
  ".tox/",
  ".nox/",
  "*.egg-info/",
  ".coverage",
  ".coverage.*",
  "htmlcov/",
  "coverage/",
  "test-results/",
  ".nyc_output/",
  "node_modules/.cache/",
  "target/ (beside a Cargo.toml)",
  "junit*.xml",
  "report.xml",
  "coverage.xml",
  "coverage.txt",
  "cover.out",
  "coverage.out",
  "lcov.info",
]);

// The defaults above as two name tests (what the list says, without a gitignore engine:
// classifying 100,000 ignored paths with one costs ~300 ms; these cost a few ms).
const DEFAULT_DIR_NAME =
  /^(?:__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.hypothesis|\.tox|\.nox|.*\.egg-info|htmlcov|coverage|test-results|\.nyc_output)$/;
const DEFAULT_FILE_NAME =
  /^(?:.*\.py[co]|\.coverage|\.coverage\..*|junit.*\.xml|report\.xml|coverage\.xml|coverage\.txt|cover\.out|coverage\.out|lcov\.info)$/;

/** Options of {@link OutputLocations}. */
export interface OutputLocationsOptions {
  /** Absolute workspace root (to look for `Cargo.toml` beside `target/`). */
  root: string;
  /** Use {@link DEFAULT_OUTPUT_LOCATIONS} (config `default_outputs`, default true). */
  defaults?: boolean;
  /** Extra gitignore-syntax patterns relative to the root (config `outputs`). */
  patterns?: readonly string[];
}

/**
 * Decides whether a workspace path lies at an output location. Keys are workspace-relative,
 * `/`-separated, NFC. A path is at an output location when it matches a pattern itself or
 * lies below a directory that does. The caller keeps tracked files out (an output location
 * never covers a tracked file). Results for directories are cached.
 *
 * Throws {@link WorkspaceObserverError} `invalid_option` (field `outputs`) for a pattern
 * list that is not an array of strings.
 */
export class OutputLocations {
  readonly #root: string;
  readonly #defaults: boolean;
  readonly #user: ReturnType<typeof ignore> | undefined;
  /** Whether a user pattern can match a file (not only directories: no trailing `/`). */
  readonly #userFiles: boolean;
  readonly #dirs = new Map<string, boolean>();

  constructor(options: OutputLocationsOptions) {
    const patterns = options.patterns ?? [];
    if (!Array.isArray(patterns) || patterns.some((p) => typeof p !== "string")) {
      throw new WorkspaceObserverError(
        "invalid_option",
        "options.outputs must be an array of strings",
        "outputs",
      );
    }
    if (options.defaults !== undefined && typeof options.defaults !== "boolean") {
      throw new WorkspaceObserverError(
        "invalid_option",
        "options.defaultOutputs must be a boolean",
        "default_outputs",
      );
    }
    this.#root = options.root;
    this.#defaults = options.defaults ?? true;
    const active = patterns.filter((p) => p.trim() !== "" && !p.startsWith("#"));
    this.#user = active.length > 0 ? ignore().add(active) : undefined;
    this.#userFiles = active.some((p) => !p.trimEnd().endsWith("/"));
  }

  /** True when no location is configured at all (defaults off, no patterns). */
  get empty(): boolean {
    return !this.#defaults && this.#user === undefined;
  }

  /** True when the directory `dirKey` (or one above it) is an output location. */
  coversDirectory(dirKey: string): boolean {
    if (dirKey === "") return false;
    const known = this.#dirs.get(dirKey);
    if (known !== undefined) return known;
    const slash = dirKey.lastIndexOf("/");
    const parent = slash < 0 ? "" : dirKey.slice(0, slash);
    const result =
      this.coversDirectory(parent) || this.#directoryMatches(parent, dirKey.slice(slash + 1));
    this.#dirs.set(dirKey, result);
    return result;
  }

  /** True when the file (or symlink) `key` is at an output location. */
  coversFile(key: string): boolean {
    const slash = key.lastIndexOf("/");
    if (slash >= 0 && this.coversDirectory(key.slice(0, slash))) return true;
    return this.fileNameMatches(key, key.slice(slash + 1));
  }

  /**
   * True when the file `key` (named `name`) matches a pattern by itself, not counting the
   * directories above it: the walk of an ignored directory asks this for each file after
   * asking {@link coversDirectory} once for the directory.
   */
  fileNameMatches(key: string, name: string): boolean {
    if (this.#defaults && DEFAULT_FILE_NAME.test(name)) return true;
    return this.#userFiles && this.#user?.ignores(key) === true;
  }

  #directoryMatches(parent: string, name: string): boolean {
    if (this.#defaults) {
      if (DEFAULT_DIR_NAME.test(name)) return true;
      if (name === ".cache" && parent.slice(parent.lastIndexOf("/") + 1) === "node_modules") {
        return true;
      }
      if (
        name === "target" &&
        existsSync(absolutePath(this.#root, joinKey(parent, "Cargo.toml")))
      ) {
        return true;
      }
    }
    return this.#user?.ignores(`${joinKey(parent, name)}/`) === true;
  }
}

function joinKey(parent: string, name: string): string {
  return parent === "" ? name : `${parent}/${name}`;
}
