import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { lstatInto, RAW_STAT_FIELDS, RawKind } from "../../src/workspace/stat/raw-stat.js";
import { PARALLEL_STAT_MIN, StatService } from "../../src/workspace/stat/stat-service.js";
import { makeTempDir, removeDir, write } from "./helpers.js";

let root: string;
let service: StatService;

beforeEach(() => {
  root = makeTempDir();
  service = new StatService({ parallel: true });
});

afterEach(async () => {
  await service.close();
  removeDir(root);
});

describe("stat service (helper worker thread and calling thread)", () => {
  test("the worker and the calling thread give identical raw stat records", async () => {
    write(root, "file.txt", "x\n");
    mkdirSync(join(root, "dir"));
    symlinkSync("file.txt", join(root, "link"));
    const kinds = ["file.txt", "dir", "link", "missing", "file.txt/below-a-file"];
    // Enough paths that half of them go to the worker; the kinds repeat through both halves.
    const paths = Array.from({ length: PARALLEL_STAT_MIN }, (_, i) =>
      join(root, kinds[i % kinds.length] as string),
    );
    const shared = await service.statAll(paths);
    expect(service.workerPaths).toBe(PARALLEL_STAT_MIN / 2);
    const local = new Float64Array(paths.length * RAW_STAT_FIELDS);
    lstatInto(paths, 0, paths.length, local, 0);
    expect(shared).toEqual(local);
    expect([0, 1, 2, 3, 4].map((i) => shared[i * RAW_STAT_FIELDS])).toEqual([
      RawKind.file,
      RawKind.directory,
      RawKind.symlink,
      RawKind.absent,
      RawKind.absent,
    ]);
    expect(shared[1]).toBe(2); // size of "x\n"
  });

  test("after close() the service still answers, with a new worker", async () => {
    write(root, "a", "x\n");
    const paths = Array.from({ length: PARALLEL_STAT_MIN }, () => join(root, "a"));
    await service.statAll(paths);
    await service.close();
    const again = await service.statAll(paths);
    expect(service.workerPaths).toBe(PARALLEL_STAT_MIN);
    expect(again[(PARALLEL_STAT_MIN - 1) * RAW_STAT_FIELDS]).toBe(RawKind.file);
    expect(again[0]).toBe(RawKind.file);
  });
});
