/**
 * Issue 10 (shellenv): `MutationLedger.recordEnvironmentPaths` — user-level files as rows
 * with tool `environment`, in the effect digest.
 */
import { describe, expect, test } from "vitest";
import { effectDigest, MutationLedger } from "../src/index.js";

const D1 = "1".repeat(64);
const D2 = "2".repeat(64);

describe("MutationLedger.recordEnvironmentPaths", () => {
  test("rows with tool environment, verbatim paths, in the digest; identical rows once", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([{ path: "a.txt", contentDigest: D1 }]);
    const added = ledger.recordEnvironmentPaths([
      { path: "~/.gitconfig", contentDigest: D2 },
      { path: "~/.gitconfig", contentDigest: D2 },
      { path: "/etc/pip.conf", contentDigest: "deleted" },
    ]);
    expect(added).toEqual([
      { tool: "environment", path: "~/.gitconfig", content_digest: D2 },
      { tool: "environment", path: "/etc/pip.conf", content_digest: "deleted" },
    ]);
    expect(ledger.recordEnvironmentPaths([{ path: "~/.gitconfig", contentDigest: D2 }])).toEqual(
      [],
    );
    expect(ledger.records).toEqual([
      { tool: "environment", path: "/etc/pip.conf", content_digest: "deleted" },
      { tool: "workspace", path: "a.txt", content_digest: D1 },
      { tool: "environment", path: "~/.gitconfig", content_digest: D2 },
    ]);
    expect(ledger.digest).toBe(effectDigest(ledger.records));
  });

  test("a blank path or a non-string digest is a typed error naming the field; nothing is added", () => {
    const ledger = new MutationLedger();
    expect(() =>
      ledger.recordEnvironmentPaths([
        { path: "~/.npmrc", contentDigest: D1 },
        { path: " ", contentDigest: D1 },
      ]),
    ).toThrow("at 1.path: expected a non-blank string");
    expect(() =>
      ledger.recordEnvironmentPaths([{ path: "~/.npmrc", contentDigest: 1 as never }]),
    ).toThrow("at 0.contentDigest: expected a string");
    expect(ledger.isEmpty).toBe(true);
  });
});
