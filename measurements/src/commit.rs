//! Writing suites into a store as one transaction: every suite of an import is replaced whole, and the import as a
//! whole is committed at one instant, so a writer killed at any point (kill -9, power loss) leaves each suite
//! folder the old complete one or the new complete one, and the next import (or [`recover`]) settles the store on
//! all-old or all-new.
//!
//! # Protocol
//!
//! For an import tagged `<pid>-<n>` into the store `<out>`:
//!
//! 1. Leftovers of earlier interrupted imports are settled first ([`recover`]).
//! 2. Every suite is checked as the reader would check it ([`crate::store::Suite::check_writable`]); nothing is
//!    written when one fails.
//! 3. Each suite is written into `<out>/.tmp-<pid>-<n>-<suite>/`: every file written and fsynced, then the
//!    folder fsynced. Until step 4 these folders are garbage: the store still is the old one.
//! 4. **Commit**: the journal `<out>/.import-<pid>-<n>.commit` (the suite names, one a line) is written atomically
//!    and the store folder fsynced. From here on the import is done, whatever happens next.
//! 5. Each suite is swapped in: `<out>/<suite>` (if there is one) is renamed aside to
//!    `<out>/.old-<pid>-<n>-<suite>/`, then the new folder is renamed to `<out>/<suite>`. Between the two renames the
//!    suite folder is absent (a rename cannot swap two folders portably); the journal says how to finish.
//! 6. The store folder is fsynced, the `.old-*` folders and then the journal are removed.
//!
//! [`recover`] undoes an uncommitted import (removes its `.tmp-*` folders) and finishes a committed one (swaps in
//! every suite whose `.tmp-*` folder is still there, removes `.old-*` and the journal). The loader
//! ([`crate::store::Dataset::load`]) never writes: it refuses a store with a journal (some suites new, some old)
//! and reports other leftovers as warnings.
//!
//! A suite folder being replaced may hold only what the import writes (`kernels.toml`, its `<target>.csv` files)
//! and temporary files of earlier writes: any other file (another target's rows, notes) would be lost with the old
//! folder, so the import refuses to replace it and says which file. One import at a time may write a store.

use crate::error::{Error, Pos, Result};
use crate::store::Suite;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

const JOURNAL_PREFIX: &str = ".import-";
const JOURNAL_SUFFIX: &str = ".commit";
const JOURNAL_HEADER: &str = "measurements-import-v1";
const TMP: &str = ".tmp-";
const OLD: &str = ".old-";

fn tmp_name(tag: &str, suite: &str) -> String {
    format!("{TMP}{tag}-{suite}")
}

fn old_name(tag: &str, suite: &str) -> String {
    format!("{OLD}{tag}-{suite}")
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// Makes renames and new entries of `dir` durable; not every platform can open a folder, so failure is ignored.
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Writes a new file and fsyncs it.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io(path))?;
    f.write_all(bytes).map_err(io(path))?;
    f.sync_all().map_err(io(path))
}

/// Writes `suites` into `root` as one import (module docs, "Protocol"). Returns what was done to settle leftovers
/// of earlier interrupted imports, for the caller to print.
pub fn write_suites(root: &Path, suites: &[&Suite]) -> Result<Vec<String>> {
    // Everything that can be checked is checked before the store is touched.
    let mut rendered = Vec::with_capacity(suites.len());
    let mut names = std::collections::BTreeSet::new();
    for s in suites {
        if !names.insert(s.name()) {
            return Err(Error::syntax(
                &s.kernels_path,
                Pos::default(),
                format!("suite `{}` is written twice in one import", s.name()),
            ));
        }
        rendered.push((s.name(), s.check_writable()?));
    }
    std::fs::create_dir_all(root).map_err(io(root))?;
    let notes = recover(root)?;
    for (name, files) in &rendered {
        check_replaceable(&root.join(name), files)?;
    }

    let tag = format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let mut written: Vec<PathBuf> = Vec::new();
    let staged = (|| -> Result<()> {
        for (name, files) in &rendered {
            let dir = root.join(tmp_name(&tag, name));
            std::fs::create_dir(&dir).map_err(io(&dir))?;
            written.push(dir.clone());
            for (file, bytes) in files {
                write_new(&dir.join(file), bytes)?;
            }
            sync_dir(&dir);
        }
        sync_dir(root);
        Ok(())
    })();
    if let Err(e) = staged {
        for d in &written {
            let _ = std::fs::remove_dir_all(d);
        }
        return Err(e);
    }

    // The commit point.
    let mut journal = String::from(JOURNAL_HEADER);
    journal.push('\n');
    for (name, _) in &rendered {
        journal.push_str(name);
        journal.push('\n');
    }
    let journal_path = root.join(format!("{JOURNAL_PREFIX}{tag}{JOURNAL_SUFFIX}"));
    if let Err(e) = crate::atomic::write_atomic(&journal_path, journal.as_bytes()) {
        for d in &written {
            let _ = std::fs::remove_dir_all(d);
        }
        return Err(e);
    }
    finish(root, &tag, rendered.iter().map(|(n, _)| *n))?;
    std::fs::remove_file(&journal_path).map_err(io(&journal_path))?;
    sync_dir(root);
    Ok(notes)
}

/// Swaps in every suite of the committed import `tag` whose new folder is still staged, then removes the old
/// folders. Idempotent: run again after any interruption, it continues where the last run stopped.
fn finish<'a>(root: &Path, tag: &str, suites: impl Iterator<Item = &'a str> + Clone) -> Result<()> {
    for name in suites.clone() {
        let new = root.join(tmp_name(tag, name));
        let old = root.join(old_name(tag, name));
        let dest = root.join(name);
        if !new.is_dir() {
            continue; // swapped in by an earlier run
        }
        if dest.exists() {
            if old.exists() {
                return Err(Error::syntax(
                    &dest,
                    Pos::default(),
                    format!(
                        "cannot finish the import: {} and {} both exist beside the staged {}; move one away",
                        dest.display(),
                        old.display(),
                        new.display()
                    ),
                ));
            }
            std::fs::rename(&dest, &old).map_err(io(&dest))?;
        }
        std::fs::rename(&new, &dest).map_err(io(&new))?;
    }
    sync_dir(root);
    for name in suites {
        let old = root.join(old_name(tag, name));
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(io(&old))?;
        }
    }
    sync_dir(root);
    Ok(())
}

/// Refuses to replace a suite folder that holds files the import would not write again (they would be lost).
fn check_replaceable(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(()); // no old suite
    };
    for e in entries {
        let e = e.map_err(io(dir))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = files.iter().any(|(f, _)| *f == name)
            || (name.starts_with('.') && name.contains(".tmp-"));
        if !ours {
            return Err(Error::syntax(
                &dir.join(&name),
                Pos::default(),
                "the suite folder holds this file, which the import does not write: replacing the suite would \
                 lose it; move it away first (another target's rows belong in a suite of their own or a \
                 re-collection)",
            ));
        }
    }
    Ok(())
}

/// What [`inspect`] found in a store folder.
#[derive(Debug, Default)]
pub struct StoreState {
    /// Journals of committed, unfinished imports (`.import-*.commit`).
    pub journals: Vec<PathBuf>,
    /// Staged suite folders (`.tmp-*`) of imports that have no journal: never committed.
    pub uncommitted: Vec<PathBuf>,
    /// Folders set aside (`.old-*`) with no journal, and whether the suite they replaced is missing.
    pub set_aside: Vec<(PathBuf, bool)>,
    /// Temporary files of atomic writes (`.<name>.tmp-*`) in the store folder or its suite folders.
    pub temp_files: Vec<PathBuf>,
}

impl StoreState {
    /// Why the store must not be loaded as it is, if it must not.
    pub fn refusal(&self) -> Option<String> {
        if let Some(j) = self.journals.first() {
            return Some(format!(
                "an import into this folder was interrupted after it committed ({}): some suites are new and some \
                 old until it is finished; run `oracle import-peer ... --out` into this folder again (it finishes \
                 the interrupted import first)",
                j.display()
            ));
        }
        if let Some((p, _)) = self.set_aside.iter().find(|(_, missing)| *missing) {
            return Some(format!(
                "a suite is missing and its previous version is set aside in {}: an import was interrupted; run \
                 `oracle import-peer ... --out` into this folder again to restore it",
                p.display()
            ));
        }
        None
    }

    /// Leftovers that do not change what is loaded.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        for p in &self.uncommitted {
            w.push(format!(
                "{}: an unfinished suite write of an import that is running or was interrupted (not loaded; the \
                 next import removes it)",
                p.display()
            ));
        }
        for (p, _) in self.set_aside.iter().filter(|(_, missing)| !missing) {
            w.push(format!(
                "{}: an old suite set aside by an interrupted import (not loaded; the next import removes it)",
                p.display()
            ));
        }
        for p in &self.temp_files {
            w.push(format!(
                "{}: a temporary file of an interrupted write (not loaded; the next import removes it)",
                p.display()
            ));
        }
        w
    }
}

/// The tag and suite of a `.tmp-<pid>-<n>-<suite>` or `.old-...` name.
fn split_staged<'a>(name: &'a str, prefix: &str) -> Option<(&'a str, &'a str)> {
    let rest = name.strip_prefix(prefix)?;
    let mut parts = rest.splitn(3, '-');
    let (pid, n, suite) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n)).then(|| (&rest[..pid.len() + 1 + n.len()], suite))
}

/// Reads a store folder's leftovers without changing anything.
pub fn inspect(root: &Path) -> Result<StoreState> {
    let mut state = StoreState::default();
    let mut tags = std::collections::BTreeSet::new();
    let mut staged = Vec::new();
    let mut names = Vec::new();
    for e in std::fs::read_dir(root).map_err(io(root))? {
        let e = e.map_err(io(root))?;
        names.push(e.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    for name in &names {
        let path = root.join(name);
        if let Some(tag) = name
            .strip_prefix(JOURNAL_PREFIX)
            .and_then(|r| r.strip_suffix(JOURNAL_SUFFIX))
        {
            tags.insert(tag.to_string());
            state.journals.push(path);
        } else if name.starts_with(TMP) || name.starts_with(OLD) {
            staged.push(name.clone());
        } else if name.starts_with('.') && name.contains(".tmp-") {
            state.temp_files.push(path);
        } else if path.is_dir() && !name.starts_with('.') {
            for f in std::fs::read_dir(&path).map_err(io(&path))? {
                let f = f.map_err(io(&path))?;
                let n = f.file_name().to_string_lossy().into_owned();
                if n.starts_with('.') && n.contains(".tmp-") {
                    state.temp_files.push(f.path());
                }
            }
        }
    }
    for name in staged {
        let path = root.join(&name);
        let (prefix, is_old) = if name.starts_with(TMP) {
            (TMP, false)
        } else {
            (OLD, true)
        };
        let journaled = split_staged(&name, prefix).is_some_and(|(tag, _)| tags.contains(tag));
        if journaled {
            continue; // part of a committed import: the journal's refusal covers it
        }
        if is_old {
            let missing = split_staged(&name, prefix).is_some_and(|(_, s)| !root.join(s).exists());
            state.set_aside.push((path, missing));
        } else {
            state.uncommitted.push(path);
        }
    }
    Ok(state)
}

/// Settles the leftovers of interrupted imports in `root` (module docs): finishes committed imports, removes
/// uncommitted staging folders and temporary files, restores a suite set aside whose replacement is gone. Returns
/// one line per thing done. Only one import may run on a store at a time: this would remove a running import's
/// staging folders.
pub fn recover(root: &Path) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    let state = inspect(root)?;
    for j in &state.journals {
        let name = j.file_name().map(|n| n.to_string_lossy().into_owned());
        let tag = name
            .as_deref()
            .and_then(|n| n.strip_prefix(JOURNAL_PREFIX))
            .and_then(|n| n.strip_suffix(JOURNAL_SUFFIX))
            .unwrap_or_default()
            .to_string();
        let text = crate::input::read_text(j, 1 << 20)?;
        let mut lines = text.lines();
        if lines.next() != Some(JOURNAL_HEADER) {
            return Err(Error::syntax(
                j,
                Pos::new(1, 1),
                format!("not an import journal (it must start with `{JOURNAL_HEADER}`)"),
            ));
        }
        let suites: Vec<&str> = lines.collect();
        for (i, s) in suites.iter().enumerate() {
            // A journal names folders to rename: only suite names, never a path.
            crate::names::suite(s).map_err(|m| Error::syntax(j, Pos::new(i as u64 + 2, 1), m))?;
        }
        finish(root, &tag, suites.iter().copied())?;
        std::fs::remove_file(j).map_err(io(j))?;
        sync_dir(root);
        notes.push(format!(
            "finished the interrupted import {} ({} suites)",
            j.display(),
            suites.len()
        ));
    }
    // What is left has no journal: uncommitted staging goes, set-aside folders go or come back.
    let state = inspect(root)?;
    for p in &state.uncommitted {
        std::fs::remove_dir_all(p).map_err(io(p))?;
        notes.push(format!(
            "removed {}, an unfinished suite write of an interrupted import",
            p.display()
        ));
    }
    for (p, missing) in &state.set_aside {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let suite = name
            .as_deref()
            .and_then(|n| split_staged(n, OLD))
            .map(|(_, s)| s.to_string());
        match (missing, suite) {
            (true, Some(s)) if crate::names::suite(&s).is_ok() => {
                std::fs::rename(p, root.join(&s)).map_err(io(p))?;
                notes.push(format!("restored suite {s} from {}", p.display()));
            }
            _ => {
                std::fs::remove_dir_all(p).map_err(io(p))?;
                notes.push(format!("removed {}, an old suite set aside", p.display()));
            }
        }
    }
    for p in &state.temp_files {
        std::fs::remove_file(p).map_err(io(p))?;
        notes.push(format!(
            "removed {}, a temporary file of an interrupted write",
            p.display()
        ));
    }
    sync_dir(root);
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::split_staged;

    #[test]
    fn staged_names() {
        assert_eq!(
            split_staged(".tmp-123-4-peer-dpp8", ".tmp-"),
            Some(("123-4", "peer-dpp8"))
        );
        assert_eq!(split_staged(".old-1-0-a", ".old-"), Some(("1-0", "a")));
        assert_eq!(split_staged(".tmp-x-0-a", ".tmp-"), None);
        assert_eq!(split_staged(".tmp-1-a", ".tmp-"), None);
    }
}
