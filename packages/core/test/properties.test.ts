/**
 * Property tests (fast-check) for the gate's guarantees (issue 2, item 4).
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  acceptReport,
  canonicalLedgerText,
  checkFromExecution,
  compareRecords,
  contentDigest,
  decideCompletion,
  effectDigest,
  MutationLedger,
  type MutationRecord,
  parseCanonicalLedgerText,
  reportFromToolMetadata,
  shellEvidenceReport,
  TurngateError,
  type VerificationCheckInput,
  type VerificationReportInput,
  type VerificationStatus,
} from "../src/index.js";

/** Single characters that stress escaping, plus ordinary ones. */
const tricky = fc.oneof(
  fc.constantFrom(
    "|",
    "\\",
    "\n",
    "\r",
    "\t",
    "\u0000",
    "\u001f",
    "\u007f",
    "\u0085",
    "\ud800",
    "\udfff",
  ),
  fc.constantFrom("a", "b", "/", ".", " ", "x", "é", "😀", "～"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
);
const field = fc.string({ unit: tricky, maxLength: 8 });
const record: fc.Arbitrary<MutationRecord> = fc.record({
  tool: fc.constantFrom("write", "edit", "bash", "workspace", "t|x"),
  path: field,
  content_digest: fc.oneof(field, fc.constant(""), fc.stringMatching(/^[0-9a-f]{64}$/)),
});

const statuses: VerificationStatus[] = ["passed", "failed", "needs_review", "skipped"];
const status = fc.constantFrom(...statuses);

describe("properties: effect digest", () => {
  test("changing any character of any row's path or content digest changes the digest", () => {
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.boolean(),
        fc.nat(),
        tricky,
        (rows, rowPick, pickPath, charPick, replacement) => {
          const i = rowPick % rows.length;
          const row = rows[i] as MutationRecord;
          const key = pickPath ? "path" : "content_digest";
          const value = row[key];
          // Replace one character (or, for an empty field, add one).
          const at = value.length === 0 ? 0 : charPick % value.length;
          const changed =
            value.slice(0, at) + replacement + value.slice(at + (value.length === 0 ? 0 : 1));
          fc.pre(changed !== value);
          const mutated = rows.map((r, k) => (k === i ? { ...r, [key]: changed } : r));
          expect(effectDigest(mutated)).not.toBe(effectDigest(rows));
        },
      ),
    );
  });

  test("the canonical text parses back to the sorted rows (it is injective)", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 6 }), (rows) => {
        const sorted = [...rows].sort(compareRecords);
        expect(parseCanonicalLedgerText(canonicalLedgerText(rows))).toEqual(sorted);
      }),
    );
  });

  test("the digest does not depend on the order of rows with distinct (path, tool)", () => {
    const row = fc.record({
      tool: fc.constantFrom("bash", "write", "task", "Edit"),
      path: fc.string({ unit: tricky, minLength: 1, maxLength: 6 }),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(
        // Distinct after the ledger's own normalisation (tool lower-cased, path trimmed).
        fc.uniqueArray(row, {
          selector: (r) => `${r.tool.toLowerCase()}\u0000${r.path.trim()}`,
          maxLength: 12,
        }),
        fc.func(fc.boolean()),
        (rows, readNow) => {
          const observe = (order: typeof rows, read: boolean) => {
            const ledger = new MutationLedger();
            order.forEach((r, k) => {
              ledger.observeTool(r.tool, 0, {
                changed_paths: [r.path],
                after: `content ${r.seed}`,
              });
              if (read && readNow(k)) void ledger.digest; // interleaved reads exercise the lazy merge
            });
            return ledger.digest;
          };
          const forward = observe(rows, true);
          expect(observe([...rows].reverse(), false)).toBe(forward);
          expect(
            observe(
              [...rows].sort((a, b) => a.seed - b.seed),
              true,
            ),
          ).toBe(forward);
        },
      ),
    );
  });

  test("the ledger's rows and digest equal a naive append-and-stable-sort model", () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("write" as const),
        path: fc.constantFrom("a", "b", "c", "d"),
        after: fc.string(),
      }),
      fc.record({
        kind: fc.constant("unseen" as const),
        path: fc.constantFrom("a", "b", "e", "./f"),
      }),
      fc.record({ kind: fc.constant("read" as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const ledger = new MutationLedger();
        const model: MutationRecord[] = [];
        for (const o of ops) {
          if (o.kind === "write") {
            ledger.observeTool("write", 0, { file_path: o.path, after: o.after });
            const digest = createHash("sha256").update(o.after, "utf8").digest("hex");
            model.push({ tool: "write", path: o.path, content_digest: digest });
          } else if (o.kind === "unseen") {
            const path = o.path.replace(/^\.\//, "");
            const before = model.some((r) => r.path === path);
            ledger.observeUnseenPaths([o.path]);
            if (!before) model.push({ tool: "workspace", path, content_digest: "" });
          } else {
            expect(ledger.digest).toBe(effectDigest(model));
          }
        }
        expect(ledger.records).toEqual([...model].sort(compareRecords));
        expect(ledger.digest).toBe(effectDigest(model));
      }),
    );
  });
});

describe("properties: gate", () => {
  test("allow verified(d) implies an accepted report bound to exactly d with ≥1 required check, all passed", () => {
    const check: fc.Arbitrary<VerificationCheckInput> = fc.record({
      id: fc.constantFrom("t", "l"),
      kind: fc.constant("test"),
      description: fc.constant("d"),
      status,
      required: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a.ts", "b.ts", "c.ts"), { maxLength: 3 }),
        fc.array(
          fc.record({
            checks: fc.array(check, { maxLength: 3 }),
            residualRisks: fc.array(fc.constant("risk"), { maxLength: 1 }),
            status: fc.option(status, { nil: undefined }),
            bind: fc.constantFrom("current", "other", "none"),
          }),
          { maxLength: 4 },
        ),
        fc.array(fc.constantFrom("current", "other"), { maxLength: 1 }),
        (paths, reportSpecs, waiverSpecs) => {
          const ledger = new MutationLedger();
          for (const p of paths) ledger.observeTool("write", 0, { file_path: p, after: p });
          const d = ledger.digest;
          const reports: VerificationReportInput[] = reportSpecs.map((spec) => {
            // A recorded status is either the derived one (status undefined) or arbitrary.
            const base = acceptReportLike(spec.checks, spec.residualRisks);
            const digest =
              spec.bind === "current" ? d : spec.bind === "other" ? "0".repeat(64) : undefined;
            return {
              ...base,
              ...(spec.status === undefined ? {} : { status: spec.status }),
              ...(digest === undefined ? {} : { effect_digest: digest }),
            };
          });
          const waivers = waiverSpecs.map((w) => ({
            effect_digest: w === "current" && d !== "" ? d : "e".repeat(64),
            reason: "host",
          }));
          const outcome = decideCompletion({ ledger, reports, waivers });
          if (outcome.kind === "allow" && outcome.terminal.kind === "verified") {
            expect(outcome.terminal.effect_digest).toBe(d);
            const witness = reports.find((r) => {
              if (r.effect_digest !== d) return false;
              try {
                acceptReport(r, "host");
              } catch {
                return false;
              }
              const required = r.checks.filter((c) => c.required === true);
              return required.length > 0 && required.every((c) => c.status === "passed");
            });
            expect(witness).toBeDefined();
          }
          if (outcome.kind === "allow" && outcome.terminal.kind === "narrative") {
            expect(ledger.isEmpty).toBe(true);
          }
          if (outcome.kind === "allow" && outcome.terminal.kind === "waived") {
            expect(waivers.some((w) => w.effect_digest === d)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** A report whose status is derived (as createReport would), without an effect digest. */
function acceptReportLike(
  checks: VerificationCheckInput[],
  residualRisks: string[],
): VerificationReportInput {
  const failed = checks.some((c) => c.status === "failed");
  const pending = checks.some(
    (c) => c.required === true && (c.status === "needs_review" || c.status === "skipped"),
  );
  const derived: VerificationStatus = failed
    ? "failed"
    : pending || residualRisks.length > 0
      ? "needs_review"
      : checks.length === 0
        ? "skipped"
        : "passed";
  return {
    schema: "verification_report.v1",
    subject: "host:prop",
    status: derived,
    checks,
    ...(residualRisks.length > 0 ? { residual_risks: residualRisks } : {}),
  };
}

describe("properties: malformed metadata", () => {
  const anything = fc.anything({
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withBoxedValues: true,
    withTypedArray: true,
    withSparseArray: true,
    withObjectString: true,
  });
  const metadata = fc.oneof(
    anything,
    fc.record(
      {
        file_path: anything,
        after: anything,
        changed_paths: fc.oneof(anything, fc.array(fc.oneof(fc.string(), anything))),
        workspace_child: anything,
        verification_report: anything,
        verification_author: anything,
        artifact_uri: anything,
        results: fc.array(
          fc.record({
            tool: anything,
            success: fc.oneof(fc.constant(true), anything),
            exit_code: fc.oneof(fc.constant(0), anything),
            metadata: anything,
          }),
        ),
        program: fc.record({
          tool_calls: fc.array(
            fc.record({
              tool_name: fc.oneof(fc.constant("write"), anything),
              success: fc.constant(true),
              exit_code: fc.constant(0),
              metadata: anything,
            }),
          ),
        }),
      },
      { requiredKeys: [] },
    ),
  );
  const command = { id: "t", kind: "test", description: "d", command: "make test", required: true };

  test("no function throws an untyped error on malformed metadata", () => {
    fc.assert(
      fc.property(
        metadata,
        fc.constantFrom("write", "bash", "program", "batch"),
        fc.integer({ min: -2, max: 2 }),
        (m, tool, exit) => {
          const calls: (() => unknown)[] = [
            () => new MutationLedger().observeTool(tool, exit, m),
            () => contentDigest(m),
            () => checkFromExecution(command, exit, m),
            () => shellEvidenceReport("make test || true", exit, [command], m),
            () => reportFromToolMetadata(m),
          ];
          for (const call of calls) {
            try {
              call();
            } catch (error) {
              expect(error).toBeInstanceOf(TurngateError);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
