//! The disk under a SQLite database: how much is free, and whether a new
//! thing may be stored. Below the floor ([`DiskGuard::set_min_free`],
//! `sternhalma serve --min-free-disk-mb`) the store refuses what would
//! make the database grow for good (a match, a tournament) with
//! [`Unavailable::DiskFull`], while the turns of games under way (a few
//! hundred bytes each) go on until the disk itself is full, where SQLite
//! refuses the write and rolls it back (the same error): nothing stored
//! before is lost, and the server takes writes again once space is freed.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::error::{Error, Unavailable};

/// The free space `sternhalma serve` keeps by default: 256 MB. A store
/// opened by a test or a tool keeps none until told
/// ([`DiskGuard::set_min_free`]).
pub const DEFAULT_MIN_FREE_BYTES: u64 = 256_000_000;

/// How long a measure of the free space is trusted.
const MEASURED_FOR: Duration = Duration::from_secs(1);

/// How the free space is measured (the tests give their own).
pub type FreeSpace = fn(&Path) -> std::io::Result<u64>;

/// The free space under a database file, and the floor below which new
/// things are refused.
#[derive(Debug)]
pub struct DiskGuard {
    folder: PathBuf,
    measure: FreeSpace,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    min_free: u64,
    measured: Option<(Instant, u64)>,
    /// Whether the last check refused (the log says so once a change).
    low: bool,
}

/// The bytes an unprivileged process may still write under `folder`.
///
/// # Errors
/// The folder cannot be examined.
pub fn free_space(folder: &Path) -> std::io::Result<u64> {
    let stat = rustix::fs::statvfs(folder)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

impl DiskGuard {
    /// A guard of the disk holding `file`, keeping nothing free until
    /// [`DiskGuard::set_min_free`].
    pub fn new(file: &Path, measure: FreeSpace) -> DiskGuard {
        let folder = match file.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        DiskGuard {
            folder,
            measure,
            state: Mutex::new(State {
                min_free: 0,
                measured: None,
                low: false,
            }),
        }
    }

    /// Keeps `bytes` free from now on (0: store until the disk is full).
    pub fn set_min_free(&self, bytes: u64) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.min_free = bytes;
        state.measured = None;
    }

    /// Whether something new may be stored at `now`: measured at most once
    /// a second (a disk that cannot be measured is not refused).
    ///
    /// # Errors
    /// [`Unavailable::DiskFull`] when less than the floor is free.
    pub fn check(&self, now: Instant) -> Result<(), Error> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.min_free == 0 {
            return Ok(());
        }
        let free = match state.measured {
            Some((at, free)) if now.saturating_duration_since(at) < MEASURED_FOR => free,
            _ => match (self.measure)(&self.folder) {
                Ok(free) => {
                    state.measured = Some((now, free));
                    free
                }
                Err(error) => {
                    tracing::warn!(folder = %self.folder.display(), %error, "cannot measure the free disk space");
                    return Ok(());
                }
            },
        };
        let low = free < state.min_free;
        if low != state.low {
            state.low = low;
            if low {
                tracing::warn!(
                    folder = %self.folder.display(),
                    free_bytes = free,
                    min_free_bytes = state.min_free,
                    "the disk is nearly full: no new match or tournament is stored until space is freed"
                );
            } else {
                tracing::info!(folder = %self.folder.display(), free_bytes = free, "disk space is back: new matches and tournaments are stored again");
            }
        }
        if low {
            return Err(Error::Unavailable(Unavailable::DiskFull));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    static FREE: AtomicU64 = AtomicU64::new(0);

    fn chosen(_: &Path) -> std::io::Result<u64> {
        Ok(FREE.load(Ordering::SeqCst))
    }

    #[test]
    fn below_the_floor_new_things_are_refused_until_space_returns() {
        let guard = DiskGuard::new(Path::new("/srv/class/matches.sqlite3"), chosen);
        assert_eq!(guard.folder, Path::new("/srv/class"));
        let start = Instant::now();
        FREE.store(0, Ordering::SeqCst);
        assert!(guard.check(start).is_ok(), "nothing kept until told");
        guard.set_min_free(DEFAULT_MIN_FREE_BYTES);
        FREE.store(300_000_000, Ordering::SeqCst);
        assert!(guard.check(start).is_ok());
        FREE.store(100_000_000, Ordering::SeqCst);
        // Measured a moment ago: trusted for a second.
        assert!(guard.check(start + Duration::from_millis(500)).is_ok());
        let refused = guard.check(start + Duration::from_secs(1)).unwrap_err();
        assert_eq!(refused.code(), "disk_full");
        FREE.store(DEFAULT_MIN_FREE_BYTES, Ordering::SeqCst);
        assert!(guard.check(start + Duration::from_secs(2)).is_ok());
        guard.set_min_free(0);
        FREE.store(0, Ordering::SeqCst);
        assert!(guard.check(start + Duration::from_secs(3)).is_ok());
    }

    #[test]
    fn the_real_disk_can_be_measured() {
        assert!(free_space(&std::env::temp_dir()).unwrap() > 0);
    }
}
