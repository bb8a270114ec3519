/**
 * Admission of host reports before they are used (docs/design.md §3): each report goes through
 * core's `acceptReport(report, "host")`, which refuses a recorded status that differs from
 * the status derived from the report's checks. Pure.
 */
import { acceptReport, type VerificationReport } from "@turngate/core";
import { BridgeError } from "../errors.js";
import { toBridgeError } from "../rpc/dispatch.js";

/**
 * Checks every report as a host report.
 * @param at wire path of the list, e.g. "reports"; an error names "reports.N.status".
 * @throws BridgeError `report_status_mismatch` (or another core code) naming the report.
 */
export function acceptHostReports(reports: readonly VerificationReport[], at: string): void {
  reports.forEach((report, index) => {
    try {
      acceptReport(report, "host");
    } catch (error) {
      const wire = toBridgeError(error);
      const field = wire.code === "report_status_mismatch" ? "status" : (wire.path ?? "");
      const path = [at, String(index), field].filter((p) => p !== "").join(".");
      throw new BridgeError(wire.code, wire.message, path);
    }
  });
}
