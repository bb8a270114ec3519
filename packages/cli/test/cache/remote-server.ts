/**
 * The real Turborepo remote-cache server for the result-cache tests: the
 * `turborepo-remote-cache` npm package (local-disk storage) started on 127.0.0.1 on a free
 * port, in its own process group, reaped by `stop()`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { testTimeout } from "../../../../test-time.js";

export interface RemoteCacheServer {
  url: string;
  token: string;
  /** The storage folder: artifacts are `<storage>/<team>/<hash>`. */
  storage: string;
  stop(): Promise<void>;
}

/** A port the OS says is free now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Start the server; resolves once `GET /v8/artifacts/status` answers 200. */
export async function startRemoteCache(token = "test-token-7f3a"): Promise<RemoteCacheServer> {
  const require = createRequire(import.meta.url);
  const pkg = dirname(require.resolve("turborepo-remote-cache/package.json"));
  const storage = realpathSync(mkdtempSync(join(tmpdir(), "turngate-remote-cache-")));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(pkg, "dist", "cli.js")], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      TURBO_TOKEN: token,
      STORAGE_PROVIDER: "local",
      STORAGE_PATH: storage,
      STORAGE_PATH_USE_TMP_FOLDER: "false",
      LOG_LEVEL: "silent",
      ENABLE_STATUS_LOG: "false",
    },
    stdio: "ignore",
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((r) => child.once("exit", r));
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      await exited;
    }
    rmSync(storage, { recursive: true, force: true });
  };
  const deadline = Date.now() + testTimeout(20_000);
  for (;;) {
    try {
      const answer = await fetch(`${url}/v8/artifacts/status?teamId=probe`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (answer.status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`turborepo-remote-cache did not start on ${url}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, token, storage, stop };
}
