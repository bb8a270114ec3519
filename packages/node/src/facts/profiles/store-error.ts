import { TurngateError } from "@turngate/core";

/**
 * The profile store file could not be used: it is not JSON, or not a profile record set
 * (another tool's file, a newer schemaVersion, a malformed row). `code` is
 * `"profile_store_invalid"`; `file` is the store file's path; `field` the first bad field
 * (`""` for the whole file). The file is never reset: move or repair it, then retry.
 */
export class ProfileStoreError extends TurngateError {
  readonly file: string;
  readonly field: string;
  constructor(file: string, field: string, detail: string) {
    super(
      "profile_store_invalid",
      `profile store ${file} is not a verification profile record set${field === "" ? "" : ` (at ${field})`}: ${detail}; it was left unchanged — repair or move it, then retry`,
    );
    this.name = "ProfileStoreError";
    this.file = file;
    this.field = field;
  }
}
