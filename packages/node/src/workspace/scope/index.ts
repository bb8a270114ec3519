/**
 * Source scope vs outside scope (issue 10, part "scope"): the output locations, git's own
 * `.git/` layout, turngate's own `.turngate/` files, and the special-file scan.
 */
export {
  GIT_OBJECT_FILE,
  GIT_OWN_DIRECTORIES,
  GIT_OWN_FILE_PATTERN,
  GIT_OWN_FILES,
  isGitObjectFile,
  isGitOwnEntry,
} from "./git-layout.js";
export {
  DEFAULT_OUTPUT_LOCATIONS,
  OutputLocations,
  type OutputLocationsOptions,
} from "./output-locations.js";
export {
  listIgnoredFromNames,
  type OutsideListing,
  UNREADABLE_IGNORED_FOLDER_REASON,
} from "./outside-listing.js";
export { SPECIAL_FILE_REASON, UNREADABLE_FOLDER_REASON } from "./special-files.js";
export { isTurngateOwnFile, TURNGATE_OWN_FILES, turngateLogDigest } from "./turngate-files.js";
