//! The hidden directories beside an output that `paf trace java` and `paf convert` build a bundle
//! in (`.NAME.paf-WHAT-PID`), and the sweeping of those a killed paf left behind.
//!
//! A signal leaves paf no time to remove its staging directory, so the next run on the same
//! output removes the ones whose paf no longer runs (docs/robustness.md, "Signals"). The process
//! id in the name is what tells a killed run's directory from a running one's.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The staging directory `.NAME.paf-WHAT-PID` in `dir`, for the output named `name`, of this
/// process.
pub fn path(dir: &Path, name: &OsStr, what: &str) -> PathBuf {
    dir.join(format!(
        ".{}.paf-{what}-{}",
        name.to_string_lossy(),
        std::process::id()
    ))
}

/// Removes the staging directories of earlier runs on the same output and of the same kind
/// whose paf no longer runs (`staging`: this run's, from [`path`]). A directory of a paf that
/// still runs is left alone, and so is every other name (a bundle moved aside, `-old-`, may be
/// the only copy of one).
pub fn sweep(staging: &Path) {
    let (Some(dir), Some(name)) = (staging.parent(), staging.file_name()) else {
        return;
    };
    let name = name.to_string_lossy();
    let Some(prefix) = name.strip_suffix(&std::process::id().to_string()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let pid = entry
            .file_name()
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|pid| pid.parse::<libc::pid_t>().ok());
        if pid.filter(|&p| p > 0).is_some_and(gone) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether the process `pid` no longer runs: there is none, or it is a zombie (it exited and
/// its parent has not reaped it yet, which a container's first process may never do).
fn gone(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    // `PID (COMM) STATE ...`: the command may hold spaces and parentheses, the state follows
    // the last `)`
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .is_some_and(|i| stat[i + 1..].trim_start().starts_with(['Z', 'X']))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_pafs_staging_directory_is_swept_and_a_running_ones_is_not() {
        let dir = tempfile::tempdir().unwrap();
        // a pid no process has: a child's, once it has exited and been reaped
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let staging = path(dir.path(), OsStr::new("bundle"), "new");
        assert_eq!(
            staging.file_name().unwrap().to_string_lossy(),
            format!(".bundle.paf-new-{}", std::process::id())
        );
        let killed = dir.path().join(format!(".bundle.paf-new-{gone}"));
        let running = dir.path().join(".bundle.paf-new-1"); // init, which always runs
        let aside = dir.path().join(format!(".bundle.paf-old-{gone}"));
        let other = dir.path().join(format!(".other.paf-new-{gone}"));
        let converting = dir.path().join(format!(".bundle.paf-convert-{gone}"));
        for d in [&killed, &running, &aside, &other, &converting] {
            std::fs::create_dir_all(d.join(".work")).unwrap();
        }
        sweep(&staging);
        assert!(
            !killed.exists(),
            "the staging directory of a paf that is gone is removed"
        );
        assert!(running.exists(), "a running paf's is kept");
        assert!(aside.exists(), "a bundle moved aside is kept");
        assert!(other.exists(), "another output's is kept");
        assert!(converting.exists(), "another command's is kept");
        sweep(&path(dir.path(), OsStr::new("bundle"), "convert"));
        assert!(!converting.exists(), "its own command sweeps it");
    }

    #[test]
    fn a_zombies_staging_directory_is_swept() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Not reaped: once it has exited it is a zombie, whose pid still exists. Waits for its
        // exit however long that takes (no time limit to miss on a busy machine), read from
        // /proc here rather than through the code under test.
        let zombie = || {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
            stat[stat.rfind(')').unwrap() + 1..]
                .trim_start()
                .starts_with('Z')
        };
        while !zombie() {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(gone(pid as libc::pid_t));
        let killed = dir.path().join(format!(".bundle.paf-new-{pid}"));
        std::fs::create_dir_all(&killed).unwrap();
        sweep(&path(dir.path(), OsStr::new("bundle"), "new"));
        assert!(!killed.exists(), "a zombie's directory is removed");
        child.wait().unwrap();
        assert!(
            !gone(std::process::id() as libc::pid_t),
            "this process runs"
        );
    }
}
