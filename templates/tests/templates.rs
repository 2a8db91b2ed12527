//! The template format, its operand classes and mode matrix, and the bundled templates.

use templates::{bundled, class_values, Combine, Mode, Template};

#[test]
fn every_bundled_template_parses_and_names_registered_rules() {
    let all = bundled().unwrap();
    assert_eq!(all.len(), templates::BUNDLED.len());
    let mut names: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), all.len(), "template names are unique");
    for t in &all {
        assert!(!t.settles.is_empty(), "{}: settles nothing", t.name);
        for r in &t.settles {
            assert!(
                reference_model::rules::lookup(r).is_some(),
                "{}: `{r}` is no rule of the registry",
                t.name
            );
        }
        assert!(!t.cases().is_empty());
    }
    // Every f32 transcendental the registry gives a tolerance is measured by a bundled template.
    for op in [
        "v_rcp_f32",
        "v_rsq_f32",
        "v_sqrt_f32",
        "v_log_f32",
        "v_exp_f32",
        "v_sin_f32",
        "v_cos_f32",
    ] {
        assert!(reference_model::rules::tolerance_ulp(op).is_some());
        assert!(
            all.iter()
                .any(|t| matches!(&t.body, templates::Body::Asm(b) if b.contains(op))),
            "{op}"
        );
    }
}

#[test]
fn classes_are_the_documented_values() {
    let f32s = class_values("f32").unwrap();
    assert_eq!(f32s.len(), 14);
    for want in [
        0,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        1,
        0x8000_0001,
    ] {
        assert!(f32s.contains(&want), "{want:#x}");
    }
    // Quiet and signalling NaNs of both signs.
    let nan = |x: &u32| (x & 0x7fff_ffff) > 0x7f80_0000;
    let quiet = |x: &u32| x & 0x0040_0000 != 0;
    for (sign, q) in [(0, true), (1, true), (0, false), (1, false)] {
        assert!(
            f32s.iter()
                .any(|x| nan(x) && x >> 31 == sign && quiet(x) == q),
            "{sign} {q}"
        );
    }
    assert_eq!(class_values("f16").unwrap().len(), 14);
    assert_eq!(class_values("f16x2").unwrap().len(), 196);
    let (lo, hi) = (
        class_values("f64lo").unwrap(),
        class_values("f64hi").unwrap(),
    );
    assert_eq!((lo.len(), hi[2]), (14, 0x3ff0_0000));
    // A seeded random class is the same stream every time and differs between seeds.
    let a = class_values("random:100:5").unwrap();
    assert_eq!(a, class_values("random:100:5").unwrap());
    assert_ne!(a, class_values("random:100:6").unwrap());
    assert_eq!(a.len(), 100);
    for bad in ["f31", "random:0:1", "random:5", "random:5:x"] {
        assert!(class_values(bad).is_err(), "{bad}");
    }
}

const SMALL: &str = r#"
name = "small"
settles = ["nan.select.first_source"]
body = "v_add_f32 v10, v4, v5"
outputs = 2
compare = ["x", "n"]
operands = [["f32"], ["int"]]
waves = [32, 64]
lanes = 64

[modes]
round = [0, 3]
ieee = [false, true]
"#;

#[test]
fn cases_combine_operands_modes_and_waves() {
    let t = Template::parse("small.toml", SMALL).unwrap();
    assert_eq!(t.compare, ['x', 'n']);
    assert_eq!(t.combine, Combine::Cartesian);
    let inputs = t.inputs();
    assert_eq!(inputs.len(), 14 * 10);
    // The first input dword varies slowest.
    assert_eq!(inputs[0][..2], [0, 0]);
    assert_eq!(inputs[1][..2], [0, 1]);
    assert_eq!(inputs[10][..2], [0x8000_0000, 0]);
    assert_eq!(t.modes.len(), 4);
    assert!(t.modes.contains(&Mode::parse("cf/1/1/0").unwrap()));
    assert!(t.modes.contains(&Mode::TITLE));
    let cases = t.cases();
    // 140 lanes in dispatches of 64: 3 chunks (the last padded to 64), per wave and mode.
    assert_eq!(cases.len(), 2 * 4 * 3);
    assert!(cases.iter().all(|c| c.threads() == 64));
    // The last chunk: lanes 128..140 only (its other 52 threads have no inputs).
    assert_eq!(cases[2].chunk, 2);
    assert_eq!(cases[2].lanes, inputs[128..]);
    let zipped = Template::parse(
        "z.toml",
        &SMALL.replace(
            "operands = [[\"f32\"], [\"int\"]]",
            "combine = \"zip\"\noperands = [[\"random:3:1\"], [\"random:3:2\"]]",
        ),
    )
    .unwrap();
    assert_eq!(zipped.inputs().len(), 3);
}

#[test]
fn mode_text_round_trips() {
    for m in ["c0/0/1/0", "f3/1/0/1", "00/0/0/0"] {
        assert_eq!(Mode::parse(m).unwrap().to_string(), m);
    }
    for bad in ["c0/0/1", "g0/0/1/0", "c0/2/1/0", "c00/0/1/0"] {
        assert!(Mode::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn errors_name_the_file_line_and_problem() {
    let e = Template::parse("t.toml", "name = \"a\"\noutputs = \"one\"\n").unwrap_err();
    assert_eq!(e.file, "t.toml");
    assert_eq!(e.at.map(|a| a.0), Some(2), "{e}");
    assert!(e.to_string().starts_with("t.toml:2:"), "{e}");
    let cases = [
        (SMALL.replace("outputs = 2", "outputs = 17"), "1 to 16"),
        (SMALL.replace("lanes = 64", "lanes = 100"), "multiple of 64"),
        (
            SMALL.replace("waves = [32, 64]", "waves = [16]"),
            "32 and/or 64",
        ),
        (
            SMALL.replace("[\"int\"]", "[\"bogus\"]"),
            "no operand class",
        ),
        (
            SMALL.replace("name = \"small\"", "name = \"Small One\""),
            "lowercase",
        ),
        (
            SMALL.replace("compare = [\"x\", \"n\"]", "compare = [\"q\"]"),
            "compare `q`",
        ),
        (SMALL.replace("round = [0, 3]", "round = [4]"), "0 to 3"),
        (
            SMALL.replace("outputs = 2", "outputs = 2\ntargets = [\"gfx900\"]"),
            "`gfx900` is no gfx10 chip",
        ),
        (
            SMALL.replace("body = \"v_add_f32 v10, v4, v5\"", ""),
            "exactly one of",
        ),
        (
            SMALL.replace("outputs = 2", "outputs = 2\nextra = 1"),
            "unknown field",
        ),
        (
            SMALL.replace(
                "operands = [[\"f32\"], [\"int\"]]",
                "combine = \"zip\"\noperands = [[\"f32\"], [\"int\"]]",
            ),
            "one length",
        ),
    ];
    for (text, want) in cases {
        let e = Template::parse("t.toml", &text).unwrap_err();
        assert!(e.to_string().contains(want), "want `{want}`, got: {e}");
    }
}

#[test]
fn the_settle_entries_still_without_a_template_are_these() {
    // reference_model::rules::SETTLE lists the measurement each unmeasured rule waits for. Every entry has a
    // bundled template except these three, which no compute kernel on an RDNA owner's machine can measure
    // through ROCr (README, "oracle"):
    // - lds.misaligned_fault.widths: the answer is a fault, and a fault is no row: the model ends the dispatch
    //   with BackendError::Fault (a failed dispatch, no rows), and on ROCr a wave's memory violation ends the
    //   whole process in the runtime's default handler. ROCr's kernel driver also runs every compute process
    //   with SH_MEM_CONFIG.ALIGNMENT_MODE = unaligned (Linux amdkfd kfd_device_queue_manager_v10.c,
    //   update_qpd_v10), which is not the PS5's configuration, so its outcome would not settle the rule anyway.
    // - mad.unfused_f16: no gfx10 chip has v_mad_f16, v_mac_f16 or v_mad_legacy_f16 (llvm-mc-19 rejects all
    //   three for gfx1010..gfx1036).
    // - interp.f32: VINTRP runs in pixel waves on attribute data the SPI puts in LDS; ROCr dispatches compute
    //   waves only, and the model refuses VINTRP (so a template could not even dry-run).
    // A new template that settles one removes it here.
    let all = bundled().unwrap();
    let covered: std::collections::BTreeSet<&str> = all
        .iter()
        .flat_map(|t| t.settles.iter().map(String::as_str))
        .collect();
    let missing: Vec<&str> = reference_model::rules::SETTLE
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !covered.contains(n))
        .collect();
    assert_eq!(
        missing,
        [
            "lds.misaligned_fault.widths",
            "mad.unfused_f16",
            "interp.f32"
        ]
    );
}

#[test]
fn sequences_repeats_and_literals_expand_as_documented() {
    assert_eq!(class_values("0x7fc00000").unwrap(), [0x7fc0_0000]);
    assert_eq!(class_values("0x1").unwrap(), [1]);
    // Halves counted in pairs: every 16-bit code once across the lanes.
    let halves = class_values("seq:0x00010000:0x00020002:32768").unwrap();
    assert_eq!(halves[..2], [0x0001_0000, 0x0003_0002]);
    assert_eq!(*halves.last().unwrap(), 0xffff_fffe);
    let mut codes: Vec<u32> = halves.iter().flat_map(|&w| [w & 0xffff, w >> 16]).collect();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), 65536);
    // Wrapping arithmetic.
    assert_eq!(
        class_values("seq:0xfffffffe:1:3").unwrap(),
        [0xffff_fffe, 0xffff_ffff, 0]
    );
    assert_eq!(class_values("seq:10:5:3").unwrap(), [10, 15, 20]);
    // each: every value K times in a row; repeat: the whole list K times; `+` joins classes.
    assert_eq!(
        class_values("each:3:seq:1:1:2").unwrap(),
        [1, 1, 1, 2, 2, 2]
    );
    assert_eq!(
        class_values("repeat:2:0x5+seq:7:1:2").unwrap(),
        [5, 7, 8, 5, 7, 8]
    );
    assert_eq!(class_values("repeat:3:f32").unwrap().len(), 42);
    for bad in [
        "seq:1:2",
        "seq:0:1:0",
        "seq:0:1:16777217",
        "seq:x:1:2",
        "each:0:f32",
        "each:2",
        "repeat:2:bogus",
        "repeat:65537:f32",
        "0x123456789",
        "0x",
        "0xg",
        "midpoints:0",
        "midpoints:17",
        "midpoints:8:0:1",
        "midpoints:8:5",
    ] {
        assert!(class_values(bad).is_err(), "{bad}");
    }
    let e = class_values("repeat:2:bogus").unwrap_err();
    assert!(e.contains("`bogus` is no operand class"), "{e}");
}

#[test]
fn midpoints_are_the_two_f32_values_around_each_code_midpoint() {
    // Checked in f64, independently of the class's integer comparison: a * 2d and b * 2d are exact (24-bit
    // significands times 17-bit integers), so a <= (2k + 1) / 2d < b with b the f32 after a.
    for n in 1..=10u32 {
        let d = (1u64 << n) - 1;
        let v = class_values(&format!("midpoints:{n}")).unwrap();
        assert_eq!(v.len() as u64, 4 * d, "n = {n}");
        for (k, q) in v.chunks_exact(4).enumerate() {
            let (a, b) = (f32::from_bits(q[0]), f32::from_bits(q[1]));
            let twice = (2 * k + 1) as f64;
            assert!(f64::from(a) * (2 * d) as f64 <= twice, "n {n} k {k}: {a:e}");
            assert!(f64::from(b) * (2 * d) as f64 > twice, "n {n} k {k}: {b:e}");
            assert_eq!(q[1], q[0] + 1);
            assert_eq!((q[2], q[3]), (q[0] | 0x8000_0000, q[1] | 0x8000_0000));
        }
    }
    // n = 1: the midpoint is 0.5 itself (the 2-bit SNORM tie), so a is exactly 0.5.
    assert_eq!(
        class_values("midpoints:1").unwrap()[..2],
        [0x3f00_0000, 0x3f00_0001]
    );
    // 0.5 / 255 rounds up to 0x3b008081 in f32; the pair straddles the exact value.
    assert_eq!(
        class_values("midpoints:8").unwrap()[..2],
        [0x3b00_8080, 0x3b00_8081]
    );
    // A random choice of codes: COUNT midpoints of the 16-bit field, the same each time.
    let r = class_values("midpoints:16:100:3").unwrap();
    assert_eq!(r.len(), 400);
    assert_eq!(r, class_values("midpoints:16:100:3").unwrap());
}

const BUFFERS: &str = r#"
name = "buf"
settles = ["buffer.store_norm"]
body = "tbuffer_store_format_x v4, v2, s[16:19], 0 format:[BUF_FMT_8_UNORM] offen"
outputs = 1
operands = [["f32"]]

[buffers]
scratch_bytes = 48
fill = "deadbeef"

[buffers.scratch]
format = 14
dst_sel = "wz10"
index_stride = 32
add_tid = true
oob_select = 1
stride = 12
swizzle = true
records = 64
"#;

#[test]
fn buffers_give_v_sharps_with_the_documented_words() {
    use templates::{Buffers, Vsharp};
    // The default V# is the agc-buffer-v1 word 3: raw, 32_FLOAT, DST_SEL X, Y, Z, W.
    assert_eq!(Vsharp::RAW.word3(), 0x3101_6fac);
    let t = Template::parse("buf.toml", BUFFERS).unwrap();
    let b: Buffers = t.buffers.unwrap();
    assert_eq!((b.scratch_bytes, b.fill), (48, 0xdead_beef));
    assert_eq!(b.in_vsharp, Vsharp::RAW);
    let v = b.scratch_vsharp;
    assert_eq!(v.dst_sel, [7, 6, 1, 0]);
    assert_eq!((v.stride, v.swizzle, v.records), (12, true, Some(64)));
    // DST_SEL 7 | 6 << 3 | 1 << 6, FORMAT 14 << 12, INDEX_STRIDE 2 << 21, ADD_TID 1 << 23, RESOURCE_LEVEL
    // 1 << 24, OOB_SELECT 1 << 28.
    assert_eq!(
        v.word3(),
        0x77 | 14 << 12 | 2 << 21 | 1 << 23 | 1 << 24 | 1 << 28
    );
    // Without the table the template is a plain oracle-v1 one; an empty table asks for the layout with V#s
    // and no scratch bytes.
    assert_eq!(Template::parse("s.toml", SMALL).unwrap().buffers, None);
    let plain = Template::parse("p.toml", &format!("{SMALL}\n[buffers]\n")).unwrap();
    assert_eq!(plain.buffers.unwrap().scratch_bytes, 0);
    let cases = [
        ("scratch_bytes = 48", "scratch_bytes = 6", "a multiple of 4"),
        (
            "scratch_bytes = 48",
            "scratch_bytes = 1028",
            "from 0 to 1024",
        ),
        ("fill = \"deadbeef\"", "fill = \"dead\"", "not 8 hex digits"),
        ("format = 14", "format = 128", "format 128 (0 to 127)"),
        (
            "dst_sel = \"wz10\"",
            "dst_sel = \"xyz2\"",
            "four of 0, 1, x, y, z, w",
        ),
        (
            "dst_sel = \"wz10\"",
            "dst_sel = \"xyz\"",
            "four of 0, 1, x, y, z, w",
        ),
        (
            "index_stride = 32",
            "index_stride = 12",
            "(8, 16, 32 or 64)",
        ),
        ("oob_select = 1", "oob_select = 4", "oob_select 4 (0 to 3)"),
        ("stride = 12", "stride = 16384", "stride 16384 (0 to 16383)"),
        ("records = 64", "records = 64\ncolour = 1", "unknown field"),
    ];
    for (from, to, want) in cases {
        let text = BUFFERS.replace(from, to);
        assert_ne!(text, BUFFERS, "{from}");
        let e = Template::parse("buf.toml", &text).unwrap_err().to_string();
        assert!(e.contains(want), "want `{want}`, got: {e}");
    }
}
