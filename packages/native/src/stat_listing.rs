//! The stat-only fingerprints of a folder's entries (`statDigestListing`, issue 17), for the
//! user-level fingerprints of `@turngate/node` (`environment/user-files.ts`, `statListing`):
//! `PATH` folders outside the home directory the user can alter and the workspace's
//! ancestor `node_modules/`. As root `/usr/bin` is one of them (≈ 1,100 entries), read on
//! both environment passes of every turn.
//!
//! The same results as the TypeScript loop, entry for entry:
//! - names as Node's `readdirSync` gives them (UTF-8, invalid bytes as U+FFFD), sorted by
//!   UTF-16 code units (JavaScript's default sort), the first `max` kept;
//! - each `lstat`ed at `folder/name` with that (decoded) name; a name whose `lstat` fails is
//!   skipped;
//! - a symlink: SHA-256 of `symlink:TARGET` (the link text decoded the same way; `""` when
//!   it cannot be read); anything else: SHA-256 of
//!   `stat:TYPE:MODE:SIZE:MTIME_NS:CTIME_NS:INO` (TYPE `f` file, `d` directory, `o` other;
//!   decimal integers), lowercase hex.

use crate::hash::{digest, Algorithm};
use napi_derive::napi;
use rayon::prelude::*;
use std::os::unix::fs::MetadataExt;

/// The fingerprint of one entry whose `lstat` is `meta` (see the module comment).
fn entry_digest(path: &str, meta: &std::fs::Metadata) -> String {
    let ft = meta.file_type();
    if ft.is_symlink() {
        let target = std::fs::read_link(path)
            .map(|t| t.to_string_lossy().into_owned())
            .unwrap_or_default();
        return digest(Algorithm::Sha256, format!("symlink:{target}").as_bytes());
    }
    let kind = if ft.is_file() {
        'f'
    } else if ft.is_dir() {
        'd'
    } else {
        'o'
    };
    let ns = |sec: i64, nsec: i64| i128::from(sec) * 1_000_000_000 + i128::from(nsec);
    let text = format!(
        "stat:{kind}:{}:{}:{}:{}:{}",
        meta.mode(),
        meta.size(),
        ns(meta.mtime(), meta.mtime_nsec()),
        ns(meta.ctime(), meta.ctime_nsec()),
        meta.ino()
    );
    digest(Algorithm::Sha256, text.as_bytes())
}

/// `statDigestListing(folder, max)`: `[name, digest, name, digest, …]` for the entries of
/// `folder` (absolute), in the order and with the digests described in the module comment;
/// `[]` when the folder cannot be read. Synchronous (the caller's loop is); the `lstat`s
/// run on the thread pool.
#[napi]
pub fn stat_digest_listing(folder: String, max: u32) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    names.truncate(max as usize);
    let base = if folder == "/" {
        "/".to_string()
    } else {
        format!("{folder}/")
    };
    let digests: Vec<Option<String>> = names
        .par_iter()
        .with_min_len(64)
        .map(|name| {
            let path = format!("{base}{name}");
            std::fs::symlink_metadata(&path)
                .ok()
                .map(|meta| entry_digest(&path, &meta))
        })
        .collect();
    let mut out = Vec::with_capacity(names.len() * 2);
    for (name, digest) in names.into_iter().zip(digests) {
        if let Some(digest) = digest {
            out.push(name);
            out.push(digest);
        }
    }
    out
}
