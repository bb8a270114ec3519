import * as z from "zod";
import { TurngateValidationError } from "../errors.js";
import { TEST_RESULT_FORMATS } from "../facts/test-results/types.js";

/**
 * A verification command, A3S §1.5. `required` defaults to `false` and `expect_exit` to 0
 * on input in every language (A3S's Node SDK defaulted `required` to true; we do not
 * repeat that divergence). `timeout_ms` is in milliseconds, omitted when absent.
 * **Change:** `command` must hold a non-whitespace character — `sh -c ""` exits 0, so a
 * blank command would pass without checking anything (path `command`, "must not be blank").
 * **Change (issue #16):** `results: {format}` declares that the command writes the runner's
 * structured results (`junit`, `tap`, …) to a fresh path turngate gives it (`{results}` in
 * the command, `TURNGATE_RESULTS` in its environment); the check then follows what the
 * tests said, not only the exit status.
 */
/**
 * Why a check `cwd` is refused, or undefined when it is a workspace-relative folder: not
 * blank, not absolute (`/`, `\\`, `C:`), no `..` segment, no NUL or backslash. `.` and
 * `./x` are allowed (the root, `x`). Symlinks leaving the workspace are refused when the
 * check runs (the runner resolves the folder). Reference: issue 15 item 2 (ours).
 */
export function checkCwdProblem(cwd: string): string | undefined {
  if (typeof cwd !== "string") return "must be a string";
  if (!/\S/.test(cwd)) return "must not be blank";
  if (cwd.includes("\0")) return "must not contain NUL";
  if (cwd.includes("\\")) return "must use / between folders";
  if (cwd.startsWith("/") || /^[A-Za-z]:/.test(cwd)) {
    return "must be relative to the workspace root, not absolute";
  }
  if (cwd.split("/").includes(".."))
    return "must not contain a .. segment (it stays inside the workspace)";
  return undefined;
}

/**
 * A check `cwd` in its plain form: `./` prefixes, `.` and empty segments dropped; `""` = root.
 * Throws `TurngateValidationError` (path `cwd`) for a value that is not a string.
 */
export function normalizeCheckCwd(cwd: string): string {
  if (typeof cwd !== "string") {
    throw new TurngateValidationError("check cwd", [{ path: "cwd", message: "must be a string" }]);
  }
  return cwd
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .join("/");
}

export const VerificationCommandSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    description: z.string(),
    command: z
      .string()
      .regex(/\S/, { message: "must not be blank" })
      .describe(
        "Shell command run with the host's check shell (`bash -c` when bash is found, else `sh -c`); must not be blank.",
      ),
    required: z.boolean().default(false),
    timeout_ms: z.number().int().nonnegative().optional().describe("Timeout in milliseconds."),
    expect_exit: z
      .number()
      .int()
      .min(-2147483648)
      .max(2147483647)
      .default(0)
      .describe("Expected process exit code."),
    cwd: z
      .string()
      .superRefine((cwd, ctx) => {
        const problem = checkCwdProblem(cwd);
        if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional()
      .describe(
        "Folder the command runs in, relative to the workspace root (no .. segment, not absolute; a symlink leaving the workspace is refused when it runs); absent: the root. Part of the check's identity (ours, issue 15).",
      ),
    results: z
      .strictObject({
        format: z.enum(TEST_RESULT_FORMATS),
        source: z
          .enum(["file", "output"])
          .optional()
          .describe(
            "file (absent): the command writes them to {results} / $TURNGATE_RESULTS; output: they are the command's own output (cargo test's libtest text).",
          ),
      })
      .optional()
      .describe("Structured test results of the command (issue #16)."),
  })
  .describe("Verification command (A3S §1.5).");

/** A command as stored: `required` and `expect_exit` always present. */
export type VerificationCommand = z.output<typeof VerificationCommandSchema>;
/** A command as accepted on input (`required`, `expect_exit` optional). */
export type VerificationCommandInput = z.input<typeof VerificationCommandSchema>;

/** A named list of commands for one project kind, A3S §1.6. */
export const VerificationPresetSchema = z
  .object({
    id: z.string(),
    project_kind: z.string(),
    description: z.string(),
    commands: z.array(VerificationCommandSchema),
  })
  .describe("Verification preset (A3S §1.6).");

export type VerificationPreset = z.output<typeof VerificationPresetSchema>;
export type VerificationPresetInput = z.input<typeof VerificationPresetSchema>;
