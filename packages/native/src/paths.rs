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
