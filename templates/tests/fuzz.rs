//! Property-based fuzzing of the template reader: arbitrary class names (built from the class grammar's own
//! pieces, so most reach deep into it), random bytes, and random mutations of every bundled template must give
//! `Ok` or an error, never a panic; what parses stays within the documented limits, and error messages stay
//! short whatever the input's size. CI runs the default case count; a long run is
//! `PROPTEST_CASES=1000000 cargo test --release -p templates --test fuzz` (figures in the crate docs).

use proptest::prelude::*;
use templates::{class_values, Template, BUNDLED, MAX_VALUES};

/// `PROPTEST_CASES` when set (long runs), else a CI-sized count.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

/// One piece of a class name: a class, a keyword, a number (small, at a limit, past it, not one) or junk.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "f32",
            "f16",
            "f16x2",
            "f64lo",
            "f64hi",
            "int",
            "shift",
            "random",
            "seq",
            "each",
            "repeat",
            "midpoints",
            "0x",
            "0x7fc00000",
            "0xfffffffff",
            "0",
            "1",
            "2",
            "3",
            "16",
            "17",
            "300",
            "65536",
            "65537",
            "16777216",
            "16777217",
            "4294967295",
            "4294967296",
            "-1",
            "x",
            "",
            " ",
            "é",
        ])
        .prop_map(String::from),
        "[a-z0-9x+:]{0,6}",
    ]
}

/// A class name: pieces joined by `:` and `+`.
fn class_name() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (piece(), prop::sample::select(vec![":", ":", ":", "+"])),
        1..12,
    )
    .prop_map(|parts| {
        let mut s = String::new();
        for (i, (p, sep)) in parts.iter().enumerate() {
            if i > 0 {
                s.push_str(sep);
            }
            s.push_str(p);
        }
        s
    })
}

/// A byte mutation of a file: replace, insert or delete at a position (as a fraction of the length).
#[derive(Clone, Debug)]
enum Mutation {
    Set(f64, u8),
    Insert(f64, Vec<u8>),
    Delete(f64, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0f64, any::<u8>()).prop_map(|(at, b)| Mutation::Set(at, b)),
        (
            0.0..1.0f64,
            prop::sample::select(vec![
                b"0".to_vec(),
                b"9".to_vec(),
                b"\"".to_vec(),
                b"[".to_vec(),
                b"\n".to_vec(),
                b":".to_vec(),
                b"+f32".to_vec(),
                b"99999".to_vec(),
                b"\n[buffers]\n".to_vec(),
                b"\n[buffers.scratch]\nstride = 70000\n".to_vec(),
                b"each:9:".to_vec(),
            ])
        )
            .prop_map(|(at, b)| Mutation::Insert(at, b)),
        (0.0..1.0f64, 1usize..40).prop_map(|(at, n)| Mutation::Delete(at, n)),
    ]
}

fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut b = text.as_bytes().to_vec();
    for m in muts {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
        match m {
            Mutation::Set(f, v) => {
                if !b.is_empty() {
                    let i = at(*f, b.len() - 1);
                    b[i] = *v;
                }
            }
            Mutation::Insert(f, v) => {
                let i = at(*f, b.len());
                b.splice(i..i, v.iter().copied());
            }
            Mutation::Delete(f, n) => {
                let i = at(*f, b.len());
                let end = (i + n).min(b.len());
                b.drain(i..end);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// What a parse must satisfy when it succeeds, and how long its error may be when it fails.
fn check(name: &str, text: &str) {
    match Template::parse(name, text) {
        Ok(t) => {
            assert!((1..=16).contains(&t.outputs));
            assert!(!t.operands.is_empty() && t.operands.len() <= 4);
            assert!(t.operands.iter().all(|o| o.len() as u64 <= MAX_VALUES));
            if let Some(b) = t.buffers {
                assert!(b.scratch_bytes <= 1024 && b.scratch_bytes % 4 == 0);
                assert!(b.scratch_vsharp.stride < 1 << 14 && b.in_vsharp.stride < 1 << 14);
            }
        }
        Err(e) => assert!(e.to_string().len() < 4096, "{}", e.to_string().len()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn class_names_never_panic(name in class_name()) {
        match class_values(&name) {
            Ok(v) => prop_assert!(v.len() as u64 <= MAX_VALUES),
            Err(e) => prop_assert!(e.len() < 4096, "{}", e.len()),
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check("fuzz.toml", &String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_bundled_templates_never_panic(
        which in 0..BUNDLED.len(),
        muts in prop::collection::vec(mutation(), 1..5),
    ) {
        let (name, text) = BUNDLED[which];
        check(name, &apply(text, &muts));
    }
}

#[test]
fn deep_and_long_class_names_are_refused_briefly() {
    // Nesting past MAX_NESTING, and a name of a megabyte: an error of a few lines, not a stack overflow or a
    // message as long as the input.
    let deep = "each:1:".repeat(5000) + "f32";
    let e = class_values(&deep).unwrap_err();
    assert!(
        e.contains("nest at most 8 deep") && e.len() < 4096,
        "{}",
        e.len()
    );
    let long = format!("seq:0:1:{}", "9".repeat(1 << 20));
    let e = class_values(&long).unwrap_err();
    assert!(e.len() < 1024, "{}", e.len());
    let e = class_values(&"z".repeat(1 << 20)).unwrap_err();
    assert!(e.len() < 1024, "{}", e.len());
}
