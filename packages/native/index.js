"use strict";
// Loader of turngate's native addon (issue 10 "Child subreaper"; hashing joins it in issue 17).
// Loads `turngate-native.<platform>-<arch>[-gnu|-musl].node` built by `napi build --platform`
// beside this file. When it is absent (not built, other platform) `available` is false and
// `reason` says why; every function then throws an error with code ERR_TURNGATE_NATIVE_UNAVAILABLE.
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

function libcSuffix() {
  if (process.platform !== "linux") return "";
  try {
    const report = process.report?.getReport?.();
    if (report?.header?.glibcVersionRuntime) return "-gnu";
  } catch {
    // fall through to the file test
  }
  try {
    return readFileSync("/usr/bin/ldd", "utf8").includes("musl") ? "-musl" : "-gnu";
  } catch {
    return "-gnu";
  }
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

function unavailable() {
  const error = new Error(`@turngate/native is unavailable: ${reason}`);
  error.code = "ERR_TURNGATE_NATIVE_UNAVAILABLE";
  return error;
}

function call(name) {
  return (...args) => {
    if (binding === null) throw unavailable();
    return binding[name](...args);
  };
}

module.exports = {
  available: binding !== null,
  reason,
  setChildSubreaper: call("setChildSubreaper"),
  isChildSubreaper: call("isChildSubreaper"),
  reapChild: call("reapChild"),
};
