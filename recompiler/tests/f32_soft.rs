//! The integer float engine (`recompiler::sem::float`), evaluated on the CPU, against the reference model's
//! float library: every special-class pair and random operands (biased towards the exponent extremes) in
//! every round direction, f32 denormal setting and IEEE_MODE.

use recompiler::lower::{Eval, Lower, Val};
use recompiler::sem::float as soft;
use recompiler::sem::trans as soft_trans;
use reference_model::float::{add_f32, mul_f32, sub_f32, Mode};

/// Operands of every class: zeros, the smallest and largest denormals and normals, ones, infinities, quiet
/// and signalling NaNs with payloads, both signs.
const SPECIAL: [u32; 18] = [
    0x0000_0000,
    0x0000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x0080_0001,
    0x3f80_0000,
    0x3f7f_ffff,
    0x4b80_0000,
    0x7f7f_ffff,
    0x7f80_0000,
    0x7fc0_0000,
    0x7fa0_0001,
    0x7fff_ffff,
    0x3400_0000,
    0x0040_0000,
    0x3f80_0001,
    0x0100_0000,
    0x7f00_0000,
];

/// The 32 modes the f32 engine distinguishes.
fn modes() -> Vec<Mode> {
    let mut v = Vec::new();
    for round in 0..4u8 {
        for denorm in 0..4u8 {
            for ieee in [false, true] {
                v.push(Mode {
                    float_mode: round | denorm << 4 | 0xc0,
                    ieee,
                    dx10_clamp: true,
                    fp16_ovfl: false,
                });
            }
        }
    }
    v
}

/// A small xorshift generator (the test must be repeatable).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    /// Mostly values near the exponent extremes and near each other, where rounding and flushing decide.
    fn operand(&mut self) -> u32 {
        let r = self.next();
        let sign = r & 0x8000_0000;
        let frac = self.next() & 0x007f_ffff;
        let exp = match r % 8 {
            0 => 0,
            1 => 1 + (r >> 8) % 3,
            2 => 252 + (r >> 8) % 3,
            3 => 255,
            _ => (r >> 8) % 256,
        };
        sign | exp << 23 | frac
    }
}

type Soft = fn(&mut Eval, &soft::Env<Val>, Val, Val) -> Val;
type Model = fn(Mode, u32, u32) -> u32;

fn check(name: &str, soft_op: Soft, model: Model, pairs: &[(u32, u32)]) {
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &(a, b) in pairs {
            let (x, y) = (e.k32(a), e.k32(b));
            let got = soft_op(e, &env, x, y).u() as u32;
            let want = model(m, a, b);
            if got != want && bad.len() < 10 {
                bad.push(format!(
                    "{name} mode {:#x} ieee {}: {a:#010x}, {b:#010x}: got {got:#010x}, model {want:#010x}",
                    m.float_mode, m.ieee
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn pairs(n: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = SPECIAL
        .iter()
        .flat_map(|&a| {
            SPECIAL
                .iter()
                .flat_map(move |&b| [(a, b), (a ^ 0x8000_0000, b), (a, b ^ 0x8000_0000)])
        })
        .collect();
    let mut r = Rng(seed);
    for _ in 0..n {
        let a = r.operand();
        // Half the pairs share an exponent neighbourhood (cancellation, carries, ties).
        let b = if r.next() & 1 == 0 {
            a ^ (r.next() & 0x80ff_ffff)
        } else {
            r.operand()
        };
        v.push((a, b));
    }
    v
}

#[test]
fn add_matches_the_model_in_every_mode() {
    check("add", soft::add::<Eval>, add_f32, &pairs(6000, 1));
}

#[test]
fn sub_is_add_of_the_negated_operand() {
    fn sub(e: &mut Eval, env: &soft::Env<Val>, a: Val, b: Val) -> Val {
        let nb = Val::W(b.u() as u32 ^ 0x8000_0000);
        soft::add(e, env, a, nb)
    }
    check("sub", sub, sub_f32, &pairs(2000, 2));
}

#[test]
fn mul_matches_the_model_in_every_mode() {
    check("mul", soft::mul::<Eval>, mul_f32, &pairs(6000, 3));
}

#[test]
fn fma_matches_the_model_in_every_mode() {
    let mut r = Rng(4);
    let mut triples: Vec<(u32, u32, u32)> = Vec::new();
    for &a in &SPECIAL {
        for &b in &SPECIAL {
            for &c in &[
                0u32,
                0x8000_0000,
                0x3f80_0000,
                0xbf80_0000,
                0x7f80_0000,
                0x7fa0_0001,
                0x0000_0001,
            ] {
                triples.push((a, b ^ (c & 0x8000_0000), c));
            }
        }
    }
    for _ in 0..6000 {
        let a = r.operand();
        let b = r.operand();
        // The addend near the product's magnitude half the time (cancellation).
        let c = if r.next() & 1 == 0 {
            let p = reference_model::float::mul_f32(Mode::IEEE, a, b);
            (p ^ 0x8000_0000) ^ (r.next() & 0xff)
        } else {
            r.operand()
        };
        triples.push((a, b, c));
    }
    check3(
        "fma",
        soft::fma::<Eval>,
        reference_model::float::fma_f32,
        &triples,
    );
}

#[test]
fn mul_legacy_matches_the_model_in_every_mode() {
    check(
        "mul_legacy",
        soft::mul_legacy::<Eval>,
        reference_model::float::mul_legacy_f32,
        &pairs(3000, 5),
    );
}

#[test]
fn int_conversions_match_the_model_in_every_mode() {
    use reference_model::float::{cvt_f32_i32, cvt_f32_u32};
    let mut r = Rng(6);
    let mut vals: Vec<u32> = vec![
        0,
        1,
        2,
        3,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_ffff,
        0x0100_0001,
        0x0100_0003,
    ];
    vals.extend((0..20_000).map(|_| {
        let v = r.next() ^ (r.next() << 16);
        // Every magnitude, so each rounding position is reached.
        v >> (r.next() % 32)
    }));
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &v in &vals {
            let x = e.k32(v);
            let gi = soft::from_int(e, &env, x, true).u() as u32;
            let gu = soft::from_int(e, &env, x, false).u() as u32;
            let (wi, wu) = (cvt_f32_i32(m, v as i32), cvt_f32_u32(m, v));
            if (gi != wi || gu != wu) && bad.len() < 10 {
                bad.push(format!(
                    "cvt mode {:#x}: {v:#010x}: i32 {gi:#x}/{wi:#x}, u32 {gu:#x}/{wu:#x}",
                    m.float_mode
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn min_and_max_match_the_model_in_every_mode() {
    fn min(e: &mut Eval, env: &soft::Env<Val>, a: Val, b: Val) -> Val {
        soft::minmax(e, env, a, b, false)
    }
    fn max(e: &mut Eval, env: &soft::Env<Val>, a: Val, b: Val) -> Val {
        soft::minmax(e, env, a, b, true)
    }
    let p = pairs(3000, 7);
    check("min", min, reference_model::float::min_f32, &p);
    check("max", max, reference_model::float::max_f32, &p);
}

/// Special triples and random ones.
fn triples(seed: u64) -> Vec<(u32, u32, u32)> {
    let mut r = Rng(seed);
    let mut triples: Vec<(u32, u32, u32)> = Vec::new();
    for &a in &SPECIAL {
        for &b in &SPECIAL[..9] {
            for &c in &SPECIAL[..12] {
                triples.push((a, b ^ 0x8000_0000, c));
            }
        }
    }
    for _ in 0..4000 {
        triples.push((r.operand(), r.operand(), r.operand()));
    }
    triples
}

type Soft3 = fn(&mut Eval, &soft::Env<Val>, Val, Val, Val) -> Val;

/// A three-operand function against the model's on `triples` in every mode.
fn check3(
    name: &str,
    soft_op: Soft3,
    model: fn(Mode, u32, u32, u32) -> u32,
    triples: &[(u32, u32, u32)],
) {
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &(a, b, c) in triples {
            let (x, y, z) = (e.k32(a), e.k32(b), e.k32(c));
            let got = soft_op(e, &env, x, y, z).u() as u32;
            let want = model(m, a, b, c);
            if got != want && bad.len() < 10 {
                bad.push(format!(
                    "{name} mode {:#x} ieee {}: {a:#010x}, {b:#010x}, {c:#010x}: got {got:#010x}, model {want:#010x}",
                    m.float_mode, m.ieee
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn med3_matches_the_model_in_every_mode() {
    check3(
        "med3",
        soft::med3::<Eval>,
        reference_model::float::med3_f32,
        &triples(8),
    );
}

#[test]
fn fma_legacy_matches_the_model_in_every_mode() {
    check3(
        "fma_legacy",
        soft::fma_legacy::<Eval>,
        reference_model::float::fma_legacy_f32,
        &triples(9),
    );
}

#[test]
fn float_to_int_conversions_match_the_model() {
    use reference_model::float::{cvt_i32_f32, cvt_u32_f32};
    let mut r = Rng(10);
    let mut vals: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    vals.extend([
        0x4f00_0000,
        0x4eff_ffff,
        0xcf00_0000,
        0xcf00_0001,
        0x4f80_0000,
        0x4f7f_ffff,
        0x3f7f_ffff,
        0xbf80_0000,
    ]);
    vals.extend((0..20_000).map(|_| r.operand()));
    // Exponents around the integer range.
    vals.extend((0..20_000).map(|_| {
        let v = r.next();
        (v & 0x8000_0000) | (120 + v % 45) << 23 | (r.next() & 0x007f_ffff)
    }));
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &v in &vals {
            let x = e.k32(v);
            let gi = soft::to_int(e, &env, x, true).u() as u32;
            let gu = soft::to_int(e, &env, x, false).u() as u32;
            let (wi, wu) = (cvt_i32_f32(m, v) as u32, cvt_u32_f32(m, v));
            if (gi != wi || gu != wu) && bad.len() < 10 {
                bad.push(format!(
                    "{v:#010x}: i32 {gi:#x}/{wi:#x}, u32 {gu:#x}/{wu:#x}"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn floor_conversions_match_the_model_in_every_mode() {
    use reference_model::float::{cvt_flr_i32_f32, cvt_rpi_i32_f32};
    let mut r = Rng(11);
    let mut vals: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    vals.extend([
        0x3f00_0000,
        0xbf00_0000,
        0x3fc0_0000,
        0xbfc0_0000,
        0x4eff_ffff,
        0xcf00_0000,
        0xcf00_0001,
        0x4f00_0000,
    ]);
    vals.extend((0..10_000).map(|_| r.operand()));
    vals.extend((0..20_000).map(|_| {
        let v = r.next();
        (v & 0x8000_0000) | (110 + v % 50) << 23 | (r.next() & 0x007f_ffff)
    }));
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &v in &vals {
            let x = e.k32(v);
            let gf = soft::floor_to_int(e, &env, x, false).u() as u32;
            let gr = soft::floor_to_int(e, &env, x, true).u() as u32;
            let (wf, wr) = (cvt_flr_i32_f32(m, v) as u32, cvt_rpi_i32_f32(m, v) as u32);
            if (gf != wf || gr != wr) && bad.len() < 10 {
                bad.push(format!(
                    "mode {:#x}: {v:#010x}: flr {gf:#x}/{wf:#x}, rpi {gr:#x}/{wr:#x}",
                    m.float_mode
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// f16.

/// f16 operands of every class (both signs are added by the pair builder).
const SPECIAL16: [u32; 14] = [
    0x0000, 0x0001, 0x03ff, 0x0400, 0x0401, 0x3c00, 0x3bff, 0x7bff, 0x7c00, 0x7e00, 0x7d01, 0x7fff,
    0x1400, 0x0200,
];

/// The f16 modes: every f16 round direction and f16/f64 denormal setting, IEEE 0/1, FP16_OVFL 0/1.
fn modes16() -> Vec<Mode> {
    let mut v = Vec::new();
    for round in 0..4u8 {
        for denorm in 0..4u8 {
            for (ieee, ovfl) in [(false, false), (true, true), (false, true)] {
                v.push(Mode {
                    float_mode: round << 2 | denorm << 6 | 0x30,
                    ieee,
                    dx10_clamp: true,
                    fp16_ovfl: ovfl,
                });
            }
        }
    }
    v
}

fn operand16(r: &mut Rng) -> u32 {
    let v = r.next();
    let exp = match v % 6 {
        0 => 0,
        1 => 1,
        2 => 30,
        3 => 31,
        _ => (v >> 8) % 32,
    };
    (v >> 20 & 1) << 15 | exp << 10 | (r.next() & 0x3ff)
}

fn pairs16(n: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = Vec::new();
    for &a in &SPECIAL16 {
        for &b in &SPECIAL16 {
            v.extend([(a, b), (a ^ 0x8000, b), (a, b ^ 0x8000)]);
        }
    }
    let mut r = Rng(seed);
    for _ in 0..n {
        let a = operand16(&mut r);
        let b = if r.next() & 1 == 0 {
            a ^ (r.next() & 0x83ff)
        } else {
            operand16(&mut r)
        };
        v.push((a, b));
    }
    v
}

type Model16 = fn(Mode, u16, u16) -> u16;

/// `soft_op` then FP16_OVFL against `model` on f16 pairs in every f16 mode.
fn check16(name: &str, soft_op: Soft, ovfl: bool, model: Model16, pairs: &[(u32, u32)]) {
    let mut bad = Vec::new();
    for m in modes16() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env16(e, word);
        for &(a, b) in pairs {
            let (x, y) = (e.k32(a), e.k32(b));
            let r = soft_op(e, &env, x, y);
            let r = if ovfl {
                soft::ovfl16(e, &env, r, &[x, y])
            } else {
                r
            };
            let got = r.u() as u32;
            let want = model(m, a as u16, b as u16) as u32;
            if got != want && bad.len() < 10 {
                bad.push(format!(
                    "{name} mode {:#x} ieee {} ovfl {}: {a:#06x}, {b:#06x}: got {got:#06x}, model {want:#06x}",
                    m.float_mode, m.ieee, m.fp16_ovfl
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn f16_arithmetic_and_min_max_match_the_model_in_every_mode() {
    use reference_model::float::{add_f16, max_f16, min_f16, mul_f16};
    fn min(e: &mut Eval, env: &soft::Env<Val>, a: Val, b: Val) -> Val {
        soft::minmax(e, env, a, b, false)
    }
    fn max(e: &mut Eval, env: &soft::Env<Val>, a: Val, b: Val) -> Val {
        soft::minmax(e, env, a, b, true)
    }
    let p = pairs16(4000, 12);
    check16("add_f16", soft::add::<Eval>, true, add_f16, &p);
    check16("mul_f16", soft::mul::<Eval>, true, mul_f16, &p);
    check16("min_f16", min, false, min_f16, &p);
    check16("max_f16", max, false, max_f16, &p);
}

#[test]
fn f32_to_f16_and_int16_conversions_match_the_model_in_every_mode() {
    use reference_model::float::{cvt_f16_f32, cvt_f16_i16, cvt_f16_u16};
    let mut r = Rng(13);
    let mut vals: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    vals.extend((0..3_000).map(|_| r.operand()));
    // Exponents around the f16 range.
    vals.extend((0..6_000).map(|_| {
        let v = r.next();
        (v & 0x8000_0000) | (95 + v % 50) << 23 | (r.next() & 0x007f_ffff)
    }));
    let mut all = modes16();
    all.extend(modes());
    let mut bad = Vec::new();
    for m in all {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let (e32, e16) = (soft::env(e, word), soft::env16(e, word));
        for &v in &vals {
            let x = e.k32(v);
            let got = soft::cvt_f16_f32(e, &e32, &e16, x).u() as u32;
            let want = cvt_f16_f32(m, v) as u32;
            let h = e.k32(v & 0xffff);
            let hs = e.k32(v as u16 as i16 as i32 as u32);
            let gi = soft::from_int(e, &e16, hs, true);
            let gi = soft::ovfl16(e, &e16, gi, &[]).u() as u32;
            let gu = soft::from_int(e, &e16, h, false);
            let gu = soft::ovfl16(e, &e16, gu, &[]).u() as u32;
            let (wi, wu) = (
                cvt_f16_i16(m, v as i16) as u32,
                cvt_f16_u16(m, v as u16) as u32,
            );
            if (got != want || gi != wi || gu != wu) && bad.len() < 10 {
                bad.push(format!(
                    "mode {:#x} ovfl {}: {v:#010x}: f16 {got:#x}/{want:#x} i16 {gi:#x}/{wi:#x} u16 {gu:#x}/{wu:#x}",
                    m.float_mode, m.fp16_ovfl
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn output_modifiers_and_clamp_match_the_model_in_every_mode() {
    use reference_model::float::{omod_clamp_f16, omod_clamp_f32, Omod};
    let mut r = Rng(14);
    let mut vals: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    vals.extend((0..1000).map(|_| r.operand()));
    let mut vals16: Vec<u32> = SPECIAL16.iter().flat_map(|&v| [v, v ^ 0x8000]).collect();
    vals16.extend((0..1000).map(|_| operand16(&mut r)));
    let mut all = modes();
    all.extend(modes16());
    let mut bad = Vec::new();
    for mut m in all {
        for dx10 in [false, true] {
            m.dx10_clamp = dx10;
            let e = &mut Eval;
            let word = e.k32(m.to_hwreg());
            let (e32, e16) = (soft::env(e, word), soft::env16(e, word));
            for omod in 0..4u8 {
                for clamp in [false, true] {
                    let om = Omod::from_field(omod);
                    for &v in &vals {
                        let x = e.k32(v);
                        let got = soft::omod_clamp(e, &e32, word, x, omod, clamp).u() as u32;
                        let want = omod_clamp_f32(m, v, om, clamp);
                        if got != want && bad.len() < 10 {
                            bad.push(format!("f32 mode {:#x} ieee {} dx10 {dx10} omod {omod} clamp {clamp}: {v:#x}: got {got:#x}, model {want:#x}", m.float_mode, m.ieee));
                        }
                    }
                    for &v in &vals16 {
                        let x = e.k32(v);
                        let got = soft::omod_clamp(e, &e16, word, x, omod, clamp).u() as u32;
                        let want = omod_clamp_f16(m, v as u16, om, clamp) as u32;
                        if got != want && bad.len() < 10 {
                            bad.push(format!("f16 mode {:#x} ieee {} dx10 {dx10} omod {omod} clamp {clamp}: {v:#x}: got {got:#x}, model {want:#x}", m.float_mode, m.ieee));
                        }
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn round_to_integral_matches_the_model_in_every_mode() {
    use reference_model::float::{
        ceil_f16, ceil_f32, floor_f16, floor_f32, rndne_f16, rndne_f32, trunc_f16, trunc_f32,
    };
    let mut r = Rng(15);
    let mut vals: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    vals.extend([
        0x3f00_0000,
        0xbf00_0000,
        0x3fc0_0000,
        0xbfc0_0000,
        0x4020_0000,
        0x4b00_0001,
    ]);
    vals.extend((0..2000).map(|_| {
        let v = r.next();
        (v & 0x8000_0000) | (110 + v % 40) << 23 | (r.next() & 0x007f_ffff)
    }));
    vals.extend((0..1000).map(|_| r.operand()));
    let mut vals16: Vec<u32> = SPECIAL16.iter().flat_map(|&v| [v, v ^ 0x8000]).collect();
    vals16.extend((0..2000).map(|_| operand16(&mut r)));
    type F32Op = fn(Mode, u32) -> u32;
    type F16Op = fn(Mode, u16) -> u16;
    let ops32: [(u32, F32Op); 4] = [
        (2, floor_f32),
        (1, ceil_f32),
        (3, trunc_f32),
        (0, rndne_f32),
    ];
    let ops16: [(u32, F16Op); 4] = [
        (2, floor_f16),
        (1, ceil_f16),
        (3, trunc_f16),
        (0, rndne_f16),
    ];
    let mut all = modes();
    all.extend(modes16());
    let mut bad = Vec::new();
    for m in all {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let (e32, e16) = (soft::env(e, word), soft::env16(e, word));
        for (dir, op) in ops32 {
            for &v in &vals {
                let x = e.k32(v);
                let got = soft::round_int(e, &e32, x, dir).u() as u32;
                let want = op(m, v);
                if got != want && bad.len() < 10 {
                    bad.push(format!(
                        "f32 dir {dir} mode {:#x}: {v:#x}: got {got:#x}, model {want:#x}",
                        m.float_mode
                    ));
                }
            }
        }
        for (dir, op) in ops16 {
            for &v in &vals16 {
                let x = e.k32(v);
                let got = soft::round_int(e, &e16, x, dir).u() as u32;
                let want = op(m, v as u16) as u32;
                if got != want && bad.len() < 10 {
                    bad.push(format!(
                        "f16 dir {dir} mode {:#x}: {v:#x}: got {got:#x}, model {want:#x}",
                        m.float_mode
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn f16_to_int16_matches_the_model_in_every_mode() {
    use reference_model::float::{cvt_i16_f16, cvt_u16_f16};
    let mut r = Rng(16);
    let mut vals: Vec<u32> = SPECIAL16.iter().flat_map(|&v| [v, v ^ 0x8000]).collect();
    vals.extend((0..4000).map(|_| operand16(&mut r)));
    let mut bad = Vec::new();
    for m in modes16() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env16(e, word);
        for &v in &vals {
            let x = e.k32(v);
            let gi = soft::to_int16(e, &env, x, true).u() as u32;
            let gu = soft::to_int16(e, &env, x, false).u() as u32;
            let (wi, wu) = (
                cvt_i16_f16(m, v as u16) as u16 as u32,
                cvt_u16_f16(m, v as u16) as u32,
            );
            if (gi != wi || gu != wu) && bad.len() < 10 {
                bad.push(format!(
                    "mode {:#x}: {v:#06x}: i16 {gi:#x}/{wi:#x} u16 {gu:#x}/{wu:#x}",
                    m.float_mode
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn compares_match_the_model_in_every_mode() {
    use reference_model::float::{cmp_f16, cmp_f32, Cmp};
    let p32 = pairs(800, 17);
    let p16 = pairs16(800, 18);
    let mut all = modes();
    all.extend(modes16());
    let mut bad = Vec::new();
    for m in all {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let (e32, e16) = (soft::env(e, word), soft::env16(e, word));
        for code in 0..16u8 {
            let c = Cmp::from_code(code);
            for &(a, b) in &p32 {
                let (x, y) = (e.k32(a), e.k32(b));
                let got = soft::compare(e, &e32, c, x, y).b();
                if got != cmp_f32(m, c, a, b) && bad.len() < 10 {
                    bad.push(format!("f32 {c:?} mode {:#x}: {a:#x} {b:#x}", m.float_mode));
                }
            }
            for &(a, b) in &p16 {
                let (x, y) = (e.k32(a), e.k32(b));
                let got = soft::compare(e, &e16, c, x, y).b();
                if got != cmp_f16(m, c, a as u16, b as u16) && bad.len() < 10 {
                    bad.push(format!("f16 {c:?} mode {:#x}: {a:#x} {b:#x}", m.float_mode));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every f32 and f16 operand the unary tests read: the classes, values around one and the integers, and
/// operands biased to the exponent extremes.
fn unary_operands(seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut r = Rng(seed);
    let mut v32: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    v32.extend([
        0x3f00_0000,
        0xbf00_0000,
        0xbf7f_ffff,
        0xb400_0000,
        0x4b00_0001,
        0xcb7f_ffff,
    ]);
    v32.extend((0..1500).map(|_| {
        let v = r.next();
        (v & 0x8000_0000) | (100 + v % 60) << 23 | (r.next() & 0x007f_ffff)
    }));
    v32.extend((0..1500).map(|_| r.operand()));
    let mut v16: Vec<u32> = SPECIAL16.iter().flat_map(|&v| [v, v ^ 0x8000]).collect();
    v16.extend([0xb800, 0xbbff, 0x8001, 0x6400, 0xe7ff]);
    v16.extend((0..3000).map(|_| operand16(&mut r)));
    (v32, v16)
}

#[test]
fn fract_frexp_and_ldexp_match_the_model_in_every_mode() {
    use reference_model::float as m;
    let (v32, v16) = unary_operands(19);
    // Exponent operands: zero, small steps, the format boundaries, the clamp and the i32 extremes.
    let mut ns: Vec<i32> = vec![
        0,
        1,
        -1,
        2,
        -2,
        10,
        -10,
        24,
        -24,
        25,
        -25,
        126,
        -126,
        127,
        -127,
        128,
        -128,
        149,
        -149,
        150,
        -150,
        254,
        -254,
        300,
        -300,
        19_999,
        -19_999,
        20_000,
        -20_000,
        20_001,
        -20_001,
        1 << 20,
        -(1 << 20),
        i32::MAX,
        i32::MIN,
        i32::MAX - 1,
        i32::MIN + 1,
    ];
    let mut r = Rng(20);
    ns.extend((0..8).map(|_| (r.next() % 80) as i32 - 40));
    let ns16: Vec<i32> = ns
        .iter()
        .map(|&n| n as i16 as i32)
        .chain([i16::MAX as i32, i16::MIN as i32, 15, -15, 16, -16, 30, -30])
        .collect();
    let mut all = modes();
    all.extend(modes16());
    let mut bad = Vec::new();
    let mut note = |what: String| {
        if bad.len() < 12 {
            bad.push(what)
        }
    };
    for md in all {
        let e = &mut Eval;
        let word = e.k32(md.to_hwreg());
        let (e32, e16) = (soft::env(e, word), soft::env16(e, word));
        for &v in &v32 {
            let x = e.k32(v);
            let got = [
                soft::fract(e, &e32, x).u() as u32,
                soft::frexp_mant(e, &e32, x).u() as u32,
                soft::frexp_exp(e, &e32, x).u() as u32,
            ];
            let want = [
                m::fract_f32(md, v),
                m::frexp_mant_f32(md, v),
                m::frexp_exp_i32_f32(md, v) as u32,
            ];
            if got != want {
                note(format!(
                    "f32 fract/mant/exp mode {:#x}: {v:#x}: got {got:x?}, model {want:x?}",
                    md.float_mode
                ));
            }
            for &n in ns.iter().step_by(if v % 7 == 0 { 1 } else { 5 }) {
                let k = e.k32(n as u32);
                let got = soft::ldexp(e, &e32, x, k).u() as u32;
                let want = m::ldexp_f32(md, v, n);
                if got != want {
                    note(format!(
                        "ldexp_f32 mode {:#x}: {v:#x} by {n}: got {got:#x}, model {want:#x}",
                        md.float_mode
                    ));
                }
            }
        }
        for &v in &v16 {
            let x = e.k32(v);
            let h = v as u16;
            let mant = soft::frexp_mant(e, &e16, x);
            let got = [
                soft::fract(e, &e16, x).u() as u32,
                mant.u() as u32,
                soft::frexp_exp(e, &e16, x).u() as u32 & 0xffff,
            ];
            let want = [
                m::fract_f16(md, h) as u32,
                m::frexp_mant_f16(md, h) as u32,
                m::frexp_exp_i16_f16(md, h) as u16 as u32,
            ];
            if got != want {
                note(format!(
                    "f16 fract/mant/exp mode {:#x}: {v:#x}: got {got:x?}, model {want:x?}",
                    md.float_mode
                ));
            }
            for &n in ns16.iter().step_by(if v % 5 == 0 { 1 } else { 6 }) {
                let k = e.k32(n as u32);
                let r = soft::ldexp(e, &e16, x, k);
                let got = soft::ovfl16(e, &e16, r, &[x]).u() as u32;
                let want = m::ldexp_f16(md, h, n) as u32;
                if got != want {
                    note(format!("ldexp_f16 mode {:#x} ovfl {}: {v:#x} by {n}: got {got:#x}, model {want:#x}", md.float_mode, md.fp16_ovfl));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

type Unary32 = fn(Mode, u32) -> u32;
type Unary16 = fn(Mode, u16) -> u16;

#[test]
fn reciprocals_and_roots_match_the_model_in_every_mode() {
    use reference_model::float as m;
    use soft::Recip;
    let (mut v32, v16) = unary_operands(23);
    // Exact quotients and roots (the sticky bit clear), their neighbours, and results at the overflow and
    // underflow boundaries.
    v32.extend([
        0x4080_0000,
        0x4080_0001,
        0x407f_ffff,
        0x4110_0000,
        0x3e80_0000,
        0x0000_0004,
        0x0020_0000,
        0x7e80_0000,
        0x7f00_0001,
        0x0040_0001,
    ]);
    let ops32: [(Recip, Unary32); 3] = [
        (Recip::Rcp, m::rcp_f32),
        (Recip::Sqrt, m::sqrt_f32),
        (Recip::Rsq, m::rsq_f32),
    ];
    let ops16: [(Recip, Unary16); 3] = [
        (Recip::Rcp, m::rcp_f16),
        (Recip::Sqrt, m::sqrt_f16),
        (Recip::Rsq, m::rsq_f16),
    ];
    let mut bad = Vec::new();
    for md in modes() {
        let e = &mut Eval;
        let word = e.k32(md.to_hwreg());
        let env = soft::env(e, word);
        for &v in &v32 {
            let x = e.k32(v);
            for (op, model) in ops32 {
                let got = soft::recip_root(e, &env, x, op).u() as u32;
                let want = model(md, v);
                if got != want && bad.len() < 12 {
                    bad.push(format!(
                        "{op:?} f32 mode {:#x} ieee {}: {v:#010x}: got {got:#010x}, model {want:#010x}",
                        md.float_mode, md.ieee
                    ));
                }
            }
        }
    }
    for md in modes16() {
        let e = &mut Eval;
        let word = e.k32(md.to_hwreg());
        let env = soft::env16(e, word);
        for &v in &v16 {
            let x = e.k32(v);
            for (op, model) in ops16 {
                let r = soft::recip_root(e, &env, x, op);
                let got = soft::ovfl16(e, &env, r, &[x]).u() as u32;
                let want = model(md, v as u16) as u32;
                if got != want && bad.len() < 12 {
                    bad.push(format!(
                        "{op:?} f16 mode {:#x} ieee {} ovfl {}: {v:#06x}: got {got:#06x}, model {want:#06x}",
                        md.float_mode, md.ieee, md.fp16_ovfl
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// f16 sources in f32 arithmetic.

/// Modes that vary both formats' fields at once: every f32 and f16 round direction, every pair of denormal
/// settings, IEEE_MODE and FP16_OVFL (a repeatable selection of the 1,024).
fn mixed_modes() -> Vec<Mode> {
    let mut v = Vec::new();
    for fm in 0..=255u8 {
        // Every f32 round/denorm pair with every f16 denorm setting; the f16 round direction cycles.
        let (ieee, ovfl) = ((fm >> 1) & 1 == 1, fm & 5 == 5);
        if fm % 3 == 0 || fm & 0x0c == (fm >> 4) & 0x0c {
            v.push(Mode {
                float_mode: fm,
                ieee,
                dx10_clamp: fm & 8 == 0,
                fp16_ovfl: ovfl,
            });
        }
    }
    v
}

#[test]
fn f16_to_f32_matches_the_model_for_every_input() {
    let mut bad = Vec::new();
    for m in modes16() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let e16 = soft::env16(e, word);
        for h in 0..=0xffffu32 {
            let x = e.k32(h);
            let got = soft::cvt_f32_f16(e, &e16, x).u() as u32;
            let want = reference_model::float::cvt_f32_f16(m, h as u16);
            if got != want && bad.len() < 10 {
                bad.push(format!(
                    "mode {:#x} ieee {}: {h:#06x}: got {got:#010x}, model {want:#010x}",
                    m.float_mode, m.ieee
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn mixed_precision_fma_matches_the_model_in_every_source_form() {
    use reference_model::float::{fma_mix_f32, fma_mixlo_f16, MixSrc};
    let mut r = Rng(21);
    // Register values: f32 operands in the whole word, f16 ones in either half.
    let mut regs: Vec<[u32; 3]> = Vec::new();
    let f16s = [
        0x0000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x7bff, 0x7c00, 0x7e00, 0x7d01, 0x3555,
    ];
    for &a in &SPECIAL[..12] {
        for &h in &f16s {
            regs.push([a, h | 0x8000 << 16, h << 16 | 0x3c00]);
            regs.push([h << 16 | h, a ^ 0x8000_0000, a]);
        }
    }
    for _ in 0..1500 {
        let f = |r: &mut Rng| {
            if r.next() & 1 == 0 {
                r.operand()
            } else {
                operand16(r) << 16 | operand16(r)
            }
        };
        regs.push([f(&mut r), f(&mut r), f(&mut r)]);
    }
    let mut bad = Vec::new();
    for (k, m) in mixed_modes().into_iter().enumerate() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let e32 = soft::env(e, word);
        let e16 = soft::env16(e, word);
        for (j, reg) in regs.iter().enumerate() {
            // A source form per operand (f32, low f16, high f16), cycled over modes and registers.
            let forms: [u32; 3] = std::array::from_fn(|i| ((k + j + 2 * i + j / 3) % 3) as u32);
            let mix: [MixSrc; 3] = std::array::from_fn(|i| {
                MixSrc::select(reg[i], forms[i] == 2, forms[i] != 0, false, false)
            });
            let src: [Val; 3] = std::array::from_fn(|i| {
                let v = match forms[i] {
                    0 => reg[i],
                    1 => reg[i] & 0xffff,
                    _ => reg[i] >> 16,
                };
                let x = e.k32(v);
                soft::mix_source(e, &e16, x, forms[i] != 0)
            });
            let from16 = forms.map(|f| f != 0);
            let got32 = soft::fma(e, &e32, src[0], src[1], src[2]).u() as u32;
            let want32 = fma_mix_f32(m, mix[0], mix[1], mix[2]);
            let got16 = soft::fma_mix_f16(e, &e32, &e16, src, from16).u() as u32;
            let want16 = fma_mixlo_f16(m, mix[0], mix[1], mix[2]) as u32;
            if (got32 != want32 || got16 != want16) && bad.len() < 10 {
                bad.push(format!(
                    "mode {:#x} ieee {} ovfl {}: {reg:08x?} forms {forms:?}: f32 {got32:#010x}/{want32:#010x} \
                     f16 {got16:#06x}/{want16:#06x}",
                    m.float_mode, m.ieee, m.fp16_ovfl
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn lds_float_atomics_match_the_model_in_every_mode() {
    use recompiler::sem::atomic::{apply, Rmw};
    use reference_model::float::{lds_add_f32, lds_cmpst_f32, lds_max_f32, lds_min_f32};
    let p = pairs(3000, 31);
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        for (i, &(a, b)) in p.iter().enumerate() {
            let (x, y) = (e.k32(a), e.k32(b));
            // The compare-store's source: a third operand (a NaN or denormal stored as given).
            let c = p[(i * 7 + 3) % p.len()].0;
            let z = e.k32(c);
            // Half the compare-stores compare equal bits, where the rule decides most.
            let (cmp, cv) = if i % 2 == 0 { (x, a) } else { (y, b) };
            for (op, want) in [
                (Rmw::FMin, lds_min_f32(m, a, b)),
                (Rmw::FMax, lds_max_f32(m, a, b)),
                (Rmw::FAdd, lds_add_f32(m, a, b)),
                (Rmw::FCmpSt, lds_cmpst_f32(m, a, cv, c)),
            ] {
                let (d0, d1) = if op == Rmw::FCmpSt { (cmp, z) } else { (y, z) };
                let got = apply(e, op, x, d0, d1, word).u() as u32;
                if got != want && bad.len() < 10 {
                    bad.push(format!(
                        "{op:?} mode {:#x} ieee {}: {a:#010x}, {b:#010x}, {c:#010x}: got {got:#010x}, model {want:#010x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// f64.

/// f64 operands of every class.
const SPECIAL64: [u64; 16] = [
    0,
    1,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x0010_0000_0000_0001,
    0x3ff0_0000_0000_0000,
    0x3fef_ffff_ffff_ffff,
    0x4330_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff4_0000_0000_0001,
    0x7fff_ffff_ffff_ffff,
    0x3ca0_0000_0000_0000,
    0x0008_0000_0000_0000,
    0x3ff0_0000_0000_0001,
];

/// Every f64 round direction and f16/f64 denormal setting, IEEE 0/1 (the f32 fields vary too).
fn modes64() -> Vec<Mode> {
    let mut v = Vec::new();
    for round in 0..4u8 {
        for denorm in 0..4u8 {
            for ieee in [false, true] {
                v.push(Mode {
                    float_mode: round << 2 | denorm << 6 | (round ^ 1) | (denorm ^ 2) << 4,
                    ieee,
                    dx10_clamp: ieee,
                    fp16_ovfl: false,
                });
            }
        }
    }
    v
}

fn operand64(r: &mut Rng) -> u64 {
    let hi = r.next() as u64;
    let frac = (hi << 32 | r.next() as u64) & 0x000f_ffff_ffff_ffff;
    let exp = match hi % 8 {
        0 => 0,
        1 => 1 + (hi >> 8) % 3,
        2 => 2044 + (hi >> 8) % 3,
        3 => 2047,
        4 => 1023 - 60 + (hi >> 8) % 120,
        _ => (hi >> 8) % 2048,
    };
    (hi >> 20 & 1) << 63 | exp << 52 | frac
}

fn triples64(n: usize, seed: u64) -> Vec<[u64; 3]> {
    let mut v = Vec::new();
    for &a in &SPECIAL64 {
        for &b in &SPECIAL64 {
            v.push([a, b ^ 1 << 63, SPECIAL64[(a as usize ^ b as usize) % 16]]);
            v.push([a ^ 1 << 63, b, a]);
        }
    }
    let mut r = Rng(seed);
    for i in 0..n {
        let a = operand64(&mut r);
        let b = if i % 3 == 0 {
            a ^ (r.next() as u64 & 0x800f_ffff) << 32
        } else {
            operand64(&mut r)
        };
        let c = match i % 4 {
            // Near -a*b: the cancellation cases of the FMA.
            0 => {
                (f64::from_bits(a) * f64::from_bits(b)).to_bits() ^ 1 << 63 ^ (r.next() as u64 & 3)
            }
            1 => a,
            _ => operand64(&mut r),
        };
        v.push([a, b, c]);
    }
    v
}

#[test]
fn f64_arithmetic_matches_the_model_in_every_mode() {
    use reference_model::float::{
        add_f64, fma_f64, ldexp_f64, max_f64, min_f64, mul_f64, omod_clamp_f64, Omod,
    };
    let t = triples64(6000, 41);
    let mut bad = Vec::new();
    for m in modes64() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env64(e, word);
        for (i, &[a, b, c]) in t.iter().enumerate() {
            let (x, y, z) = (e.k64(a), e.k64(b), e.k64(c));
            let n = (b as i32 >> 20) % 2200;
            let nv = e.k32(n as u32);
            let omod = (i % 4) as u8;
            let clamp = i % 3 == 0;
            let om = [Omod::None, Omod::Mul2, Omod::Mul4, Omod::Div2][omod as usize];
            let cases = [
                ("add", soft::add(e, &env, x, y).u(), add_f64(m, a, b)),
                ("mul", soft::mul(e, &env, x, y).u(), mul_f64(m, a, b)),
                ("fma", soft::fma(e, &env, x, y, z).u(), fma_f64(m, a, b, c)),
                (
                    "min",
                    soft::minmax(e, &env, x, y, false).u(),
                    min_f64(m, a, b),
                ),
                (
                    "max",
                    soft::minmax(e, &env, x, y, true).u(),
                    max_f64(m, a, b),
                ),
                ("ldexp", soft::ldexp(e, &env, x, nv).u(), ldexp_f64(m, a, n)),
                (
                    "omod/clamp",
                    soft::omod_clamp(e, &env, word, x, omod, clamp).u(),
                    omod_clamp_f64(m, a, om, clamp),
                ),
            ];
            for (name, got, want) in cases {
                if got != want && bad.len() < 12 {
                    bad.push(format!(
                        "{name} mode {:#x} ieee {}: {a:#018x}, {b:#018x}, {c:#018x}: got {got:#018x}, model {want:#018x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn f64_conversions_match_the_model_in_every_mode() {
    use reference_model::float::{cvt_f32_f64, cvt_f64_f32};
    let t = triples64(4000, 43);
    let p = pairs(4000, 44);
    let mut bad = Vec::new();
    for m in modes64() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let e32 = soft::env(e, word);
        let e64 = soft::env64(e, word);
        for &[a, _, _] in &t {
            let x = e.k64(a);
            let got = soft::cvt_f32_f64(e, &e32, &e64, x).u() as u32;
            let want = cvt_f32_f64(m, a);
            if got != want && bad.len() < 10 {
                bad.push(format!(
                    "cvt_f32_f64 mode {:#x}: {a:#018x}: got {got:#010x}, model {want:#010x}",
                    m.float_mode
                ));
            }
        }
        for &(a, _) in &p {
            let x = e.k32(a);
            let got = soft::cvt_f64_f32(e, &e32, x).u();
            let want = cvt_f64_f32(m, a);
            if got != want && bad.len() < 10 {
                bad.push(format!("cvt_f64_f32 mode {:#x} ieee {}: {a:#010x}: got {got:#018x}, model {want:#018x}", m.float_mode, m.ieee));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn f64_compares_and_class_tests_match_the_model() {
    use reference_model::float::{cmp_class_f16, cmp_class_f32, cmp_class_f64, cmp_f64, Cmp};
    let t = triples64(800, 47);
    let mut bad = Vec::new();
    for m in modes64() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env64(e, word);
        for code in 0..16u8 {
            let c = Cmp::from_code(code);
            for &[a, b, cc] in &t {
                // Equal operands half the time beyond the classes (a against a copy or its -0 twin).
                let b = if cc & 1 == 0 { b } else { a };
                let (x, y) = (e.k64(a), e.k64(b));
                let got = soft::compare(e, &env, c, x, y).b();
                if got != cmp_f64(m, c, a, b) && bad.len() < 10 {
                    bad.push(format!("f64 {c:?} mode {:#x}: {a:#x} {b:#x}", m.float_mode));
                }
            }
        }
    }
    // Class tests: every class with every single-bit mask and random masks, all three formats.
    let e = &mut Eval;
    let mut r = Rng(48);
    let masks: Vec<u32> = (0..10)
        .map(|i| 1 << i)
        .chain((0..20).map(|_| r.next()))
        .collect();
    let v64: Vec<u64> = SPECIAL64.iter().flat_map(|&v| [v, v ^ 1 << 63]).collect();
    let v32: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    let v16: Vec<u32> = SPECIAL16.iter().flat_map(|&v| [v, v ^ 0x8000]).collect();
    for &mask in &masks {
        let mk = e.k32(mask);
        for &a in &v64 {
            let x = e.k64(a);
            if soft::class(e, soft::F64, x, mk).b() != cmp_class_f64(a, mask) {
                bad.push(format!("class f64 {a:#x} mask {mask:#x}"));
            }
        }
        for &a in &v32 {
            let x = e.k32(a);
            if soft::class(e, soft::F32, x, mk).b() != cmp_class_f32(a, mask) {
                bad.push(format!("class f32 {a:#x} mask {mask:#x}"));
            }
        }
        for &a in &v16 {
            let x = e.k32(a);
            if soft::class(e, soft::F16, x, mk).b() != cmp_class_f16(a as u16, mask) {
                bad.push(format!("class f16 {a:#x} mask {mask:#x}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn f64_rounding_fract_and_frexp_match_the_model_in_every_mode() {
    use reference_model::float::{
        ceil_f64, floor_f64, fract_f64, frexp_exp_i32_f64, frexp_mant_f64, rndne_f64, trunc_f64,
    };
    let mut v: Vec<u64> = triples64(3000, 49).into_iter().map(|t| t[0]).collect();
    // Values around the integers and halves, where the directions differ.
    for k in [
        0.5f64,
        1.5,
        2.5,
        -0.5,
        -1.5,
        1e15 + 0.5,
        4503599627370495.5,
        -4503599627370496.0,
        0.49999999999999994,
    ] {
        v.extend([k.to_bits(), k.to_bits() + 1, k.to_bits() - 1]);
    }
    type M = fn(Mode, u64) -> u64;
    let ops: [(&str, u32, M); 4] = [
        ("floor", 2, floor_f64),
        ("ceil", 1, ceil_f64),
        ("trunc", 3, trunc_f64),
        ("rndne", 0, rndne_f64),
    ];
    let mut bad = Vec::new();
    for m in modes64() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env64(e, word);
        for &a in &v {
            let x = e.k64(a);
            for &(name, dir, model) in &ops {
                let got = soft::round_int(e, &env, x, dir).u();
                if got != model(m, a) && bad.len() < 10 {
                    bad.push(format!(
                        "{name} mode {:#x}: {a:#018x}: got {got:#018x}, model {:#018x}",
                        m.float_mode,
                        model(m, a)
                    ));
                }
            }
            let checks = [
                ("fract", soft::fract(e, &env, x).u(), fract_f64(m, a)),
                (
                    "frexp_mant",
                    soft::frexp_mant(e, &env, x).u(),
                    frexp_mant_f64(m, a),
                ),
                (
                    "frexp_exp",
                    soft::frexp_exp(e, &env, x).u() as u32 as u64,
                    frexp_exp_i32_f64(m, a) as u32 as u64,
                ),
            ];
            for (name, got, want) in checks {
                if got != want && bad.len() < 10 {
                    bad.push(format!(
                        "{name} mode {:#x} ieee {}: {a:#018x}: got {got:#018x}, model {want:#018x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn separately_rounded_mads_match_the_model_in_every_mode() {
    use reference_model::float::{mad_f32, mad_legacy_f32};
    fn mad(e: &mut Eval, env: &soft::Env<Val>, a: Val, b: Val, c: Val) -> Val {
        soft::mad(e, env, a, b, c, false)
    }
    fn mad_legacy(e: &mut Eval, env: &soft::Env<Val>, a: Val, b: Val, c: Val) -> Val {
        soft::mad(e, env, a, b, c, true)
    }
    let mut t = triples(51);
    // Products around 2^-126, where tininess before and after rounding differ.
    let mut r = Rng(52);
    for _ in 0..3000 {
        let a = 0x1f80_0000 | (r.next() & 0x807f_ffff);
        let b = 0x1f00_0000 + (r.next() & 0x01ff_ffff);
        t.push((a, b, r.operand()));
    }
    // (1 - 2^-23) * 2^-126 (1 + 2^-23) = 2^-126 (1 - 2^-46): tiny before rounding, 2^-126 after.
    for c in [
        0,
        0x8000_0000,
        0x0080_0000,
        0x8080_0000,
        0x3f80_0000,
        0x7fc0_0000,
    ] {
        for (a, b) in [
            (0x3f7f_fffe, 0x0080_0001),
            (0xbf7f_fffe, 0x0080_0001),
            (0x0080_0001, 0x3f7f_fffe),
        ] {
            t.push((a, b, c));
        }
    }
    check3("mad", mad, mad_f32, &t);
    check3("mad_legacy", mad_legacy, mad_legacy_f32, &t);
}

#[test]
fn f64_integer_conversions_match_the_model_in_every_mode() {
    use reference_model::float::{cvt_f64_i32, cvt_f64_u32, cvt_i32_f64, cvt_u32_f64};
    let mut v: Vec<u64> = triples64(3000, 53).into_iter().map(|t| t[0]).collect();
    for k in [
        2147483647.5f64,
        2147483648.0,
        -2147483648.5,
        -2147483649.0,
        4294967295.9,
        4294967296.0,
        -0.9,
    ] {
        v.extend([k.to_bits(), k.to_bits() + 1, k.to_bits() - 1]);
    }
    let mut bad = Vec::new();
    for m in modes64() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env64(e, word);
        for &a in &v {
            let x = e.k64(a);
            let gi = soft::to_int(e, &env, x, true).u() as u32;
            let gu = soft::to_int(e, &env, x, false).u() as u32;
            let (wi, wu) = (cvt_i32_f64(m, a) as u32, cvt_u32_f64(m, a));
            if (gi, gu) != (wi, wu) && bad.len() < 10 {
                bad.push(format!(
                    "to int mode {:#x}: {a:#018x}: {gi:#x}/{wi:#x} {gu:#x}/{wu:#x}",
                    m.float_mode
                ));
            }
            let n = a as u32;
            let k = e.k32(n);
            let exact = soft::Env {
                rm: e.k32(0),
                ..env
            };
            let fi = soft::from_int(e, &exact, k, true).u();
            let fu = soft::from_int(e, &exact, k, false).u();
            if (fi, fu) != (cvt_f64_i32(n as i32), cvt_f64_u32(n)) && bad.len() < 10 {
                bad.push(format!("from int {n:#x}: {fi:#x} {fu:#x}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn pkrtz_and_pack_match_the_model_in_every_mode() {
    use reference_model::float::{cvt_pkrtz_f16_f32, pack_b32_f16};
    let p = pairs(3000, 57);
    let p16 = pairs16(2000, 58);
    let mut all = modes();
    all.extend(modes16());
    let mut bad = Vec::new();
    for m in all {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let (e32, e16) = (soft::env(e, word), soft::env16(e, word));
        for &(a, b) in &p {
            let (x, y) = (e.k32(a), e.k32(b));
            let lo = soft::cvt_pkrtz_half(e, &e32, &e16, x).u() as u32;
            let hi = soft::cvt_pkrtz_half(e, &e32, &e16, y).u() as u32;
            let (got, want) = (lo | hi << 16, cvt_pkrtz_f16_f32(m, a, b));
            if got != want && bad.len() < 10 {
                bad.push(format!(
                    "pkrtz mode {:#x}: {a:#x} {b:#x}: {got:#x}/{want:#x}",
                    m.float_mode
                ));
            }
        }
        for &(a, b) in &p16 {
            let (x, y) = (e.k32(a), e.k32(b));
            let lo = soft::pack_half(e, &e16, x).u() as u32;
            let hi = soft::pack_half(e, &e16, y).u() as u32;
            let (got, want) = (lo | hi << 16, pack_b32_f16(m, a as u16, b as u16));
            if got != want && bad.len() < 10 {
                bad.push(format!(
                    "pack ieee {}: {a:#x} {b:#x}: {got:#x}/{want:#x}",
                    m.ieee
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Host fast paths: the engine with host float operations that flush every denormal
/// ([`recompiler::lower::HostEval`]) against the model, on operands whose results cross the smallest
/// normal or overflow; the FMA, f64 and f16 never take a host path.
mod host {
    use super::*;
    use recompiler::lower::HostEval;

    /// Normal operands whose sums and products land near the smallest normal, near overflow, or anywhere.
    fn near(r: &mut Rng) -> [u32; 3] {
        let a = r.operand();
        let ea = a >> 23 & 0xff;
        let frac = r.next() & 0x807f_ffff;
        let b = match r.next() % 4 {
            // Products near 2^-126 and near the largest finite value.
            0 => frac | (253u32.wrapping_sub(ea) % 254 + 1) << 23,
            1 => frac | ((127 + 254 - ea) % 254 + 1) << 23,
            // A near-cancelling addend.
            2 => a ^ 0x8000_0000 ^ (r.next() & 0x3ff),
            _ => r.operand(),
        };
        let c = match r.next() % 3 {
            0 => {
                let p = reference_model::float::mul_f32(Mode::IEEE, a, b);
                p ^ 0x8000_0000 ^ (r.next() & 0xf)
            }
            _ => r.operand(),
        };
        [a, b, c]
    }

    fn run<F, M>(
        name: &str,
        modes: &[Mode],
        wide: bool,
        op: F,
        model: M,
        cases: &[[u64; 3]],
    ) -> (u64, u64)
    where
        F: Fn(&mut HostEval, &soft::Env<Val>, [Val; 3]) -> Val,
        M: Fn(Mode, [u64; 3]) -> u64,
    {
        let mut e = HostEval::default();
        let mut bad = Vec::new();
        for &m in modes {
            let word = e.k32(m.to_hwreg());
            let env = if wide {
                soft::env64(&mut e, word)
            } else {
                soft::env(&mut e, word)
            };
            for &c in cases {
                let v = c.map(|x| if wide { Val::D(x) } else { Val::W(x as u32) });
                let got = op(&mut e, &env, v).u();
                let want = model(m, c);
                if got != want && bad.len() < 10 {
                    bad.push(format!(
                        "{name} mode {:#x} ieee {}: {:#x}, {:#x}, {:#x}: got {got:#x}, model {want:#x}",
                        m.float_mode, m.ieee, c[0], c[1], c[2]
                    ));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
        (e.fast, e.slow)
    }

    fn widen(v: &[[u32; 3]]) -> Vec<[u64; 3]> {
        v.iter().map(|t| t.map(u64::from)).collect()
    }

    #[test]
    fn f32_add_and_mul_take_the_host_only_where_it_is_exact() {
        use reference_model::float::fma_f32;
        let mut r = Rng(77);
        let mut cases: Vec<[u32; 3]> = (0..6000).map(|_| near(&mut r)).collect();
        cases.extend(SPECIAL.iter().flat_map(|&a| SPECIAL.map(|b| [a, b, a ^ b])));
        let cases = widen(&cases);
        let modes = modes();
        let k = |x: u64| x as u32;
        let (fa, sa) = run(
            "add",
            &modes,
            false,
            |e, env, [a, b, _]| soft::add(e, env, a, b),
            |m, [a, b, _]| add_f32(m, k(a), k(b)) as u64,
            &cases,
        );
        let (fm, sm) = run(
            "mul",
            &modes,
            false,
            |e, env, [a, b, _]| soft::mul(e, env, a, b),
            |m, [a, b, _]| mul_f32(m, k(a), k(b)) as u64,
            &cases,
        );
        let (ff, sf) = run(
            "fma",
            &modes,
            false,
            |e, env, [a, b, c]| soft::fma(e, env, a, b, c),
            |m, [a, b, c]| fma_f32(m, k(a), k(b), k(c)) as u64,
            &cases,
        );
        // Both paths ran many times (only a quarter of the modes round to nearest even).
        for (name, fast, slow) in [("add", fa, sa), ("mul", fm, sm)] {
            eprintln!("{name}: {fast} host results kept, {slow} refused");
            assert!(
                fast > 10_000 && slow > 10_000,
                "{name}: {fast} fast, {slow} slow"
            );
        }
        assert_eq!((ff, sf), (0, 0), "the f32 FMA considered a host result");
    }

    #[test]
    fn f64_add_and_mul_never_take_the_host() {
        use reference_model::float::{add_f64, mul_f64};
        let mut cases = triples64(6000, 78);
        // Products near the smallest normal and the largest finite f64.
        let mut r = Rng(79);
        for _ in 0..2000 {
            let a = operand64(&mut r) & !(0x7ffu64 << 52) | (1 + r.next() as u64 % 2046) << 52;
            let ea = a >> 52 & 0x7ff;
            let low = (r.next() as u64) << 20 | 1 << 63 & (r.next() as u64) << 32;
            let b = low | ((1023 + 2046 - ea) % 2046 + 1) << 52;
            let d = low | (2045u64.wrapping_sub(ea) % 2046 + 1) << 52;
            cases.push([a, b, 0]);
            cases.push([a, d, 0]);
        }
        let modes = modes64();
        let (fa, sa) = run(
            "add",
            &modes,
            true,
            |e, env, [a, b, _]| soft::add(e, env, a, b),
            |m, [a, b, _]| add_f64(m, a, b),
            &cases,
        );
        let (fm, sm) = run(
            "mul",
            &modes,
            true,
            |e, env, [a, b, _]| soft::mul(e, env, a, b),
            |m, [a, b, _]| mul_f64(m, a, b),
            &cases,
        );
        // f64 has no host path (Vulkan bounds its precision only by single precision's).
        for (name, fast, slow) in [("add", fa, sa), ("mul", fm, sm)] {
            assert_eq!((fast, slow), (0, 0), "f64 {name} considered a host result");
        }
    }
}

#[test]
fn div_scale_matches_the_model_in_every_mode() {
    use reference_model::float::{div_scale_f32, div_scale_f64};
    // f32: (s0, s1 = divisor, s2 = dividend) with s0 each of the two or another value, plus the edges of every
    // case: exponent gaps around 96, divisors around 2^126, quotients around 2^-126, dividend fields around 23.
    let mut t32: Vec<[u32; 3]> = Vec::new();
    for (a, b) in pairs(1500, 61) {
        t32.extend([[a, a, b], [b, a, b], [a ^ b, a, b]]);
    }
    let mut r = Rng(62);
    for _ in 0..1500 {
        let (m1, m2) = (r.next() & 0x7f_ffff, r.next() & 0x7f_ffff);
        let near = [0, m1, m1.wrapping_sub(1) & 0x7f_ffff, (m1 + 1) & 0x7f_ffff];
        let m2 = near[(r.next() % 4) as usize] | (m2 & ((r.next() & 1) * 0x7f_ffff));
        let e1 = 1 + r.next() % 254;
        let gap: i32 = match r.next() % 4 {
            0 => 94 + (r.next() % 5) as i32,
            1 => -128 + (r.next() % 5) as i32,
            _ => (r.next() % 60) as i32 - 30,
        };
        let e2 = (e1 as i32 + gap).clamp(0, 255) as u32;
        let s1 =
            [e1 << 23 | m1, 0x7e80_0000 + (r.next() % 3), 0x7e7f_ffff][(r.next() % 3) as usize];
        let s2 = e2 << 23 | m2 | (r.next() & 1) << 31;
        let s2 = if r.next() % 5 == 0 {
            (r.next() % 26) << 23 | m2
        } else {
            s2
        };
        t32.extend([[s1, s1, s2], [s2, s1, s2], [r.operand(), s1, s2]]);
    }
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &[a, b, c] in &t32 {
            let (x, y, z) = (e.k32(a), e.k32(b), e.k32(c));
            let (v, vcc) = soft::div_scale(e, &env, x, y, z);
            let got = (v.u() as u32, vcc.u() != 0);
            let want = div_scale_f32(m, a, b, c);
            if got != want && bad.len() < 12 {
                bad.push(format!(
                    "f32 mode {:#x} ieee {}: {a:#010x}, {b:#010x}, {c:#010x}: got {got:x?}, model {want:x?}",
                    m.float_mode, m.ieee
                ));
            }
        }
    }
    // f64: the same families, and the quotients the f64 division rounds across 2^-1022 or to zero: (2^53 - 1)
    // / 2^52 * 2^-1023 (the midpoint below 2^-1022, rounded up), and quotients around 2^-1075.
    let mut t64: Vec<[u64; 3]> = Vec::new();
    for [a, b, _] in triples64(1500, 63) {
        t64.extend([[a, a, b], [b, a, b], [a ^ b, a, b]]);
    }
    for _ in 0..2000 {
        let m1 = (r.next() as u64) << 20 & 0xf_ffff_ffff_ffff;
        let choices = [
            0,
            m1,
            m1.wrapping_sub(1) & 0xf_ffff_ffff_ffff,
            m1 + 1,
            0xf_ffff_ffff_ffff,
        ];
        let m2 = choices[(r.next() % 5) as usize] & 0xf_ffff_ffff_ffff;
        let m1 = if r.next() % 4 == 0 { 0 } else { m1 };
        let e1 = 1 + (r.next() % 2046) as i64;
        let gap: i64 = match r.next() % 5 {
            0 => 766 + (r.next() % 5) as i64,
            1 => -1024 + (r.next() % 4) as i64,
            2 => -1076 + (r.next() % 4) as i64,
            _ => (r.next() % 60) as i64 - 30,
        };
        let e2 = (e1 + gap).clamp(0, 2047) as u64;
        let s1 = match r.next() % 4 {
            0 => 0x7fd0_0000_0000_0000 + (r.next() % 3) as u64,
            1 => 0x7fcf_ffff_ffff_ffff,
            _ => (e1 as u64) << 52 | m1,
        };
        let s2 = e2 << 52 | m2 | ((r.next() & 1) as u64) << 63;
        let s2 = if r.next() % 5 == 0 {
            ((r.next() % 56) as u64) << 52 | m2
        } else {
            s2
        };
        t64.extend([[s1, s1, s2], [s2, s1, s2], [operand64(&mut r), s1, s2]]);
    }
    for (e1, e2) in [(1100u64, 77u64), (1200, 177), (1075, 1), (1076, 1)] {
        t64.push([1 << 62, e1 << 52, e2 << 52 | 0xf_ffff_ffff_ffff]);
    }
    for m in modes64() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env64(e, word);
        for &[a, b, c] in &t64 {
            let (x, y, z) = (e.k64(a), e.k64(b), e.k64(c));
            let (v, vcc) = soft::div_scale(e, &env, x, y, z);
            let got = (v.u(), vcc.u() != 0);
            let want = div_scale_f64(m, a, b, c);
            if got != want && bad.len() < 24 {
                bad.push(format!(
                    "f64 mode {:#x} ieee {}: {a:#018x}, {b:#018x}, {c:#018x}: got {got:x?}, model {want:x?}",
                    m.float_mode, m.ieee
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn exp2_and_log2_match_the_model_in_every_mode() {
    use reference_model::float::{exp_f16, exp_f32, log_f16, log_f32};
    // f32: the classes, integers and their neighbours (exact powers, log2 of powers of two), the limits of
    // 2^x (128, 1024, -126, -149, -1075), values near 1, and random bits.
    let mut xs: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    for k in -160i32..=160 {
        let v = (k as f32).to_bits();
        xs.extend([v, v + 1, v.wrapping_sub(1)]);
        let p = 2f32.powi(k.clamp(-126, 127)).to_bits();
        xs.extend([p, p + 1, p - 1]);
    }
    for v in [
        1024.0f32, 1075.0, -1075.0, -1074.5, 127.99999, 128.0, -126.0, -149.0, -150.0, -149.5,
    ] {
        let b = v.to_bits();
        xs.extend([b, b + 1, b - 1]);
    }
    // Where 1 + x ln 2 crosses an f64 midpoint next to 1 (x = -2^-54 / ln 2, 2^-53 / ln 2): the model's f64
    // step decides whether a directed rounding gives 1.0 or its neighbour.
    for centre in [0xa4b8_aa3bu32, 0x2538_aa3b, 0xa4b3_c009] {
        xs.extend((centre - 3000)..(centre + 3000));
    }
    let mut r = Rng(71);
    for _ in 0..3000 {
        xs.push(r.next() ^ r.next() << 7);
        xs.push(0x3f80_0000 + (r.next() & 0xfff) - 0x800);
        xs.push(r.operand());
    }
    let mut bad = Vec::new();
    let mut compared = 0u64;
    for m in modes().into_iter().step_by(3) {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &x in &xs {
            let xv = e.k32(x);
            for (name, got, want) in [
                (
                    "exp",
                    soft_trans::exp2(e, &env, xv).u() as u32,
                    exp_f32(m, x),
                ),
                (
                    "log",
                    soft_trans::log2(e, &env, xv).u() as u32,
                    log_f32(m, x),
                ),
            ] {
                compared += 1;
                if got != want && bad.len() < 12 {
                    bad.push(format!(
                        "{name}_f32 mode {:#x} ieee {}: {x:#010x}: got {got:#010x}, model {want:#010x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
    }
    // f16: every input in four modes (FP16_OVFL is applied by the caller, so it is left off here).
    for m in [0xc0u8, 0x03, 0x3e, 0xb5] {
        let m = Mode {
            float_mode: m,
            ieee: m & 1 == 1,
            dx10_clamp: true,
            fp16_ovfl: false,
        };
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env16(e, word);
        for x in 0..=0xffffu32 {
            let xv = e.k32(x);
            for (name, got, want) in [
                (
                    "exp",
                    soft_trans::exp2(e, &env, xv).u() as u32,
                    exp_f16(m, x as u16) as u32,
                ),
                (
                    "log",
                    soft_trans::log2(e, &env, xv).u() as u32,
                    log_f16(m, x as u16) as u32,
                ),
            ] {
                compared += 1;
                if got != want && bad.len() < 24 {
                    bad.push(format!(
                        "{name}_f16 mode {:#x} ieee {}: {x:#06x}: got {got:#06x}, model {want:#06x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {compared}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn norm_conversions_match_the_model_in_every_mode() {
    use reference_model::float::{
        cvt_norm_i16_f16, cvt_norm_u16_f16, cvt_pknorm_i16_f32, cvt_pknorm_u16_f32,
    };
    // f32: the classes and random operands, and the codes' ties: k / 32767 and (k + 1/2) / 65535 around the
    // halves, -1, 0, 1 and just past them.
    let mut p = pairs(2000, 81);
    for k in [0u32, 1, 2, 16383, 16384, 32766, 32767] {
        for d in [32767.0f32, 65535.0] {
            for half in [0.0f32, 0.5] {
                let v = ((k as f32 + half) / d).to_bits();
                p.extend([
                    (v, v ^ 0x8000_0000),
                    (v + 1, v.wrapping_sub(1)),
                    (0x3f80_0001, v),
                ]);
            }
        }
    }
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &(a, b) in &p {
            let (x, y) = (e.k32(a), e.k32(b));
            for (signed, want) in [
                (true, cvt_pknorm_i16_f32(m, a, b)),
                (false, cvt_pknorm_u16_f32(m, a, b)),
            ] {
                let lo = soft::norm16(e, &env, x, signed).u() as u32;
                let hi = soft::norm16(e, &env, y, signed).u() as u32;
                let got = lo | hi << 16;
                if got != want && bad.len() < 12 {
                    bad.push(format!(
                        "pknorm signed {signed} mode {:#x}: {a:#010x}, {b:#010x}: got {got:#010x}, model {want:#010x}",
                        m.float_mode
                    ));
                }
            }
        }
    }
    // f16: every input, the four f16 denormal settings.
    for f16_bits in [0x00u8, 0x40, 0x80, 0xc0] {
        let m = Mode {
            float_mode: f16_bits | 0x30,
            ..Mode::TITLE
        };
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env16(e, word);
        for x in 0..=0xffffu32 {
            let xv = e.k32(x);
            let got_i = soft::norm16(e, &env, xv, true).u() as u16;
            let got_u = soft::norm16(e, &env, xv, false).u() as u16;
            let (wi, wu) = (
                cvt_norm_i16_f16(m, x as u16) as u16,
                cvt_norm_u16_f16(m, x as u16),
            );
            if (got_i, got_u) != (wi, wu) && bad.len() < 24 {
                bad.push(format!(
                    "norm f16 mode {:#x}: {x:#06x}: got {got_i:#06x}/{got_u:#06x}, model {wi:#06x}/{wu:#06x}",
                    m.float_mode
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn sin_and_cos_match_the_model_in_every_mode() {
    use reference_model::float::{cos_f16, cos_f32, sin_f16, sin_f32};
    // f32: the classes; the quarter turns and their neighbours (exact zeros, +-1, the reductions by pi/2
    // nearest to cancelling); integers and halves past 2^22 (fraction 0 or 1/2); tiny turns (sin x = 2 pi x
    // to the f64 step); random bits and random turns in [0, 1).
    let mut xs: Vec<u32> = SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]).collect();
    for k in 0..=16u32 {
        let v = (k as f32 / 8.0).to_bits();
        for d in 0..200u32 {
            xs.extend([v + d, v.wrapping_sub(d)]);
        }
        let n = (k as f32 * 1000.25 + 0.125).to_bits();
        xs.extend([n, n + 1, n - 1]);
    }
    for p in [22, 23, 24, 30, 60, 127] {
        let v = 2f32.powi(p).to_bits();
        xs.extend([v - 1, v, v + 1, v + 3]);
    }
    for p in [
        -149i32, -140, -126, -100, -60, -40, -30, -27, -26, -25, -20, -10,
    ] {
        let v = 2f64.powi(p) as f32;
        let b = v.to_bits();
        xs.extend([b, b + 1, b + 0x1234]);
    }
    // Where cos x turns from 1 to the f64 below it (2 pi x near 2^-26.5): a fixed-point 1 - cos read a
    // band of these wrong.
    xs.extend(0x30e6_7900u32..0x30e6_7d00);
    let mut r = Rng(83);
    for _ in 0..3000 {
        xs.push(r.next() ^ r.next() << 7);
        xs.push(0x3f80_0000 - (r.next() & 0x7f_ffff) % 0x0100_0000);
        xs.push(r.operand());
    }
    let mut bad = Vec::new();
    let mut compared = 0u64;
    for m in modes().into_iter().step_by(3) {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &x in &xs {
            let xv = e.k32(x);
            for (name, got, want) in [
                (
                    "sin",
                    soft_trans::sincos(e, &env, xv, false).u() as u32,
                    sin_f32(m, x),
                ),
                (
                    "cos",
                    soft_trans::sincos(e, &env, xv, true).u() as u32,
                    cos_f32(m, x),
                ),
            ] {
                compared += 1;
                if got != want && bad.len() < 12 {
                    bad.push(format!(
                        "{name}_f32 mode {:#x} ieee {}: {x:#010x}: got {got:#010x}, model {want:#010x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
    }
    // f16: every input in three modes (FP16_OVFL is the caller's).
    for m in [0xc0u8, 0x3e, 0xb5] {
        let m = Mode {
            float_mode: m,
            ieee: m & 1 == 1,
            dx10_clamp: true,
            fp16_ovfl: false,
        };
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env16(e, word);
        for x in 0..=0xffffu32 {
            let xv = e.k32(x);
            for (name, got, want) in [
                (
                    "sin",
                    soft_trans::sincos(e, &env, xv, false).u() as u32,
                    sin_f16(m, x as u16) as u32,
                ),
                (
                    "cos",
                    soft_trans::sincos(e, &env, xv, true).u() as u32,
                    cos_f16(m, x as u16) as u32,
                ),
            ] {
                compared += 1;
                if got != want && bad.len() < 24 {
                    bad.push(format!(
                        "{name}_f16 mode {:#x} ieee {}: {x:#06x}: got {got:#06x}, model {want:#06x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {compared}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn f64_reciprocals_and_roots_match_the_model_in_every_mode() {
    use reference_model::float::{rcp_f64, rsq_f64, sqrt_f64};
    // The specials of both signs, the denormal edges (reciprocals that overflow or become denormal), powers of
    // two and their neighbours (exact roots and quotients), squares of integers, and random operands.
    let mut xs: Vec<u64> = SPECIAL64.iter().flat_map(|&v| [v, v ^ 1 << 63]).collect();
    for ef in [1u64, 2, 3, 1021, 1022, 1023, 1024, 2045, 2046] {
        for frac in [0u64, 1, 2, 0x000f_ffff_ffff_ffff, 0x0008_0000_0000_0000] {
            xs.push(ef << 52 | frac);
        }
    }
    for frac in [1u64, 2, 3, 0x0004_0000_0000_0000, 0x0003_ffff_ffff_ffff] {
        xs.push(frac);
    }
    for k in 1..200u64 {
        xs.push(((k * k) as f64).to_bits());
        xs.push((1.0 / (k as f64)).to_bits());
    }
    let mut r = Rng(97);
    for _ in 0..2500 {
        xs.push(operand64(&mut r));
    }
    let mut bad = Vec::new();
    let mut compared = 0u64;
    for m in modes64() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env64(e, word);
        for &x in &xs {
            let xv = e.k64(x);
            for (name, op, want) in [
                ("rcp", soft::Recip::Rcp, rcp_f64(m, x)),
                ("sqrt", soft::Recip::Sqrt, sqrt_f64(m, x)),
                ("rsq", soft::Recip::Rsq, rsq_f64(m, x)),
            ] {
                let got = soft::recip_root64(e, &env, xv, op).u();
                compared += 1;
                if got != want && bad.len() < 12 {
                    bad.push(format!(
                        "{name}_f64 mode {:#x} ieee {}: {x:#018x}: got {got:#018x}, model {want:#018x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {compared}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn cube_ops_and_pk_u8_match_the_model_in_every_mode() {
    use reference_model::float::{cubeid_f32, cubema_f32, cubesc_f32, cubetc_f32, cvt_pk_u8_f32};
    // Triples of special classes (ties of the magnitudes, NaNs, signed zeros and denormals on every axis)
    // and random operands; integers and halves around 0..256 for the byte conversion.
    let mut t: Vec<[u32; 3]> = Vec::new();
    let cls = [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffa0_0001,
        0x7f7f_ffff,
        0x4000_0000,
    ];
    for &a in &cls {
        for &b in &cls {
            for &c in &cls {
                t.push([a, b, c]);
            }
        }
    }
    let mut r = Rng(89);
    for i in 0..4000u32 {
        let a = r.operand();
        let b = if i % 3 == 0 {
            a ^ (r.next() & 0x8000_0001)
        } else {
            r.operand()
        };
        t.push([a, b, r.operand()]);
    }
    let mut xs: Vec<u32> = (0..600u32)
        .flat_map(|k| {
            let v = k as f32 / 2.0 - 20.0;
            [v.to_bits(), v.to_bits() + 1, v.to_bits().wrapping_sub(1)]
        })
        .collect();
    xs.extend(SPECIAL.iter().flat_map(|&v| [v, v ^ 0x8000_0000]));
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &[a, b, c] in &t {
            let (x, y, z) = (e.k32(a), e.k32(b), e.k32(c));
            for (k, want) in [
                cubeid_f32(m, a, b, c),
                cubesc_f32(m, a, b, c),
                cubetc_f32(m, a, b, c),
                cubema_f32(m, a, b, c),
            ]
            .into_iter()
            .enumerate()
            {
                let got = soft::cube(e, &env, k as u32, x, y, z).u() as u32;
                if got != want && bad.len() < 12 {
                    bad.push(format!(
                        "cube {k} mode {:#x} ieee {}: {a:#010x} {b:#010x} {c:#010x}: got {got:#010x}, model {want:#010x}",
                        m.float_mode, m.ieee
                    ));
                }
            }
        }
        for (i, &x) in xs.iter().enumerate() {
            let sel = i as u32 * 7;
            let acc = 0x1234_5678u32.rotate_left(i as u32);
            let (xv, sv, av) = (e.k32(x), e.k32(sel), e.k32(acc));
            let got = soft::cvt_pk_u8(e, &env, xv, sv, av).u() as u32;
            let want = cvt_pk_u8_f32(m, x, sel, acc);
            if got != want && bad.len() < 24 {
                bad.push(format!(
                    "pk_u8 mode {:#x}: {x:#010x} sel {sel}: got {got:#010x}, model {want:#010x}",
                    m.float_mode
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn mullit_and_trig_preop_match_the_model_and_refuse_where_it_does() {
    use reference_model::float::{mullit_f32, trig_preop_f64};
    let cls = [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffa0_0001,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x5f80_0000,
        0x5f7f_ffff,
        0x4000_0000,
    ];
    let mut t: Vec<[u32; 3]> = Vec::new();
    for &a in &cls {
        for &b in &cls {
            for &c in &cls {
                t.push([a, b, c]);
            }
        }
    }
    // Products around the overflow threshold in every direction.
    for d in 0..64u32 {
        t.push([0x5f80_0000 - d, 0x5f80_0000 + d, 0x3f80_0000]);
        t.push([0x5f7f_ffff, 0x3f80_0000 + d, 0x3f80_0000]);
        t.push([0xdf7f_fff0 + d, 0x4000_0000, 0x3f80_0000]);
    }
    let mut r = Rng(97);
    for _ in 0..3000 {
        t.push([r.operand(), r.operand(), r.operand()]);
    }
    let mut bad = Vec::new();
    for m in modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env(e, word);
        for &[a, b, c] in &t {
            let (x, y, z) = (e.k32(a), e.k32(b), e.k32(c));
            let (v, refused) = soft::mullit(e, &env, x, y, z);
            let got = (!refused.b()).then_some(v.u() as u32);
            let want = mullit_f32(m, a, b, c);
            if got != want && bad.len() < 12 {
                bad.push(format!(
                    "mullit mode {:#x}: {a:#010x} {b:#010x} {c:#010x}: got {got:x?}, model {want:x?}",
                    m.float_mode
                ));
            }
        }
    }
    // Every segment of every biased exponent (the shift's table edge and the scaling at 1968), both f64
    // denormal settings, NaNs refused.
    for m in [
        Mode::TITLE,
        Mode {
            float_mode: 0x30,
            ..Mode::TITLE
        },
    ] {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let env = soft::env64(e, word);
        for ef in (0..2048u64)
            .step_by(3)
            .chain([1077, 1078, 1967, 1968, 2046, 2047])
        {
            for frac in [0u64, 1, 0x8_0000_0000_0000] {
                let x = ef << 52 | frac;
                for seg in [0u32, 1, 5, 17, 20, 21, 22, 31, 32, 0xffff_ffff] {
                    let (xv, sv) = (e.k64(x), e.k32(seg));
                    let (v, nan) = soft::trig_preop(e, &env, xv, sv);
                    let got = (!nan.b()).then_some(v.u());
                    let want = trig_preop_f64(m, x, seg);
                    if got != want && bad.len() < 24 {
                        bad.push(format!(
                            "trig_preop mode {:#x}: {x:#018x} seg {seg}: got {got:x?}, model {want:x?}",
                            m.float_mode
                        ));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `v_dot2_f32_f16` operands: packed f16 pairs of every class, then the cancellations a single rounding of
/// the exact three-term sum decides: the products cancelling each other, `c` cancelling one product while
/// the other lies up to 80 binades below it, and `c` within a few ulps of minus the sum.
fn dot2_operands() -> Vec<[u32; 3]> {
    let f16_value = |h: u32| {
        f64::from(f32::from_bits(reference_model::float::cvt_f32_f16(
            Mode {
                float_mode: 0xf0,
                ieee: false,
                dx10_clamp: true,
                fp16_ovfl: false,
            },
            h as u16,
        )))
    };
    let finite16 = |r: &mut Rng| loop {
        let h = operand16(r);
        if h & 0x7c00 != 0x7c00 {
            return h;
        }
    };
    let mut v = Vec::new();
    let mut r = Rng(97);
    for &a in &SPECIAL16 {
        for &b in &SPECIAL16 {
            v.push([
                a | b << 16,
                b | a << 16,
                SPECIAL[(a ^ b) as usize % SPECIAL.len()],
            ]);
            v.push([a | a << 16, b | (b ^ 0x8000) << 16, 0x8000_0000]);
        }
    }
    for i in 0..6000u32 {
        let (a0, b0, a1, b1) = (
            finite16(&mut r),
            finite16(&mut r),
            finite16(&mut r),
            finite16(&mut r),
        );
        let (p0, p1) = (f16_value(a0) * f16_value(b0), f16_value(a1) * f16_value(b1));
        let c = match i % 6 {
            0 => r.operand(),
            // c cancels the first product exactly or nearly: the second decides.
            1 => (-p0 as f32).to_bits() ^ (r.next() & 3),
            // The exact sum's negation rounded to f32, then moved by a few ulps.
            2 => (-(p0 + p1) as f32)
                .to_bits()
                .wrapping_add(r.next() % 5)
                .wrapping_sub(2),
            // The products cancel each other: c alone (or zero).
            3 => {
                v.push([a0 | a0 << 16, b0 | (b0 ^ 0x8000) << 16, r.operand()]);
                (-(p0 + p1) as f32).to_bits()
            }
            4 => 0x8000_0000 * (r.next() & 1),
            _ => ((p1 - p0) as f32).to_bits(),
        };
        v.push([a0 | a1 << 16, b0 | b1 << 16, c]);
    }
    v
}

#[test]
fn dot2_matches_the_model_in_every_mode() {
    use reference_model::float::dot2_f32_f16;
    let ops = dot2_operands();
    let mut bad = Vec::new();
    for m in mixed_modes() {
        let e = &mut Eval;
        let word = e.k32(m.to_hwreg());
        let e32 = soft::env(e, word);
        let e16 = soft::env16(e, word);
        for &[a, b, c] in &ops {
            let (x, y, z) = (e.k32(a), e.k32(b), e.k32(c));
            let got = soft::dot2(e, &e32, &e16, x, y, z).u() as u32;
            let want = dot2_f32_f16(m, a, b, c);
            if got != want && bad.len() < 10 {
                bad.push(format!(
                    "mode {:#x} ieee {}: {a:#010x} {b:#010x} {c:#010x}: got {got:#010x}, model {want:#010x}",
                    m.float_mode, m.ieee
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
