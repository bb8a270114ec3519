/**
 * The adapters turngate detects run on the host, outside every sandbox, on files the agent
 * may have written (detected-adapters.ts; found by the new-user trial of confined agents):
 * no workspace file chooses what they execute or where they connect. Real temporary
 * folders; the rustup attack runs the real rustup proxy when it is installed.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { affectedTargets, detectAdapters, rustupToolchain } from "../../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function folder(files: Record<string, string> = {}): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tg-detected-")));
  dirs.push(root);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(root, p, ".."), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

const CARGO = ["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked", "--offline"];
const CRATE = '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n';

/** Whether the real rustup proxy is what `cargo` runs here. */
function rustupInstalled(): boolean {
  try {
    execFileSync("rustup", ["--version"], { stdio: "ignore" });
    return existsSync(join(process.env.RUSTUP_HOME || join(homedir(), ".rustup"), "settings.toml"));
  } catch {
    return false;
  }
}

describe("detected adapters run with an environment no workspace file chooses", () => {
  test("go list: no toolchain switch, no download, no VCS stamp (GO_LIST_ENV)", () => {
    const root = folder({ "go.mod": "module example.com/m\n\ngo 1.22\n" });
    expect(detectAdapters(root, { HOME: root })).toEqual([
      {
        id: "go",
        parser_id: "go.list.v1",
        spec: [
          "env",
          "GOFLAGS=-mod=readonly -buildvcs=false",
          "GOPROXY=off",
          "GOSUMDB=off",
          "GOTOOLCHAIN=local",
          "go",
          "list",
          "-mod=readonly",
          "-json",
          "./...",
        ],
      },
    ]);
  });

  test("cargo metadata: RUSTUP_TOOLCHAIN pinned to the default when rustup is installed, plain without rustup, left out when rustup has no readable default", () => {
    const root = folder({ "Cargo.toml": CRATE });
    const rustup = folder({
      "settings.toml": 'default_toolchain = "stable-x86_64-unknown-linux-gnu"\n',
    });
    expect(detectAdapters(root, { RUSTUP_HOME: rustup })).toEqual([
      {
        id: "cargo",
        parser_id: "cargo.metadata.v1",
        spec: ["env", "RUSTUP_TOOLCHAIN=stable-x86_64-unknown-linux-gnu", ...CARGO],
      },
    ]);
    expect(rustupToolchain({ RUSTUP_HOME: rustup, RUSTUP_TOOLCHAIN: "nightly" })).toBe("nightly");
    const none = folder();
    expect(detectAdapters(root, { HOME: none })).toEqual([
      { id: "cargo", parser_id: "cargo.metadata.v1", spec: CARGO },
    ]);
    const noDefault = folder({ "settings.toml": 'version = "12"\n' });
    expect(rustupToolchain({ RUSTUP_HOME: noDefault })).toBeNull();
    expect(detectAdapters(root, { RUSTUP_HOME: noDefault })).toEqual([]);
    const odd = folder({ "settings.toml": 'default_toolchain = "stable; touch /tmp/x"\n' });
    expect(rustupToolchain({ RUSTUP_HOME: odd })).toBeNull();
  });

  test.runIf(rustupInstalled())(
    "a rust-toolchain.toml whose path names the agent's own cargo: the detected adapter runs the default toolchain's cargo; the unpinned command would have run the agent's",
    async () => {
      const marker = join(folder(), "agent-cargo-ran");
      const root = folder({
        "Cargo.toml": CRATE,
        "src/lib.rs": "pub fn one() -> u32 { 1 }\n",
      });
      mkdirSync(join(root, "tc", "bin"), { recursive: true });
      for (const tool of ["cargo", "rustc"]) {
        writeFileSync(
          join(root, "tc", "bin", tool),
          `#!/bin/sh\necho "$0 $*" >> ${marker}\nexit 1\n`,
        );
        chmodSync(join(root, "tc", "bin", tool), 0o755);
      }
      writeFileSync(join(root, "rust-toolchain.toml"), `[toolchain]\npath = "${root}/tc"\n`);
      execFileSync("cargo", ["generate-lockfile", "--offline"], {
        cwd: root,
        stdio: "ignore",
        env: { ...process.env, RUSTUP_TOOLCHAIN: rustupToolchain(process.env) ?? "" },
      });

      const fact = await affectedTargets(["src/lib.rs"], detectAdapters(root), { root });
      expect(existsSync(marker)).toBe(false);
      expect(fact.targets.map((t) => [t.id, t.reason])).toEqual([["cargo:x", "direct"]]);

      // The control: the same command without the pin runs the agent's cargo.
      await affectedTargets(
        ["src/lib.rs"],
        [{ id: "cargo", parser_id: "cargo.metadata.v1", spec: CARGO }],
        { root },
      );
      expect(readFileSync(marker, "utf8")).toBe(
        `${root}/tc/bin/cargo metadata --format-version 1 --no-deps --locked --offline\n`,
      );
    },
    60_000,
  );
});
