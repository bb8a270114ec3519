// The closing lines of `./scripts/dev test` (issue #12 item 15). Arguments: one
// `<what>=<passed>:<failed>` per kind of count, e.g. `tests=812:0 "matrix cells=144:0"
// "ledger check=1:0"`. Prints to stderr what each number counts:
//   [dev] total: tests 812 passed, 0 failed; matrix cells 144 passed, 0 failed; ledger check 1 passed, 0 failed
// and to stdout the sum as the last line, exactly "N passed, N failed". A malformed
// argument exits 2 naming it.
const parts = [];
let passed = 0;
let failed = 0;
for (const arg of process.argv.slice(2)) {
  const m = /^([^=]+)=(\d+):(\d+)$/.exec(arg);
  if (!m) {
    process.stderr.write(`totals: expected <what>=<passed>:<failed>, got ${JSON.stringify(arg)}\n`);
    process.exit(2);
  }
  const [, what, p, f] = m;
  passed += Number(p);
  failed += Number(f);
  parts.push(`${what} ${p} passed, ${f} failed`);
}
process.stderr.write(`[dev] total: ${parts.length > 0 ? parts.join("; ") : "nothing ran"}\n`);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
