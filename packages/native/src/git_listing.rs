//! `gitListingAsync`: one repository's listing read in-process with gitoxide (`gix`), off the
//! JS thread (issue 33, deliverable 1; docs/design.md §2 "git index / ignore rules read
//! in-process", §3a "Scope"): the index's tracked paths, the untracked paths that are not
//! ignored, and the ignored paths, in one call.
//!
//! It answers what two git calls answer on the TypeScript path, run in `root/dir`:
//! - `git ls-files -z -t --cached --others --exclude-standard` (`workspace/listing/git-list.ts`):
//!   `tracked` (the index, unmerged stages collapsed to one path) and `untracked` (files and
//!   symlinks that no ignore rule matches, and untracked nested repositories as `dir/`);
//! - `git ls-files -z --others --ignored --exclude-standard --directory`
//!   (`workspace/scope/outside-listing.ts`): `ignored` (ignored files and symlinks, ignored
//!   directories as `dir/` without their content, and, as git does, an untracked directory
//!   that holds only ignored entries as `dir/` beside those entries).
//!
//! Paths are relative to `root/dir` (git's output is relative to its working directory), as
//! raw bytes: each name followed by a NUL, exactly as `git ls-files -z` prints them.
//!
//! The rules are git's, under turngate's safety settings (`workspace/listing/git.ts`):
//! no fsmonitor and no untracked cache (neither is read: the walk reads every directory),
//! no system configuration (`GIT_CONFIG_NOSYSTEM`), the global configuration and the global
//! excludes file (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore` or
//! `~/.config/git/ignore`) and `info/exclude` honoured as git honours them, `.gitignore`
//! files read without following symlinks (from the index blob when the file is missing and
//! its entry is skip-worktree). No program is run and nothing is written.
//!
//! The tracked entries' flags are the index file's, as git holds them after reading it: in a
//! sparse checkout the skip-worktree bit of an entry whose file is present is cleared (git's
//! `clear_skip_worktree_from_present_files`). One difference is known and left: with
//! `index.sparse` in a cone-mode checkout, git collapses the entries outside the cone into
//! sparse directories in memory and expands them again, dropping their assume-unchanged bit;
//! here that bit stays as the file holds it. Names are never affected.
//!
//! ## Supported, and where the call falls back to git
//!
//! A listing is meant never to differ from git's: where gitoxide falls short, the call
//! returns a [`GitListing::fallback`] code and a reason instead, and the caller runs git for
//! that repository and records why (no silent difference). The property test
//! `packages/node/test/workspace/native-git-list.property.test.ts` compares both with
//! `git ls-files` over random repositories.
//!
//! | Repository feature | Here |
//! |---|---|
//! | index versions 2, 3, 4 | read |
//! | split index (`core.splitIndex`, `link` extension, `sharedindex.*`) | read (merged) |
//! | sparse index (`index.sparse`, `sdir` extension) | read; sparse directory entries are expanded from their tree objects, skip-worktree, as `git ls-files` does (a missing tree object, or directory entries in an index not marked sparse: fallback `sparse-index`) |
//! | a split index that is sparse, or with `index.sparse = true` (git 2.39 lists its directory entries as `dir/`, or stops with `BUG: ensure-full-index did not fully flatten`) | fallback `split-sparse-index` |
//! | skip-worktree, intent-to-add, assume-valid entries, unmerged stages | read (flags) |
//! | SHA-1 and SHA-256 object format | read |
//! | `TREE`, `REUC`, `UNTR`, `FSMN`, `EOIE`, `IEOT` extensions | read or skipped (the untracked cache and fsmonitor data are never used) |
//! | an unknown mandatory (lowercase) extension, an unknown index version, a corrupt index | fallback `index` (git then fails the same way) |
//! | `core.ignoreCase = true` | fallback `ignore-case` |
//! | `core.precomposeUnicode = true` | fallback `precompose-unicode` |
//! | `core.excludesFile` set to an empty value (git reads no global excludes file; gitoxide reads the default) | fallback `excludes-file` |
//! | a `GIT_*` variable that moves the repository, its index or its configuration (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_CONFIG_*`, …) | fallback `environment` |
//! | a repository owned by another user (git's `safe.directory` rules) | fallback `untrusted` |
//! | no repository, a bare one, `root/dir` inside `.git` | fallback `not-a-work-tree` |
//! | `root/dir` below the work tree's top that is not a tracked directory | fallback `root-not-tracked` |
//! | a directory the walk cannot read | fallback `unreadable-directory` (git warns and lists around it) |
//! | an ignore file that cannot be read (`core.excludesFile`, `info/exclude`, a `.gitignore`) | fallback `walk` (git warns and goes on) |
//! | nested repositories (untracked: `dir/`), submodules (tracked gitlinks, mode 160000) | read |
//! | symlinks (never followed), names that are not UTF-8 | read (raw bytes) |

use crate::errors::{thrown, INVALID_ARG};
use crate::paths::check_root;
use gix::bstr::{BStr, BString, ByteSlice, ByteVec};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Per-entry bits of [`GitListing::tracked_flags`].
pub mod flag {
    /// The entry is skip-worktree (sparse checkout; `git ls-files -t` tags it `S`).
    pub const SKIP_WORKTREE: u8 = 1;
    /// The entry was added with `git add -N` (intent to add).
    pub const INTENT_TO_ADD: u8 = 2;
    /// The path is unmerged: the index holds stages 1–3 for it (collapsed to this one entry).
    pub const UNMERGED: u8 = 4;
    /// The entry is assume-unchanged (`git update-index --assume-unchanged`).
    pub const ASSUME_VALID: u8 = 8;
}

/// `u32` numbers per tracked entry in [`GitListing::tracked_stats`].
pub const STAT_FIELDS: usize = 9;

/// Environment variables under which git would read another repository, index or
/// configuration than the one found from the working directory: the call falls back.
const REDIRECTING_ENV: [&str; 14] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_ICASE_PATHSPECS",
    "GIT_NAMESPACE",
];

/// What `gitListingAsync` returns: a listing, or (`fallback` set) why git must list instead.
#[napi(object)]
pub struct GitListing {
    /// None for a listing; else the fallback's code (see the module comment's table):
    /// `environment`, `not-a-work-tree`, `untrusted`, `ignore-case`, `precompose-unicode`,
    /// `index`, `sparse-index`, `split-sparse-index`, `root-not-tracked`,
    /// `unreadable-directory`, `walk`.
    pub fallback: Option<String>,
    /// With `fallback`: a sentence for the turn's notes (what was found, gitoxide's message).
    pub reason: Option<String>,
    /// `sha1` or `sha256` (the repository's object format; the length of each id).
    pub object_format: String,
    /// `root/dir` relative to the work tree's top (`""` at the top), `/`-separated.
    pub prefix: String,
    /// The index's version (2, 3 or 4; 0 when there is no index file).
    pub index_version: u32,
    /// What the index held: bit 1 sparse directory entries (expanded), bit 2 an untracked
    /// cache (`UNTR`, not used), bit 4 fsmonitor data (`FSMN`, not used), bit 8 it was split
    /// (`link`: merged with its shared index).
    pub index_features: u32,
    /// Number of tracked paths (index entries below the prefix, stages collapsed).
    pub tracked_count: u32,
    /// The tracked paths in index order, each followed by a NUL.
    pub tracked_names: Buffer,
    /// Git mode per tracked path: 0o100644, 0o100755, 0o120000 (symlink), 0o160000 (gitlink).
    pub tracked_modes: Uint32Array,
    /// [`flag`] bits per tracked path.
    pub tracked_flags: Uint8Array,
    /// The object ids, `tracked_count` × 20 (SHA-1) or 32 (SHA-256) bytes (stage 0, or of an
    /// unmerged path the "ours" stage, else its first).
    pub tracked_ids: Buffer,
    /// [`STAT_FIELDS`] numbers per tracked path, as the index stores them: ctime seconds,
    /// ctime nanoseconds, mtime seconds, mtime nanoseconds, dev, ino, uid, gid, size (bytes,
    /// truncated to 32 bits). Zeros for entries expanded from a sparse directory.
    pub tracked_stats: Uint32Array,
    /// Number of untracked, not ignored paths.
    pub untracked_count: u32,
    /// Untracked files and symlinks, and untracked nested repositories as `dir/`, in byte
    /// order, each followed by a NUL.
    pub untracked_names: Buffer,
    /// Number of ignored paths.
    pub ignored_count: u32,
    /// Ignored files and symlinks, and ignored directories as `dir/` (not listed inside), in
    /// byte order, each followed by a NUL.
    pub ignored_names: Buffer,
}

/// A listing before it crosses into JavaScript.
#[derive(Default)]
pub struct Listed {
    object_format: &'static str,
    prefix: String,
    index_version: u32,
    index_features: u32,
    tracked_count: u32,
    tracked_names: Vec<u8>,
    tracked_modes: Vec<u32>,
    tracked_flags: Vec<u8>,
    tracked_ids: Vec<u8>,
    tracked_stats: Vec<u32>,
    untracked: Vec<BString>,
    ignored: Vec<BString>,
}

/// Why the listing must come from git: a code of the module table and a sentence.
pub struct Fallback {
    code: &'static str,
    reason: String,
}

fn fallback(code: &'static str, reason: impl Into<String>) -> Fallback {
    Fallback {
        code,
        reason: reason.into(),
    }
}

/// The index bits of [`GitListing::index_features`].
const SPARSE: u32 = 1;
const UNTRACKED_CACHE: u32 = 2;
const FSMONITOR: u32 = 4;
const SPLIT: u32 = 8;

/// Opens the repository that git would find from `start` under turngate's rules: no
/// system or installation configuration, global and repository configuration with
/// includes, ownership checked as git checks it.
fn open(start: &Path) -> std::result::Result<gix::Repository, Fallback> {
    for name in REDIRECTING_ENV {
        if std::env::var_os(name).is_some() {
            return Err(fallback(
                "environment",
                format!("{name} is set: git would read another repository, index or configuration"),
            ));
        }
    }
    let discovered = gix::ThreadSafeRepository::discover_opts(
        start,
        gix::discover::upwards::Options::default(),
        |options, trust| {
            let mut permissions = gix::open::Permissions::default_for_level(trust);
            permissions.config.system = false;
            permissions.config.git_binary = false;
            permissions.config.env = false;
            permissions.attributes.system = false;
            permissions.attributes.git_binary = false;
            options.permissions(permissions)
        },
    );
    let repo = match discovered {
        Ok(repo) => repo.to_thread_local(),
        Err(error) => {
            return Err(fallback(
                "not-a-work-tree",
                format!("gitoxide found no repository from here: {error}"),
            ))
        }
    };
    if repo.git_dir_trust() != gix::sec::Trust::Full {
        return Err(fallback(
            "untrusted",
            "the repository is owned by another user: git decides by its safe.directory rules",
        ));
    }
    Ok(repo)
}

/// `start` relative to the work tree's top, `/`-separated (`""` at the top).
fn prefix_of(workdir: &Path, start: &Path) -> std::result::Result<BString, Fallback> {
    let real = |p: &Path| {
        std::fs::canonicalize(p).map_err(|error| {
            fallback(
                "not-a-work-tree",
                format!("cannot resolve {}: {error}", p.display()),
            )
        })
    };
    let (top, here) = (real(workdir)?, real(start)?);
    let Ok(rel) = here.strip_prefix(&top) else {
        return Err(fallback(
            "not-a-work-tree",
            "the directory is not inside the repository's work tree",
        ));
    };
    let mut prefix = BString::default();
    for component in rel.components() {
        let name = component.as_os_str();
        if name == ".git" {
            return Err(fallback(
                "not-a-work-tree",
                "the directory is inside a .git directory",
            ));
        }
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        prefix.push_str(
            gix::path::os_str_into_bstr(name).map_err(|_| {
                fallback("not-a-work-tree", "the directory's path is not valid here")
            })?,
        );
    }
    Ok(prefix)
}

/// The index as git reads it: the checksum not verified (git verifies it only in fsck), a
/// split index merged with its shared index, a sparse index expanded. An index that mixes
/// a split index with sparse directories (git itself lists their directory entries as
/// `dir/`, or stops on an internal error) and directory entries in an index not marked
/// sparse are left to git.
fn read_index(
    repo: &gix::Repository,
    out: &mut Listed,
) -> std::result::Result<gix::index::State, Fallback> {
    let path = repo.index_path();
    let unreadable =
        |error: String| fallback("index", format!("gitoxide cannot read the index: {error}"));
    let (data, mtime) = match std::fs::File::open(&path).and_then(|mut file| {
        use std::io::Read;
        let mtime = filetime::FileTime::from_last_modification_time(&file.metadata()?);
        let mut data = Vec::new();
        file.read_to_end(&mut data)?;
        Ok((data, mtime))
    }) {
        Ok(read) => read,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(gix::index::State::new(repo.object_hash()));
        }
        Err(error) => return Err(unreadable(error.to_string())),
    };
    let options = gix::index::decode::Options::default();
    let (mut state, _) = gix::index::State::from_bytes(&data, mtime, repo.object_hash(), options)
        .map_err(|e| unreadable(e.to_string()))?;
    drop(data);
    out.index_version = state.version() as u32;
    if state.untracked().is_some() {
        out.index_features |= UNTRACKED_CACHE;
    }
    if state.fs_monitor().is_some() {
        out.index_features |= FSMONITOR;
    }
    let split = state.link().is_some();
    let split_marked_sparse = state.is_sparse();
    if split {
        out.index_features |= SPLIT;
        // Read again as a whole: the `link` extension is dissolved into the entries of the
        // split index and its `sharedindex.<id>`.
        state = gix::index::File::at(&path, repo.object_hash(), true, options)
            .map_err(|e| unreadable(e.to_string()))?
            .into();
    }
    let directories = state.entries().iter().any(|e| e.mode.is_sparse());
    let sparse_config = repo.config_snapshot().boolean("index.sparse") == Some(true);
    if split && (split_marked_sparse || state.is_sparse() || directories || sparse_config) {
        return Err(fallback(
            "split-sparse-index",
            "the index is split and sparse (or index.sparse is set) at once: git's own reading of it varies (it lists directory entries or stops), so git decides",
        ));
    }
    if directories && !state.is_sparse() {
        return Err(fallback(
            "sparse-index",
            "the index holds directory entries without being marked sparse: git decides how to list them",
        ));
    }
    if state.is_sparse() {
        out.index_features |= SPARSE;
        expand_sparse(repo, &mut state)?;
    }
    Ok(state)
}

/// Replaces each sparse directory entry (mode 040000, a tree) by the files of its tree,
/// skip-worktree, as `git ls-files` does (it expands a sparse index before listing).
fn expand_sparse(
    repo: &gix::Repository,
    state: &mut gix::index::State,
) -> std::result::Result<(), Fallback> {
    use gix::index::entry::{Flags, Mode, Stat};
    let mut pending: Vec<(BString, gix::ObjectId)> = Vec::new();
    for entry in state.entries() {
        if entry.mode.is_sparse() {
            let mut dir = entry.path(state).to_owned();
            if !dir.ends_with(b"/") {
                dir.push(b'/');
            }
            pending.push((dir, entry.id));
        }
    }
    state.remove_entries(|_, _, entry| entry.mode.is_sparse());
    let missing = |error: String| fallback("sparse-index", error);
    while let Some((dir, id)) = pending.pop() {
        let tree = repo.find_tree(id).map_err(|e| {
            missing(format!(
                "a sparse directory's tree {id} cannot be read: {e}"
            ))
        })?;
        let decoded = tree
            .decode()
            .map_err(|e| missing(format!("a sparse directory's tree {id} is corrupt: {e}")))?;
        for entry in decoded.entries {
            let mut path = dir.clone();
            path.push_str(entry.filename);
            use gix::object::tree::EntryKind;
            let mode = match entry.mode.kind() {
                EntryKind::Tree => {
                    path.push(b'/');
                    pending.push((path, entry.oid.to_owned()));
                    continue;
                }
                EntryKind::Blob => Mode::FILE,
                EntryKind::BlobExecutable => Mode::FILE_EXECUTABLE,
                EntryKind::Link => Mode::SYMLINK,
                EntryKind::Commit => Mode::COMMIT,
            };
            state.dangerously_push_entry(
                Stat::default(),
                entry.oid.to_owned(),
                Flags::SKIP_WORKTREE | Flags::EXTENDED,
                mode,
                path.as_bstr(),
            );
        }
    }
    state.sort_entries();
    Ok(())
}

/// In a sparse checkout git takes the skip-worktree bit off an entry whose file is present
/// in the work tree when it reads the index (`clear_skip_worktree_from_present_files`,
/// unless `sparse.expectFilesOutsideOfPatterns`); so does this, so the flags say what git
/// says (`git ls-files -t` tags such an entry `H`, not `S`). A folder found missing is not
/// looked into again.
fn clear_skip_worktree_of_present_files(workdir: &Path, index: &mut gix::index::State) {
    use gix::index::entry::Flags;
    let mut missing_dirs: Vec<Vec<u8>> = Vec::new();
    let paths: Vec<(usize, BString)> = index
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.flags.contains(Flags::SKIP_WORKTREE) && !e.mode.is_sparse())
        .map(|(i, e)| (i, e.path(index).to_owned()))
        .collect();
    let mut present = Vec::new();
    for (i, path) in paths {
        let dir = parent(&path);
        if missing_dirs
            .last()
            .is_some_and(|m| dir.starts_with(m) && (dir.len() == m.len() || dir[m.len()] == b'/'))
        {
            continue;
        }
        let abs = workdir.join(std::ffi::OsStr::from_bytes(&path));
        if std::fs::symlink_metadata(&abs).is_ok() {
            present.push(i);
        } else if !dir.is_empty()
            && std::fs::symlink_metadata(workdir.join(std::ffi::OsStr::from_bytes(dir))).is_err()
        {
            missing_dirs.push(dir.to_vec());
        }
    }
    let entries = index.entries_mut();
    for i in present {
        entries[i].flags.remove(Flags::SKIP_WORKTREE);
    }
}

/// The tracked entries below `prefix` (stripped), unmerged stages collapsed.
fn list_tracked(state: &gix::index::State, prefix: &BStr, out: &mut Listed) {
    use gix::index::entry::{Flags, Stage};
    let entries = state.entries();
    let mut i = 0;
    while i < entries.len() {
        let path = entries[i].path(state);
        let mut end = i + 1;
        while end < entries.len() && entries[end].path(state) == path {
            end += 1;
        }
        let group = &entries[i..end];
        i = end;
        let Some(rel) = strip_prefix(path, prefix) else {
            continue;
        };
        let unmerged = group.iter().any(|e| e.stage() != Stage::Unconflicted);
        let chosen = group
            .iter()
            .find(|e| matches!(e.stage(), Stage::Unconflicted | Stage::Ours))
            .unwrap_or(&group[0]);
        out.tracked_names.extend_from_slice(rel);
        out.tracked_names.push(0);
        out.tracked_modes.push(chosen.mode.bits());
        let mut bits = 0u8;
        if chosen.flags.contains(Flags::SKIP_WORKTREE) {
            bits |= flag::SKIP_WORKTREE;
        }
        if chosen.flags.contains(Flags::INTENT_TO_ADD) {
            bits |= flag::INTENT_TO_ADD;
        }
        if unmerged {
            bits |= flag::UNMERGED;
        }
        if chosen.flags.contains(Flags::ASSUME_VALID) {
            bits |= flag::ASSUME_VALID;
        }
        out.tracked_flags.push(bits);
        out.tracked_ids.extend_from_slice(chosen.id.as_bytes());
        let s = &chosen.stat;
        let stat: [u32; STAT_FIELDS] = [
            s.ctime.secs,
            s.ctime.nsecs,
            s.mtime.secs,
            s.mtime.nsecs,
            s.dev,
            s.ino,
            s.uid,
            s.gid,
            s.size,
        ];
        out.tracked_stats.extend_from_slice(&stat);
        out.tracked_count += 1;
    }
}

/// `path` relative to `prefix` (a directory, `""` = the top), or None when it is not below.
fn strip_prefix<'a>(path: &'a BStr, prefix: &BStr) -> Option<&'a [u8]> {
    if prefix.is_empty() {
        return Some(path);
    }
    let rest = path.strip_prefix(prefix.as_bytes())?;
    rest.strip_prefix(b"/")
}

/// git's `path_treatment` order for what a directory holds (`dir.c`): the state of an
/// untracked directory in the ignored listing is the largest of its entries'.
const EXCLUDED: u8 = 2;
const UNTRACKED: u8 = 3;

/// Collects the walk's untracked and ignored entries as `git ls-files` names them, and the
/// untracked directories it entered (for the ignored listing's `dir/` of an untracked
/// directory that holds only ignored entries; see [`untracked_dirs_holding_only_ignored`]).
struct Collect {
    untracked: Vec<BString>,
    ignored: Vec<BString>,
    /// Every entry named, worktree-relative, with its state ([`EXCLUDED`] or [`UNTRACKED`]).
    states: Vec<(BString, u8)>,
    /// Untracked directories the walk entered, worktree-relative.
    untracked_dirs: Vec<BString>,
}

impl gix::dir::walk::Delegate for Collect {
    fn emit(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        _collapsed: Option<gix::dir::entry::Status>,
    ) -> gix::dir::walk::Action {
        use gix::dir::entry::{Kind, Property, Status};
        let (list, state) = match entry.status {
            Status::Untracked => (&mut self.untracked, UNTRACKED),
            Status::Ignored(_) => (&mut self.ignored, EXCLUDED),
            Status::Tracked | Status::Pruned => return std::ops::ControlFlow::Continue(()),
        };
        let is_dir = match entry.disk_kind {
            Some(Kind::File | Kind::Symlink) => false,
            Some(Kind::Directory | Kind::Repository) => true,
            // FIFOs, sockets, devices: git lists none of them.
            Some(Kind::Untrackable) | None => return std::ops::ControlFlow::Continue(()),
        };
        let path: &BStr = entry.rela_path.as_ref();
        if path.is_empty() {
            return std::ops::ControlFlow::Continue(());
        }
        self.states.push((path.to_owned(), state));
        // An untracked empty directory is named by neither listing (git lists untracked
        // directories only with --directory, and only nested repositories without it).
        let empty = matches!(
            entry.property,
            Some(Property::EmptyDirectory | Property::EmptyDirectoryAndCWD)
        );
        if state == UNTRACKED && entry.disk_kind == Some(Kind::Directory) || empty {
            return std::ops::ControlFlow::Continue(());
        }
        let mut name = path.to_owned();
        if is_dir {
            name.push(b'/');
        }
        list.push(name);
        std::ops::ControlFlow::Continue(())
    }

    fn can_recurse(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        for_deletion: Option<gix::dir::walk::ForDeletionMode>,
        worktree_root_is_repository: bool,
    ) -> bool {
        let recurse = entry.status.can_recurse(
            entry.disk_kind,
            entry.pathspec_match,
            for_deletion,
            worktree_root_is_repository,
        );
        if recurse && entry.status == gix::dir::entry::Status::Untracked {
            self.untracked_dirs
                .push(entry.rela_path.as_ref().to_owned());
        }
        recurse
    }
}

/// The parent directory of a worktree-relative path (`""` at the top).
fn parent(path: &[u8]) -> &[u8] {
    path.rfind_byte(b'/').map_or(&[][..], |i| &path[..i])
}

/// The untracked directories `git ls-files --others --ignored --directory` names as
/// `dir/` besides the ignored entries in them: git gives an untracked directory the largest
/// state of its entries (an ignored entry [`EXCLUDED`]; an untracked file, symlink or
/// nested repository [`UNTRACKED`]; a FIFO or a `.git` nothing), and a directory that holds
/// nothing of these counts as untracked (`dir.c` `treat_directory`, empty directories not
/// hidden); one whose state is [`EXCLUDED`] is named.
fn untracked_dirs_holding_only_ignored(
    states: &[(BString, u8)],
    untracked_dirs: &mut [BString],
) -> Vec<BString> {
    let mut max: std::collections::HashMap<Vec<u8>, u8> = std::collections::HashMap::new();
    for (path, state) in states {
        let slot = max.entry(parent(path).to_vec()).or_insert(0);
        *slot = (*slot).max(*state);
    }
    // Deepest first, so each directory's state is final before its parent reads it.
    untracked_dirs.sort_by_key(|d| std::cmp::Reverse(d.iter().filter(|&&b| b == b'/').count()));
    let mut named = Vec::new();
    for dir in untracked_dirs.iter() {
        let mut state = max.get(dir.as_slice()).copied().unwrap_or(0);
        if state == 0 {
            state = UNTRACKED;
        }
        if state == EXCLUDED {
            let mut name = dir.clone();
            name.push(b'/');
            named.push(name);
        }
        let slot = max.entry(parent(dir).to_vec()).or_insert(0);
        *slot = (*slot).max(state);
    }
    named
}

/// The untracked and the ignored paths below `prefix`: one walk, as git walks for
/// `ls-files --others` (untracked files one by one; nested repositories not entered) and
/// for `--others --ignored --directory` (an ignored directory named, not entered).
fn walk(
    repo: &gix::Repository,
    workdir: &Path,
    prefix: &BStr,
    index: &mut gix::index::State,
    out: &mut Listed,
) -> std::result::Result<(), Fallback> {
    let walk_error = |e: gix::Error| fallback("walk", format!("gitoxide's walk failed: {e}"));
    // The ignore stack takes the skip-worktree `.gitignore` entries (read from their blobs
    // when missing on disk, as git does) before the flags are cleared below.
    let mut excludes = repo
        .excludes(
            index,
            None,
            gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        )
        .map_err(walk_error)?;
    // gix-dir does not enter a folder whose index entries are all skip-worktree (it takes
    // it for one a sparse checkout left out); git does, and lists the untracked files a
    // checkout left there. Without the flag both walk it alike.
    for entry in index.entries_mut() {
        entry.flags.remove(gix::index::entry::Flags::SKIP_WORKTREE);
    }
    let index: &gix::index::State = index;
    let mut pathspec = gix::pathspec::Search::from_specs(std::iter::empty(), None, workdir)
        .map_err(|e| fallback("walk", format!("gitoxide's pathspec failed: {e}")))?;
    let git_dir_realpath = gix::path::realpath_opts(
        repo.git_dir(),
        repo.current_dir(),
        gix::path::realpath::MAX_SYMLINKS,
    )
    .map_err(|e| fallback("walk", format!("cannot resolve the .git directory: {e}")))?;
    let traversal_root: PathBuf = if prefix.is_empty() {
        workdir.to_path_buf()
    } else {
        workdir.join(std::ffi::OsStr::from_bytes(prefix))
    };
    let options = gix::dir::walk::Options {
        precompose_unicode: false,
        ignore_case: false,
        recurse_repositories: false,
        emit_pruned: false,
        emit_ignored: Some(gix::dir::walk::EmissionMode::Matching),
        for_deletion: None,
        classify_untracked_bare_repositories: false,
        emit_tracked: false,
        emit_untracked: gix::dir::walk::EmissionMode::Matching,
        emit_empty_directories: false,
        emit_collapsed: None,
        symlinks_to_directories_are_ignored_like_directories: false,
        worktree_relative_worktree_dirs: None,
    };
    let mut collect = Collect {
        untracked: Vec::new(),
        ignored: Vec::new(),
        states: Vec::new(),
        untracked_dirs: Vec::new(),
    };
    let (outcome, _) = gix::dir::walk(
        workdir,
        gix::dir::walk::Context {
            should_interrupt: None,
            git_dir_realpath: git_dir_realpath.as_ref(),
            current_dir: repo.current_dir(),
            index,
            ignore_case_index_lookup: None,
            pathspec: &mut pathspec,
            pathspec_attributes: &mut |_, _, _, _| false,
            excludes: Some(&mut excludes),
            objects: &repo.objects,
            explicit_traversal_root: Some(&traversal_root),
        },
        options,
        &mut collect,
    )
    .map_err(|e| fallback("walk", format!("gitoxide's walk failed: {e}")))?;
    if outcome.read_dir_errors > 0 {
        return Err(fallback(
            "unreadable-directory",
            format!(
                "{} director{} could not be read (git warns and lists around them)",
                outcome.read_dir_errors,
                if outcome.read_dir_errors == 1 {
                    "y"
                } else {
                    "ies"
                }
            ),
        ));
    }
    let mut ignored = collect.ignored;
    ignored.extend(untracked_dirs_holding_only_ignored(
        &collect.states,
        &mut collect.untracked_dirs,
    ));
    out.untracked = below(prefix, collect.untracked);
    out.ignored = below(prefix, ignored);
    Ok(())
}

/// The names below `prefix`, made relative to it, in byte order (git sorts its lists so).
fn below(prefix: &BStr, names: Vec<BString>) -> Vec<BString> {
    let mut out: Vec<BString> = names
        .into_iter()
        .filter_map(|name| match strip_prefix(name.as_bstr(), prefix) {
            Some(rel) if !rel.is_empty() && rel != b"/" => Some(BString::from(rel)),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The whole listing of the repository found from `start` (see the module comment).
pub fn list(start: &Path) -> std::result::Result<Listed, Fallback> {
    let repo = open(start)?;
    let Some(workdir) = repo.workdir().map(Path::to_path_buf) else {
        return Err(fallback(
            "not-a-work-tree",
            "the repository is bare: git ls-files needs a work tree",
        ));
    };
    let config = repo.config_snapshot();
    let flag = |key: &str| config.boolean(key) == Some(true);
    // git's in-memory clearing of skip-worktree bits (see `clear_skip_worktree_of_present_files`).
    let clear_present_skip_worktree =
        flag("core.sparseCheckout") && !flag("sparse.expectFilesOutsideOfPatterns");
    if flag("core.ignoreCase") {
        return Err(fallback(
            "ignore-case",
            "core.ignoreCase is true: case-folded index and ignore matching are left to git",
        ));
    }
    // An empty core.excludesFile turns git's global excludes file off (git then reads no
    // `$XDG_CONFIG_HOME/git/ignore` either); gitoxide still reads that default.
    if config
        .string("core.excludesFile")
        .is_some_and(|value| value.is_empty())
    {
        return Err(fallback(
            "excludes-file",
            "core.excludesFile is set to an empty value: git then reads no global excludes file, gitoxide reads the default one; left to git",
        ));
    }
    if flag("core.precomposeUnicode") {
        return Err(fallback(
            "precompose-unicode",
            "core.precomposeUnicode is true: Unicode-normalised names are left to git",
        ));
    }
    let mut out = Listed {
        object_format: match repo.object_hash() {
            gix::hash::Kind::Sha256 => "sha256",
            _ => "sha1",
        },
        ..Listed::default()
    };
    let prefix = prefix_of(&workdir, start)?;
    out.prefix = prefix.to_str_lossy().into_owned();
    let mut index = read_index(&repo, &mut out)?;
    if !prefix.is_empty() {
        let mut dir = prefix.clone();
        dir.push(b'/');
        if index.prefixed_entries_range(dir.as_bstr()).is_none() {
            return Err(fallback(
                "root-not-tracked",
                "the directory is below the work tree's top and holds no tracked file",
            ));
        }
    }
    if clear_present_skip_worktree {
        clear_skip_worktree_of_present_files(&workdir, &mut index);
    }
    list_tracked(&index, prefix.as_bstr(), &mut out);
    walk(&repo, &workdir, prefix.as_bstr(), &mut index, &mut out)?;
    Ok(out)
}

fn nul_joined(names: &[BString]) -> Vec<u8> {
    let mut out = Vec::with_capacity(names.iter().map(|n| n.len() + 1).sum());
    for name in names {
        out.extend_from_slice(name);
        out.push(0);
    }
    out
}

pub struct GitListingTask {
    start: PathBuf,
}

impl Task for GitListingTask {
    type Output = std::result::Result<Listed, Fallback>;
    type JsValue = GitListing;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(list(&self.start))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        let (listed, code, reason) = match output {
            Ok(listed) => (listed, None, None),
            Err(f) => (Listed::default(), Some(f.code.to_string()), Some(f.reason)),
        };
        Ok(GitListing {
            fallback: code,
            reason,
            object_format: listed.object_format.to_string(),
            prefix: listed.prefix,
            index_version: listed.index_version,
            index_features: listed.index_features,
            tracked_count: listed.tracked_count,
            tracked_names: listed.tracked_names.into(),
            tracked_modes: Uint32Array::new(listed.tracked_modes),
            tracked_flags: Uint8Array::new(listed.tracked_flags),
            tracked_ids: listed.tracked_ids.into(),
            tracked_stats: Uint32Array::new(listed.tracked_stats),
            untracked_count: listed.untracked.len() as u32,
            untracked_names: nul_joined(&listed.untracked).into(),
            ignored_count: listed.ignored.len() as u32,
            ignored_names: nul_joined(&listed.ignored).into(),
        })
    }
}

/// `gitListing(root, {dir})`: the listing of the repository git finds from `root/dir`
/// (`dir` relative, `""` for the root), read in-process off the JS thread (see the module
/// comment for the shape, the rules and the fallbacks). Throws `ERR_TURNGATE_INVALID_ARG`
/// (path `root` or `dir`) for a relative root, an absolute `dir`, a `..` segment or a NUL
/// byte; every other problem is a fallback, never a throw.
#[napi]
pub fn git_listing_async(root: String, dir: String) -> Result<AsyncTask<GitListingTask>> {
    check_root(&root)?;
    if dir.starts_with('/') || dir.contains('\0') || dir.split('/').any(|s| s == "..") {
        return Err(thrown(
            INVALID_ARG,
            "dir",
            "dir: must be a relative directory path without '..' segments",
        ));
    }
    let start = if dir.is_empty() {
        PathBuf::from(&root)
    } else {
        Path::new(&root).join(&dir)
    };
    Ok(AsyncTask::new(GitListingTask { start }))
}
