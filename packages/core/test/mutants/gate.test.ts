/**
 * The completion gate, exactly (issue #11 §5: the survivors Stryker left in
 * packages/core/src/gate): exact validation messages and paths of decideCompletion's
 * input, reportBindsPass on malformed reports, the waiver of the current effect, how an
 * unknown author is printed, and mergeAttestedReport's edge cases (blank digest, unknown
 * content digest, an attestor answering undefined, a null ledger).
 */
import { describe, expect, test } from "vitest";
import {
  acceptReport,
  type ContentHasher,
  createReport,
  decideCompletion,
  foldStepCompletions,
  MutationLedger,
  mergeAttestedReport,
  NOBLE_CONTENT_HASHER,
  reportBindsPass,
  stillOpenObservations,
  TurngateAuthorshipError,
  TurngateValidationError,
} from "../../src/index.js";

// One row "write|a.ts|sha256('a')" (as in gate.test.ts).
const D = "1dafedebb3b2ce401627772d27272cfc5c96dd2fbe62d8ec165c783370eb9ec5";

function ledger(): MutationLedger {
  const l = new MutationLedger();
  l.observeTool("write", 0, { file_path: "a.ts", after: "a" });
  return l;
}

function refusal(input: unknown): { message: string; path: string } {
  try {
    decideCompletion(input as never);
  } catch (error) {
    expect(error).toBeInstanceOf(TurngateValidationError);
    const e = error as TurngateValidationError;
    return { message: e.message, path: e.path };
  }
  throw new Error("decideCompletion accepted the input");
}

describe("decideCompletion input validation (exact messages)", () => {
  test("a non-object input", () => {
    expect(refusal(null)).toEqual({ message: "invalid gate input: expected an object", path: "" });
    expect(refusal("x")).toEqual({ message: "invalid gate input: expected an object", path: "" });
  });

  test("reports, waivers and allowContinuation of the wrong type name their field", () => {
    expect(refusal({ ledger: ledger(), reports: 5 })).toEqual({
      message: "invalid gate input at reports: expected an array",
      path: "reports",
    });
    expect(refusal({ ledger: ledger(), waivers: {} })).toEqual({
      message: "invalid gate input at waivers: expected an array",
      path: "waivers",
    });
    expect(refusal({ ledger: ledger(), allowContinuation: "yes" })).toEqual({
      message: "invalid gate input at allowContinuation: expected a boolean",
      path: "allowContinuation",
    });
  });
});

describe("reportBindsPass on malformed checks", () => {
  test("a valid passing check followed by a non-object check never binds (and never throws)", () => {
    const report = createReport(
      "host:tests",
      [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
      { effectDigest: D },
    );
    expect(reportBindsPass(report, D)).toBe(true);
    expect(reportBindsPass({ ...report, checks: [...report.checks, null] } as never, D)).toBe(
      false,
    );
  });
});

describe("reportBindsPass: exact refusals (issue #11 §5, surviving mutants)", () => {
  const passing = createReport(
    "host:tests",
    [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
    { effectDigest: D },
  );

  test("a digest that is not a string never binds, even when the report carries the same value", () => {
    expect(reportBindsPass({ ...passing, effect_digest: 5 } as never, 5 as never)).toBe(false);
  });

  test("a primitive among the checks never binds", () => {
    expect(reportBindsPass({ ...passing, checks: [...passing.checks, 5] } as never, D)).toBe(false);
    expect(reportBindsPass({ ...passing, checks: [...passing.checks, "x"] } as never, D)).toBe(
      false,
    );
  });

  test("every required check must have passed: a skipped required check never binds", () => {
    const report = createReport(
      "host:tests",
      [
        { id: "t", kind: "test", description: "tests", status: "passed", required: true },
        { id: "s", kind: "test", description: "skipped", status: "skipped", required: true },
      ],
      { effectDigest: D },
    );
    expect(reportBindsPass(report, D)).toBe(false);
    const onlySkipped = createReport(
      "host:tests",
      [{ id: "s", kind: "test", description: "skipped", status: "skipped", required: true }],
      { effectDigest: D },
    );
    expect(onlySkipped.status).toBe("needs_review");
    expect(reportBindsPass(onlySkipped, D)).toBe(false);
  });

  test("a needs_review report never binds, even when its status follows from its checks", () => {
    const report = createReport(
      "host:tests",
      [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
      { effectDigest: D, residualRisks: ["flaky"] },
    );
    expect(report.status).toBe("needs_review");
    expect(reportBindsPass(report, D)).toBe(false);
  });
});

describe("gate list labels and paths (issue #11 §5, surviving mutants)", () => {
  test("observations and waivers that are not lists name the list", () => {
    expect(() => stillOpenObservations("x" as never, [], D)).toThrow(
      new TurngateValidationError("external observations", [
        { path: "observations", message: "expected an array" },
      ]),
    );
    expect(() => stillOpenObservations([], "x" as never, D)).toThrow(
      "invalid completion waivers at waivers: expected an array",
    );
  });

  test("terminals that are not a list name the list", () => {
    expect(() => foldStepCompletions("x" as never)).toThrow(
      "invalid completion terminals: expected an array",
    );
  });
});

describe("decideCompletion: the external-observation outcome names only workspace_change ones", () => {
  test("an open observation with another required action is not listed", () => {
    const observations = [
      {
        kind: "ci",
        subject: "ci",
        digest: "obs-1",
        payload: "{}",
        required_action: "workspace_change",
      },
      { kind: "ci", subject: "review", digest: "obs-2", payload: "{}", required_action: "address" },
    ];
    const outcome = decideCompletion({ ledger: ledger(), observations } as never) as {
      reason: string;
      message: string;
      digests?: string[];
    };
    expect(outcome.reason).toBe("external_observation");
    expect(outcome.message).toBe(
      "completion gate: external observation obs-1 still requires a workspace change. A final answer does not clear it. Bind a newer observation of the same subject or a host waiver for the observation digest.",
    );
    expect(outcome.digests).toEqual(["obs-1"]);
  });
});

describe("reportBindsPass is total: malformed reports give false", () => {
  test("an undefined or function report never binds (and never throws)", () => {
    expect(reportBindsPass(undefined as never, D)).toBe(false);
    const fn = Object.assign(() => 0, {
      effect_digest: D,
      status: "passed",
      checks: [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
      residual_risks: [],
    });
    expect(reportBindsPass(fn as never, D)).toBe(false);
  });

  test("a required check whose status is not a known status has not passed, so the report never binds", () => {
    const passing = createReport(
      "host:tests",
      [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
      { effectDigest: D },
    );
    const pending = {
      id: "p",
      kind: "test",
      description: "pending",
      status: "pending",
      required: true,
    };
    const noStatus = { id: "n", kind: "test", description: "no status", required: true };
    // deriveReportStatus still says "passed" for these checks: only the required-check rule refuses.
    expect(reportBindsPass({ ...passing, checks: [...passing.checks, pending] } as never, D)).toBe(
      false,
    );
    expect(reportBindsPass({ ...passing, checks: [pending] } as never, D)).toBe(false);
    expect(reportBindsPass({ ...passing, checks: [noStatus] } as never, D)).toBe(false);
  });
});

describe("stillOpenObservations: a waiver of the current effect clears every open observation", () => {
  const observation = {
    kind: "ci",
    subject: "ci",
    digest: "obs-1",
    payload: "{}",
    required_action: "workspace_change" as const,
  };
  const waiver = (effectDigest: string) => ({ effect_digest: effectDigest, reason: "host" });

  test("whatever non-blank text the effect digest is", () => {
    // A waiver's effect_digest is any non-blank string; the effect digest is compared as is.
    for (const digest of [D, "Stryker was here!", " x "]) {
      expect(stillOpenObservations([observation], [waiver(digest)], digest)).toEqual([]);
    }
    expect(stillOpenObservations([observation], [waiver(D)], "Stryker was here!")).toEqual([
      { schema: "external_observation.v1", ...observation },
    ]);
  });
});

describe("acceptReport: an unknown author is printed short and never makes the refusal throw otherwise", () => {
  const report = createReport(
    "host:tests",
    [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
    { effectDigest: D },
  );

  function refusedAs(author: unknown): string {
    let caught: unknown;
    try {
      acceptReport(report, author);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TurngateAuthorshipError);
    expect((caught as TurngateAuthorshipError).author).toBe(author);
    const message = (caught as Error).message;
    const prefix = "verification report refused: unknown verification_author ";
    const suffix = "; only host or verifier reports count";
    expect(message.startsWith(prefix) && message.endsWith(suffix)).toBe(true);
    return message.slice(prefix.length, message.length - suffix.length);
  }

  test("JSON up to 80 characters is printed whole; longer JSON is cut to 77 characters and ...", () => {
    const x78 = "x".repeat(78);
    expect(refusedAs(x78)).toBe(`"${x78}"`);
    expect(refusedAs(`${x78}y`)).toBe(`"${"x".repeat(76)}...`);
    expect(refusedAs({ name: "z".repeat(100) })).toBe(`{"name":"${"z".repeat(68)}...`);
  });

  test("a value JSON cannot print is printed with String, else as its type", () => {
    expect(refusedAs(10n)).toBe("10");
    expect(refusedAs(Symbol("s"))).toBe("Symbol(s)");
    expect(refusedAs(() => 1)).toBe("() => 1");
    const cyclic = Object.create(null) as { self?: unknown };
    cyclic.self = cyclic;
    expect(refusedAs(cyclic)).toBe("object");
  });
});

describe("mergeAttestedReport: edge cases", () => {
  const existing = [
    createReport(
      "host:tests",
      [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
      { effectDigest: D },
    ),
  ];

  test("a ledger whose digest is blank (its host hasher gave none) is not attested", async () => {
    const blankHasher: ContentHasher = {
      sha256Hex: NOBLE_CONTENT_HASHER.sha256Hex,
      textSink: () => ({ write: () => undefined, hex: () => "  " }),
    };
    const l = new MutationLedger({ hasher: blankHasher });
    l.observeTool("write", 0, { file_path: "a.ts", after: "a" });
    expect(l.isEmpty).toBe(false);
    expect(l.digest).toBe("  ");
    let called = 0;
    const reports = await mergeAttestedReport(
      () => {
        called++;
        return existing[0];
      },
      l,
      existing,
    );
    expect(called).toBe(0);
    expect(reports).toEqual(existing);
    expect(reports).not.toBe(existing);
  });

  test('a live ledger is used itself: a path it knows no content digest for is handed over with ""', async () => {
    class NoContentDigests extends MutationLedger {
      override contentDigestForPath(): string | undefined {
        return undefined;
      }
    }
    const l = new NoContentDigests();
    l.observeTool("write", 0, { file_path: "a.ts", after: "a" });
    const calls: unknown[] = [];
    const reports = await mergeAttestedReport(
      (digest, paths) => {
        calls.push([digest, paths]);
        return null;
      },
      l,
      existing,
    );
    expect(calls).toEqual([[D, [{ path: "a.ts", content_digest: "" }]]]);
    expect(reports).toEqual(existing);
  });

  test("an attestor answering undefined adds nothing", async () => {
    const reports = await mergeAttestedReport(() => undefined, ledger(), existing);
    expect(reports).toEqual(existing);
    expect(reports).not.toBe(existing);
  });

  test("a null ledger is a typed error of the ledger snapshot, also for decideCompletion", async () => {
    const expected = new TurngateValidationError("ledger snapshot", [
      { path: "", message: "Invalid input: expected object, received null" },
    ]);
    await expect(mergeAttestedReport(() => null, null as never, [])).rejects.toThrow(expected);
    await expect(mergeAttestedReport(() => null, null as never, [])).rejects.toBeInstanceOf(
      TurngateValidationError,
    );
    expect(() => decideCompletion({ ledger: null } as never)).toThrow(expected);
    expect(() => decideCompletion({ ledger: null } as never)).toThrow(TurngateValidationError);
  });
});
