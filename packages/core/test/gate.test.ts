/**
 * The completion gate (A3S §2.7–2.12, messages E1–E4 of §3, docs/design.md §3 changes).
 */
import { describe, expect, test } from "vitest";
import {
  type CompletionWaiver,
  createReport,
  decideCompletion,
  type ExternalObservationInput,
  foldStepCompletions,
  type GateOutcome,
  MutationLedger,
  mergeAttestedReport,
  reportBindsPass,
  stillOpenObservations,
  TurngateStatusMismatchError,
  TurngateValidationError,
  type VerificationReport,
} from "../src/index.js";

// The ledger below holds one row "write|a.ts|sha256('a')":
// printf 'write|a.ts|%s' ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb | sha256sum
const D = "1dafedebb3b2ce401627772d27272cfc5c96dd2fbe62d8ec165c783370eb9ec5";
const OTHER = "f".repeat(64);

function mutated(): MutationLedger {
  const ledger = new MutationLedger();
  ledger.observeTool("write", 0, { file_path: "a.ts", after: "a" });
  return ledger;
}

const passing = (digest?: string): VerificationReport =>
  createReport(
    "host:tests",
    [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
    digest === undefined ? {} : { effectDigest: digest },
  );

const waiver = (digest: string): CompletionWaiver => ({
  effect_digest: digest,
  reason: "host accepts",
});

const E1 = (digests: string) =>
  `completion gate: external observation ${digests} still requires a workspace change. A final answer does not clear it. Bind a newer observation of the same subject or a host waiver for the observation digest.`;
const E2 = (ids: string) =>
  `completion gate: background workspace task ${ids} has not been observed. A final answer does not observe its writes.`;
const E3 =
  "completion gate: workspace observation is incomplete, so this digest is not the effect. A final answer, a waiver, or a verification of a partial list does not close it.";
const E4 = (digest: string) =>
  `completion gate: workspace mutation ${digest} has no bound Passed verification and no host waiver. Assistant text does not count. Bind a verification_report.effect_digest to this digest with required checks Passed, or obtain a host waiver for this digest.`;

const obs = (
  subject: string,
  digest: string,
  required_action: ExternalObservationInput["required_action"],
): ExternalObservationInput => ({ kind: "ci", subject, digest, payload: "{}", required_action });

const unverified: GateOutcome = {
  kind: "incomplete",
  reason: "unverified_mutation",
  message: E4(D),
  effect_digest: D,
  paths: ["a.ts"],
};

describe("decideCompletion (A3S §2.7)", () => {
  test("empty ledger → allow narrative", () => {
    expect(decideCompletion({ ledger: new MutationLedger() })).toEqual({
      kind: "allow",
      terminal: { kind: "narrative" },
    });
  });

  test("mutation with no report or waiver → incomplete E4 with digest and paths", () => {
    expect(decideCompletion({ ledger: mutated() })).toEqual(unverified);
  });

  test("E4 stays incomplete even when continuation is allowed", () => {
    expect(decideCompletion({ ledger: mutated(), allowContinuation: true })).toEqual(unverified);
  });

  test("a report bound to the digest with passed required checks → allow verified", () => {
    expect(decideCompletion({ ledger: mutated(), reports: [passing(D)] })).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: D },
    });
  });

  test("a waiver of the digest → allow waived", () => {
    expect(decideCompletion({ ledger: mutated(), waivers: [waiver(D)] })).toEqual({
      kind: "allow",
      terminal: { kind: "waived", effect_digest: D },
    });
  });

  test("waiver before report: with both, the terminal is waived", () => {
    const outcome = decideCompletion({
      ledger: mutated(),
      reports: [passing(D)],
      waivers: [waiver(D)],
    });
    expect(outcome).toEqual({ kind: "allow", terminal: { kind: "waived", effect_digest: D } });
  });

  test("a waiver or report for another digest does not close the gate", () => {
    expect(decideCompletion({ ledger: mutated(), waivers: [waiver(OTHER)] })).toEqual(unverified);
    expect(decideCompletion({ ledger: mutated(), reports: [passing(OTHER)] })).toEqual(unverified);
    expect(decideCompletion({ ledger: mutated(), waivers: [waiver(D.toUpperCase())] })).toEqual(
      unverified,
    );
    expect(decideCompletion({ ledger: mutated(), waivers: [waiver(` ${D}`)] })).toEqual(unverified);
  });

  test("an unbound passing report does not close the gate", () => {
    expect(decideCompletion({ ledger: mutated(), reports: [passing()] })).toEqual(unverified);
  });

  test("a bound report with zero required checks does not close the gate", () => {
    const optionalOnly = createReport(
      "host:lint",
      [{ id: "l", kind: "lint", description: "lint", status: "passed" }],
      { effectDigest: D },
    );
    expect(optionalOnly.status).toBe("passed");
    expect(decideCompletion({ ledger: mutated(), reports: [optionalOnly] })).toEqual(unverified);
    const noChecks = createReport("host:none", [], { effectDigest: D });
    expect(decideCompletion({ ledger: mutated(), reports: [noChecks] })).toEqual(unverified);
  });

  test("observation incomplete → E3, even on an empty ledger and even with a matching waiver or report", () => {
    const empty = new MutationLedger();
    empty.observationIncomplete = true;
    expect(decideCompletion({ ledger: empty })).toEqual({
      kind: "incomplete",
      reason: "observation_incomplete",
      message: E3,
      effect_digest: "",
      paths: [],
    });
    const ledger = mutated();
    ledger.observationIncomplete = true;
    expect(
      decideCompletion({
        ledger,
        reports: [passing(D)],
        waivers: [waiver(D)],
        allowContinuation: true,
      }),
    ).toEqual({
      kind: "incomplete",
      reason: "observation_incomplete",
      message: E3,
      effect_digest: D,
      paths: ["a.ts"],
    });
  });

  test("open background children → E2 with the task ids joined by ','", () => {
    const ledger = mutated();
    ledger.observeTool("bash", 0, { workspace_child: "job-1" });
    ledger.observeTool("bash", 0, { workspace_child: "job-2" });
    ledger.observationIncomplete = true;
    expect(decideCompletion({ ledger, reports: [passing(D)] })).toEqual({
      kind: "incomplete",
      reason: "open_children",
      message: E2("job-1,job-2"),
      effect_digest: D,
      task_ids: ["job-1", "job-2"],
    });
  });

  test("an open workspace_change observation → E1: continue when allowed, else incomplete", () => {
    const ledger = mutated();
    ledger.observeTool("bash", 0, { workspace_child: "job-1" });
    const observations = [
      obs("ci", "obs-1", "workspace_change"),
      obs("review", "obs-2", "workspace_change"),
    ];
    const blocked = {
      reason: "external_observation",
      message: E1("obs-1,obs-2"),
      effect_digest: D,
      digests: ["obs-1", "obs-2"],
      subjects: ["ci", "review"],
    };
    expect(decideCompletion({ ledger, observations, allowContinuation: true })).toEqual({
      kind: "continue",
      ...blocked,
    });
    expect(decideCompletion({ ledger, observations })).toEqual({ kind: "incomplete", ...blocked });
  });

  test("observations that do not block: address, none, superseded, waived", () => {
    const ledger = mutated();
    const reports = [passing(D)];
    const verified = { kind: "allow", terminal: { kind: "verified", effect_digest: D } };
    expect(
      decideCompletion({ ledger, reports, observations: [obs("ci", "o1", "address")] }),
    ).toEqual(verified);
    expect(
      decideCompletion({
        ledger,
        reports,
        observations: [obs("ci", "o1", "workspace_change"), obs("ci", "o2", "none")],
      }),
    ).toEqual(verified);
    expect(
      decideCompletion({
        ledger,
        reports,
        waivers: [waiver("o1")],
        observations: [obs("ci", "o1", "workspace_change")],
      }),
    ).toEqual(verified);
  });

  test("a waiver of the current effect digest clears every open observation", () => {
    const observations = [
      obs("ci", "o1", "workspace_change"),
      obs("review", "o2", "workspace_change"),
    ];
    expect(decideCompletion({ ledger: mutated(), waivers: [waiver(D)], observations })).toEqual({
      kind: "allow",
      terminal: { kind: "waived", effect_digest: D },
    });
  });

  test("an observation on an empty ledger still blocks (E1 before the narrative rule)", () => {
    const outcome = decideCompletion({
      ledger: new MutationLedger(),
      observations: [obs("ci", "o1", "workspace_change")],
    });
    expect(outcome).toMatchObject({
      kind: "incomplete",
      reason: "external_observation",
      effect_digest: "",
    });
  });

  test("a LedgerSnapshot is accepted in place of a ledger", () => {
    const snapshot = mutated().toJSON();
    expect(decideCompletion({ ledger: snapshot, reports: [passing(D)] })).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: D },
    });
    expect(() => decideCompletion({ ledger: { ...snapshot, digest: OTHER } })).toThrow(
      TurngateValidationError,
    );
  });

  test("a ledger-like object from another package copy is read through its toJSON snapshot", () => {
    const ledger = mutated();
    ledger.observeTool("bash", 0, { workspace_child: "job-9" });
    const foreign = { toJSON: () => ledger.toJSON() };
    expect(decideCompletion({ ledger: foreign as never, reports: [passing(D)] })).toMatchObject({
      kind: "incomplete",
      reason: "open_children",
      task_ids: ["job-9"],
    });
  });

  test("malformed gate input throws TurngateValidationError naming the field", () => {
    const cases: [unknown, string][] = [
      [{ ledger: mutated(), reports: [{ ...passing(D), status: "green" }] }, "reports.0.status"],
      [{ ledger: mutated(), reports: "x" }, "reports"],
      [{ ledger: mutated(), waivers: [{ effect_digest: D, reason: "  " }] }, "waivers.0.reason"],
      [
        { ledger: mutated(), waivers: [{ effect_digest: "", reason: "r" }] },
        "waivers.0.effect_digest",
      ],
      [{ ledger: mutated(), allowContinuation: "yes" }, "allowContinuation"],
      [
        { ledger: mutated(), observations: [{ ...obs("ci", " ", "none") }] },
        "observations.0.digest",
      ],
      [{ ledger: { records: [{ tool: 1 }], digest: "" } }, "records.0.tool"],
      [null, ""],
    ];
    for (const [input, path] of cases) {
      let caught: unknown;
      try {
        decideCompletion(input as never);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TurngateValidationError);
      expect((caught as TurngateValidationError).path).toBe(path);
    }
  });
});

describe("reportBindsPass (A3S §2.8 + status check)", () => {
  const required = { id: "t", kind: "test", description: "tests", required: true };

  test("binds only to the exact digest", () => {
    expect(reportBindsPass(passing(D), D)).toBe(true);
    expect(reportBindsPass(passing(D), OTHER)).toBe(false);
    expect(reportBindsPass(passing(), D)).toBe(false);
    expect(reportBindsPass(passing(""), "")).toBe(false);
  });

  test("a required check that is not passed never binds", () => {
    for (const status of ["failed", "needs_review", "skipped"] as const) {
      const report = createReport("r", [{ ...required, status }], { effectDigest: D });
      expect(reportBindsPass(report, D)).toBe(false);
    }
  });

  test("a failed optional check derives a failed report, which does not bind", () => {
    const report = createReport(
      "r",
      [
        { ...required, status: "passed" },
        { id: "o", kind: "lint", description: "lint", status: "failed" },
      ],
      { effectDigest: D },
    );
    expect(report.status).toBe("failed");
    expect(reportBindsPass(report, D)).toBe(false);
  });

  test("a passed required check with a check-level residual risk still binds", () => {
    const report = createReport("r", [{ ...required, status: "passed", residual_risk: "flaky" }], {
      effectDigest: D,
    });
    expect(report.status).toBe("passed");
    expect(reportBindsPass(report, D)).toBe(true);
  });

  test("a recorded status that its checks do not derive never binds (turngate change)", () => {
    const base = passing(D);
    expect(reportBindsPass({ ...base, status: "skipped" }, D)).toBe(false);
    expect(reportBindsPass({ ...base, residual_risks: ["unreviewed"] }, D)).toBe(false);
    expect(
      reportBindsPass(
        { ...base, checks: [{ ...required, status: "failed" }], status: "passed" },
        D,
      ),
    ).toBe(false);
  });

  test("malformed values give false, never a throw", () => {
    expect(reportBindsPass(null as never, D)).toBe(false);
    expect(reportBindsPass({ effect_digest: D, checks: "x" } as never, D)).toBe(false);
    expect(reportBindsPass({ effect_digest: D, checks: [null] } as never, D)).toBe(false);
  });
});

describe("stillOpenObservations (A3S §2.12)", () => {
  test("newest per subject, action none dropped, waived dropped, input order kept", () => {
    const observations = [
      obs("a", "a1", "workspace_change"),
      obs("b", "b1", "address"),
      obs("a", "a2", "workspace_change"),
      obs("c", "c1", "workspace_change"),
      obs("d", "d1", "workspace_change"),
      obs("d", "d2", "none"),
    ];
    const open = stillOpenObservations(observations, [waiver("c1")], D);
    expect(open.map((o) => o.digest)).toEqual(["b1", "a2"]);
    expect(open[0]?.schema).toBe("external_observation.v1");
    expect(stillOpenObservations(observations, [waiver(D)], D)).toEqual([]);
    expect(stillOpenObservations(observations, [waiver(D)], "").map((o) => o.digest)).toEqual([
      "b1",
      "a2",
      "c1",
    ]);
  });

  test("A3S's schema id is accepted and kept; payloads over 8192 bytes are rejected", () => {
    const a3s = {
      ...obs("a", "a1", "address"),
      schema: "a3s.code.external-observation.v1" as const,
    };
    expect(stillOpenObservations([a3s], [], "")[0]?.schema).toBe(
      "a3s.code.external-observation.v1",
    );
    const big = { ...obs("a", "a1", "address"), payload: "é".repeat(4097) };
    expect(() => stillOpenObservations([big], [], "")).toThrow(/observations\.0\.payload/);
    const fits = { ...obs("a", "a1", "address"), payload: "é".repeat(4096) };
    expect(stillOpenObservations([fits], [], "")).toHaveLength(1);
  });
});

describe("foldStepCompletions (A3S §2.10)", () => {
  const verified = (d: string) => ({ kind: "verified", effect_digest: d }) as const;
  const waived = (d: string) => ({ kind: "waived", effect_digest: d }) as const;

  test("narrative and duplicates are dropped; none left → narrative; one left → it", () => {
    expect(foldStepCompletions([])).toEqual({ kind: "narrative" });
    expect(foldStepCompletions([{ kind: "narrative" }, { kind: "narrative" }])).toEqual({
      kind: "narrative",
    });
    expect(foldStepCompletions([{ kind: "narrative" }, waived(D), waived(D)])).toEqual(waived(D));
    expect(foldStepCompletions([{ kind: "distinct" }])).toEqual({ kind: "distinct" });
  });

  test("several with one digest: verified if any is verified, else the first", () => {
    expect(foldStepCompletions([waived(D), verified(D)])).toEqual(verified(D));
    expect(foldStepCompletions([verified(D), waived(D)])).toEqual(verified(D));
  });

  test("different digests or a distinct entry → distinct", () => {
    expect(foldStepCompletions([verified(D), verified(OTHER)])).toEqual({ kind: "distinct" });
    expect(foldStepCompletions([{ kind: "distinct" }, verified(D)])).toEqual({ kind: "distinct" });
    expect(foldStepCompletions([verified(D), { kind: "distinct" }])).toEqual({ kind: "distinct" });
  });

  test("a malformed terminal throws with its index", () => {
    expect(() => foldStepCompletions([{ kind: "verified" } as never])).toThrow(
      /at 0\.effect_digest/,
    );
  });
});

describe("mergeAttestedReport (A3S §2.11)", () => {
  test("calls the attestor with the digest and distinct paths with content digests; the report binds", async () => {
    const ledger = mutated();
    ledger.observeTool("bash", 0, { changed_paths: ["a.ts"] });
    ledger.observeUnseenPaths(["b.txt"]);
    const calls: unknown[] = [];
    const reports = await mergeAttestedReport(
      async (digest, paths) => {
        calls.push([digest, paths]);
        return passing(digest);
      },
      ledger,
      [],
    );
    expect(calls).toEqual([
      [
        ledger.digest,
        [
          { path: "a.ts", content_digest: ledger.contentDigestForPath("a.ts") },
          { path: "b.txt", content_digest: "" },
        ],
      ],
    ]);
    expect(reports).toHaveLength(1);
    expect(decideCompletion({ ledger, reports })).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: ledger.digest },
    });
  });

  test("no attestor, an empty ledger or a null answer leave the reports unchanged", async () => {
    const existing = [passing()];
    let called = 0;
    const attestor = () => {
      called++;
      return null;
    };
    expect(await mergeAttestedReport(undefined, mutated(), existing)).toEqual(existing);
    expect(await mergeAttestedReport(attestor, new MutationLedger(), existing)).toEqual(existing);
    expect(called).toBe(0);
    expect(await mergeAttestedReport(attestor, mutated(), existing)).toEqual(existing);
    expect(called).toBe(1);
  });

  test("an attested report for another digest leaves the gate incomplete", async () => {
    const reports = await mergeAttestedReport(() => passing(OTHER), mutated(), []);
    expect(reports).toHaveLength(1);
    expect(decideCompletion({ ledger: mutated(), reports })).toEqual(unverified);
  });

  test("an attested report whose status does not follow from its checks is rejected", async () => {
    const lying = { ...passing(D), status: "skipped" as const };
    await expect(mergeAttestedReport(() => lying, mutated(), [])).rejects.toBeInstanceOf(
      TurngateStatusMismatchError,
    );
  });
});
