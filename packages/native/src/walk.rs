//! `statTree` with walk options: a breadth-first walk that never follows symlinks, reads
//! each level's directories in parallel, and asks the caller's filter (the observer's
//! ignore decisions) about every entry on the JS thread before it descends, so an ignored
//! directory (`node_modules/`) is never read. Then the found non-directories are `lstat`ed
//! in parallel (unless `stat: false`).
//!
//! The harness rule of the TypeScript walk (`workspace/listing/walk.ts`) is built in: `.git`
//! is skipped at any depth, `.turngate`, `.a3s`, `.a3s-code` directly below the root.

use crate::errors::{errno_code, thrown, INVALID_ARG};
use crate::paths::{check_root, join};
use crate::stat::{pack, stat_paths, StatTreeResult};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;

const ROOT_HARNESS: [&str; 3] = [".turngate", ".a3s", ".a3s-code"];

/// The harness rule: `.git` anywhere, the other names only directly below the root.
fn is_harness(parent: &str, name: &str) -> bool {
    name == ".git" || (parent.is_empty() && ROOT_HARNESS.contains(&name))
}

/// One directory's entries (name, is a directory), or `Err(true)` when it vanished
/// (`ENOENT`: skipped) and `Err(false)` when it could not be read.
fn read_dir(abs: &str) -> std::result::Result<Vec<(String, bool)>, bool> {
    let entries = match std::fs::read_dir(abs) {
        Ok(entries) => entries,
        Err(error) => return Err(errno_code(&error) == "ENOENT"),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(_) => return Err(false),
        };
        // d_type when the file system gives it; an lstat otherwise (as Node's readdir does).
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        // Node decodes names as UTF-8 with replacement characters; so does this.
        out.push((entry.file_name().to_string_lossy().into_owned(), is_dir));
    }
    Ok(out)
}

/// `statTree(root, {walk})`: walks `root/dir` (dir `""` = the root). `filter(path, isDir)`
/// is called for every entry that is not a harness directory, with its path relative to the
/// root as named on disk; `true` excludes it (a directory is then not read). Output: the
/// non-directory paths in walk order with their records (empty records with `stat: false`),
/// and the directories that could not be read (`.` for the root). Throws
/// `ERR_TURNGATE_INVALID_ARG` (path `root` or `dir`) and whatever `filter` throws.
#[napi]
pub fn walk_tree(
    root: String,
    dir: String,
    filter: Option<Function<FnArgs<(String, bool)>, bool>>,
    stat: bool,
) -> Result<StatTreeResult> {
    check_root(&root)?;
    if dir.starts_with('/') || dir.contains('\0') || dir.split('/').any(|s| s == "..") {
        return Err(thrown(
            INVALID_ARG,
            "dir",
            "dir: must be a relative directory path without '..' segments",
        ));
    }
    let mut paths: Vec<String> = Vec::new();
    let mut unreadable: Vec<String> = Vec::new();
    let mut level = vec![dir];
    while !level.is_empty() {
        let read: Vec<std::result::Result<Vec<(String, bool)>, bool>> = level
            .par_iter()
            .map(|d| read_dir(&join(&root, d)))
            .collect();
        let mut next = Vec::new();
        for (parent, listing) in level.iter().zip(read) {
            let entries = match listing {
                Ok(entries) => entries,
                Err(true) => continue,
                Err(false) => {
                    unreadable.push(if parent.is_empty() {
                        ".".to_string()
                    } else {
                        parent.clone()
                    });
                    continue;
                }
            };
            for (name, is_dir) in entries {
                if is_harness(parent, &name) {
                    continue;
                }
                let rel = if parent.is_empty() {
                    name
                } else {
                    format!("{parent}/{name}")
                };
                let excluded = match &filter {
                    Some(f) => f.call((rel.clone(), is_dir).into())?,
                    None => false,
                };
                if excluded {
                    continue;
                }
                if is_dir {
                    next.push(rel);
                } else {
                    paths.push(rel);
                }
            }
        }
        level = next;
    }
    let stats = if stat {
        stat_paths(&root, &paths)
    } else {
        Vec::new()
    };
    Ok(pack(paths, stats, unreadable))
}
