import { diagnosticDelta, parseDiagnostics } from "@turngate/core";

// `tsc --pretty false` output before and after a fix (which also moved the code 2 lines down).
const before = `src/shapes.ts(15,37): error TS2322: Type 'string' is not assignable to type 'number'.
src/shapes.ts(17,39): error TS2304: Cannot find name 'missingValue'.
`;
const after = `src/shapes.ts(17,37): error TS2322: Type 'string' is not assignable to type 'number'.
`;

const delta = diagnosticDelta(parseDiagnostics("tsc", before), parseDiagnostics("tsc", after));
console.log(delta.status, delta.progress_credit, delta.reason);
console.log("removed:", delta.removed);
console.log("persisted:", delta.persisted);
