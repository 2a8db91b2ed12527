//! Fuzzing the PM4 decoder and the command processor: random dword streams and mutated valid command buffers
//! (words replaced, bits flipped, words inserted and deleted, the buffer cut short) are framed, decoded,
//! dumped and run. Nothing may panic; every error names an offset inside the buffer, and the framing is
//! consistent (packets contiguous, nothing after the first error).
//!
//! CI runs 256 cases of each property (a few seconds in a debug build). The long run is
//! `PROPTEST_CASES=1000000 cargo test --release -p driver --test pm4_fuzz`: its figures are in driver/README.md.

mod pm4_support;

use driver::pm4::{
    command, decode, dump, encode_job, CommandProcessor, Config, CpErrorKind, EncodeOptions,
    Engine, Memory,
};
use measurements::job::plan_jobs;
use measurements::Dataset;
use pm4_support::Recorder;
use proptest::prelude::*;
use std::sync::OnceLock;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Checks the framing invariants of `words` on `engine` and decodes every packet; returns the number of
/// dwords framed.
fn check_framing(words: &[u32], engine: Engine) -> usize {
    let mut at = 0;
    let mut failed = false;
    // The first error the dump must stop at: framing, or the typed decoding of a framed packet.
    let mut first = None;
    for p in decode(words, engine) {
        assert!(!failed, "an item after an error");
        match p {
            Ok(p) => {
                assert_eq!(p.offset, at);
                assert!(!p.dwords.is_empty() && at + p.dwords.len() <= words.len());
                at += p.dwords.len();
                // Typed decoding never panics; an error names this packet.
                if let Err(e) = command(&p, engine) {
                    assert_eq!(e.offset(), p.offset);
                    first.get_or_insert(e);
                }
            }
            Err(e) => {
                assert_eq!(e.offset(), at, "{e}");
                assert!(at < words.len());
                failed = true;
                first.get_or_insert(e);
            }
        }
    }
    let (text, err) = dump(words, engine);
    assert_eq!(err, first);
    assert!(failed || at == words.len());
    assert!(!text.is_empty() || words.is_empty());
    at
}

/// Encoded bundled jobs (both queues, direct and indirect forms): the valid streams mutations start from.
fn bases() -> &'static [(Memory, u64, u32, Engine)] {
    static B: OnceLock<Vec<(Memory, u64, u32, Engine)>> = OnceLock::new();
    B.get_or_init(|| {
        let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
        let mut out = Vec::new();
        for (i, suite) in ds.suites.values().enumerate().take(6) {
            let job = &plan_jobs(suite)[0].job;
            let engine = if i % 2 == 0 {
                Engine::Compute
            } else {
                Engine::Graphics
            };
            let e = encode_job(
                job,
                &EncodeOptions {
                    engine,
                    indirect_user_data: i % 3 == 0,
                    indirect_dispatch: i % 4 == 1,
                },
            )
            .unwrap();
            out.push((e.memory, e.body, e.body_dwords, engine));
        }
        out
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Set(usize, u32),
    Flip(usize, u8),
    Insert(usize, u32),
    Delete(usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u32>()).prop_map(|(i, w)| Mutation::Set(i, w)),
        (any::<usize>(), 0u8..32).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), any::<u32>()).prop_map(|(i, w)| Mutation::Insert(i, w)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

/// A word that is often a valid header or a field value of one, so random streams get past the first packet.
fn word() -> impl Strategy<Value = u32> {
    let opcodes: Vec<u32> = driver::pm4::OPCODES
        .iter()
        .map(|o| u32::from(o.opcode))
        .collect();
    prop_oneof![
        any::<u32>(),
        (prop::sample::select(opcodes), 0u32..12, 0u32..4)
            .prop_map(|(op, count, low)| 0xc000_0000 | (count << 16) | (op << 8) | low),
        Just(0x8000_0000u32),
        Just(0xffff_1000u32),
        0u32..0x400,
    ]
}

/// How a run ended, for the coverage check.
fn run_cp(memory: Memory, at: u64, dwords: u32, engine: Engine) -> &'static str {
    let mut cp = CommandProcessor::new(
        memory,
        Config {
            engine,
            max_packets: 4096,
            ..Config::default()
        },
    );
    let rec = Recorder::default();
    let r = cp.submit(at, dwords, &rec);
    assert_eq!(
        cp.report().dispatches.iter().filter(|d| d.ran).count(),
        rec.jobs.borrow().len()
    );
    match r {
        Ok(()) if rec.jobs.borrow().is_empty() => "ran, no dispatch",
        Ok(()) => "ran a dispatch",
        Err(e) => {
            // The message renders, and an error inside the submitted buffer points into it.
            assert!(!e.to_string().is_empty());
            if e.at.buffer == at && e.at.level == 1 {
                assert!(e.at.dword < dwords as usize, "{e}");
            }
            let _ = e.to_backend_error();
            match e.kind {
                CpErrorKind::Decode(_) => "decode error",
                CpErrorKind::Refused(_) => "refused",
                CpErrorKind::Fault { .. } => "fault",
                CpErrorKind::WaitNeverSatisfied { .. } => "wait never satisfied",
                CpErrorKind::Budget { .. } => "budget",
                CpErrorKind::Backend(_) => "backend",
            }
        }
    }
}

/// Applies `mutations` to `words`.
fn mutate(words: &mut Vec<u32>, mutations: &[Mutation]) {
    for m in mutations {
        let n = words.len().max(1);
        match *m {
            Mutation::Set(i, w) => {
                if let Some(x) = words.get_mut(i % n) {
                    *x = w
                }
            }
            Mutation::Flip(i, b) => {
                if let Some(x) = words.get_mut(i % n) {
                    *x ^= 1 << b
                }
            }
            Mutation::Insert(i, w) => words.insert(i % (words.len() + 1), w),
            Mutation::Delete(i) => {
                if !words.is_empty() {
                    words.remove(i % n);
                }
            }
            Mutation::Truncate(i) => words.truncate(i % n),
        }
    }
}

/// Guest memory of `memory` with the region at `body` holding `words` instead.
fn with_body(memory: &Memory, body: u64, words: &[u32]) -> Memory {
    let mut m = Memory::new();
    for r in memory.regions() {
        let d = if r.base == body {
            words.to_vec()
        } else {
            r.dwords()
        };
        m.map(&r.name, r.base, &d).unwrap();
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_streams_frame_consistently_and_run_without_panicking(
        words in prop::collection::vec(word(), 0..64),
        graphics in any::<bool>(),
    ) {
        let engine = if graphics { Engine::Graphics } else { Engine::Compute };
        check_framing(&words, engine);
        // As a submission, over memory that holds a little code and data around it.
        let mut m = Memory::new();
        m.map("code", 0x1_0000_0000, &[0xbf81_0000]).unwrap();
        m.map("data", 0x2_0000_0000, &words).unwrap();
        m.map("cb", 0x3_0000_0000, &words).unwrap();
        run_cp(m, 0x3_0000_0000, words.len() as u32, engine);
    }

    #[test]
    fn mutated_command_buffers_frame_consistently_and_run_without_panicking(
        base in 0usize..6,
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let (memory, body, dwords, engine) = &bases()[base % bases().len()];
        let mut words = memory.read_dwords(*body, u64::from(*dwords)).unwrap();
        mutate(&mut words, &mutations);
        check_framing(&words, *engine);
        let m = with_body(memory, *body, &words);
        run_cp(m, *body, words.len() as u32, *engine);
    }
}

/// The mutations reach every stage: some buffers still run their dispatch, others stop at a decode error, a
/// refusal, a fault or a wait (a fixed pseudo-random sequence, so the counts are the same on every run).
#[test]
fn mutations_reach_every_stage_of_the_command_processor() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut seen = std::collections::BTreeMap::new();
    for _ in 0..2000 {
        let (memory, body, dwords, engine) = &bases()[next() as usize % bases().len()];
        let mut words = memory.read_dwords(*body, u64::from(*dwords)).unwrap();
        let mutations: Vec<Mutation> = (0..1 + next() % 2)
            .map(|_| {
                let (i, v) = (next() as usize, next() as u32);
                match next() % 5 {
                    0 => Mutation::Set(i, v),
                    1 => Mutation::Flip(i, (v % 32) as u8),
                    2 => Mutation::Insert(i, v),
                    3 => Mutation::Delete(i),
                    _ => Mutation::Truncate(i),
                }
            })
            .collect();
        mutate(&mut words, &mutations);
        check_framing(&words, *engine);
        let how = run_cp(
            with_body(memory, *body, &words),
            *body,
            words.len() as u32,
            *engine,
        );
        *seen.entry(how).or_insert(0u32) += 1;
    }
    eprintln!("{seen:?}");
    for how in ["ran a dispatch", "decode error", "refused", "fault"] {
        assert!(seen.get(how).copied().unwrap_or(0) > 20, "{how}: {seen:?}");
    }
}

#[test]
fn the_unmutated_bases_run_their_dispatch() {
    for (memory, body, dwords, engine) in bases() {
        let mut cp = CommandProcessor::new(
            memory.clone(),
            Config {
                engine: *engine,
                ..Config::default()
            },
        );
        let rec = Recorder::default();
        cp.submit(*body, *dwords, &rec).unwrap();
        assert_eq!(rec.jobs.borrow().len(), 1);
    }
}
