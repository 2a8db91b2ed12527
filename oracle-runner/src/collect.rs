//! `oracle collect`: templates into measured rows.
//!
//! Each template becomes the suite `oracle-NAME`: one kernel per wave size, in the `oracle-v1` ABI (the
//! template's body between a prologue that loads each lane's four input dwords into v4..v7 and zeroes
//! v10..v25, and an epilogue that stores v10..v25 with EXEC all ones), and one dispatch per case
//! ([`templates::Case`]: a mode, a wave size, a chunk of the operand combinations). The body must keep v3 (the
//! lane's output offset) and `s[6:7]` (the output address).
//!
//! A template with `[buffers]` gets the layout's buffer extension ([`kernel_text_with`],
//! [`BUFFERS_KERNARG_BYTES`], the templates crate docs): a third array `scratch`, and a 56-byte kernel argument
//! segment whose V#s over `in` and `scratch` the prologue loads into `s[12:15]` and `s[16:19]` (the `scratch`
//! address into `s[8:9]`, the lane's `scratch` offset into v2). Its kernel is
//! [`measurements::kernel::Kernel::oracle_v1_buffers`], so the model, the recompiler and the hsa backend set up
//! the same arrays and argument words from its memory list and `user_data` list. A template without the table
//! keeps the plain text, kernel and measurement IDs word for word.
//!
//! Rows get the IDs any backend would give the same kernel, target, mode, inputs and lane, so a dry run on
//! the reference model (`--backend model`, evidence `model`) is compared with a hardware collection by ID.
//!
//! Resumable: every finished dispatch is appended to a journal (`DIR/.oracle-collect/NAME.TARGET.jsonl`) as
//! one line written at once and synced; a line cut short by a kill is dropped on `--resume`, and what the
//! journal holds is not run again. When every dispatch of a template is in, the suite's files are written
//! atomically from the journal (so an interrupted and resumed collection writes the same bytes as an
//! uninterrupted one) and the journal is removed.
//!
//! Sharding: `--shard K/N` (1 <= K <= N) runs the dispatches whose 0-based index (in the order of
//! [`templates::Template::cases`]) is K-1 modulo N; the N shards' suites together hold exactly the unsharded
//! rows.

use measurements::id::{dispatch_hash, measurement_id};
use measurements::kernel::{Kernel, KernelFile, OracleBuffers, OracleVsharp};
use measurements::row::{Cell, Check, Evidence, Placement, Row};
use measurements::{Backend, FloatMode, Job, Suite};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use templates::{Body, Template};

/// Where the collection runs (`'a` the borrows, `'r` the ROCr session a device belongs to).
pub enum Target<'a, 'r> {
    /// The reference model, for the chip `chip` (a dry run: rows carry evidence `model`).
    Model {
        /// The chip whose instruction set the model runs (`gfx1013`, `gfx1036`, ...).
        chip: String,
        /// The model.
        backend: &'a (dyn Backend + Sync),
    },
    /// An RDNA GPU through ROCr: rows carry evidence `hardware` and the device's fingerprint.
    Hsa {
        /// The opened GPU agent; the rows' target is its ISA name.
        device: &'a crate::dispatch::Device<'r>,
    },
}

impl Target<'_, '_> {
    fn chip(&self) -> &str {
        match self {
            Target::Model { chip, .. } => chip,
            Target::Hsa { device } => &device.agent().name,
        }
    }
    fn evidence(&self) -> Evidence {
        match self {
            Target::Model { .. } => Evidence::Model,
            Target::Hsa { .. } => Evidence::Hardware,
        }
    }
    fn source(&self) -> String {
        match self {
            Target::Model { .. } => format!(
                "oracle collect --backend model (reference model of oracle {}); not a measurement",
                env!("CARGO_PKG_VERSION")
            ),
            Target::Hsa { device } => format!(
                "oracle collect --backend hsa (oracle {}) on {}",
                env!("CARGO_PKG_VERSION"),
                device.fingerprint()
            ),
        }
    }
    fn backend(&self) -> &(dyn Backend + Sync) {
        match self {
            Target::Model { backend, .. } => *backend,
            Target::Hsa { device } => *device,
        }
    }
}

/// A shard: number `index` (1-based, as `conformance sweep` and `conformance --shard` count) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1 to `count`.
    pub index: u32,
    /// At least 1.
    pub count: u32,
}

impl Shard {
    /// The whole collection.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// Parses `K/N` (1 <= K <= N).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || {
            format!(
                "--shard `{text}`: K/N with 1 <= K <= N, e.g. 2/3 (a Kubernetes Indexed Job passes \
                 $((JOB_COMPLETION_INDEX + 1))/N)"
            )
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) =
            (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether dispatch `i` (0-based) belongs to this shard: shard K holds K-1, K-1+N, K-1+2N, ...
    pub fn has(self, i: usize) -> bool {
        i as u64 % u64::from(self.count) == u64::from(self.index - 1)
    }
}

/// Runs llvm-mc on `text` for `chip` and `wave` and returns the words of its `.text`.
pub fn assemble(text: &str, chip: &str, wave: u32) -> Result<Vec<u32>, String> {
    let mc = llvm_mc();
    let dir = tempfile_dir()?;
    let src = dir.join("body.s");
    let obj = dir.join("body.o");
    std::fs::write(&src, text).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut cmd = std::process::Command::new(&mc);
    cmd.args([
        "-triple=amdgcn-amd-amdhsa",
        &format!("-mcpu={chip}"),
        "-filetype=obj",
    ]);
    if wave == 64 {
        cmd.arg("-mattr=+wavefrontsize64");
    }
    let out = cmd.arg(&src).arg("-o").arg(&obj).output().map_err(|e| {
        format!(
            "{} could not run ({e}): install llvm-19 or set ORACLE_LLVM_MC",
            mc.display()
        )
    })?;
    let result = if out.status.success() {
        let bytes = std::fs::read(&obj).map_err(|e| format!("{}: {e}", obj.display()))?;
        text_words(&bytes)
    } else {
        Err(format!(
            "the template does not assemble for {chip} wave{wave}:\n{}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        ))
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// `$ORACLE_LLVM_MC`, else `llvm-mc-19` on the path, else Debian's `/usr/lib/llvm-19/bin/llvm-mc`.
fn llvm_mc() -> PathBuf {
    if let Some(p) = std::env::var_os("ORACLE_LLVM_MC") {
        return PathBuf::from(p);
    }
    let debian = Path::new("/usr/lib/llvm-19/bin/llvm-mc");
    if std::process::Command::new("llvm-mc-19")
        .arg("--version")
        .output()
        .is_ok()
        || !debian.exists()
    {
        PathBuf::from("llvm-mc-19")
    } else {
        debian.to_path_buf()
    }
}

fn tempfile_dir() -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!(
        "oracle-asm-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    Ok(d)
}

/// The words of an ELF relocatable's `.text`.
fn text_words(obj: &[u8]) -> Result<Vec<u32>, String> {
    let elf = goblin::elf::Elf::parse(obj).map_err(|e| format!("llvm-mc's object: {e}"))?;
    let sh = elf
        .section_headers
        .iter()
        .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".text"))
        .ok_or("llvm-mc's object has no .text")?;
    let bytes = obj
        .get(sh.sh_offset as usize..(sh.sh_offset + sh.sh_size) as usize)
        .ok_or("llvm-mc's .text lies outside the file")?;
    if bytes.len() % 4 != 0 {
        return Err("llvm-mc's .text is not whole dwords".into());
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The oracle-v1 kernel text around `body` for `wave`.
pub fn kernel_text(body: &str, wave: u32) -> String {
    kernel_text_with(body, wave, None)
}

/// The kernel argument segment's layout with buffers ([`templates::Buffers`]): the addresses of `in`, `out` and
/// `scratch` at bytes 0, 8 and 16, the V# over `in` at 24 and the V# over `scratch` at 40 (56 bytes); the
/// prologue loads them into `s[4:5]`, `s[6:7]`, `s[8:9]`, `s[12:15]` and `s[16:19]`.
pub const BUFFERS_KERNARG_BYTES: u32 = 56;

/// The oracle-v1 kernel text around `body` for `wave`, with the buffer extension when `buffers` is given: the
/// prologue also loads the `scratch` address into `s[8:9]`, the V# over `in` into `s[12:15]` and the V# over
/// `scratch` into `s[16:19]`, and sets v2 to the lane's byte offset in `scratch`. Without it the text is the plain
/// layout's, word for word (the kernels and measurement IDs of templates without `[buffers]` do not change).
pub fn kernel_text_with(body: &str, wave: u32, buffers: Option<&templates::Buffers>) -> String {
    let mut s = String::from("s_load_dwordx4 s[4:7], s[0:1], 0x0\n");
    if buffers.is_some() {
        s.push_str("s_load_dwordx2 s[8:9], s[0:1], 0x10\ns_load_dwordx8 s[12:19], s[0:1], 0x18\n");
    }
    s.push_str(
        "s_waitcnt lgkmcnt(0)\nv_lshlrev_b32 v1, 4, v0\nglobal_load_dwordx4 v[4:7], v1, s[4:5]\n\
         v_lshlrev_b32 v3, 6, v0\n",
    );
    if let Some(b) = buffers {
        s.push_str(&format!("v_mul_u32_u24 v2, {}, v0\n", b.scratch_bytes));
    }
    for v in 10..26 {
        s.push_str(&format!("v_mov_b32 v{v}, 0\n"));
    }
    s.push_str("s_waitcnt vmcnt(0)\n");
    s.push_str(body.trim_end());
    s.push('\n');
    s.push_str(if wave == 64 {
        "s_mov_b64 exec, -1\n"
    } else {
        "s_mov_b32 exec_lo, -1\n"
    });
    for (k, first) in [10, 14, 18, 22].iter().enumerate() {
        s.push_str(&format!(
            "global_store_dwordx4 v3, v[{first}:{}], s[6:7] offset:{}\n",
            first + 3,
            16 * k
        ));
    }
    s.push_str("s_endpgm\n");
    s
}

/// The words of the oracle-v1 kernel of `t` for `wave`: its body between the prologue and epilogue of
/// [`kernel_text_with`] (with its `[buffers]`, if any), assembled for `chip`.
pub fn kernel_words(t: &Template, chip: &str, wave: u32) -> Result<Vec<u32>, String> {
    let b = t.buffers.as_ref();
    Ok(match &t.body {
        Body::Asm(text) => assemble(&kernel_text_with(text, wave, b), chip, wave)?,
        Body::Words(w) => {
            // Prologue and epilogue assembled around a marker, the words spliced in its place.
            let around = assemble(&kernel_text_with("s_nop 0x7a5", wave, b), chip, wave)?;
            let at = around
                .iter()
                .position(|&x| x == 0xbf80_07a5)
                .ok_or("the prologue's marker is missing")?;
            let mut out = around[..at].to_vec();
            out.extend_from_slice(w);
            out.extend_from_slice(&around[at + 1..]);
            out
        }
    })
}

/// The declared tolerances of a template kernel's output columns: an output dword (v10 upwards) whose last
/// write in `words` is a transcendental the registry gives a tolerance (`reference_model::rules::tolerance_ulp`:
/// the hardware's approximations are unmeasured) carries it, counted in f32 or f16 ULP. Every other column,
/// and an f64 result (no f64 tolerance format exists), is compared bit for bit. The columns are not part of the
/// kernel's content hash, so measurement IDs do not depend on them.
pub fn tolerance_columns(
    chip: &str,
    words: &[u32],
    outputs: u32,
) -> Vec<measurements::kernel::ColumnPolicy> {
    use measurements::kernel::{ColumnPolicy, TolFormat};
    use reference_model::isa::{Operand, Role};
    let Some(target) = reference_model::exec::target_of(chip) else {
        return Vec::new();
    };
    let Ok(insts) = reference_model::isa::decode_all(target, words) else {
        return Vec::new();
    };
    // The last instruction writing each output register.
    let mut last: Vec<Option<reference_model::isa::Op>> = vec![None; outputs as usize];
    for inst in &insts {
        if let Some(Operand::Vgpr { first, width }) = inst.operand(Role::Vdst) {
            for r in first as u32..first as u32 + width.max(1) as u32 {
                if (10..10 + outputs).contains(&r) {
                    last[(r - 10) as usize] = Some(inst.op);
                }
            }
        }
    }
    let mut columns = Vec::new();
    for (i, op) in last.iter().enumerate() {
        let Some(op) = op else { continue };
        let name = op.mnemonic();
        let Some(ulp) = reference_model::rules::tolerance_ulp(name) else {
            continue;
        };
        let format = if name.ends_with("_f16") {
            TolFormat::F16
        } else if name.ends_with("_f32") {
            TolFormat::F32
        } else {
            continue;
        };
        columns.push(ColumnPolicy {
            index: i as u32,
            format,
            ulp,
            reason: format!(
                "{name}: the hardware's approximation is unmeasured; rules::tolerance_ulp allows {ulp} ULP \
                 (rule transcendental.approximation, inferred)"
            ),
        });
    }
    columns
}

/// The kernel of `t` for one dispatch shape: the plain `oracle-v1` layout, or the one with buffers.
pub fn template_kernel(t: &Template, name: &str, words: &[u32], wave: u32, threads: u32) -> Kernel {
    let Some(b) = &t.buffers else {
        return Kernel::oracle_v1(name, words, wave, threads, t.lds_bytes);
    };
    let v = |v: &templates::Vsharp| OracleVsharp {
        stride: v.stride,
        swizzle: v.swizzle,
        records: v.records,
        word3: v.word3(),
    };
    Kernel::oracle_v1_buffers(
        name,
        words,
        wave,
        threads,
        t.lds_bytes,
        &OracleBuffers {
            scratch_bytes: b.scratch_bytes,
            fill: b.fill,
            in_vsharp: v(&b.in_vsharp),
            scratch_vsharp: v(&b.scratch_vsharp),
        },
    )
}

fn mode_of(m: templates::Mode) -> FloatMode {
    FloatMode {
        float_mode: m.float_mode,
        ieee: m.ieee,
        dx10_clamp: m.dx10_clamp,
        fp16_ovfl: m.fp16_ovfl,
    }
}

/// What one collection did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Dispatches run now.
    pub ran: usize,
    /// Dispatches found in the journal (resumed).
    pub resumed: usize,
    /// Rows written.
    pub rows: usize,
    /// Dispatches a backend could not run, with why (counted, their rows missing).
    pub failed: Vec<String>,
    /// Why nothing ran: the template's `targets` do not name the chip.
    pub skipped: Option<String>,
}

/// One journal line: a finished dispatch's outputs.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    case: usize,
    dispatch: String,
    /// Per lane with a row: its 16 output dwords; or the backend's error.
    outputs: Result<Vec<Vec<u32>>, String>,
}

/// The journal's lines that are whole; a last line without its newline (cut by a kill) is dropped and the
/// file truncated to what is whole.
fn read_journal(path: &Path) -> Result<Vec<Entry>, String> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(Vec::new());
    };
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if whole < bytes.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        f.set_len(whole as u64)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        f.sync_all()
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let text = std::str::from_utf8(&bytes[..whole])
        .map_err(|_| format!("{}: not UTF-8", path.display()))?;
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| format!("{}:{}: a damaged journal line ({e})", path.display(), i + 1))
        })
        .collect()
}

fn append(path: &Path, e: &Entry) -> Result<(), String> {
    let mut line = serde_json::to_string(e).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    // One write of the whole line: a kill leaves it whole or cut, never interleaved.
    f.write_all(line.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    f.sync_data()
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Collects `t` on `target` into the suite `oracle-NAME` under `out`, `jobs` dispatches at a time. `progress`
/// is called (on the caller's thread) after each dispatch with (done, total).
pub fn collect(
    t: &Template,
    target: &Target,
    out: &Path,
    resume: bool,
    shard: Shard,
    jobs: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Summary, String> {
    let suite_name = format!("oracle-{}", t.name);
    let chip = target.chip().to_string();
    if !t.runs_on(&chip) {
        return Ok(Summary {
            skipped: Some(format!(
                "{chip} lacks its instructions (it targets {})",
                t.targets.join(", ")
            )),
            ..Summary::default()
        });
    }
    let suite_dir = out.join(&suite_name);
    let journal_dir = out.join(".oracle-collect");
    let journal = journal_dir.join(format!("{}.{chip}.jsonl", t.name));
    if !resume && (suite_dir.exists() || journal.exists()) {
        return Err(format!(
            "{} exists: pass --resume to continue or redo that collection, or choose another --out",
            if journal.exists() {
                journal.display()
            } else {
                suite_dir.display()
            }
        ));
    }
    std::fs::create_dir_all(&journal_dir).map_err(|e| format!("{}: {e}", journal_dir.display()))?;
    let cases = t.cases();
    let mine: Vec<usize> = (0..cases.len()).filter(|&i| shard.has(i)).collect();
    // Kernels, one per (wave, threads), built once; the words depend on the wave size alone.
    let mut words: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut kernel_of = Vec::with_capacity(cases.len());
    for c in &cases {
        let name = format!("{}-w{}-t{}", t.name, c.wave, c.threads());
        let at = match kernels.iter().position(|k| k.name == name) {
            Some(i) => i,
            None => {
                if !words.iter().any(|(w, _)| *w == c.wave) {
                    words.push((c.wave, kernel_words(t, &chip, c.wave)?));
                }
                let w = &words
                    .iter()
                    .find(|(w, _)| *w == c.wave)
                    .expect("assembled above")
                    .1;
                let mut k = template_kernel(t, &name, w, c.wave, c.threads());
                k.columns = tolerance_columns(&chip, w, t.outputs);
                kernels.push(k);
                kernels.len() - 1
            }
        };
        kernel_of.push(at);
    }
    for k in &kernels {
        k.validate()
            .map_err(|e| format!("template {}: kernel {}: {e}", t.name, k.name))?;
    }
    let hashes: Vec<String> = kernels.iter().map(Kernel::content_hash).collect();
    let dispatch_of = |i: usize| -> String {
        let c = &cases[i];
        let lanes: Vec<(u32, &[u32])> = c
            .lanes
            .iter()
            .enumerate()
            .map(|(l, v)| (l as u32, &v[..]))
            .collect();
        dispatch_hash(&hashes[kernel_of[i]], &lanes)
    };
    let mut entries: Vec<Option<Entry>> = (0..cases.len()).map(|_| None).collect();
    let mut summary = Summary::default();
    for e in read_journal(&journal)? {
        if e.case >= cases.len() || e.dispatch != dispatch_of(e.case) {
            return Err(format!(
                "{}: dispatch {} is not this template's (it changed since the journal was written): remove the \
                 journal to start again",
                journal.display(),
                e.case
            ));
        }
        let i = e.case;
        entries[i] = Some(e);
        summary.resumed += 1;
    }
    let total = mine.len();
    let todo: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|&i| entries[i].is_none())
        .collect();
    let done = std::sync::atomic::AtomicUsize::new(total - todo.len());
    progress(total - todo.len(), total);
    // Workers take dispatches in order; each finished one is appended to the journal under one lock, so the
    // journal's order may vary with `jobs` but its content and the final files do not.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let shared = std::sync::Mutex::new((entries, Vec::<String>::new()));
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(todo.len().max(1)) {
            let tx = tx.clone();
            let (todo, next, shared, done) = (&todo, &next, &shared, &done);
            let (cases, kernels, kernel_of, journal, suite_name, chip) =
                (&cases, &kernels, &kernel_of, &journal, &suite_name, &chip);
            let dispatch_of = &dispatch_of;
            scope.spawn(move || loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&i) = todo.get(n) else { break };
                let c = &cases[i];
                let job = Job {
                    suite: suite_name.clone(),
                    kernel: Arc::new(kernels[kernel_of[i]].clone()),
                    target: chip.clone(),
                    mode: mode_of(c.mode),
                    dispatch: dispatch_of(i),
                    lanes: c
                        .lanes
                        .iter()
                        .enumerate()
                        .map(|(l, v)| (l as u32, v.to_vec()))
                        .collect(),
                    independent_groups: false,
                    addresses: None,
                };
                let outputs = match target.backend().run(&job) {
                    Ok(o) => o
                        .array("out")
                        .map(|arr| {
                            (0..c.lanes.len())
                                .map(|l| {
                                    arr.get(16 * l..16 * l + 16)
                                        .map(<[u32]>::to_vec)
                                        .unwrap_or_default()
                                })
                                .collect()
                        })
                        .ok_or_else(|| "the backend returned no `out` array".to_string()),
                    Err(e) => Err(e.to_string()),
                };
                let e = Entry {
                    case: i,
                    dispatch: job.dispatch.clone(),
                    outputs,
                };
                let mut g = shared
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                match append(journal, &e) {
                    Ok(()) => g.0[i] = Some(e),
                    Err(why) => {
                        g.1.push(why);
                        next.store(usize::MAX / 2, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                drop(g);
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let _ = tx.send(());
            });
        }
        drop(tx);
        // The progress callback runs here, on the caller's thread.
        for () in rx {
            progress(done.load(std::sync::atomic::Ordering::Relaxed), total);
        }
    });
    let (entries, errors) = shared
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    summary.ran = entries.iter().flatten().count() - summary.resumed;
    // Every dispatch of the shard is in: the suite, from the journal. A kernel none of whose dispatches gave
    // rows here (all failed, or another shard holds them) is left out: the store refuses a kernel without rows.
    let with_rows: Vec<bool> = (0..kernels.len())
        .map(|k| {
            mine.iter().any(|&i| {
                kernel_of[i] == k
                    && !cases[i].lanes.is_empty()
                    && entries[i].as_ref().is_some_and(|e| e.outputs.is_ok())
            })
        })
        .collect();
    let mut suite = Suite::new(
        KernelFile {
            suite: suite_name.clone(),
            description: Some(format!("{} (template {})", t.about, t.name)),
            source: None,
            kernels: kernels
                .iter()
                .zip(&with_rows)
                .filter(|(_, &used)| used)
                .map(|(k, _)| k.clone())
                .collect(),
        },
        suite_dir.join("kernels.toml"),
    );
    let evidence = target.evidence();
    let source = target.source();
    for &i in &mine {
        let Some(e) = &entries[i] else { continue };
        let c = &cases[i];
        let outputs = match &e.outputs {
            Ok(o) => o,
            Err(why) => {
                summary.failed.push(format!(
                    "dispatch {i} ({} wave{} chunk {}): {why}",
                    c.mode, c.wave, c.chunk
                ));
                continue;
            }
        };
        let kname = &kernels[kernel_of[i]].name;
        for (lane, (inputs, got)) in c.lanes.iter().zip(outputs).enumerate() {
            let mode = mode_of(c.mode);
            let id = measurement_id(
                &hashes[kernel_of[i]],
                &chip,
                &mode,
                &e.dispatch,
                lane as u32,
                None,
            );
            let cells = (0..t.outputs)
                .map(|col| Cell {
                    column: col,
                    value: got.get(col as usize).copied().unwrap_or(0),
                    mask: 0xffff_ffff,
                    check: Check::from_letter(t.compare[col as usize]).unwrap_or(Check::Exact),
                })
                .collect();
            let row = Row {
                id,
                suite: suite_name.clone(),
                kernel: kname.clone(),
                target: chip.clone(),
                mode,
                dispatch: e.dispatch.clone(),
                lane: lane as u32,
                inputs: inputs.to_vec(),
                placement: Placement::new("out", 16),
                cells,
                evidence,
                source: source.clone(),
            };
            suite
                .insert(
                    row,
                    measurements::error::Origin {
                        path: journal.clone(),
                        pos: Default::default(),
                    },
                )
                .map_err(|e| e.to_string())?;
            summary.rows += 1;
        }
    }
    suite.write(out).map_err(|e| e.to_string())?;
    std::fs::remove_file(&journal).map_err(|e| format!("{}: {e}", journal.display()))?;
    let _ = std::fs::remove_dir(&journal_dir);
    Ok(summary)
}
