// Loader of turngate's native addon (issue 10 "Child subreaper"; issue 17 the parallel
// observer and hasher; issue 33 the in-process git listing). Loads `turngate-native.<platform>-<arch>[-gnu|-musl].node` built by
// `napi build --platform` beside this file. When it is absent (not built, other platform)
// `available` is false and `reason` says why; every function then throws an error with
// code ERR_TURNGATE_NATIVE_UNAVAILABLE. Errors about a call's arguments are thrown as
// NativeError (code ERR_TURNGATE_INVALID_ARG, `path` = the field); per-path failures come
// back as data ({index, code, path, message}).
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

function libcSuffix() {
  if (process.platform !== "linux") return "";
  // /usr/bin/ldd first: reading it takes ≈ 0.3 ms, `process.report.getReport()` ≈ 4 ms (it
  // gathers a whole diagnostic report), paid on every turngate start. glibc's ldd is a
  // script naming the GNU C Library; musl's is the musl loader.
  let ldd = null;
  try {
    ldd = readFileSync("/usr/bin/ldd", "latin1");
  } catch {
    // no ldd: ask the process report
  }
  if (ldd?.includes("musl")) return "-musl";
  if (ldd?.includes("GNU C Library")) return "-gnu";
  try {
    const report = process.report?.getReport?.();
    if (report?.header?.glibcVersionRuntime) return "-gnu";
  } catch {
    // fall through
  }
  return "-gnu";
}

const ARCH = { x64: "x64", arm64: "arm64" };

function fileName() {
  const arch = ARCH[process.arch];
  if (arch === undefined) return null;
  if (process.platform === "linux") return `turngate-native.linux-${arch}${libcSuffix()}.node`;
  if (process.platform === "darwin") return `turngate-native.darwin-${arch}.node`;
  return null;
}

let binding = null;
let reason = null;
if (process.env.TURNGATE_NATIVE_DISABLE === "1") {
  reason = "disabled by TURNGATE_NATIVE_DISABLE=1";
} else {
  const name = fileName();
  if (name === null) {
    reason = `no native build for ${process.platform}-${process.arch}`;
  } else if (!existsSync(join(__dirname, name))) {
    reason = `${name} not built (run: pnpm --filter @turngate/native build)`;
  } else {
    try {
      binding = require(join(__dirname, name));
    } catch (error) {
      reason = `${name} failed to load: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}

/** The typed error of this package: `code` and the `path` (file or argument) it is about. */
class NativeError extends Error {
  constructor(code, path, message) {
    super(message);
    this.name = "NativeError";
    this.code = code;
    this.path = path;
  }
}

function unavailable() {
  return new NativeError(
    "ERR_TURNGATE_NATIVE_UNAVAILABLE",
    null,
    `@turngate/native is unavailable: ${reason}`,
  );
}

function invalid(path, message) {
  return new NativeError("ERR_TURNGATE_INVALID_ARG", path, `${path}: ${message}`);
}

/** Turns the addon's JSON-coded argument errors into NativeError; other errors pass. */
function typed(error) {
  if (
    error instanceof Error &&
    typeof error.message === "string" &&
    error.message.startsWith("{")
  ) {
    try {
      const { code, path, message } = JSON.parse(error.message);
      return new NativeError(code, path, message);
    } catch {
      return error;
    }
  }
  return error;
}

function api() {
  if (binding === null) throw unavailable();
  return binding;
}

function checkStrings(value, field) {
  if (!Array.isArray(value)) throw invalid(field, "expected an array of strings");
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    if (typeof item !== "string") throw invalid(`${field}[${i}]`, "expected a string");
    if (item.includes("\0")) throw invalid(`${field}[${i}]`, "must not hold a NUL byte");
  }
}

function checkInputs(value, field) {
  if (!Array.isArray(value)) throw invalid(field, "expected an array of strings or Uint8Arrays");
  let converted = value;
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    if (typeof item === "string" || Buffer.isBuffer(item)) continue;
    if (!(item instanceof Uint8Array)) {
      throw invalid(`${field}[${i}]`, "expected a string or a Uint8Array");
    }
    if (converted === value) converted = value.slice();
    converted[i] = Buffer.from(item.buffer, item.byteOffset, item.byteLength);
  }
  return converted;
}

function checkRoot(root) {
  if (typeof root !== "string") throw invalid("root", "expected an absolute path");
}

function statTree(root, input) {
  try {
    const native = api();
    checkRoot(root);
    if (Array.isArray(input)) {
      checkStrings(input, "paths");
      return native.statPathsAsync(root, input.join("\0"), input.length).then(
        (result) => ({ ...result, paths: input.slice() }),
        (error) => {
          throw typed(error);
        },
      );
    }
    const walk = input?.walk;
    if (typeof walk !== "object" || walk === null) {
      throw invalid("paths", "expected an array of relative paths or {walk: {...}}");
    }
    const dir = walk.dir ?? "";
    if (typeof dir !== "string") throw invalid("walk.dir", "expected a relative directory");
    if (walk.filter !== undefined && typeof walk.filter !== "function") {
      throw invalid("walk.filter", "expected a function (path, isDir) => boolean");
    }
    if (walk.stat !== undefined && typeof walk.stat !== "boolean") {
      throw invalid("walk.stat", "expected a boolean");
    }
    const filter =
      walk.filter === undefined ? undefined : (path, isDir) => walk.filter(path, isDir) === true;
    return Promise.resolve(native.walkTree(root, dir, filter, walk.stat !== false));
  } catch (error) {
    return Promise.reject(typed(error));
  }
}

function hashFiles(root, paths, options = {}) {
  try {
    const native = api();
    checkRoot(root);
    checkStrings(paths, "paths");
    const algorithm = options?.algorithm ?? "sha256";
    if (algorithm !== "sha256" && algorithm !== "fnv1a64") {
      throw invalid("algorithm", 'expected "sha256" or "fnv1a64"');
    }
    return native.hashFilesAsync(root, paths.join("\0"), paths.length, algorithm).catch((error) => {
      throw typed(error);
    });
  } catch (error) {
    return Promise.reject(typed(error));
  }
}

function sha256Batch(inputs) {
  const native = api();
  return native.sha256Batch(checkInputs(inputs, "inputs"));
}

function fnv1a64Batch(inputs) {
  const native = api();
  return native.fnv1a64Batch(checkInputs(inputs, "inputs"));
}

function sha256(text) {
  const native = api();
  if (typeof text !== "string") throw invalid("text", "expected a string");
  return native.sha256(text);
}

function sha256Concat(parts) {
  const native = api();
  checkStrings(parts, "parts");
  return native.sha256Concat(parts);
}

/**
 * The mutation ledger's order and effect digest in one call: `rows` are
 * `{tool, path, content_digest}` objects; returns `{order, digest}` (row indices in ledger
 * order, stable; the SHA-256 of the escaped canonical text, `""` for no rows), exactly what
 * `@turngate/core`'s pure path computes. The fields cross as one string plus a length table.
 */
/** UTF-16 units per string in which `ledgerDigest`'s fields cross (2^27: far below V8's cap). */
const LEDGER_CHUNK_UNITS = 2 ** 27;

function ledgerDigest(rows, options = {}) {
  const native = api();
  if (!Array.isArray(rows))
    throw invalid("rows", "expected an array of {tool, path, content_digest}");
  const chunkUnits = options?.chunkUnits ?? LEDGER_CHUNK_UNITS;
  if (!Number.isInteger(chunkUnits) || chunkUnits < 1) {
    throw invalid("options.chunkUnits", "expected a positive whole number of UTF-16 units");
  }
  const n = rows.length;
  const lengths = new Uint32Array(3 * n);
  // The fields cross as a few strings of at most `chunkUnits` units each (a field longer than
  // that as a string of its own): one string could pass V8's cap of 2^29 − 24 units.
  const chunks = [];
  let fields = "";
  const add = (field) => {
    if (field.length > chunkUnits) {
      if (fields !== "") chunks.push(fields);
      chunks.push(field);
      fields = "";
      return;
    }
    if (fields.length + field.length > chunkUnits) {
      chunks.push(fields);
      fields = "";
    }
    fields += field;
  };
  for (let i = 0; i < n; i++) {
    const row = rows[i];
    const tool = row?.tool;
    const path = row?.path;
    const digest = row?.content_digest;
    if (typeof tool !== "string") throw invalid(`rows[${i}].tool`, "expected a string");
    if (typeof path !== "string") throw invalid(`rows[${i}].path`, "expected a string");
    if (typeof digest !== "string") throw invalid(`rows[${i}].content_digest`, "expected a string");
    const at = 3 * i;
    add(tool);
    add(path);
    add(digest);
    lengths[at] = tool.length;
    lengths[at + 1] = path.length;
    lengths[at + 2] = digest.length;
  }
  if (fields !== "" || chunks.length === 0) chunks.push(fields);
  try {
    return native.ledgerDigestJoined(chunks, lengths);
  } catch (error) {
    throw typed(error);
  }
}

/**
 * The stat-only fingerprints of the entries of `folder` (absolute): `[name, digest, …]`, the
 * first `max` names in JavaScript's sort order, each `lstat`ed (not followed) and digested as
 * `@turngate/node`'s user-file fingerprints do (`symlink:TARGET`, or
 * `stat:TYPE:MODE:SIZE:MTIME_NS:CTIME_NS:INO`); `[]` when the folder cannot be read.
 * Throws ERR_TURNGATE_INVALID_ARG naming `folder` or `max`.
 */
function statDigestListing(folder, max) {
  const native = api();
  if (typeof folder !== "string" || !folder.startsWith("/") || folder.includes("\0")) {
    throw invalid("folder", "expected an absolute path without NUL bytes");
  }
  if (!Number.isInteger(max) || max < 0 || max > 0xffffffff) {
    throw invalid("max", "expected a whole number of entries");
  }
  return native.statDigestListing(folder, max);
}

function checkRecorded(recorded) {
  if (
    typeof recorded !== "object" ||
    recorded === null ||
    !Number.isInteger(recorded.count) ||
    !Buffer.isBuffer(recorded.records) ||
    !Buffer.isBuffer(recorded.paths)
  ) {
    throw invalid("recorded", "expected {count, records: Buffer, paths: Buffer}");
  }
}

/** The proof's entries `[path, kind, digest]`, checked and NUL-joined for the addon. */
function joinEntries(entries) {
  if (!Array.isArray(entries)) {
    throw invalid("entries", "expected an array of [path, kind, digest]");
  }
  const parts = new Array(entries.length * 3);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (
      !Array.isArray(entry) ||
      entry.length !== 3 ||
      typeof entry[0] !== "string" ||
      typeof entry[1] !== "string" ||
      typeof entry[2] !== "string"
    ) {
      throw invalid(`entries[${i}]`, "expected [path, kind, digest] strings");
    }
    if (entry[0].includes("\0")) throw invalid(`entries[${i}]`, "must not hold a NUL byte");
    parts[i * 3] = entry[0];
    parts[i * 3 + 1] = entry[1];
    parts[i * 3 + 2] = entry[2];
  }
  return parts.join("\0");
}

/** Entries given joined (`{ joined, count }`): checked for shape here, field by field natively. */
function joinedEntries(entries) {
  if (
    typeof entries?.joined !== "string" ||
    !Number.isInteger(entries.count) ||
    entries.count < 0
  ) {
    throw invalid("entries", "expected an array of [path, kind, digest] or { joined, count }");
  }
  return entries.joined;
}

/** No folder records: every folder of the room is read. */
const NO_DIRS = Object.freeze({ records: Buffer.alloc(0), paths: Object.freeze([]) });

/** See index.d.ts `roomProve`. */
function roomProve(room, recorded, entries, stampNs, dirs = NO_DIRS, freshNs = 0n, early, prestat) {
  try {
    const native = api();
    checkRoot(room);
    checkRecorded(recorded);
    const joined = Array.isArray(entries) ? joinEntries(entries) : joinedEntries(entries);
    const count = Array.isArray(entries) ? entries.length : entries.count;
    if (typeof stampNs !== "bigint") throw invalid("stampNs", "expected a bigint (ns)");
    if (!Buffer.isBuffer(dirs?.records)) throw invalid("dirs.records", "expected a Buffer");
    checkStrings(dirs.paths, "dirs.paths");
    if (typeof freshNs !== "bigint") throw invalid("freshNs", "expected a bigint (ns)");
    if (prestat !== undefined && !(prestat instanceof native.RoomPrestat)) {
      throw invalid("prestat", "expected a handle from roomPrestat");
    }
    let modes;
    if (early !== undefined) {
      if (typeof early?.workspace !== "string") {
        throw invalid("early.workspace", "expected an absolute path");
      }
      if (early.modes?.length !== count) {
        throw invalid("early.modes", "expected one st_mode per entry");
      }
      if (!Number.isSafeInteger(early.mtimeS) || early.mtimeS < 0) {
        throw invalid("early.mtimeS", "expected whole seconds since the epoch");
      }
      modes = Buffer.from(Uint32Array.from(early.modes).buffer);
    }
    return native
      .roomProveAsync(
        room,
        recorded.records,
        recorded.paths,
        recorded.count,
        joined,
        count,
        String(stampNs),
        dirs.records,
        dirs.paths,
        String(freshNs),
        early?.workspace,
        modes,
        early?.mtimeS,
        early === undefined ? undefined : early.index === true,
        prestat,
      )
      .catch((error) => {
        throw typed(error);
      });
  } catch (error) {
    return Promise.reject(typed(error));
  }
}

/** See index.d.ts `roomPrestat`. */
function roomPrestat(room, recorded) {
  try {
    const native = api();
    checkRoot(room);
    checkRecorded(recorded);
    return native.roomPrestat(room, recorded.paths, recorded.count);
  } catch (error) {
    throw typed(error);
  }
}

/** See index.d.ts `roomCopy`. */
function roomCopy(workspace, room, entries, mtimeS) {
  try {
    const native = api();
    checkRoot(workspace);
    checkRoot(room);
    if (!Array.isArray(entries)) {
      throw invalid("entries", "expected an array of [path, kind, digest, mode]");
    }
    const parts = new Array(entries.length * 4);
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (
        !Array.isArray(entry) ||
        entry.length !== 4 ||
        typeof entry[0] !== "string" ||
        typeof entry[1] !== "string" ||
        typeof entry[2] !== "string" ||
        !Number.isInteger(entry[3]) ||
        entry[3] < 0
      ) {
        throw invalid(`entries[${i}]`, "expected [path, kind, digest, mode] (mode a whole number)");
      }
      if (entry[0].includes("\0")) throw invalid(`entries[${i}]`, "must not hold a NUL byte");
      parts[i * 4] = entry[0];
      parts[i * 4 + 1] = entry[1];
      parts[i * 4 + 2] = entry[2];
      parts[i * 4 + 3] = String(entry[3]);
    }
    if (!Number.isSafeInteger(mtimeS) || mtimeS < 0) {
      throw invalid("mtimeS", "expected whole seconds since the epoch");
    }
    return native
      .roomCopyAsync(workspace, room, parts.join("\0"), entries.length, mtimeS)
      .catch((error) => {
        throw typed(error);
      });
  } catch (error) {
    return Promise.reject(typed(error));
  }
}

/** See index.d.ts `roomIndexUpdate`. */
function roomIndexUpdate(room, written, gone) {
  try {
    const native = api();
    checkRoot(room);
    checkStrings(written, "written");
    checkStrings(gone, "gone");
    return native.roomIndexUpdateAsync(room, written, gone).catch((error) => {
      throw typed(error);
    });
  } catch (error) {
    return Promise.reject(typed(error));
  }
}

/** Bits of a tracked entry's `flags` in {@link gitListing}'s result. */
const GIT_LISTING_FLAGS = Object.freeze({
  skipWorktree: 1,
  intentToAdd: 2,
  unmerged: 4,
  assumeValid: 8,
});

/** See index.d.ts `gitListing`. */
function gitListing(root, options = {}) {
  try {
    const native = api();
    checkRoot(root);
    const dir = options?.dir ?? "";
    if (typeof dir !== "string") throw invalid("dir", "expected a relative directory");
    return native.gitListingAsync(root, dir).then(
      (r) => {
        if (r.fallback != null) return { fallback: r.fallback, reason: r.reason ?? "" };
        return {
          objectFormat: r.objectFormat,
          prefix: r.prefix,
          indexVersion: r.indexVersion,
          indexFeatures: r.indexFeatures,
          tracked: {
            count: r.trackedCount,
            names: r.trackedNames,
            modes: r.trackedModes,
            flags: r.trackedFlags,
            ids: r.trackedIds,
            stats: r.trackedStats,
          },
          untracked: { count: r.untrackedCount, names: r.untrackedNames },
          ignored: { count: r.ignoredCount, names: r.ignoredNames },
        };
      },
      (error) => {
        throw typed(error);
      },
    );
  } catch (error) {
    return Promise.reject(typed(error));
  }
}

function call(name) {
  return (...args) => api()[name](...args);
}

/**
 * The confined agent's egress bootstrap program (`src/bin/turngate-egress.rs`, built beside
 * this file by `pnpm build`): its absolute path, or null when it is not built (the caller
 * then uses the Node bootstrap) or the addon is not loaded.
 */
const EGRESS_HELPER =
  binding !== null && existsSync(join(__dirname, "turngate-egress"))
    ? join(__dirname, "turngate-egress")
    : null;

/**
 * `egressReceive(fd, timeoutMs)`: the file descriptor the sandbox's bootstrap sends over the
 * host end of `egressChannel()`, waited for off the JS thread. Rejects with a NativeError
 * (code `ERR_TURNGATE_EGRESS`) when none came in time or the other end closed first.
 */
async function egressReceive(fd, timeoutMs) {
  try {
    return await api().egressReceive(fd, timeoutMs);
  } catch (error) {
    throw typed(error);
  }
}

module.exports = {
  available: binding !== null,
  EGRESS_HELPER,
  egressChannel: (...args) => {
    try {
      return api().egressChannel(...args);
    } catch (error) {
      throw typed(error);
    }
  },
  egressReceive,
  reason,
  NativeError,
  STAT_FIELDS: 6,
  setChildSubreaper: call("setChildSubreaper"),
  isChildSubreaper: call("isChildSubreaper"),
  reapChild: call("reapChild"),
  statTree,
  hashFiles,
  sha256Batch,
  fnv1a64Batch,
  sha256,
  sha256Concat,
  ledgerDigest,
  statDigestListing,
  roomProve,
  roomPrestat,
  roomCopy,
  roomIndexUpdate,
  gitListing,
  GIT_LISTING_FLAGS,
  GIT_LISTING_STAT_FIELDS: 9,
};
