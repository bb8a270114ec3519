import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { VerificationCommand } from "@turngate/core";
import { TurngateValidationError } from "@turngate/core";
import { VerificationCommandSchema } from "@turngate/core/schemas";
import { z } from "zod";

/** File name looked up in the workspace root when `--config` is not given. */
export const CONFIG_FILE_NAME = "turngate.config.json";

const CheckSchema = z.union([
  z.string().regex(/\S/, { message: "must not be blank" }),
  z
    .object({
      id: z.string().regex(/\S/, { message: "must not be blank" }).optional(),
      kind: z.string().optional(),
      description: z.string().optional(),
      command: z.string().regex(/\S/, { message: "must not be blank" }),
      required: z.boolean().optional(),
      timeout_ms: z.number().int().nonnegative().optional(),
      expect_exit: z.number().int().min(-2147483648).max(2147483647).optional(),
      results: VerificationCommandSchema.shape.results,
    })
    .strict(),
]);

/**
 * `turngate.config.json`: `checks` (command strings or verification command records),
 * `timeout_ms` (default timeout of every check, ms), `ignores` (gitignore-style patterns
 * the workspace observer skips). Unknown keys are rejected so that typos surface.
 */
export const TurngateConfigSchema = z
  .object({
    checks: z.array(CheckSchema).optional(),
    timeout_ms: z.number().int().nonnegative().optional(),
    ignores: z.array(z.string()).optional(),
  })
  .strict();

/** The loaded configuration: checks normalised to verification commands. */
export interface TurngateConfig {
  /** Where it was read from; undefined when no file exists. */
  path?: string;
  checks: VerificationCommand[];
  ignores: string[];
  /** The file's top-level `timeout_ms` (already applied to `checks`); undefined when absent. */
  timeoutMs?: number;
}

/**
 * Load the configuration: `explicitPath` when given (it must exist), else
 * `<root>/turngate.config.json` when it exists, else an empty configuration.
 *
 * Checks are normalised: a string `s` at index i becomes
 * `{id: "check:{i+1}", kind: "command", description: s, command: s, required: true,
 * expect_exit: 0}`; a record gets the same defaults for missing fields; the file's
 * `timeout_ms` applies to checks without their own.
 *
 * Errors: `TurngateValidationError` naming the field (`checks.1.command`) for a bad value
 * or invalid JSON (path `""`); the `fs` error when an explicit file cannot be read.
 */
export function loadConfig(root: string, explicitPath?: string): TurngateConfig {
  const path = explicitPath ?? join(root, CONFIG_FILE_NAME);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (explicitPath === undefined && (error as NodeJS.ErrnoException).code === "ENOENT") {
      return { checks: [], ignores: [] };
    }
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new TurngateValidationError(`${path}`, [
      { path: "", message: `not JSON: ${(error as Error).message}` },
    ]);
  }
  const parsed = TurngateConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new TurngateValidationError(
      `${path}`,
      parsed.error.issues.map((issue) => ({
        path: issue.path.map(String).join("."),
        message: issue.message,
      })),
    );
  }
  const config = parsed.data;
  const loaded: TurngateConfig = {
    path,
    checks: (config.checks ?? []).map((check, index) =>
      normaliseCheck(check, index, config.timeout_ms),
    ),
    ignores: config.ignores ?? [],
  };
  if (config.timeout_ms !== undefined) loaded.timeoutMs = config.timeout_ms;
  return loaded;
}

/**
 * Verification commands for `--check CMD` flags: the i-th (0-based) becomes
 * `{id: "check:{i+1}", kind: "command", description: CMD, command: CMD, required: true,
 * expect_exit: 0}` with `timeoutMs` when given.
 * Errors: `TurngateValidationError` naming `--check[i]` for a blank CMD (`sh -c ""` exits
 * 0, so it would pass without checking anything).
 */
export function checksFromFlags(
  commands: readonly string[],
  timeoutMs?: number,
): VerificationCommand[] {
  const blank = commands.findIndex((command) => !/\S/.test(command));
  if (blank >= 0) {
    throw new TurngateValidationError("--check value", [
      { path: `--check[${blank}]`, message: "must not be blank" },
    ]);
  }
  return commands.map((command, index) => normaliseCheck(command, index, timeoutMs));
}

function normaliseCheck(
  check: z.output<typeof CheckSchema>,
  index: number,
  defaultTimeoutMs: number | undefined,
): VerificationCommand {
  const record = typeof check === "string" ? { command: check } : check;
  const command: VerificationCommand = {
    id: record.id ?? `check:${index + 1}`,
    kind: record.kind ?? "command",
    description: record.description ?? record.command,
    command: record.command,
    required: record.required ?? true,
    expect_exit: record.expect_exit ?? 0,
  };
  const timeout = record.timeout_ms ?? defaultTimeoutMs;
  if (timeout !== undefined) command.timeout_ms = timeout;
  if ("results" in record && record.results !== undefined) command.results = record.results;
  return command;
}
