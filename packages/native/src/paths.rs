//! Checking and joining the relative paths the calls take (one rule for every call).

use crate::errors::{thrown, INVALID_ARG};
use napi::Result;

/// Refuses a root that is empty, relative or holds a NUL byte (field `root`).
pub fn check_root(root: &str) -> Result<()> {
    if root.is_empty() || !root.starts_with('/') || root.contains('\0') {
        return Err(thrown(
            INVALID_ARG,
            "root",
            "root: must be an absolute path without NUL bytes",
        ));
    }
    Ok(())
}

/// Refuses a relative path that is empty, absolute, holds a NUL byte or a `..` segment
/// (field `{field}[{index}]`), so a call never reads outside its root.
pub fn check_relative(field: &str, index: usize, path: &str) -> Result<()> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\0')
        || path.split('/').any(|segment| segment == "..");
    if bad {
        let name = format!("{field}[{index}]");
        return Err(thrown(
            INVALID_ARG,
            &name,
            &format!(
                "{name}: must be a non-empty relative path without NUL bytes or '..' segments"
            ),
        ));
    }
    Ok(())
}

/// `root/rel` (no normalisation), as the TypeScript observer's `absolutePath` builds it.
pub fn join(root: &str, rel: &str) -> String {
    if rel.is_empty() {
        return root.to_string();
    }
    if root.ends_with('/') {
        format!("{root}{rel}")
    } else {
        format!("{root}/{rel}")
    }
}

/// Splits `count` NUL-joined paths (one string crosses the boundary instead of one per
/// path: converting 20,000 strings one by one costs more than the `lstat`s). Refuses a
/// count that does not match (field `paths`).
pub fn split_joined(joined: &str, count: u32) -> Result<Vec<String>> {
    if count == 0 {
        return if joined.is_empty() {
            Ok(Vec::new())
        } else {
            Err(thrown(
                INVALID_ARG,
                "paths",
                "paths: count 0 for a non-empty list",
            ))
        };
    }
    let out: Vec<String> = joined.split('\0').map(str::to_string).collect();
    if out.len() != count as usize {
        return Err(thrown(
            INVALID_ARG,
            "paths",
            "paths: a path holds a NUL byte",
        ));
    }
    Ok(out)
}
