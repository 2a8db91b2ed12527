//! Fuzzing the decoder with arbitrary word streams: every word index either decodes (and prints) or returns a
//! typed error; nothing panics and nothing takes unbounded time.
//!
//! `ISA_FUZZ_CASES=N` sets the number of streams (default 4,000, sized for CI); the figure of the long run is
//! in the `isa` module docs.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use reference_model::isa::{self, Target};

/// Top bits of each encoding family, so half the words land in a real family rather than mostly in VOP2.
const PREFIXES: &[(u32, u32)] = &[
    (0xc000_0000, 0x8000_0000),
    (0xf000_0000, 0xb000_0000),
    (0xff80_0000, 0xbe80_0000),
    (0xff80_0000, 0xbf00_0000),
    (0xff80_0000, 0xbf80_0000),
    (0xfc00_0000, 0xf400_0000),
    (0xfe00_0000, 0x7e00_0000),
    (0x8000_0000, 0x0000_0000),
    (0xfe00_0000, 0x7c00_0000),
    (0xfc00_0000, 0xd400_0000),
    (0xff00_0000, 0xcc00_0000),
    (0xfc00_0000, 0xc800_0000),
    (0xfc00_0000, 0xd800_0000),
    (0xfc00_0000, 0xe000_0000),
    (0xfc00_0000, 0xe800_0000),
    (0xfc00_0000, 0xf000_0000),
    (0xfc00_0000, 0xdc00_0000),
    (0xfc00_0000, 0xf800_0000),
    (0xfe00_01ff, 0x7e00_00fa),
    (0xfe00_01ff, 0x7e00_00e9),
    (0xfe00_01ff, 0x7e00_00f9),
];

fn word() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (any::<u32>(), 0..PREFIXES.len()).prop_map(|(w, p)| (w & !PREFIXES[p].0) | PREFIXES[p].1),
    ]
}

fn cases() -> u32 {
    std::env::var("ISA_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_streams_decode_or_error(words in prop::collection::vec(word(), 0..48), gfx1030 in any::<bool>()) {
        let target = if gfx1030 { Target::Gfx1030 } else { Target::Gfx1013 };
        let start = Instant::now();
        let mut s = String::new();
        // Every index, not just instruction starts: a reader may jump anywhere.
        for i in 0..words.len() {
            match isa::decode(target, &words, i) {
                Ok(inst) => {
                    prop_assert!((1..=5).contains(&inst.size));
                    prop_assert!(i + inst.size as usize <= words.len());
                    prop_assert_eq!(inst.encoded(), &words[i..i + inst.size as usize]);
                    s.clear();
                    s.push_str(&inst.to_string());
                    prop_assert!(s.starts_with(inst.op.mnemonic().split('_').next().unwrap_or("")));
                }
                Err(e) => {
                    s.clear();
                    s.push_str(&e.to_string());
                    prop_assert!(s.starts_with(&format!("word {i}")), "error names the word index: {}", s);
                }
            }
        }
        prop_assert!(isa::decode(target, &words, words.len()).is_err());
        let _ = isa::disassemble(target, &words);
        prop_assert!(start.elapsed() < Duration::from_secs(2));
    }
}
