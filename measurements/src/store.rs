//! The measurement store: suites of kernels and rows, loaded from folders, validated, merged and written back.

use crate::compare::compare_cell;
use crate::csvio::{read_rows, write_rows};
use crate::error::{Conflict, Error, Origin, Pos, Result};
use crate::id::{dispatch_hash, measurement_id};
use crate::kernel::{Kernel, KernelFile};
use crate::row::{Check, Evidence, Row};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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
        Suite {
            kernels,
            kernels_path,
            kernel_hashes,
            rows: BTreeMap::new(),
        }
    }

    /// The suite's name.
    pub fn name(&self) -> &str {
        &self.kernels.suite
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.kernel(name)
    }

    /// Checks a row against this suite (kernel exists, sizes agree, ID matches content) and adds it, merging
    /// with a row of the same ID. The dispatch hash is checked by [`Suite::check_dispatches`] once every row of
    /// a file is in.
    pub fn insert(&mut self, row: Row, origin: Origin) -> Result<()> {
        let err = |m: String| Error::syntax(&origin.path, origin.pos, m);
        if row.suite != self.name() {
            return Err(err(format!(
                "row of suite `{}` in the files of suite `{}`",
                row.suite,
                self.name()
            )));
        }
        let kernel = self.kernels.kernel(&row.kernel).ok_or_else(|| {
            err(format!(
                "kernel `{}` is not defined in {} (missing kernel)",
                row.kernel,
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
        if let Some(last) = row.cells.iter().map(|c| c.column).max() {
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

    /// Writes the suite into `dir/<suite>/`: `kernels.toml` and one `<target>.csv` per target, each atomically.
    pub fn write(&self, root: &Path) -> Result<()> {
        let dir = root.join(self.name());
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        crate::atomic::write_atomic(&dir.join("kernels.toml"), self.kernels.to_toml().as_bytes())?;
        for t in self.targets() {
            write_rows(&dir.join(format!("{t}.csv")), &self.rows_of(&t))?;
        }
        Ok(())
    }
}

/// Strength order of evidence: a hardware measurement outranks a pinned peer value, which outranks a formula.
fn rank(e: Evidence) -> u8 {
    match e {
        Evidence::Hardware => 2,
        Evidence::PeerPinned => 1,
        Evidence::PeerFormula => 0,
    }
}

/// Merges `new` into `existing` (same ID): cells must agree, new columns are added, sources are united.
fn merge(existing: &mut StoredRow, new: Row, origin: Origin) -> Result<()> {
    for cell in &new.cells {
        let Some(old) = existing
            .row
            .cells
            .iter_mut()
            .find(|c| c.column == cell.column)
        else {
            continue;
        };
        if old.check == Check::Unchecked || cell.check == Check::Unchecked {
            if old.check == Check::Unchecked {
                *old = *cell;
            }
            continue;
        }
        let agree = old.mask == cell.mask
            && compare_cell(old, cell.value, None).passed()
            && compare_cell(cell, old.value, None).passed();
        if !agree {
            return Err(Error::Conflict(Box::new(Conflict {
                id: new.id.clone(),
                column: cell.column,
                first: (old.value, existing.origin.clone()),
                second: (cell.value, origin),
            })));
        }
        // The stricter check wins: an exact expectation is more information than a NaN-tolerant one.
        if cell.check == Check::Exact && old.check != Check::Exact {
            *old = *cell;
        }
    }
    for cell in new.cells {
        if !existing.row.cells.iter().any(|c| c.column == cell.column) {
            existing.row.cells.push(cell);
        }
    }
    existing.row.cells.sort_by_key(|c| c.column);
    if rank(new.evidence) > rank(existing.row.evidence) {
        existing.row.evidence = new.evidence;
    }
    let mut sources: BTreeSet<&str> = existing.row.source.split(" ; ").collect();
    sources.extend(new.source.split(" ; "));
    existing.row.source = sources.into_iter().collect::<Vec<_>>().join(" ; ");
    Ok(())
}

/// Every suite found under one or more folders, merged.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Suites by name.
    pub suites: BTreeMap<String, Suite>,
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
        if dir.join("kernels.toml").is_file() {
            return self.add_suite_dir(dir);
        }
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("kernels.toml").is_file())
            .collect();
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

    /// Adds one suite folder: `kernels.toml` and every `<target>.csv` beside it.
    pub fn add_suite_dir(&mut self, dir: &Path) -> Result<()> {
        let kpath = dir.join("kernels.toml");
        let kernels = KernelFile::read(&kpath)?;
        let name = kernels.suite.clone();
        match self.suites.get_mut(&name) {
            None => {
                self.suites
                    .insert(name.clone(), Suite::new(kernels, kpath.clone()));
            }
            Some(existing) => {
                for k in kernels.kernels {
                    match existing.kernels.kernel(&k.name) {
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
                        None => {
                            existing
                                .kernel_hashes
                                .insert(k.name.clone(), k.content_hash());
                            existing.kernels.kernels.push(k);
                        }
                    }
                }
            }
        }
        let suite = self.suites.get_mut(&name).expect("inserted above");
        let mut csvs: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .collect();
        csvs.sort();
        for path in csvs {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            for (row, pos) in read_rows(&path)? {
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
                suite.insert(
                    row,
                    Origin {
                        path: path.clone(),
                        pos,
                    },
                )?;
            }
        }
        suite.check_dispatches()
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
