//! The room proof's stats taken ahead (`roomPrestat`): the `lstat`s of the manifest's
//! recorded paths start on a thread of their own while JavaScript still encodes the
//! snapshot's entries for `roomProveAsync` (`room.rs`), which takes them for the entries
//! whose paths are recorded. Each stat is only compared with its record there, as the
//! proof's own would be. docs/design.md §3b (the room's incremental update).

use crate::paths::{check_relative, check_root};
use crate::room::{stat_all, Parsed, RoomStat};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// `roomPrestat`'s stats: still being taken, or taken.
pub(crate) enum Ahead {
    Running(std::thread::JoinHandle<Prestat>),
    Done(Prestat),
}

impl Ahead {
    /// The stats, once taken (None when their thread panicked).
    pub(crate) fn wait(self) -> Option<Prestat> {
        match self {
            Ahead::Running(handle) => handle.join().ok(),
            Ahead::Done(prestat) => Some(prestat),
        }
    }
}

/// The `lstat` of each recorded path, taken ahead of the proof.
pub(crate) struct Prestat {
    room: String,
    /// The recorded paths block the stats are for (NUL-joined).
    paths: Vec<u8>,
    /// One per recorded path, in order; empty when the block was not `count` valid paths.
    stats: Vec<Option<RoomStat>>,
}

/// The recorded paths' `lstat`s, under way on a thread of their own (`roomPrestat`), for
/// the next `roomProveAsync` of the same room and block to take.
#[napi]
pub struct RoomPrestat {
    pending: std::sync::Mutex<Option<Ahead>>,
}

impl RoomPrestat {
    /// The stats for one proof: the first caller gets them, later ones None.
    pub(crate) fn take(&self) -> Option<Ahead> {
        self.pending.lock().ok()?.take()
    }
}

#[napi]
impl RoomPrestat {
    /// Wait until the stats are taken (blocking the calling thread); returns how many
    /// recorded paths they cover: `count`, or 0 when the block was refused or a proof has
    /// taken them already.
    #[napi]
    pub fn settle(&self) -> u32 {
        let Ok(mut slot) = self.pending.lock() else {
            return 0;
        };
        let Some(prestat) = slot.take().and_then(Ahead::wait) else {
            return 0;
        };
        let covered = prestat.stats.len() as u32;
        *slot = Some(Ahead::Done(prestat));
        covered
    }
}

/// `roomPrestat(room, paths, count)`: begin `lstat`ing the manifest's `count` recorded
/// paths (`paths`, NUL-joined) in the room folder `room` (absolute) on a thread, while the
/// caller encodes the snapshot's entries; `roomProveAsync` given the returned handle takes
/// these stats instead of taking its own for the paths that are recorded (the same rules
/// apply: a stat proves nothing by itself, it is compared with the record; the stats are
/// as of this call, which is a few ms before the proof's own would be). A block that
/// is not `count` valid relative paths is not read (the proof then stats everything).
/// Throws `ERR_TURNGATE_INVALID_ARG` for `room`. Implements docs/design.md §3b (the room's
/// incremental update).
#[napi]
pub fn room_prestat(room: String, paths: Buffer, count: u32) -> Result<RoomPrestat> {
    check_root(&room)?;
    let paths = paths.to_vec();
    // No thread to be had (a process limit): no stats ahead, the proof takes its own.
    let handle = std::thread::Builder::new().spawn(move || {
        let stats = match std::str::from_utf8(&paths) {
            Ok(text) if count > 0 => {
                let list: Vec<&str> = text.split('\0').collect();
                let valid = list.len() == count as usize
                    && list
                        .iter()
                        .enumerate()
                        .all(|(i, p)| check_relative("paths", i, p).is_ok());
                if valid {
                    stat_all(&room, &list)
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        };
        Prestat { room, paths, stats }
    });
    Ok(RoomPrestat {
        pending: std::sync::Mutex::new(handle.ok().map(Ahead::Running)),
    })
}

/// The entries' stats from `prestat` where it holds their recorded path, the others taken
/// now; None when `prestat` is not for this room and recorded block.
pub(crate) fn stats_from(
    prestat: Prestat,
    room: &str,
    block: &[u8],
    parsed: &Parsed,
) -> Option<Vec<Option<RoomStat>>> {
    if prestat.room != room
        || prestat.paths != block
        || prestat.stats.len() != parsed.recorded.len()
    {
        return None;
    }
    let mut stats: Vec<Option<RoomStat>> = Vec::with_capacity(parsed.paths.len());
    let mut missing: Vec<usize> = Vec::new();
    for index in 0..parsed.paths.len() {
        match parsed.recorded_at(index) {
            Some(at) => stats.push(prestat.stats[at]),
            None => {
                missing.push(index);
                stats.push(None);
            }
        }
    }
    if !missing.is_empty() {
        let paths: Vec<&str> = missing.iter().map(|&i| parsed.paths[i]).collect();
        for (index, stat) in missing.into_iter().zip(stat_all(room, &paths)) {
            stats[index] = stat;
        }
    }
    Some(stats)
}
