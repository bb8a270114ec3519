//! turngate's native addon (`@turngate/native`). One module per concern:
//! - `process`: child subreaper, reaping a specific child (issue 10);
//! - `stat` and `walk`: parallel `lstat` of a path list, and a directory walk that asks the
//!   caller's ignore filter before it descends (issue 17, `statTree`);
//! - `hash`: parallel streaming SHA-256 / FNV-1a 64 of files and of in-memory inputs
//!   (issue 17, `hashFiles`, `sha256Batch`, `fnv1a64Batch`);
//! - `stat_listing`: the stat-only fingerprints of a folder's entries (`statDigestListing`,
//!   the user-level fingerprints' `PATH` folders);
//! - `ledger`: the mutation ledger's order and effect digest in one call (`ledgerDigest`);
//! - `room` and `room_walk`: the clean room's proof against its manifest (`roomProve`), and
//!   its walk that skips folders proven unchanged;
//! - `room_index`: the clean room's index and blobs written in-process with gitoxide
//!   (`roomIndexUpdate`), new blobs as one pack (`pack_write`);
//! - `git_listing`: one repository's tracked, untracked and ignored paths read in-process
//!   with gitoxide (issue 33, `gitListing`);
//! - `egress_channel`: the host's end of the confined agent's egress bootstrap
//!   (`egressChannel`, `egressReceive`; the sandbox's end is `src/bin/turngate-egress.rs`);
//! - `errors`: the typed errors that cross the boundary (a code and the path).
#![deny(clippy::all)]

#[cfg(unix)]
mod egress_channel;
mod errors;
#[cfg(unix)]
mod fd_passing;
mod git_listing;
mod hash;
mod ledger;
mod pack_write;
mod paths;
mod process;
mod room;
mod room_copy;
mod room_index;
mod room_prestat;
mod room_walk;
mod stat;
mod stat_listing;
mod walk;
