/**
 * Mutation ledger and effect digest (A3S §1.8, §2.1–2.4; docs/design.md §3).
 *
 * How the expected digests were computed (independently of this code, at authoring time):
 * each expected canonical text is written out below, and its SHA-256 was computed with
 * coreutils, e.g.
 *   printf 'hello\n' | sha256sum                                  # content digest of `after`
 *   printf '%s' '{"changed_paths":["a.ts"],"exit_code":0}' | sha256sum   # metadata digest
 *   printf 'bash|a.ts|%s\nedit|a.ts|%s\nwrite|b.ts|%s' $CP $DA $DB | sha256sum
 * (`$CP`, `$DA`, `$DB` being the content digests above). The test then checks both the
 * canonical text and the digest, so a wrong row format and a wrong hash are told apart.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  canonicalLedgerText,
  contentDigest,
  DELETED_CONTENT_DIGEST,
  effectDigest,
  isHarnessPath,
  MAX_JSON_DEPTH,
  MutationLedger,
  TurngateValidationError,
} from "../src/index.js";

// printf 'hello\n' | sha256sum
const HELLO = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
// printf '%s' a | sha256sum ; printf '%s' b | sha256sum
const DA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";
const DB = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d";
// printf '%s' '{"changed_paths":["a.ts"],"exit_code":0}' | sha256sum
const CP = "f7438dbdcb9ff1f2b655edf4b24d41464f06223089cdedb4e8b75e8406e53e1e";

describe("effect digest (hand-computed from the A3S §2.2 formula)", () => {
  test('an empty ledger has digest "" and empty canonical text', () => {
    const ledger = new MutationLedger();
    expect(ledger.digest).toBe("");
    expect(ledger.isEmpty).toBe(true);
    expect(effectDigest([])).toBe("");
    expect(canonicalLedgerText([])).toBe("");
  });

  test("one write gives one row carrying the SHA-256 of after", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("Write", 0, { file_path: "src/a.ts", after: "hello\n" });
    expect(ledger.records).toEqual([{ tool: "write", path: "src/a.ts", content_digest: HELLO }]);
    expect(canonicalLedgerText(ledger.records)).toBe(`write|src/a.ts|${HELLO}`);
    // printf '%s' "write|src/a.ts|$HELLO" | sha256sum
    expect(ledger.digest).toBe("afdb1a00feb234326f06b073e0209016830daf0fa9a9d07556f91873ed2aec74");
  });

  test("three rows observed out of order are sorted by (path, tool)", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "b.ts", after: "b" });
    ledger.observeTool("edit", 0, { file_path: "a.ts", after: "a" });
    ledger.observeTool("bash", 0, { exit_code: 0, changed_paths: ["a.ts"] });
    const text = `bash|a.ts|${CP}\nedit|a.ts|${DA}\nwrite|b.ts|${DB}`;
    expect(canonicalLedgerText(ledger.records)).toBe(text);
    // printf 'bash|a.ts|%s\nedit|a.ts|%s\nwrite|b.ts|%s' $CP $DA $DB | sha256sum
    expect(ledger.digest).toBe("805a3f649112047ed05c925a5a01862bfb1de5003d60c36bd7e5a4bd9a493b1d");
    expect(effectDigest(ledger.records)).toBe(ledger.digest);
  });

  test("effectDigest sorts its input rows before hashing", () => {
    const rows = [
      { tool: "write", path: "b.ts", content_digest: DB },
      { tool: "edit", path: "a.ts", content_digest: DA },
      { tool: "bash", path: "a.ts", content_digest: CP },
    ];
    expect(effectDigest(rows)).toBe(
      "805a3f649112047ed05c925a5a01862bfb1de5003d60c36bd7e5a4bd9a493b1d",
    );
  });

  test('unseen workspace rows carry "" and sort among tool rows', () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "src/a.ts", after: "hello\n" });
    const added = ledger.observeUnseenPaths([
      "./c.txt",
      " d.txt ",
      "src/a.ts",
      ".git/HEAD",
      ".a3s/loops/x",
      ".turngate/state.json",
      "",
      "./",
      "c.txt",
    ]);
    expect(added).toEqual(["c.txt", "d.txt"]);
    expect(canonicalLedgerText(ledger.records)).toBe(
      `workspace|c.txt|\nworkspace|d.txt|\nwrite|src/a.ts|${HELLO}`,
    );
    // printf 'workspace|c.txt|\nworkspace|d.txt|\nwrite|src/a.ts|%s' $HELLO | sha256sum
    expect(ledger.digest).toBe("afef4c758a4f430dc5f28ed4d0726919cff1587cd6f799327d250a6f31caa84a");
  });
});

describe("observeTool (A3S §2.1)", () => {
  test("no metadata or non-object metadata records nothing", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0);
    ledger.observeTool("write", 0, null);
    ledger.observeTool("write", 0, "file_path=a.ts");
    ledger.observeTool("write", 0, ["a.ts"]);
    expect(ledger.isEmpty).toBe(true);
  });

  test("a failed write does not count; the same write with exit 0 does", () => {
    const ledger = new MutationLedger();
    expect(ledger.observeTool("write", 1, { file_path: "a.ts", after: "a" })).toEqual([]);
    expect(ledger.isEmpty).toBe(true);
    expect(ledger.observeTool("write", 0, { file_path: "a.ts", after: "a" })).toEqual([
      { tool: "write", path: "a.ts", content_digest: DA },
    ]);
  });

  test("changed_paths on a failed bash still count, harness and blank paths dropped, ./ kept", () => {
    const ledger = new MutationLedger();
    const metadata = { exit_code: 2, changed_paths: ["out/x.bin", ".git/index", " ", "./y.txt"] };
    ledger.observeTool("Bash", 2, metadata);
    // printf '%s' '{"changed_paths":["out/x.bin",".git/index"," ","./y.txt"],"exit_code":2}' | sha256sum
    const fb = "0fc25ef14588a697e1a818fecd1d552cc0d395ea87f5afd00827f63cf8d77283";
    expect(contentDigest(metadata)).toBe(fb);
    expect(canonicalLedgerText(ledger.records)).toBe(`bash|./y.txt|${fb}\nbash|out/x.bin|${fb}`);
    // printf 'bash|./y.txt|%s\nbash|out/x.bin|%s' $FB $FB | sha256sum
    expect(ledger.digest).toBe("6ae182d90bd7da990c96e7f70c05c8c087a96129137f4ba4d5b9ddfa35e979e2");
  });

  test("non-array changed_paths and non-string elements are ignored", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("bash", 0, { changed_paths: "a.ts" });
    ledger.observeTool("bash", 0, { changed_paths: [1, null, { path: "a.ts" }] });
    expect(ledger.isEmpty).toBe(true);
  });

  test("bash command text is never parsed", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("bash", 0, { command: "rm -rf src", exit_code: 0 });
    expect(ledger.isEmpty).toBe(true);
  });

  test("nested program.tool_calls and results effects are observed; unqualified calls are skipped", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("program", 0, {
      program: {
        tool_calls: [
          {
            tool_name: "Write",
            success: true,
            exit_code: 0,
            metadata: { file_path: "n.ts", after: "n" },
          },
          {
            tool_name: "edit",
            success: false,
            exit_code: 0,
            metadata: { file_path: "f1.ts", after: "x" },
          },
          {
            tool_name: "edit",
            success: true,
            exit_code: 1,
            metadata: { file_path: "f2.ts", after: "x" },
          },
          {
            tool_name: "",
            success: true,
            exit_code: 0,
            metadata: { file_path: "f3.ts", after: "x" },
          },
          { tool_name: "edit", success: "true", exit_code: 0, metadata: { file_path: "f4.ts" } },
        ],
      },
      results: [
        { tool: "patch", success: true, exit_code: 0, metadata: { file_path: "r.ts", after: "r" } },
        { path: "src/hit.ts", line: 3 },
      ],
    });
    // printf '%s' n | sha256sum ; printf '%s' r | sha256sum
    const dn = "1b16b1df538ba12dc3f97edbb85caa7050d46c148134290feba80f8236c83db9";
    const dr = "454349e422f05297191ead13e21d3db520e5abef52055e4964b82fb213f593a1";
    expect(canonicalLedgerText(ledger.records)).toBe(`write|n.ts|${dn}\npatch|r.ts|${dr}`);
    // printf 'write|n.ts|%s\npatch|r.ts|%s' $DN $DR | sha256sum
    expect(ledger.digest).toBe("49f89cd370253531024c9e26371a8308d95115e550a567ffda5959c993910602");
  });

  test("a failed wrapper still records its successful nested calls; a direct writer does not look inside", () => {
    const nested = {
      results: [
        { tool: "write", success: true, exit_code: 0, metadata: { file_path: "n.ts", after: "n" } },
      ],
    };
    const failedWrapper = new MutationLedger();
    failedWrapper.observeTool("batch", 1, nested);
    expect(failedWrapper.paths).toEqual(["n.ts"]);
    const writer = new MutationLedger();
    writer.observeTool("write", 0, nested);
    expect(writer.isEmpty).toBe(true);
  });

  test("two writes to one file give two rows in observation order", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "a.ts", after: "b" });
    ledger.observeTool("write", 0, { file_path: "a.ts", after: "a" });
    expect(ledger.records.map((r) => r.content_digest)).toEqual([DB, DA]);
    expect(ledger.contentDigestForPath("a.ts")).toBe(DA);
  });

  test("rows sort in code-point (UTF-8 byte) order, not UTF-16 order", () => {
    const ledger = new MutationLedger();
    for (const p of ["😀", "～", "b", "\ue000", "a/😀", "a/～", "a/b"]) {
      ledger.observeTool("write", 0, { file_path: p, after: "" });
    }
    expect(ledger.paths).toEqual(["a/b", "a/～", "a/😀", "b", "\ue000", "～", "😀"]);
  });

  test("a ledger bigger than one 64 KiB hashing chunk, with non-ASCII rows, hashes its canonical text", () => {
    const ledger = new MutationLedger();
    for (let i = 0; i < 3000; i++) {
      ledger.observeTool("write", 0, {
        file_path: `dir/é${i}/file-${"x".repeat(i % 50)}.ts`,
        after: `${i}`,
      });
    }
    ledger.observeUnseenPaths([`long/${"ü".repeat(70_000)}`, `long/${"a".repeat(70_000)}`]);
    const expected = createHash("sha256")
      .update(canonicalLedgerText(ledger.records), "utf8")
      .digest("hex");
    expect(ledger.digest).toBe(expected);
  });

  test("file_path and changed_paths naming the same path give two rows", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("edit", 0, { file_path: "a.ts", after: "a", changed_paths: ["a.ts"] });
    expect(ledger.records).toEqual([
      { tool: "edit", path: "a.ts", content_digest: DA },
      { tool: "edit", path: "a.ts", content_digest: DA },
    ]);
  });

  test("a byte-exact re-read keeps a harness path only with harness: true, and fromJSON accepts it only as a workspace row", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([
      { path: ".git/hooks/pre-commit", contentDigest: DA },
      { path: ".git/config", contentDigest: DB, harness: true },
    ]);
    expect(ledger.records).toEqual([
      { tool: "workspace", path: ".git/config", content_digest: DB },
    ]);
    expect(MutationLedger.fromJSON(ledger.toJSON()).digest).toBe(ledger.digest);
    const forged = {
      records: [{ tool: "edit", path: ".git/config", content_digest: DB }],
      digest: "",
    };
    expect(() => MutationLedger.fromJSON(forged)).toThrow(
      expect.objectContaining({ path: "records.0.path" }),
    );
  });

  test("harness paths (.git, .turngate, .a3s, .a3s-code) are never recorded", () => {
    const ledger = new MutationLedger();
    const harness = [
      ".git",
      ".git/HEAD",
      "./.git/config",
      "sub/.git/index",
      ".turngate/x",
      ".a3s",
      ".a3s-code/s",
      " .git/x",
    ];
    for (const p of harness) ledger.observeTool("write", 0, { file_path: p, after: "x" });
    ledger.observeTool("bash", 0, { changed_paths: harness });
    ledger.observeUnseenPaths(harness);
    expect(ledger.isEmpty).toBe(true);
    // The A3S predicate misses " .git/x"; the ledger checks the trimmed path, so it is dropped too.
    expect(harness.filter((p) => !isHarnessPath(p))).toEqual([" .git/x"]);
    expect(isHarnessPath(".gitignore")).toBe(false);
    expect(isHarnessPath("src/.github/x")).toBe(false);
    expect(isHarnessPath("sub\\.git\\index")).toBe(true);
  });

  test("nested .turngate, .a3s and .a3s-code directories are workspace content; nested .git is not", () => {
    // Change from A3S §2.5.4: only the root's harness directories are dropped, so an agent
    // cannot hide writes in src/.a3s/ or src/.turngate/.
    const ledger = new MutationLedger();
    ledger.observeTool("bash", 0, {
      changed_paths: ["src/.a3s/impl.js", "src/.turngate/y.js", "a/.a3s-code/z", "m/.git/HEAD"],
    });
    expect(ledger.paths).toEqual(["a/.a3s-code/z", "src/.a3s/impl.js", "src/.turngate/y.js"]);
  });

  test("workspace_child opens a background child once", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("bash", 0, { job_id: "j1", workspace_child: " j1 " });
    ledger.observeTool("bash", 0, { workspace_child: "j1" });
    ledger.observeTool("bash", 0, { workspace_child: "  " });
    expect(ledger.openChildren).toEqual([{ task_id: "j1" }]);
    expect(ledger.isEmpty).toBe(true);
  });

  test("bad tool, exit code or metadata throw TurngateValidationError and leave the ledger unchanged", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "a.ts", after: "a" });
    const before = ledger.digest;
    const cyclic: Record<string, unknown> = { changed_paths: ["c.ts"] };
    cyclic.self = cyclic;
    const loop: Record<string, unknown> = {};
    loop.results = [{ tool: "bash", success: true, exit_code: 0, metadata: loop }];
    const cases: [unknown, unknown, unknown, string][] = [
      [42, 0, {}, "tool"],
      ["write", 0.5, {}, "exit_code"],
      ["write", Number.NaN, {}, "exit_code"],
      ["bash", 0, { changed_paths: ["b.ts"], n: 10n }, "metadata.n"],
      ["bash", 0, { changed_paths: ["b.ts"], f: () => 1 }, "metadata.f"],
      ["bash", 0, { changed_paths: ["b.ts"], x: Number.POSITIVE_INFINITY }, "metadata.x"],
      ["bash", 0, cyclic, "metadata.self"],
      ["bash", 0, loop, "metadata.results.0.metadata"],
    ];
    for (const [tool, exit, metadata, path] of cases) {
      let caught: unknown;
      try {
        ledger.observeTool(tool as string, exit as number, metadata);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TurngateValidationError);
      expect((caught as TurngateValidationError).path).toBe(path);
    }
    expect(ledger.digest).toBe(before);
    expect(ledger.size).toBe(1);
  });
});

describe("observeUnseenPaths and children (A3S §2.3, §2.4)", () => {
  test("object paths carry their content digest; a deleted file gets DELETED_CONTENT_DIGEST", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([
      { path: "./e.txt", contentDigest: DA },
      { path: "gone.txt", contentDigest: DELETED_CONTENT_DIGEST },
    ]);
    expect(DELETED_CONTENT_DIGEST).toBe("deleted");
    expect(canonicalLedgerText(ledger.records)).toBe(
      `workspace|e.txt|${DA}\nworkspace|gone.txt|deleted`,
    );
    // printf 'workspace|e.txt|%s\nworkspace|gone.txt|deleted' $DA | sha256sum
    expect(ledger.digest).toBe("7ba91293785492e20db24c3e509af99a768001743b8f92b52fe5d3cb84460c62");
  });

  test("a plain path already on the ledger is not added again, so a bound digest stays stable", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "a.ts", after: "a" });
    const d = ledger.digest;
    expect(ledger.observeUnseenPaths(["a.ts", "./a.ts", " a.ts "])).toEqual([]);
    expect(ledger.digest).toBe(d);
  });

  test("a byte-exact re-read gets its own workspace row even when a tool row names the path", () => {
    // docs/design.md §3: the tool's claimed content must not stand for bytes rewritten later.
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "a.ts", after: "a" });
    const toolOnly = ledger.digest;
    expect(ledger.observeUnseenPaths([{ path: "a.ts", contentDigest: DB }])).toEqual(["a.ts"]);
    expect(ledger.records).toEqual([
      { tool: "workspace", path: "a.ts", content_digest: DB },
      { tool: "write", path: "a.ts", content_digest: DA },
    ]);
    expect(ledger.digest).not.toBe(toolOnly);
  });

  test("an identical re-read is not added twice; a re-read with other bytes replaces the workspace row", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([{ path: "a.ts", contentDigest: DB }]);
    const first = ledger.digest;
    expect(ledger.observeUnseenPaths([{ path: "./a.ts", contentDigest: DB }])).toEqual([]);
    expect(ledger.digest).toBe(first);
    const other = createHash("sha256").update("rewritten").digest("hex");
    expect(ledger.observeUnseenPaths([{ path: "a.ts", contentDigest: other }])).toEqual(["a.ts"]);
    expect(ledger.records).toEqual([{ tool: "workspace", path: "a.ts", content_digest: other }]);
    expect(ledger.digest).toBe(
      effectDigest([{ tool: "workspace", path: "a.ts", content_digest: other }]),
    );
  });

  test("a byte-exact re-read keeps leading and trailing spaces: 'a' and 'a ' are two files", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([
      { path: "a", contentDigest: DB },
      { path: "a ", contentDigest: DB },
      { path: " lead.txt", contentDigest: DB },
    ]);
    expect(ledger.paths).toEqual([" lead.txt", "a", "a "]);
  });

  test("a tool write to ./a.txt and an unseen a.txt are two different rows", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "./a.txt", after: "a" });
    ledger.observeUnseenPaths(["a.txt"]);
    expect(ledger.paths).toEqual(["./a.txt", "a.txt"]);
  });

  test("malformed path elements throw with their index and add nothing", () => {
    const ledger = new MutationLedger();
    for (const [value, path] of [
      [[3], "0"],
      [["ok.txt", { path: 1, contentDigest: "" }], "1.path"],
      [[{ path: "a", contentDigest: null }], "0.contentDigest"],
    ] as const) {
      expect(() => ledger.observeUnseenPaths(value as never)).toThrow(TurngateValidationError);
      try {
        ledger.observeUnseenPaths(value as never);
      } catch (error) {
        expect((error as TurngateValidationError).path).toBe(path);
      }
    }
    expect(() => ledger.observeUnseenPaths("a.txt" as never)).toThrow(TurngateValidationError);
    expect(ledger.isEmpty).toBe(true);
  });

  test("openChild and recordChildPaths settle a child into task rows", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("bash", 0, { workspace_child: "j1" });
    ledger.openChild({ task_id: "j1", porcelain: [" M a.ts"], head: "abc" });
    expect(ledger.openChildren).toEqual([{ task_id: "j1", porcelain: [" M a.ts"], head: "abc" }]);
    expect(ledger.recordChildPaths("j1", ["a.ts", ".git/x"])).toEqual([
      { tool: "task", path: "a.ts", content_digest: "" },
    ]);
    expect(ledger.hasOpenChildren).toBe(false);
    expect(canonicalLedgerText(ledger.records)).toBe("task|a.ts|");
    expect(() => ledger.recordChildPaths(" ", [])).toThrow(TurngateValidationError);
  });
});

describe("ledger snapshots", () => {
  test("toJSON/fromJSON round-trip keeps rows, digest, children and the incomplete flag", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "b.ts", after: "b" });
    ledger.observeTool("edit", 0, { file_path: "a.ts", after: "a" });
    ledger.observeTool("bash", 0, { workspace_child: "j9" });
    ledger.observationIncomplete = true;
    const snapshot = ledger.toJSON();
    expect(snapshot).toEqual({
      records: [
        { tool: "edit", path: "a.ts", content_digest: DA },
        { tool: "write", path: "b.ts", content_digest: DB },
      ],
      digest: effectDigest(snapshot.records),
      open_children: [{ task_id: "j9" }],
      observation_incomplete: true,
    });
    const copy = MutationLedger.fromJSON(JSON.parse(JSON.stringify(snapshot)));
    expect(copy.toJSON()).toEqual(snapshot);
    expect(new MutationLedger().toJSON()).toEqual({ records: [], digest: "" });
  });

  test("fromJSON rejects a digest that does not match the rows, and harness rows", () => {
    const snapshot = {
      records: [{ tool: "edit", path: "a.ts", content_digest: DA }],
      digest: "0".repeat(64),
    };
    expect(() => MutationLedger.fromJSON(snapshot)).toThrow(
      /at digest: does not match the records/,
    );
    const harness = { records: [{ tool: "edit", path: ".git/x", content_digest: DA }], digest: "" };
    expect(() => MutationLedger.fromJSON(harness)).toThrow(/at records\.0\.path/);
    expect(() => MutationLedger.fromJSON({ records: "x", digest: "" })).toThrow(
      TurngateValidationError,
    );
  });

  test("observationIncomplete accepts only booleans", () => {
    const ledger = new MutationLedger();
    ledger.setObservationIncomplete(true);
    expect(ledger.observationIncomplete).toBe(true);
    ledger.observationIncomplete = false;
    expect(ledger.observationIncomplete).toBe(false);
    expect(() => {
      ledger.observationIncomplete = "yes" as never;
    }).toThrow(TurngateValidationError);
  });

  test("records returns copies: mutating them does not change the ledger", () => {
    const ledger = new MutationLedger();
    const returned = ledger.observeTool("write", 0, { file_path: "a.ts", after: "a" });
    for (const row of [...returned, ...ledger.records]) row.path = "evil.ts";
    expect(ledger.paths).toEqual(["a.ts"]);
  });
});

describe("contentDigest (A3S §2.2, RFC 8785)", () => {
  test("uses after when it is a string, else the canonical JSON of the whole metadata", () => {
    expect(contentDigest({ after: "hello\n", file_path: "x" })).toBe(HELLO);
    // Keys sorted, no whitespace: printf '%s' '{"changed_paths":["a.ts"],"exit_code":0}' | sha256sum
    expect(contentDigest({ exit_code: 0, changed_paths: ["a.ts"] })).toBe(CP);
    // after not a string → whole metadata: printf '%s' '{"after":1}' | sha256sum
    expect(contentDigest({ after: 1 })).toBe(
      "9702790ace3d07212bb1e46acc272e067379a99596b90a63bc1a051b0c95c805",
    );
    // RFC 8785 numbers and strings: 1.0 → 1, 1e21 → 1e+21, "é" raw, "\n" escaped;
    // printf '%s' '{"a":[1.5,1,1e+21,"é\n"],"b":null}' | sha256sum   (UTF-8 é, JSON \n)
    expect(contentDigest({ b: null, a: [1.5, 1.0, 1e21, "é\n"] })).toBe(
      "fe0695529cee6c1a1723e42d7bc70c4d02f80d6ded9e277f22275ddd4a80da31",
    );
  });

  test("metadata that is not a JSON value throws TurngateValidationError naming the field", () => {
    expect(() => contentDigest(undefined)).toThrow(TurngateValidationError);
    expect(() => contentDigest({ a: [Number.NaN] })).toThrow(/at a\.0: is NaN/);
    expect(() => contentDigest({ s: "\ud800" })).toThrow(/at s: holds an unpaired/);
    expect(() => contentDigest({ s: Symbol("x") })).toThrow(/at s: is not a JSON value \(symbol\)/);
  });
});

describe("deeply nested metadata (MAX_JSON_DEPTH)", () => {
  /** `levels` arrays nested in each other, built without recursion. */
  function nestedArrays(levels: number): unknown[] {
    let value: unknown[] = [];
    for (let i = 1; i < levels; i++) value = [value];
    return value;
  }

  test("512 levels digest normally; 513 and 100k levels throw a typed error at the root", () => {
    expect(MAX_JSON_DEPTH).toBe(512);
    // python3 -c "print('['*512+']'*512, end='')" | sha256sum
    expect(contentDigest(nestedArrays(512))).toBe(
      "674cf3304bf7104f5ef200c1bb17b24a9b1da199f47cc76bcdc7fd030da23491",
    );
    // python3 -c "print('{\"a\":'*511+'{}'+'}'*511, end='')" | sha256sum
    expect(contentDigest(JSON.parse(`${'{"a":'.repeat(511)}{}${"}".repeat(511)}`))).toBe(
      "9b87d7923e78fe4483edc792bf56f37976f29fd2664868256de134cf1667c0f5",
    );
    for (const levels of [513, 100_000]) {
      let thrown: unknown;
      try {
        contentDigest({ a: nestedArrays(levels - 1) });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TurngateValidationError);
      expect((thrown as TurngateValidationError).code).toBe("invalid_input");
      expect((thrown as TurngateValidationError).path).toBe("");
      expect((thrown as Error).message).toBe("invalid tool metadata: nests deeper than 512 levels");
    }
  });

  test("observeTool on 100k-deep metadata throws TurngateValidationError at metadata", () => {
    const ledger = new MutationLedger();
    let thrown: unknown;
    try {
      ledger.observeTool("bash", 0, { changed_paths: ["a.ts"], deep: nestedArrays(100_000) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TurngateValidationError);
    expect((thrown as TurngateValidationError).path).toBe("metadata");
    expect((thrown as Error).message).toBe(
      "invalid tool metadata at metadata: nests deeper than 512 levels",
    );
    expect(ledger.records).toEqual([]);
  });
});
