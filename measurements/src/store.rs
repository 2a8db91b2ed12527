//! The measurement store: suites of kernels and rows, loaded from folders, validated, merged and written back.
//!
//! # Layout and what the loader refuses
//!
//! A store is a folder of suite folders; a suite folder holds `kernels.toml` and one `<target>.csv` per target
//! ([`crate::row::KNOWN_TARGETS`]). A suite is written whole or not at all ([`crate::commit`]), so the loader
//! treats anything else as damage and refuses it with the folder and the reason, rather than running fewer cells:
//!
//! - a suite folder with `kernels.toml` and no row file, a row file with a header and no rows, or a kernel
//!   that no row of its folder uses;
//! - a file whose name looks like a row file but is not `<known target>.csv` (`rdna2.csv.bak`, `RDNA2.csv`,
//!   `gfx9000.csv`), and a folder with row files and no `kernels.toml`;
//! - a store whose last import was interrupted after it committed (a `.import-*.commit` journal is there): some
//!   of its suites are new and some old until the next import finishes the job.
//!
//! Leftovers that do not change what is loaded (an unfinished suite write `.tmp-*`, a temporary file of an atomic
//! write) are reported in [`Dataset::warnings`]; the next import removes them. Folders whose names start with `.`
//! are never loaded as suites.

use crate::compare::compare_cell;
use crate::csvio::parse_rows;
use crate::error::{Conflict, Error, Origin, Pos, Result};
use crate::id::{dispatch_hash, measurement_id};
use crate::kernel::{Kernel, KernelFile};
use crate::row::{valid_target, Cell, Check, Evidence, Row};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use crate::commit::{recover, write_suites};

/// A row as held in the store, with where it was read.
#[derive(Debug, Clone)]
pub struct StoredRow {
    /// The row.
    pub row: Row,
    /// Where it was read first.
    pub origin: Origin,
}

/// One suite: its kernels and its rows (all targets), keyed by measurement ID.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The kernel file.
    pub kernels: KernelFile,
    /// Where the kernel file was read (for messages).
    pub kernels_path: PathBuf,
    /// Content hash of each kernel, by name.
    pub kernel_hashes: BTreeMap<String, String>,
    /// Each kernel's index in `kernels.kernels`, by name: rows find their kernel in `O(log n)`, so loading and
    /// importing stay linear in the number of rows however many kernels a suite has.
    pub kernel_index: BTreeMap<String, usize>,
    /// Rows by measurement ID.
    pub rows: BTreeMap<String, StoredRow>,
}

impl Suite {
    /// A suite with kernels and no rows.
    pub fn new(kernels: KernelFile, kernels_path: PathBuf) -> Suite {
        let kernel_hashes = kernels
            .kernels
            .iter()
            .map(|k| (k.name.clone(), k.content_hash()))
            .collect();
        let kernel_index = kernels
            .kernels
            .iter()
            .enumerate()
            .map(|(i, k)| (k.name.clone(), i))
            .collect();
        Suite {
            kernels,
            kernels_path,
            kernel_hashes,
            kernel_index,
            rows: BTreeMap::new(),
        }
    }

    /// The suite's name.
    pub fn name(&self) -> &str {
        &self.kernels.suite
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernel_index
            .get(name)
            .and_then(|&i| self.kernels.kernels.get(i))
    }

    /// Adds a kernel (of another folder of the same suite) that this suite does not have yet.
    fn add_kernel(&mut self, k: Kernel) {
        self.kernel_hashes.insert(k.name.clone(), k.content_hash());
        self.kernel_index
            .insert(k.name.clone(), self.kernels.kernels.len());
        self.kernels.kernels.push(k);
    }

    /// Checks a row against this suite (kernel exists, sizes agree, ID matches content) and adds it, merging
    /// with a row of the same ID. The dispatch hash is checked by [`Suite::check_dispatches`] once every row of
    /// a file is in.
    pub fn insert(&mut self, row: Row, origin: Origin) -> Result<()> {
        let err = |m: String| Error::syntax(&origin.path, origin.pos, m);
        if row.suite != self.name() {
            return Err(err(format!(
                "row of suite `{}` in the files of suite `{}`",
                crate::hex::truncate(&row.suite),
                self.name()
            )));
        }
        let kernel = self.kernel(&row.kernel).ok_or_else(|| {
            err(format!(
                "kernel `{}` is not defined in {} (missing kernel)",
                crate::hex::truncate(&row.kernel),
                self.kernels_path.display()
            ))
        })?;
        if row.inputs.len() != kernel.input_dwords as usize {
            return Err(err(format!(
                "{} input dwords; kernel `{}` takes {}",
                row.inputs.len(),
                kernel.name,
                kernel.input_dwords
            )));
        }
        // Merging walks both rows' cells in column order, so the order is part of a row's validity.
        if row.cells.windows(2).any(|w| w[0].column >= w[1].column) {
            return Err(err(format!(
                "row {}: its columns are not strictly ascending",
                row.id
            )));
        }
        if let Some(last) = row.cells.last().map(|c| c.column) {
            kernel
                .check_placement(&row.placement, last)
                .map_err(|m| err(format!("row {}: {m}", row.id)))?;
        }
        if row.lane as u64 >= kernel.lanes() {
            return Err(err(format!(
                "lane {} is past the {} lanes of a dispatch of `{}`",
                row.lane,
                kernel.lanes(),
                kernel.name
            )));
        }
        let hash = &self.kernel_hashes[&row.kernel];
        let id = measurement_id(
            hash,
            &row.target,
            &row.mode,
            &row.dispatch,
            row.lane,
            kernel.id_placement(&row.placement),
        );
        if id != row.id {
            return Err(err(format!(
                "measurement ID {} does not match the row's content (it should be {id}): the kernel, target, mode, \
                 dispatch, lane or placement was edited",
                row.id
            )));
        }
        match self.rows.get_mut(&row.id) {
            None => {
                self.rows.insert(row.id.clone(), StoredRow { row, origin });
            }
            Some(existing) => merge(existing, row, origin)?,
        }
        Ok(())
    }

    /// Recomputes every dispatch hash from the rows that carry it and checks that a lane has one set of inputs
    /// per dispatch.
    pub fn check_dispatches(&self) -> Result<()> {
        // (kernel, dispatch) -> lane -> (inputs, where first read)
        type Lanes<'a> = BTreeMap<u32, (&'a [u32], &'a Origin)>;
        let mut lanes: BTreeMap<(&str, &str), Lanes> = BTreeMap::new();
        for s in self.rows.values() {
            let r = &s.row;
            let entry = lanes
                .entry((r.kernel.as_str(), r.dispatch.as_str()))
                .or_default();
            if let Some((inputs, first)) = entry.get(&r.lane) {
                if *inputs != r.inputs.as_slice() {
                    return Err(Error::syntax(
                        &s.origin.path,
                        s.origin.pos,
                        format!(
                            "dispatch {} lane {} has other inputs at {first}",
                            r.dispatch, r.lane
                        ),
                    ));
                }
            } else {
                entry.insert(r.lane, (&r.inputs, &s.origin));
            }
        }
        for ((kernel, dispatch), lanes) in lanes {
            let list: Vec<(u32, &[u32])> = lanes.iter().map(|(l, (i, _))| (*l, *i)).collect();
            let want = dispatch_hash(&self.kernel_hashes[kernel], &list);
            if want != dispatch {
                let origin = lanes
                    .values()
                    .next()
                    .map(|(_, o)| *o)
                    .cloned()
                    .unwrap_or(Origin {
                        path: self.kernels_path.clone(),
                        pos: Pos::default(),
                    });
                return Err(Error::syntax(
                    &origin.path,
                    origin.pos,
                    format!(
                        "dispatch {dispatch} of kernel `{kernel}`: the rows' inputs hash to {want}; a row of the \
                         dispatch is missing, extra or edited"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The targets that have rows.
    pub fn targets(&self) -> BTreeSet<String> {
        self.rows.values().map(|r| r.row.target.clone()).collect()
    }

    /// The rows of one target in canonical order: kernel file order, then mode, dispatch and lane.
    pub fn rows_of(&self, target: &str) -> Vec<Row> {
        let order = self.kernels.order();
        let mut rows: Vec<Row> = self
            .rows
            .values()
            .filter(|r| r.row.target == target)
            .map(|r| r.row.clone())
            .collect();
        rows.sort_by(|a, b| {
            (order.get(a.kernel.as_str()), a.mode, &a.dispatch, a.lane).cmp(&(
                order.get(b.kernel.as_str()),
                b.mode,
                &b.dispatch,
                b.lane,
            ))
        });
        rows
    }

    /// Names of the kernels no row uses, in file order.
    pub fn kernels_without_rows(&self) -> Vec<&str> {
        let used: BTreeSet<&str> = self.rows.values().map(|r| r.row.kernel.as_str()).collect();
        self.kernels
            .kernels
            .iter()
            .map(|k| k.name.as_str())
            .filter(|n| !used.contains(n))
            .collect()
    }

    /// The files of the suite's folder, rendered: `kernels.toml` and one `<target>.csv` per target.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut files = vec![(
            "kernels.toml".to_string(),
            self.kernels.to_toml().into_bytes(),
        )];
        for t in self.targets() {
            files.push((
                format!("{t}.csv"),
                crate::csvio::rows_to_csv(&self.rows_of(&t)),
            ));
        }
        files
    }

    /// Checks that the suite can be written and read back as it is, with the reader's own functions: the kernel
    /// file validates ([`KernelFile::validate`]), every row passes [`crate::csvio::check_row`], every kernel has
    /// rows, and the rendered files load ([`Dataset::load`]'s checks, run on the bytes) to the same rows. The
    /// writer runs it before it writes anything, so it never writes what its reader refuses. Returns the files.
    pub fn check_writable(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let here = self.kernels_path.as_path();
        self.kernels.validate().map_err(|(k, m)| {
            let m = match k {
                Some(i) => format!("kernel {} of the suite: {m}", i + 1),
                None => m,
            };
            Error::syntax(here, Pos::default(), m)
        })?;
        for s in self.rows.values() {
            crate::csvio::check_row(&s.row).map_err(|(field, m)| {
                Error::syntax(
                    &s.origin.path,
                    s.origin.pos,
                    format!(
                        "row {} field `{}`: {m}",
                        s.row.id,
                        crate::csvio::HEADER[field]
                    ),
                )
            })?;
        }
        let files = self.files();
        let dir = PathBuf::from(self.name());
        let back = Suite::from_files(&dir, &files)?;
        let same = back.rows.len() == self.rows.len()
            && back
                .rows
                .iter()
                .zip(&self.rows)
                .all(|((a, x), (b, y))| a == b && x.row == y.row);
        if !same {
            return Err(Error::syntax(
                here,
                Pos::default(),
                format!(
                    "suite `{}` does not read back as written (a writer bug): refusing to write it",
                    self.name()
                ),
            ));
        }
        Ok(files)
    }

    /// Builds a suite from the files of its folder (`dir` for messages), as [`Dataset::add_suite_dir`] reads
    /// them, with every check of the loader.
    pub fn from_files(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<Suite> {
        let mut ds = Dataset::default();
        ds.add_files(dir, files)?;
        ds.suites
            .into_values()
            .next()
            .ok_or_else(|| Error::syntax(dir, Pos::default(), "no kernels.toml"))
    }

    /// Writes the suite into `root/<suite>/`, atomically as a whole ([`write_suites`]): the folder is the old
    /// suite or the new one at every instant, never a mix.
    pub fn write(&self, root: &Path) -> Result<()> {
        write_suites(root, &[self]).map(|_| ())
    }
}

/// Strength order of evidence: a hardware measurement outranks a pinned peer value, which outranks a formula.
fn rank(e: Evidence) -> u8 {
    match e {
        Evidence::Hardware => 2,
        Evidence::PeerPinned => 1,
        Evidence::PeerFormula => 0,
        // Never compared with the others: `merge` refuses to mix model rows with evidence.
        Evidence::Model => 0,
    }
}

/// Merges two expectations of one output dword (`old` read at `first`, `new` at `second`).
fn merge_cell(id: &str, old: Cell, first: &Origin, new: Cell, second: &Origin) -> Result<Cell> {
    if old.check == Check::Unchecked {
        return Ok(new);
    }
    if new.check == Check::Unchecked {
        return Ok(old);
    }
    let agree = old.mask == new.mask
        && compare_cell(&old, new.value, None).passed()
        && compare_cell(&new, old.value, None).passed();
    if !agree {
        return Err(Error::Conflict(Box::new(Conflict {
            id: id.to_string(),
            column: new.column,
            first: (old, first.clone()),
            second: (new, second.clone()),
        })));
    }
    // The stricter check wins: an exact expectation is more information than a NaN-tolerant one.
    Ok(if new.check == Check::Exact && old.check != Check::Exact {
        new
    } else {
        old
    })
}

/// Merges `new` into `existing` (same ID): cells must agree, new columns are added, sources are united.
///
/// Both cell lists are in ascending column order ([`Suite::insert`] refuses anything else), so one pass over
/// both merges them, and the united sources are bounded ([`crate::limits::MAX_SOURCE_BYTES`]): a merge costs the
/// size of the two rows, never more, however many times a measurement repeats.
fn merge(existing: &mut StoredRow, new: Row, origin: Origin) -> Result<()> {
    if (existing.row.evidence == Evidence::Model) != (new.evidence == Evidence::Model) {
        return Err(Error::syntax(
            &origin.path,
            origin.pos,
            format!(
                "measurement {} is both a model row (a dry run, not a measurement) and a {} row (first at {}): \
                 the store does not merge model rows with evidence under one ID",
                new.id,
                if new.evidence == Evidence::Model {
                    existing.row.evidence
                } else {
                    new.evidence
                },
                existing.origin
            ),
        ));
    }
    let old = &existing.row.cells;
    let mut cells = Vec::with_capacity(old.len().max(new.cells.len()));
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.cells.len() {
        match (old.get(i), new.cells.get(j)) {
            (Some(a), Some(b)) if a.column == b.column => {
                cells.push(merge_cell(&new.id, *a, &existing.origin, *b, &origin)?);
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.column < b.column => {
                cells.push(*a);
                i += 1;
            }
            (Some(a), None) => {
                cells.push(*a);
                i += 1;
            }
            (_, Some(b)) => {
                cells.push(*b);
                j += 1;
            }
            (None, None) => break,
        }
    }
    existing.row.cells = cells;
    if rank(new.evidence) > rank(existing.row.evidence) {
        existing.row.evidence = new.evidence;
    }
    if new.source != existing.row.source {
        let mut sources: BTreeSet<&str> = existing.row.source.split(" ; ").collect();
        let before = sources.len();
        sources.extend(new.source.split(" ; "));
        if sources.len() != before {
            let joined = sources.into_iter().collect::<Vec<_>>().join(" ; ");
            crate::csvio::check_source(&joined).map_err(|m| {
                Error::syntax(
                    &origin.path,
                    origin.pos,
                    format!(
                        "measurement {} repeats in too many places to list them all: {m}",
                        new.id
                    ),
                )
            })?;
            existing.row.source = joined;
        }
    }
    Ok(())
}

/// Every suite found under one or more folders, merged.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Suites by name.
    pub suites: BTreeMap<String, Suite>,
    /// What the loader found that does not change what was loaded but should not be there (leftovers of an
    /// interrupted import); binaries print them.
    pub warnings: Vec<String>,
}

/// What a name in a suite folder is.
enum Entry {
    Kernels,
    Rows,
    Leftover,
    Other,
}

fn classify(name: &str) -> std::result::Result<Entry, String> {
    if name == "kernels.toml" {
        return Ok(Entry::Kernels);
    }
    // Temporary files of `atomic::write_atomic` (`.<file>.tmp-<pid>-<n>`) left by a killed writer.
    if name.starts_with('.') && name.contains(".tmp-") {
        return Ok(Entry::Leftover);
    }
    if let Some(stem) = name.strip_suffix(".csv") {
        if valid_target(stem) {
            return Ok(Entry::Rows);
        }
    }
    if name.to_ascii_lowercase().contains(".csv") {
        return Err(format!(
            "`{}` looks like a row file but is not named `<target>.csv` with a known target ({}): rename it or \
             move it out of the suite folder",
            crate::hex::truncate(name),
            crate::row::KNOWN_TARGETS.join(", ")
        ));
    }
    Ok(Entry::Other)
}

impl Dataset {
    /// Loads folders: each is a suite folder (it has `kernels.toml`) or a folder of suite folders.
    pub fn load(dirs: &[PathBuf]) -> Result<Dataset> {
        let mut ds = Dataset::default();
        for d in dirs {
            ds.add_dir(d)?;
        }
        Ok(ds)
    }

    /// Adds a suite folder or a folder of suite folders.
    pub fn add_dir(&mut self, dir: &Path) -> Result<()> {
        if !dir.is_dir() {
            return Err(Error::io(
                dir,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder"),
            ));
        }
        if dir.join("kernels.toml").exists() {
            return self.add_suite_dir(dir);
        }
        let state = crate::commit::inspect(dir)?;
        if let Some(problem) = state.refusal() {
            return Err(Error::syntax(dir, Pos::default(), problem));
        }
        for w in state.warnings() {
            self.warn(w);
        }
        let mut subdirs = Vec::new();
        for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let e = e.map_err(|e| Error::io(dir, e))?;
            let name = e.file_name();
            // Hidden folders are an import's work in progress (`.tmp-*`, `.old-*`), never suites.
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let p = e.path();
            if !p.is_dir() {
                continue;
            }
            if p.join("kernels.toml").exists() {
                subdirs.push(p);
            } else if has_row_files(&p)? {
                return Err(Error::syntax(
                    &p,
                    Pos::default(),
                    "the folder has row files (`<target>.csv`) and no kernels.toml: its kernels are missing",
                ));
            }
        }
        subdirs.sort();
        if subdirs.is_empty() {
            return Err(Error::io(
                dir,
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no kernels.toml here or in any subfolder",
                ),
            ));
        }
        for s in subdirs {
            self.add_suite_dir(&s)?;
        }
        Ok(())
    }

    /// Adds one suite folder: `kernels.toml` and every `<target>.csv` beside it (layout rules: module docs).
    pub fn add_suite_dir(&mut self, dir: &Path) -> Result<()> {
        let mut files = Vec::new();
        let mut names = Vec::new();
        for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let e = e.map_err(|e| Error::io(dir, e))?;
            let name = e.file_name().to_string_lossy().into_owned();
            names.push(name);
        }
        names.sort();
        for name in names {
            let path = dir.join(&name);
            match classify(&name).map_err(|m| Error::syntax(&path, Pos::default(), m))? {
                Entry::Kernels => {
                    let text = crate::input::read_bytes(
                        &path,
                        crate::limits::MAX_KERNELS_FILE_BYTES,
                    )?;
                    files.push((name, text));
                }
                Entry::Rows => {
                    let bytes = crate::input::read_bytes(&path, crate::limits::MAX_CSV_FILE_BYTES)?;
                    files.push((name, bytes));
                }
                Entry::Leftover => self.warn(format!(
                    "{}: a temporary file of an interrupted write (not loaded; the next import removes it)",
                    path.display()
                )),
                Entry::Other => {}
            }
        }
        self.add_files(dir, &files)
    }

    /// Adds one suite from the files of its folder (`dir` names them in messages): what
    /// [`Dataset::add_suite_dir`] reads, and what the writer checks before it writes ([`Suite::check_writable`]).
    fn add_files(&mut self, dir: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
        let kpath = dir.join("kernels.toml");
        let ktext = files
            .iter()
            .find(|(n, _)| n == "kernels.toml")
            .map(|(_, b)| b)
            .ok_or_else(|| {
                Error::syntax(&kpath, Pos::default(), "the suite has no kernels.toml")
            })?;
        let kernels = KernelFile::parse(&kpath, crate::input::utf8(&kpath, ktext)?)?;
        let folder_kernels: Vec<String> = kernels.kernels.iter().map(|k| k.name.clone()).collect();
        let name = kernels.suite.clone();
        match self.suites.get_mut(&name) {
            None => {
                self.suites
                    .insert(name.clone(), Suite::new(kernels, kpath.clone()));
            }
            Some(existing) => {
                for k in kernels.kernels {
                    match existing.kernel(&k.name) {
                        Some(old) if old.content_hash() != k.content_hash() => {
                            return Err(Error::syntax(
                                &kpath,
                                Pos::default(),
                                format!(
                                    "kernel `{}` of suite `{name}` differs from the one in {}",
                                    k.name,
                                    existing.kernels_path.display()
                                ),
                            ))
                        }
                        Some(_) => {}
                        None => existing.add_kernel(k),
                    }
                }
            }
        }
        let suite = self.suites.get_mut(&name).expect("inserted above");
        let mut used = BTreeSet::new();
        let mut row_files = 0;
        for (file, bytes) in files {
            let Some(stem) = file.strip_suffix(".csv") else {
                continue;
            };
            row_files += 1;
            let path = dir.join(file);
            let rows = parse_rows(&path, bytes)?;
            if rows.is_empty() {
                return Err(Error::syntax(
                    &path,
                    Pos::new(1, 0),
                    "the row file has a header and no rows (writers never write one: an interrupted or edited \
                     store)",
                ));
            }
            for (row, pos) in rows {
                if row.target != stem {
                    return Err(Error::syntax(
                        &path,
                        pos,
                        format!(
                            "row of target `{}` in the file of target `{stem}`",
                            row.target
                        ),
                    ));
                }
                used.insert(row.kernel.clone());
                suite.insert(
                    row,
                    Origin {
                        path: path.clone(),
                        pos,
                    },
                )?;
            }
        }
        if row_files == 0 {
            return Err(Error::syntax(
                dir,
                Pos::default(),
                format!(
                    "suite `{name}` has kernels.toml and no row file (`<target>.csv`): its rows are missing, so it \
                     would count 0 cells; re-import or restore the suite"
                ),
            ));
        }
        let unused: Vec<&str> = folder_kernels
            .iter()
            .map(String::as_str)
            .filter(|k| !used.contains(*k))
            .collect();
        if !unused.is_empty() {
            return Err(Error::syntax(
                &kpath,
                Pos::default(),
                format!(
                    "kernel{} {} of suite `{name}` {} no rows in {}: rows are missing (an interrupted write or an \
                     edited file)",
                    if unused.len() == 1 { "" } else { "s" },
                    unused
                        .iter()
                        .take(5)
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if unused.len() == 1 { "has" } else { "have" },
                    dir.display()
                ),
            ));
        }
        suite.check_dispatches()
    }

    /// Records a warning once.
    fn warn(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    /// Number of rows in all suites.
    pub fn row_count(&self) -> usize {
        self.suites.values().map(|s| s.rows.len()).sum()
    }

    /// Finds a row by measurement ID.
    pub fn find(&self, id: &str) -> Option<(&Suite, &StoredRow)> {
        self.suites
            .values()
            .find_map(|s| s.rows.get(id).map(|r| (s, r)))
    }
}

/// Does `dir` hold a file named like a row file?
fn has_row_files(dir: &Path) -> Result<bool> {
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let e = e.map_err(|e| Error::io(dir, e))?;
        if e.file_name().to_string_lossy().ends_with(".csv") {
            return Ok(true);
        }
    }
    Ok(false)
}
