import * as z from "zod";
import type {
  ParsedTest,
  TestResultParser,
  TestStatus,
  TestSuiteError,
  UnparsedTestInput,
} from "./types.js";
import { capMessage, eachLine, parseJsonLine } from "./util.js";

/** One pytest-reportlog record (`$report_type` TestReport, CollectReport, SessionStart/Finish, …). */
export const PytestReportRecordSchema = z.looseObject({
  $report_type: z.string(),
  nodeid: z.string().optional(),
  when: z.string().optional(),
  outcome: z.string().optional(),
  duration: z.number().optional(),
  longrepr: z.unknown().optional(),
  location: z.array(z.unknown()).nullish(),
  wasxfail: z.string().optional(),
  exitstatus: z.number().optional(),
});

interface Node {
  nodeid: string;
  file: string | null;
  status: TestStatus;
  durationS: number;
  message: string | null;
}

/** The readable part of a `longrepr`: the crash message, the skip reason, or the text itself. */
function longreprMessage(longrepr: unknown): string | null {
  if (typeof longrepr === "string") return longrepr;
  if (Array.isArray(longrepr) && typeof longrepr[2] === "string")
    return longrepr[2].replace(/^Skipped: /, "");
  if (typeof longrepr === "object" && longrepr !== null) {
    const crash = (longrepr as { reprcrash?: { message?: unknown } }).reprcrash;
    if (crash && typeof crash.message === "string") return crash.message;
  }
  return null;
}

const EXIT_MEANING: Record<number, string> = {
  2: "interrupted",
  3: "internal error",
  4: "usage error",
};

/**
 * pytest `--report-log` JSON lines (`pytest_reportlog`, the pytest-reportlog plugin): the
 * setup/call/teardown `TestReport`s of one node id make one test (`id` = the node id,
 * `name` its last `::` part, `suite` the part before, `file` the location's file,
 * `duration_ms` the phases' sum). Status: a failed setup or teardown → errored (pytest's
 * "error"), a failed call → failed, a skip in setup or call → skipped (an xfail too),
 * else passed. Suite errors: a failed `CollectReport` (an import error, a broken conftest),
 * a `SessionFinish` exit status 2–4 (interrupted, internal or usage error), and a log
 * without `SessionFinish` when it holds records (the run was cut short). Lines that are
 * not JSON records are `unparsed`.
 */
export const parsePytestReportlog: TestResultParser = (text) => {
  const unparsed: UnparsedTestInput[] = [];
  const errors: TestSuiteError[] = [];
  const nodes = new Map<string, Node>();
  let finished = false;
  let records = 0;
  eachLine(text.replace(/^\uFEFF/, ""), (line, lineNo) => {
    if (line.trim() === "") return;
    const raw = parseJsonLine(line, lineNo, unparsed);
    if (raw === undefined) return;
    const r = PytestReportRecordSchema.safeParse(raw);
    if (!r.success) {
      unparsed.push({
        line: lineNo,
        pointer: null,
        text: line,
        reason: `not a pytest report-log record: ${r.error.issues[0]?.message ?? "unexpected shape"}`,
      });
      return;
    }
    records++;
    const rec = r.data;
    switch (rec.$report_type) {
      case "SessionFinish": {
        finished = true;
        const meaning = rec.exitstatus === undefined ? undefined : EXIT_MEANING[rec.exitstatus];
        if (meaning !== undefined)
          errors.push({
            suite: null,
            file: null,
            message: `pytest exited with status ${rec.exitstatus} (${meaning})`,
          });
        return;
      }
      case "CollectReport": {
        if (rec.outcome !== "failed") return;
        const nodeid = rec.nodeid ?? "";
        errors.push({
          suite: nodeid === "" ? null : nodeid,
          file: nodeid === "" ? null : (nodeid.split("::")[0] as string),
          message:
            capMessage(`collection failed: ${longreprMessage(rec.longrepr) ?? "no detail"}`) ??
            "collection failed",
        });
        return;
      }
      case "TestReport":
        break;
      default:
        return;
    }
    const nodeid = rec.nodeid ?? "";
    let n = nodes.get(nodeid);
    if (!n) {
      const file = rec.location?.[0];
      n = {
        nodeid,
        file: typeof file === "string" ? file : (nodeid.split("::")[0] ?? null),
        status: "passed",
        durationS: 0,
        message: null,
      };
      nodes.set(nodeid, n);
    }
    if (typeof rec.duration === "number" && rec.duration > 0) n.durationS += rec.duration;
    const failed = rec.outcome === "failed";
    const skipped = rec.outcome === "skipped";
    if (rec.when === "call") {
      if (failed) n.status = "failed";
      else if (skipped && n.status === "passed") n.status = "skipped";
    } else if (failed && n.status !== "failed") {
      n.status = "errored";
    } else if (skipped && rec.when === "setup" && n.status === "passed") {
      n.status = "skipped";
    }
    if ((failed || skipped) && n.message === null) {
      n.message = capMessage(
        skipped && rec.wasxfail !== undefined
          ? `xfail: ${rec.wasxfail}`
          : longreprMessage(rec.longrepr),
      );
    }
  });
  if (!finished && records > 0)
    errors.push({
      suite: null,
      file: null,
      message: "no SessionFinish record: the run was cut short",
    });
  const tests: ParsedTest[] = [...nodes.values()].map((n) => {
    const cut = n.nodeid.lastIndexOf("::");
    return {
      id: n.nodeid,
      name: cut === -1 ? n.nodeid : n.nodeid.slice(cut + 2),
      suite: cut === -1 ? null : n.nodeid.slice(0, cut),
      file: n.file,
      status: n.status,
      duration_ms: Math.round(n.durationS * 1e6) / 1e3,
      message: n.status === "passed" ? null : n.message,
    };
  });
  return { tests, errors, unparsed };
};
