//! The encoder against `llvm-mc -show-encoding` (LLVM 19) and against the decoder: every word decodes back
//! to the operation and operands asked for.

use reference_model::isa::encode::{self, Src, Vop3, Vop3p};
use reference_model::isa::{self, Op, Target};
use std::io::Write;
use std::process::{Command, Stdio};

const T: Target = Target::Gfx1013;

/// `llvm-mc`'s words for `src` (gfx1013, wave32), or `None` when it is not installed (outside CI).
fn llvm(src: &str) -> Option<Vec<u32>> {
    let child = Command::new("/usr/lib/llvm-19/bin/llvm-mc")
        .args([
            "-triple=amdgcn",
            "-mcpu=gfx1013",
            "-mattr=+wavefrontsize32",
            "-show-encoding",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(_) => {
            assert!(std::env::var_os("CI").is_none(), "CI must install llvm-19");
            return None;
        }
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(src.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut bytes = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(enc) = line.split("encoding: [").nth(1) {
            for b in enc.trim_end_matches(']').split(',') {
                bytes.push(u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap());
            }
        }
    }
    Some(
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

#[test]
fn words_are_llvm_mcs_and_decode_back() {
    let cases: Vec<(Vec<u32>, &str)> = vec![
        (
            encode::sop2(T, Op::SAddU32, 10, Src::s(11), Src::lit(0x1234_5678)).unwrap(),
            "s_add_u32 s10, s11, 0x12345678",
        ),
        (
            encode::sop1(T, Op::SMovB32, 10, Src::int(-5)).unwrap(),
            "s_mov_b32 s10, -5",
        ),
        (
            encode::sopc(T, Op::SCmpLgU32, Src::s(20), Src::int(0)).unwrap(),
            "s_cmp_lg_u32 s20, 0",
        ),
        (
            encode::sopp(T, Op::SCbranchScc1, (-3i16) as u16).unwrap(),
            "s_cbranch_scc1 65533",
        ),
        (
            encode::sopk(T, Op::SMovkI32, 10, 0x1234).unwrap(),
            "s_movk_i32 s10, 0x1234",
        ),
        (
            encode::vop2(T, Op::VAddF32, 10, Src::v(11), 12).unwrap(),
            "v_add_f32_e32 v10, v11, v12",
        ),
        (
            encode::vop2(T, Op::VAddF32, 10, Src::lit(0x7fc0_0001), 12).unwrap(),
            "v_add_f32_e32 v10, 0x7fc00001, v12",
        ),
        (
            encode::vop1(T, Op::VMovB32, 10, Src::s(10)).unwrap(),
            "v_mov_b32_e32 v10, s10",
        ),
        (
            encode::vopc(T, Op::VCmpLtF32, Src::v(10), 11).unwrap(),
            "v_cmp_lt_f32_e32 vcc_lo, v10, v11",
        ),
        (
            encode::vop3(
                T,
                Op::VFmaF32,
                10,
                &[Src::v(11), Src::v(12), Src::v(13)],
                Vop3 {
                    abs: 2,
                    neg: 1,
                    omod: 1,
                    clamp: true,
                    sdst: None,
                },
            )
            .unwrap(),
            "v_fma_f32 v10, -v11, |v12|, v13 clamp mul:2",
        ),
        (
            encode::vop3(
                T,
                Op::VAddCoU32,
                10,
                &[Src::v(11), Src::v(12)],
                Vop3 {
                    sdst: Some(12),
                    ..Vop3::default()
                },
            )
            .unwrap(),
            "v_add_co_u32 v10, s12, v11, v12",
        ),
        (
            encode::vop3(
                T,
                Op::VCmpLtF32,
                12,
                &[Src::v(10), Src::v(11)],
                Vop3::default(),
            )
            .unwrap(),
            "v_cmp_lt_f32_e64 s12, v10, v11",
        ),
        (
            encode::vop3(
                T,
                Op::VMed3F32,
                10,
                &[Src::v(11), Src::lit(0x3f80_0001), Src::code(242)],
                Vop3::default(),
            )
            .unwrap(),
            "v_med3_f32 v10, v11, 0x3f800001, 1.0",
        ),
        (
            encode::vop3p(
                T,
                Op::VPkAddF16,
                1,
                &[Src::v(2), Src::v(3)],
                Vop3p::PLAIN,
            )
            .unwrap(),
            "v_pk_add_f16 v1, v2, v3",
        ),
        (
            encode::vop3p(
                T,
                Op::VPkFmaF16,
                1,
                &[Src::v(2), Src::v(3), Src::v(4)],
                Vop3p {
                    op_sel: 0b101,
                    op_sel_hi: 0b010,
                    neg: 0b001,
                    neg_hi: 0b100,
                    clamp: true,
                },
            )
            .unwrap(),
            "v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,1] op_sel_hi:[0,1,0] neg_lo:[1,0,0] neg_hi:[0,0,1] clamp",
        ),
        (
            encode::vop3p(
                T,
                Op::VFmaMixF32,
                1,
                &[Src::v(2), Src::s(3), Src::v(4)],
                Vop3p {
                    op_sel: 0b001,
                    op_sel_hi: 0b011,
                    neg: 0b010,
                    neg_hi: 0b001,
                    clamp: false,
                },
            )
            .unwrap(),
            "v_fma_mix_f32 v1, |v2|, -s3, v4 op_sel:[1,0,0] op_sel_hi:[1,1,0]",
        ),
        (
            encode::mubuf(T, Op::BufferLoadDwordx4, encode::Buf::offen(10, 1, 0, 0)).unwrap(),
            "buffer_load_dwordx4 v[10:13], v1, s[0:3], 0 offen",
        ),
        (
            encode::mubuf(T, Op::BufferStoreDwordx4, encode::Buf::offen(20, 1, 1, 16)).unwrap(),
            "buffer_store_dwordx4 v[20:23], v1, s[4:7], 0 offen offset:16",
        ),
        (
            encode::ds(T, Op::DsWriteB32, 0, 1, [10, 0], [4, 0]).unwrap(),
            "ds_write_b32 v1, v10 offset:4",
        ),
        (
            encode::ds(T, Op::DsReadB32, 10, 1, [0, 0], [8, 0]).unwrap(),
            "ds_read_b32 v10, v1 offset:8",
        ),
    ];
    for (words, text) in &cases {
        let i = isa::decode(T, words, 0).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(i.encoded().len(), words.len(), "{text}");
        let printed = i.to_string();
        assert_eq!(
            printed.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>(),
            "{text}"
        );
        if let Some(want) = llvm(text) {
            assert_eq!(words, &want, "{text}: {words:08x?} vs llvm-mc {want:08x?}");
        }
    }
}

#[test]
fn bad_requests_are_errors() {
    assert!(encode::vop2(T, Op::VFractF32, 1, Src::v(0), 2)
        .unwrap_err()
        .contains("no Vop2 opcode"));
    assert!(encode::vop2(T, Op::VAddF32, 1, Src::lit(1), 2).is_ok());
    assert!(encode::vop3(
        T,
        Op::VFmaF32,
        1,
        &[Src::lit(1), Src::lit(2), Src::v(0)],
        Vop3::default()
    )
    .unwrap_err()
    .contains("two different literals"));
    assert!(encode::mubuf(
        T,
        Op::BufferLoadDword,
        encode::Buf {
            vdata: 1,
            vaddr: 1,
            srsrc: 0,
            soffset: Src::int(0),
            offset: 5000,
            offen: true
        }
    )
    .is_err());
    assert!(encode::sop1(T, Op::SMovB32, 200, Src::s(0)).is_err());
    assert!(encode::vop3(
        T,
        Op::VFmaF32,
        1,
        &[Src::v(0); 3],
        Vop3 {
            omod: 4,
            ..Vop3::default()
        }
    )
    .is_err());
}
