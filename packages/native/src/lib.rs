//! turngate's native addon (`@turngate/native`). One module per concern:
//! `process` (child subreaper, reaping a specific child). Issue 17 adds hashing beside it.
#![deny(clippy::all)]

mod process;
