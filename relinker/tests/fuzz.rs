//! The reader's fuzz target: proptest over mutated fixtures (PS5 and PS4 tags, both table conventions,
//! plain ELF and SELF, ET_SCE_EXEC, PT_SCE_RELRO). Whatever the bytes, reading returns a value or a typed error and never panics;
//! a file that reads is also inspected, bound and written without a panic.
//!
//! CI runs `FUZZ_CASES` inputs (default 2,000). The long run (the figure in `relinker/README.md`):
//! `FUZZ_CASES=1000000 cargo test --release -p relinker --test fuzz`.

mod common;

use common::*;
use proptest::prelude::*;
use relinker::link::{self, Provider};
use relinker::names::KnownNames;
use std::sync::OnceLock;

struct Corpus {
    files: Vec<Vec<u8>>,
    providers: Vec<Provider>,
    index: std::collections::BTreeMap<String, usize>,
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let b = built();
        let mut files = vec![];
        for tags in [Tags::Ps5, Tags::Ps4] {
            for conv in [Convention::Sce, Convention::Standard] {
                let m = write_ps(&b.main, &exe_spec(tags, conv));
                let p = write_ps(&b.module, &module_spec(tags, conv));
                files.push(wrap_self(&m, tags == Tags::Ps5, None));
                files.push(m);
                files.push(p);
            }
        }
        // ET_SCE_EXEC and PT_SCE_RELRO variants.
        let mut fixed = exe_spec(Tags::Ps4, Convention::Sce);
        fixed.fixed_exec = true;
        fixed.relro = true;
        files.push(write_ps(&b.main, &fixed));
        let mut relro = module_spec(Tags::Ps5, Convention::Sce);
        relro.relro = true;
        files.push(write_ps(&b.module, &relro));
        let mut providers = link::scan_native_dir(native_libs::lib_dir()).unwrap();
        let module = relinker::reader::read(&files[2]).unwrap();
        providers.push(link::module_provider("libfixmod.so", &module));
        let (index, _) = link::provider_index(&providers, &KnownNames::builtin());
        Corpus {
            files,
            providers,
            index,
        }
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Overwrite one byte.
    Byte(usize, u8),
    /// Overwrite 8 bytes at an 8-aligned offset with an interesting or random value.
    Word(usize, u64),
    /// Overwrite 4 bytes.
    Half(usize, u32),
    /// Truncate.
    Truncate(usize),
}

fn interesting() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(8),
        Just(24),
        Just(0x7fff_ffff),
        Just(0xffff_ffff),
        Just(u64::MAX),
        Just(1 << 63),
        Just(0x6100_0035),
        Just(0x6100_0049),
        0u64..0x10000,
        any::<u64>(),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Offsets as fractions of the file length, with a bias to the headers (first 1 KiB).
    prop_oneof![
        3 => (0usize..1024, any::<u8>()).prop_map(|(o, b)| Mutation::Byte(o, b)),
        3 => (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Byte(i.index(1 << 20), b)),
        3 => (0usize..128, interesting()).prop_map(|(o, v)| Mutation::Word(o * 8, v)),
        4 => (any::<prop::sample::Index>(), interesting()).prop_map(|(i, v)| Mutation::Word(i.index(1 << 17) * 8, v)),
        2 => (any::<prop::sample::Index>(), any::<u32>()).prop_map(|(i, v)| Mutation::Half(i.index(1 << 18) * 4, v)),
        1 => any::<prop::sample::Index>().prop_map(|i| Mutation::Truncate(i.index(1 << 20))),
    ]
}

fn apply(base: &[u8], muts: &[Mutation]) -> Vec<u8> {
    let mut b = base.to_vec();
    for m in muts {
        let n = b.len().max(1);
        match *m {
            Mutation::Byte(o, v) => {
                if let Some(x) = b.get_mut(o % n) {
                    *x = v;
                }
            }
            Mutation::Word(o, v) => {
                let o = (o % n) & !7;
                if o + 8 <= b.len() {
                    b[o..o + 8].copy_from_slice(&v.to_le_bytes());
                }
            }
            Mutation::Half(o, v) => {
                let o = (o % n) & !3;
                if o + 4 <= b.len() {
                    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
            Mutation::Truncate(l) => b.truncate(l % n),
        }
    }
    b
}

fn exercise(bytes: &[u8]) {
    let c = corpus();
    let Ok(f) = relinker::reader::read(bytes) else {
        return;
    };
    let names = KnownNames::builtin();
    let _ = relinker::inspect::inspect(&f, &names);
    let _ = link::scan_non_native("fuzz", &f);
    let image_end = f
        .segments
        .iter()
        .map(|s| s.vaddr + s.memsz)
        .max()
        .unwrap_or(0);
    if image_end > 1 << 24 {
        return; // a valid but huge layout: writing it would only allocate
    }
    let index = &c.index;
    for stub in [false, true] {
        let imports = link::bind("fuzz", &f, None, &c.providers, index, &names, stub);
        if imports
            .iter()
            .any(|i| i.resolution == link::Resolution::Unresolved)
        {
            continue;
        }
        let spec = relinker::elfout::WriteSpec {
            file: &f,
            file_name: "fuzz",
            imports: &imports,
            soname: Some("fuzz.so".into()),
            needed: vec!["libc.native.so".into()],
            runpath: Some("$ORIGIN".into()),
            init_arrays: true,
        };
        let _ = relinker::elfout::write(&spec);
    }
}

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, max_shrink_iters: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixtures_never_panic(which in 0usize..14, muts in prop::collection::vec(mutation(), 1..6)) {
        if !have_gcc() {
            return Ok(());
        }
        let c = corpus();
        let base = &c.files[which % c.files.len()];
        exercise(&apply(base, &muts));
    }
}

#[test]
fn unmutated_corpus_reads_and_writes() {
    if !have_gcc() {
        return;
    }
    for f in &corpus().files {
        let parsed = relinker::reader::read(f).expect("corpus file reads");
        assert!(!parsed.relocs.is_empty());
        exercise(f);
    }
}
