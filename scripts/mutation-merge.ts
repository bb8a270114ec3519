/**
 * Folds narrowed Stryker runs into the committed incremental file (issue #11 §5;
 * scripts/mutation/merge.ts `mergeIncremental`).
 *
 *   pnpm exec tsx scripts/mutation-merge.ts --base FILE --part FILE [--part FILE]...
 *     --only PREFIX [--only PREFIX]... --out FILE
 *
 * --base FILE  the incremental file to start from (usually stryker/incremental.json)
 * --part FILE  the incremental file of a run narrowed with --mutate (repeatable)
 * --only PREFIX the source files the parts measured (their runs' --mutate; repeatable,
 *              required): a part's entries for other files are stale copies and are ignored
 * --out FILE   where to write the merged file (atomically; may be --base)
 *
 * Per source and test file it keeps the entry recorded against the file's current text,
 * renumbers test ids, and prints one line of counts. Exit 0 on success, 2 on bad usage or an
 * unreadable or malformed file.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type IncrementalReport, mergeIncremental } from "./mutation/merge.js";

const USAGE =
  "usage: mutation-merge.ts --base FILE --part FILE [--part FILE]... --only PREFIX [--only PREFIX]... --out FILE";

function main(argv: string[]): number {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
  let values: { base?: string; part?: string[]; out?: string; only?: string[] };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        base: { type: "string" },
        part: { type: "string", multiple: true },
        out: { type: "string" },
        only: { type: "string", multiple: true },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.base === undefined || values.out === undefined || (values.part ?? []).length === 0) {
    process.stderr.write(`--base, --out and at least one --part are required\n${USAGE}\n`);
    return 2;
  }
  if ((values.only ?? []).length === 0) {
    process.stderr.write(
      `--only PREFIX is required: the source files the narrowed run measured (its --mutate); a part's entries for other files are copies from when it started and must not replace newer results\n${USAGE}\n`,
    );
    return 2;
  }
  const read = (file: string): IncrementalReport => JSON.parse(readFileSync(file, "utf8"));
  try {
    const { report, counts } = mergeIncremental(
      read(values.base),
      (values.part ?? []).map(read),
      (file) => {
        try {
          return readFileSync(path.join(root, file), "utf8");
        } catch {
          return undefined;
        }
      },
      values.only ?? [],
    );
    const tmp = `${values.out}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`);
    renameSync(tmp, values.out);
    process.stdout.write(
      `mutation-merge: ${counts.current} source files current, ${counts.stale} recorded against older text (Stryker re-tests what changed), ${counts.dropped} gone from disk dropped, ${counts.droppedTests} stale test references dropped\n`,
    );
  } catch (err) {
    process.stderr.write(`mutation-merge: ${(err as Error).message}\n`);
    return 2;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
