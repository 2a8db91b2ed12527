//! The rules registry: every hardware behaviour the model implements that is not plain
//! IEEE 754, with its status and the evidence behind it.
//!
//! A rule is cited by name from the docs of the functions that apply it. Reports show
//! each rule with its evidence and pass/fail counts; contributors cite measurement IDs or
//! documents in [`Rule::evidence`]. Seed files are `shared/seeds/<file>`; "seed 000" is
//! `000_836b1374c983af00.txt`, "seed 003" is `003_97da9db6370916fb.txt`, "seed 001" is
//! `001_9699c4c18e39a44d.txt`.
//!
//! ```
//! use reference_model::rules::{self, Status};
//! let r = rules::lookup("f32.tininess.after_rounding").unwrap();
//! assert_eq!(r.status, Status::Measured);
//! assert_eq!(rules::tolerance_ulp("v_sin_f32"), Some(10));
//! ```

/// How well a rule is established.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Measured on RDNA hardware (the evidence names where).
    Measured,
    /// Taken from a peer project's test values that were pinned from runs on RDNA2 hardware (the evidence names
    /// the peer rows): hardware-backed, but measured by someone else with a harness this project has not audited.
    PeerPinned,
    /// Stated by AMD or LLVM/Mesa documentation or sources, not measured here.
    Documented,
    /// The model's best guess, neither measured nor documented.
    Inferred,
}

/// One named behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable name, `area.what` (e.g. `f32.tininess.after_rounding`).
    pub name: &'static str,
    /// What the model does, in one or two sentences.
    pub text: &'static str,
    /// Measured, documented or inferred.
    pub status: Status,
    /// Measurement IDs, or the document and what it says.
    pub evidence: &'static str,
}

const fn r(name: &'static str, status: Status, text: &'static str, evidence: &'static str) -> Rule {
    Rule {
        name,
        text,
        status,
        evidence,
    }
}

use Status::{Documented, Inferred, Measured, PeerPinned};

/// Every registered rule.
pub static RULES: &[Rule] = &[
    // Mode.
    r("mode.float_mode_fields", Documented,
      "FLOAT_MODE: round32 bits 1:0, round16/64 bits 3:2 (0 nearest even, 1 +inf, 2 -inf, 3 toward zero); denorm32 bits 5:4, denorm16/64 bits 7:6 (bit 0 keeps inputs, bit 1 keeps results).",
      "LLVM llvm/lib/Target/AMDGPU/SIDefines.h (llvm/llvm-project 332b9e38c3817def5bd4ca9e8bbfb885405c2888): FP_ROUND_ROUND_TO_*, FP_ROUND_MODE_SP/DP, FP_DENORM_FLUSH_IN_FLUSH_OUT=0, FLUSH_OUT=1, FLUSH_IN=2, FLUSH_NONE=3, FP_DENORM_MODE_SP/DP."),
    r("mode.hwreg_layout", Documented,
      "The MODE hardware register holds FP_ROUND in 3:0, FP_DENORM in 7:4, DX10_CLAMP in 8, IEEE in 9 and FP16_OVFL in 23; s_getreg/s_setreg of HW_REG_MODE read and write these bits, s_round_mode and s_denorm_mode write 3:0 and 7:4.",
      "LLVM SIDefines.h Hwreg::ModeRegisterMasks (same commit); Mesa src/amd/compiler/aco_insert_fp_mode.cpp (bminor/mesa-mesa 46c1bd1147ca4683c9d8b8bf3f07d98b32eb75a3) sets FP16_OVFL with s_setreg_imm32_b32 at offset 23 and uses s_round_mode/s_denorm_mode on GFX10. Seed 000 (shader MODE register access) follows the same public contract; not measured on a console."),
    r("round.mode_field", Measured,
      "v_ldexp_f32 rounds in the f32 round field, v_fma_mixlo/mixhi_f16 and v_cvt_f16_f32 in the f16 round field, in all four directions; the tininess check of v_mul_f32 follows the f32 round field.",
      "Seed 000: v_ldexp_f32 over 2163 rows in each round mode at IEEE 0 and 1 (gfx1036); v_fma_mixlo/mixhi_f16 in all four f16 round modes (2,233 rows, #2631 sweep, gfx1036); directed f16 rounding of v_cvt_f16_f32 (gfx1036); the tiny-product boundary of v_mul_f32 in all four f32 round modes (gfx1036)."),
    r("round.mode_field.others", Inferred,
      "Every other instruction rounds its result in the direction of its precision's round field: f32 results by round32, f16 and f64 results by round16/64.",
      "Generalised from the instructions of round.mode_field; seed 000 measures no other instruction in a directed mode (its recompiler refuses directed modes elsewhere)."),
    r("modifier.neg_abs_bits", Measured,
      "Source neg and abs are bit operations on the sign in every mode, applied before NaN choice and flushing, so a negated NaN source is returned with its sign flipped.",
      "Seed 000 (signalling NaN inputs entry): the NaN result is the first NaN source after its modifiers, the subtrahend negated, measured over 1000 operand triples at IEEE 0 and 1 on gfx1035; peer corpus F32ArithmeticNan and F16MinMaxNan columns with -|x| modifiers."),
    // f32 denormals.
    r("f32.denorm.arith", Measured,
      "With bit 0 of the f32 denormal field clear, f32 arithmetic (add, sub, mul, mul_legacy, fma forms, min/max/med3, fract, floor, ceil, frexp, conversions from f32) reads a denormal input as the zero of its sign; with bit 1 clear it writes a tiny result as the zero of its sign.",
      "Seed 000 (f32 denormals entry): measured on gfx1035 over 1444 rows per instruction at IEEE 0 and 1 with the field at 0; peer corpus F32DenormalFlush."),
    r("f32.denorm.modes_1_2", Inferred,
      "f32 denormal fields 1 and 2 flush only outputs or only inputs, by the same bit meaning as the f16 field.",
      "Seed 000 says fields 1 and 2 were not measured for f32 (the recompiler refuses them); the bit meaning is the one measured for f16 and documented by LLVM SIDefines.h."),
    r("f32.tininess.after_rounding", Measured,
      "A result is tiny when, rounded to the format's precision with an unbounded exponent in the current round direction, it is below the smallest normal; a tiny result is flushed when results flush.",
      "Seed 000: on gfx1036 at IEEE 0 and 1, v_mul_f32 0x3f7ffffe * 0x00800001 gives 0x00800000 and 0x3f7fffff * 0x00800000 gives 0; the check follows round32 in all four modes; v_fma_mix_f32 0x00801002 * f16 0x3bff gives 0x00800000 while 0x00801001 and 0x00801003 give 0 and 0x00800001."),
    r("f32.tininess.fma_addend", Inferred,
      "A fused multiply-add with a non-zero addend uses the same after-rounding tininess on its fused result.",
      "Seed 000 only says the fused result with a non-zero addend is kept when it rounds up to 2^-126, which this rule also gives; the boundary below it is not measured."),
    // f16 / f64.
    r("f16.denorm.field_bits", Measured,
      "v_add/sub/subrev/mul_f16 and v_ldexp_f16: bit 0 of the f16/f64 denormal field keeps denormal f16 inputs and bit 1 keeps denormal f16 results; otherwise they become zeros of their sign.",
      "Seed 000 (scalar f16 add/sub/subrev/mul denormals): gfx1036, IEEE 0/1, FP16_OVFL 0/1, 32 operand pairs in all four fields; v_ldexp_f16 over every half 0x0000..0x0fff of both signs (16384 rows per mode)."),
    r("f16.denorm.field_bits.others", Inferred,
      "The other f16 arithmetic (v_fma_f16 and its fmac/fmamk/fmaak forms, v_min3/max3/med3_f16, v_div_fixup_f16, packed f16) reads the f16/f64 denormal field the same way.",
      "Generalised from f16.denorm.field_bits; seed 000 measured packed f16 only with denormals kept."),
    r("f16.tininess.after_rounding", Measured,
      "f16 tininess is decided after rounding to 11 bits with an unbounded exponent.",
      "Seed 000: v_mul_f16 0x3bff * 0x0400 flushes, 0x3c01 * 0x03ff gives 0x0400 (gfx1036)."),
    r("f16.denorm.unary", Measured,
      "f16 unary instructions, frexp and conversions from f16 flush a denormal input when bit 0 of the f16 field is clear and a denormal f16 result when bit 1 is clear.",
      "Seed 000 (f16 unary, frexp and conversion denormals): gfx1036, IEEE 0/1, denorm16 0..3, every non-NaN f16 input (63,490 rows per mode and instruction)."),
    r("f16.fp16_ovfl", Measured,
      "With FP16_OVFL set, an f16 result that rounds to an infinity is written as the largest finite half of its sign unless a source is infinite.",
      "Seed 000 (FP16_OVFL entry): gfx1036 at IEEE 0 and 1 with f16 denormals kept and flushed: rcp/rsq/log of 0 and exp of 16 or more are clamped, an infinite input passes; v_div_fixup_f16 keeps the infinity it writes for a zero denominator."),
    r("f64.denorm.field", Inferred,
      "f64 arithmetic flushes denormal inputs and results by the f16/f64 field, like f16.",
      "Seed 000 (v_fma_f64 entry) says the hardware flushes the operands and the result of v_fma_f64 when the field flushes; the other f64 instructions are assumed to do the same."),
    r("f64.tininess.before_rounding", Measured,
      "When the f16/f64 field flushes results, v_fma_f64 flushes a result whose exact value is below 2^-1022 (tininess before rounding) and flushes its operands; v_div_fmas_f64 flushes only its result.",
      "Seed 000 (v_fma_f64 and v_div_fmas_f64 entry), RDNA2."),
    r("f64.tininess.before_rounding.others", Inferred,
      "The other f64 arithmetic (add, mul, ldexp, conversions to f64) detects tininess before rounding too when f64 results flush.",
      "Generalised from v_fma_f64 (rule f64.tininess.before_rounding); no other f64 instruction's boundary is measured."),
    r("f64.fma_subnormal", Measured,
      "v_fma_f64 and v_div_fmas_f64 round subnormal operands and results once, as IEEE fusedMultiplyAdd with denormals kept.",
      "Seed 000: measured on gfx1035 at IEEE 0 and 1, v_div_fmas_f64 with VCC clear and set."),
    // NaNs.
    r("nan.select.first_source", Measured,
      "An arithmetic NaN result is the first NaN source in operand order after modifiers (sub adds the negated subtrahend).",
      "Seed 000 (signalling NaN inputs entry): v_add/sub/subrev/mul/fma/fmac/fmamk/fmaak/mul_legacy_f32 and v_fma_mix_f32, 1000 operand triples at IEEE 0 and 1 (gfx1035); v_mad_legacy_f32 on gfx1010 (#1281, #1290). The f16 and f64 forms are stated to follow the same rule; their NaN bits were not compared."),
    r("nan.quiet.ieee_only", Measured,
      "A NaN source that v_add/sub/subrev/mul/fma/fmac/fmamk/fmaak/mul_legacy_f32 or v_fma_mix_f32 returns is quieted (quiet bit set) only when IEEE_MODE is 1.",
      "Seed 000 (signalling NaN inputs entry): 1000 operand triples at IEEE 0 and 1 (gfx1035); peer corpus F32ArithmeticNan, IEEE 0 and IEEE 1 tables."),
    r("nan.quiet.ieee_only.f16_f64", Inferred,
      "f16 and f64 arithmetic (add, mul, fma and their forms, min3/max3) quiet a returned NaN source only with IEEE_MODE 1, as f32 does.",
      "Seed 000 says the f16 and f64 arithmetic follow the f32 rule on hardware but leaves their NaN bits to the driver: not measured. The peer-f64-arithmetic rows that disagree are known differences (conformance/known-differences.toml)."),
    r("nan.default", Measured,
      "An invalid f32 operation (inf - inf, inf * 0, 0 * inf in fma) gives the negative quiet NaN with zero payload, 0xffc00000.",
      "Seed 000 (signalling NaN inputs entry): the default NaN 0xffc00000 for an invalid operation of the f32 arithmetic (gfx1035)."),
    r("nan.default.f16_f64", Inferred,
      "An invalid f16 or f64 operation gives the default NaN of the same shape: 0xfe00 (f16), 0xfff8000000000000 (f64).",
      "Only the f32 pattern is measured (rule nan.default); seed 000 (packed f16 NaN results) says v_pk_fma_f16 gives 'the default NaN' without recording its bits."),
    r("nan.fma.invalid_product", Measured,
      "In fused multiply-adds an invalid product (inf * 0) gives the default NaN even when the addend is a NaN.",
      "Seed 000 (signalling NaN inputs entry) for the f32 fma forms (gfx1035); seed 000 (packed f16 NaN results) for v_pk_fma_f16 (gfx1035). v_fma_f16 and v_fma_f64 are inferred from these."),
    r("nan.unary_quiet_ieee_only", Measured,
      "Unary instructions (sqrt, rcp, rsq, log, exp, sin, cos, fract, floor, ceil, trunc, rndne, frexp_mant), ldexp and div_fixup return a NaN input quieted only with IEEE 1.",
      "Seed 000 (signalling NaN inputs entry): f32 and f16 forms on gfx1035, f64 forms and v_cvt_f64_f32 on gfx1036, both IEEE modes."),
    r("nan.cvt_narrow_quiet", Inferred,
      "v_cvt_f16_f32 and v_cvt_f32_f64 always return a quiet NaN, keeping the sign and the top payload bits.",
      "Seed 000 lists v_cvt_f16_f32 and v_cvt_f32_f64 among the instructions that always quiet, but the only value it records is v_fma_mixlo/mixhi_f16's (rule nan.mix_lo_hi_quiet): the conversions' bits are not measured."),
    r("nan.cvt_f64_f32", Measured,
      "v_cvt_f64_f32 keeps a NaN's payload and quiets it only with IEEE 1.",
      "Seed 000 (signalling NaN inputs entry), gfx1036 in both modes; peer corpus F64NanConversions."),
    r("nan.mix_lo_hi_quiet", Measured,
      "v_fma_mixlo_f16 and v_fma_mixhi_f16 always return a quiet NaN; an f32 NaN source keeps its sign and top 10 payload bits.",
      "Seed 000: 0x7f812345 as src0 or src2 gives 0x7e09 at IEEE 0 and 1 (gfx1036), where v_fma_mix_f32 gives 0x7f812345 / 0x7fc12345."),
    r("nan.dot2_quiet", Inferred,
      "v_dot2_f32_f16 always returns a quiet NaN.",
      "Seed 000 lists v_dot2_f32_f16 among the instructions that always quiet, without a recorded value, and lists the instruction as not covered by its float-mode measurements."),
    // Legacy and unfused forms.
    r("legacy.zero_product", Measured,
      "In v_mul_legacy_f32, v_mad/mac_legacy_f32 and v_fma_legacy_f32 a zero factor (after flushing) makes the product +0, even when the other factor is infinite or a NaN; a NaN addend still wins.",
      "Seed 000 (signalling NaN inputs and v_mad_legacy_f32 entries): measured on gfx1035 (mul_legacy), gfx1010 (mad/mac_legacy) and gfx1031 (fma_legacy)."),
    r("legacy.fma_rdna2", Measured,
      "On RDNA2, VOP3 0x140 is v_fma_legacy_f32: fused, with the legacy zero rule and denormal sources flushed; its result flushing follows the f32 field (inferred).",
      "Seed 000 (v_mad_legacy_f32 entry): gfx1031 (#1281). The peer corpus F32ArithmeticNan column 7 was pinned on RDNA2, so it is v_fma_legacy_f32 there."),
    r("legacy.mad_gfx10", Measured,
      "On gfx1010/gfx1013, VOP3 0x140 / VOP2 0x06 are v_mad_legacy_f32 / v_mac_legacy_f32: the product is rounded before the add, and sources, product and result are flushed in every f32 denormal mode.",
      "Seed 000: measured on gfx1010 (RX 5700 XT) over the 32 rows of FmaLegacy and MacLegacy at IEEE 0 and 1, denormal modes 0 to 3 (#1281, #1290). The PS5's gfx1013 is not measured."),
    r("legacy.mad_product_tininess", Inferred,
      "The separately rounded product of v_mad_legacy_f32 is flushed when its exact value is below 2^-126.",
      "Seed 000 says the console's separately rounded encoding is not measured at this boundary; the recompiler checks the exact product."),
    r("mad.unfused_flush", Inferred,
      "v_mad_f32, v_mac_f32, v_madak_f32 and v_madmk_f32 (gfx10.1) round the product before the add and flush denormal sources, product and result in every mode.",
      "Not measurable on RDNA2 (seed 000); LLVM selects these only when f32 denormals are flushed, as GCN's MAD does not support denormals."),
    r("mad.unfused_f16", Inferred,
      "v_mad_f16 / v_mac_f16 round the product to f16 before the add, denormals by the f16 field.",
      "No measurement; by analogy with v_mad_f32."),
    // Mixed precision, packed, dot.
    r("mix.lo_hi_rounding", Measured,
      "v_fma_mixlo/mixhi_f16 round the exact product-sum once to f16 in the f16 round and denormal fields; f32 sources are flushed by the f32 field and a product below 2^-126 is kept.",
      "Seed 000: -1.5*2^-24 + 2^-126 from f32 sources (0xbfc00000, 0x33800000, 0x00800000) gives 0x8001 with f16 denormals kept, 0x8000 flushed, 0x8002 toward -inf (gfx1036); all four round modes on 2,233 rows."),
    r("mix.f16_source_denorm", Inferred,
      "f16 sources of the v_fma_mix instructions widen exactly to f32, a denormal half flushed when bit 0 of the f16 field is clear.",
      "Mesa ACO (aco_insert_fp_mode.cpp) makes v_fma_mix_f32 with f16 sources depend on the f16/f64 denormal field; not measured."),
    r("pk.nan_rules", Measured,
      "Packed f16 arithmetic follows the scalar f16 rules per half: IEEE 1 quiets a signalling NaN input; IEEE 0 passes NaNs through; v_pk_min/max return the other operand for a NaN (IEEE 0) or for a quiet NaN only (IEEE 1).",
      "Seed 000 (packed f16 NaN results): gfx1035 at IEEE 0 and 1 with f16 nearest even and denormals kept."),
    r("dot2.single_rounding", Inferred,
      "v_dot2_f32_f16 rounds the exact a.lo*b.lo + a.hi*b.hi + c once to f32.",
      "No measurement; seed 000 lists the instruction as not covered."),
    // Output modifiers.
    r("omod.mode_dependent", Measured,
      "The output modifier (mul:2, mul:4, div:2) on an f32 result is applied only with IEEE 0 and f32 results flushed (bit 1 of the f32 denormal field clear), and ignored otherwise; a zero result comes out as +0, while a value that underflows when scaled flushes to the zero of its sign.",
      "Seed 000 (output modifier entry), gfx1035, f32; peer corpus F32ArithmeticNan column 12 (IEEE 1 holds the product without x2) and F32OutputModifier (a -0 result with mul:2, mul:4 or div:2 is written +0 in mode 0xc0, kept -0 in 0xf0, e.g. rows 0, 8, 19, 25; -2^-126 with div:2 gives -0, rows 1, 15, 24)."),
    r("omod.f16_f64", Inferred,
      "On f16 and f64 results the output modifier follows the f32 rule with the f16/f64 denormal field.",
      "Seed 000 measured the mode dependence for f32 only; its recompiler ignores omod on f16 and f64 results and refuses the modes where the hardware applies it, so the f16/f64 behaviour is not measured."),
    r("omod.denormal_result", Inferred,
      "An operation that does not flush its own result (v_cubesc/tc/ma, v_div_fixup) and produces a denormal while results flush has it scaled exactly by the output modifier; a scaled value below the normal range becomes the zero of its sign, one that reaches the normal range is kept.",
      "Not measured; follows the order the f32 entry of seed 000 implies (the modifier applies to the result, the result flush after it)."),
    r("clamp.dx10", Measured,
      "The clamp modifier clamps to [+0, 1]; a NaN becomes +0 with DX10_CLAMP 1 and is written unchanged with DX10_CLAMP 0.",
      "Seed 000 (clamp modifier entry): gfx1035 for f32, f16, packed f16 and f64 at IEEE 0 and 1; v_pk_min/max_f16 on gfx1036."),
    // Min/max.
    r("minmax.nan.ieee0", Measured,
      "With IEEE 0, min/max return the other operand for a NaN operand (src0 when both are NaN), unquieted.",
      "Seed 001 (shader float mode entry) and peer corpus F32MinMaxNan (default mode), F16MinMaxNan; f64 on gfx1036."),
    r("minmax.nan.ieee1", Measured,
      "With IEEE 1, a signalling NaN operand is returned quieted (src0 checked first); a quiet NaN operand gives the other operand.",
      "Seed 001: gfx1035 over all combinations of zeros, ones, infinities, denormals, quiet and signalling NaNs; peer corpus F32MinMaxNan IEEE case."),
    r("minmax.signed_zero", PeerPinned,
      "min/max order -0 below +0.",
      "Peer corpus F32MinMaxNan (pinned on RDNA2): min(+0, -0) = -0, max(-0, +0) = +0."),
    r("minmax.denorm_inputs", Measured,
      "v_min/max_f16 flush denormal inputs when bit 0 of the f16 field is clear (fields 0 and 2) and keep them for 1 and 3 even with output flushing; the f32 min/max/min3/max3/med3 flush their inputs with the f32 field at 0.",
      "Seed 001: v_min/max_f16 on gfx1036 in all four fields; seed 000 (f32 denormals entry) lists the f32 forms among the instructions that flush inputs (gfx1035, 1444 rows)."),
    r("minmax.denorm_inputs.others", Inferred,
      "min/max/med3 do not flush their result, and the f16 three-operand forms and the f32 forms in fields 1 and 2 follow the same input rule.",
      "Generalised from minmax.denorm_inputs; the result flush of the f32 forms and the f16 min3/max3/med3 are not measured."),
    r("minmax.f64_denorm_inputs", Inferred,
      "v_min/max_f64 flush denormal inputs by the f16/f64 field.",
      "Seed 001 says the hardware flushes denormal inputs of f64 min/max when the field flushes."),
    r("minmax.three_as_pairs", Measured,
      "min3 and max3 are two nested pairs: op(op(a, b), c).",
      "Seed 001 (IEEE 1 NaN order); peer corpus F32MinMaxNan."),
    r("minmax.med3_nan", Measured,
      "med3 with any NaN operand gives min3 of the operands.",
      "Seed 001; peer corpus F32MinMaxNan in both IEEE modes."),
    // Compares and class.
    r("cmp.denorm_inputs", Measured,
      "Float compares read a denormal input as its signed zero when bit 0 of the field is clear; with denormal inputs kept they compare exactly in sign-magnitude order (both zeros equal, NaN unordered).",
      "Seed 000 (f32 denormals entry) lists the f32 compares among the instructions that flush their inputs (gfx1035, 1444 rows) and says that with denormals kept a denormal is not read as zero (gfx1036, 256 pairs per opcode); peer corpus F32DenormalFlush row 11 column 12: v_cmp_lt_f32 -0, 0x00000001 is false in modes 0xc0 and 0x00. f16/f64 inferred."),
    r("class.raw_bits", Documented,
      "v_cmp_class tests the class of the source's bits (10 classes, mask bits 0..9); a denormal is classed as denormal in every mode.",
      "RDNA 2 ISA guide, VOPC V_CMP_CLASS; not flushing is inferred."),
    // LDS atomics.
    r("lds.float_minmax", Measured,
      "ds_min/max_f32/f64: both operands flushed when bit 0 of the type's field is clear; a signalling-NaN data is stored quieted, else a signalling-NaN old value is stored quieted, else a quiet-NaN old value is replaced by the data, else a quiet-NaN data loses, else the ordered compare with -0 below +0 decides; the flushed value is stored; IEEE_MODE has no effect; the old value is returned.",
      "Seed 003: gfx1036 over 14 x 14 operand sets, IEEE 0 and 1, denormal fields kept and flushed, every memory and returned result, 0 mismatches; seed 000 LDS float atomics entry (all four field values)."),
    r("lds.float_cmpst", Measured,
      "ds_cmpst_f32/f64 compare the flushed old value with the flushed compare value (both zeros equal, NaN never equal) and store the source as given when equal, leaving memory unchanged otherwise.",
      "Seed 003 (gfx1036); a denormal or signalling-NaN source is not measured."),
    r("lds.add_f32", Inferred,
      "ds_add_f32 adds like v_add_f32 with IEEE_MODE treated as 0, denormals by the f32 field.",
      "Seed 000 (DS src2 entry): on gfx1035 ds_add_f32 ignores IEEE_MODE and depends on the f32 denormal field (12 of 196 special rows differ); the bits were not recorded."),
    // Conversions and friends.
    r("ldexp.rounding", Measured,
      "v_ldexp_f32 keeps subnormal inputs and rounds a subnormal result in the f32 round mode; overflow rounds like any result; with the f32 field flushing, subnormal inputs and results flush.",
      "Seed 000: gfx1036, 2163 rows in each round mode at IEEE 0 and 1; flushed at IEEE 0."),
    r("ldexp.f16_denorm", Measured,
      "v_ldexp_f16 follows the f16 field: a denormal input flushes unless bit 0 is set; a result below 2^-14 flushes unless bit 1 is set (v_ldexp_f16 0x07ff, -1 gives +0).",
      "Seed 000: gfx1036, nearest even, IEEE 0 and 1, denorm16 0..3, 16384 rows per mode, no mismatch."),
    r("cvt.f16_directed", Measured,
      "v_cvt_f16_f32, v_cvt_f16_i16/u16 and v_ldexp_f16 round in the f16 round field.",
      "Seed 000 (directed f16 rounding), gfx1036 with f16 denormals kept; with them flushed the result flushes too (same rules)."),
    r("cvt.pkrtz", Measured,
      "v_cvt_pkrtz_f16_f32 rounds toward zero, so finite values never overflow; its NaN quieting and result flushing follow v_cvt_f16_f32 (inferred).",
      "Seed 000 (FP16_OVFL entry)."),
    r("cvt.float_to_int", Documented,
      "Float to integer conversions round as named (toward zero, floor, floor(x + 0.5)) and saturate to the integer range; v_cvt_i32/u32 give 0 for NaN; v_cvt_flr_i32_f32 and v_cvt_rpi_i32_f32 saturate a NaN by its sign (rule cvt.flr_rpi_nan_sign).",
      "RDNA 2 ISA guide, V_CVT_I32_F32 and friends; peer corpus F32DenormalFlush row 14 column 13: v_cvt_flr_i32_f32 of 0x7fc00000 is 0x7fffffff."),
    r("cvt.flr_rpi_nan_sign", PeerPinned,
      "v_cvt_flr_i32_f32 and v_cvt_rpi_i32_f32 turn a NaN into the saturation value of its sign: 0x7fffffff for a positive NaN, 0x80000000 for a negative one.",
      "Peer suite peer-vop1-vop2-integer (Vop1Vop2Integer, pinned on RDNA2), columns 9 and 10: inputs 7fc00000 and 7f800001 give 7fffffff, ffc00000, ff800001, fffffffe, ffff890b, ffff5884 and ffffffff give 80000000; peer-f32-denormal-flush row 14 column 13: 7fc00000 gives 7fffffff."),
    r("cvt.pknorm", Inferred,
      "v_cvt_pknorm_i16/u16_f32 clamp to [-1, 1] or [0, 1], scale by 32767 or 65535 and round to nearest even; NaN gives 0.",
      "RDNA 2 ISA guide describes the clamp and scale; the rounding is not documented or measured."),
    r("cvt.pk_u8", Inferred,
      "v_cvt_pk_u8_f32 rounds in the f32 round field and saturates to [0, 255]; NaN gives 0.",
      "Mesa ACO aco_insert_fp_mode.cpp makes the instruction depend on the f32 round field."),
    r("cvt.norm_f16", Inferred,
      "v_cvt_norm_i16/u16_f16 and v_cvt_pknorm_i16/u16_f16 apply the cvt.pknorm rule to an f16 source: clamp to [-1, 1] or [0, 1], scale by 32767 or 65535, round to nearest even, NaN gives 0; a denormal f16 source reads as zero when bit 0 of the f16 denormal field is clear.",
      "Inferred from the f32 form (rule cvt.pknorm): widening f16 to f32 is exact, so the same rule applies to the same value. AMD's RDNA 3 ISA guide defines these opcodes as f16_to_snorm / f16_to_unorm of the f16 source(s) (V_CVT_NORM_I16_F16, V_CVT_PK_NORM_I16_F16) without the rounding. The input flush follows f16.denorm.unary, measured for the other conversions from f16 (seed 000). Not measured."),
    r("mullit.lighting", Documented,
      "v_mullit_f32 writes -MAX_FLOAT (0xff7fffff) when src1 is -MAX_FLOAT, -inf or a NaN, or src2 is <= 0 or a NaN (sources after modifiers, denormals flushed by the f32 field); otherwise src0 * src1 rounded as v_mul_f32. An infinite or NaN factor or an overflowing product in that branch is refused (Unsupported).",
      "AMD RDNA 3 and RDNA 3.5 ISA guides, section 16.12, V_MULLIT_F32 pseudo-code (opcode 536); AMD's RDNA 2 machine-readable ISA describes the same opcode as a multiply with 'specific rules ... to accommodate lighting calculations: 0.0 * x = 0.0 and alternate INF, NAN, overflow rules', which no document defines, hence the refusal. The flushing of the tested sources is inferred. Not measured."),
    r("mullit.zero_factor", Inferred,
      "In the multiply branch of v_mullit_f32 a zero factor (after flushing) gives +0, even when the other factor is infinite or a NaN.",
      "The RDNA 2/3 descriptions state '0.0 * x = 0.0' while the RDNA 3 pseudo-code writes a plain multiply; the +0 sign is taken from the DX9 zero rule measured for v_mul_legacy_f32 (legacy.zero_product). Not measured."),
    r("trig.preop", Documented,
      "v_trig_preop_f64 returns the 53 bits of 2/pi starting at bit 53 * src1[4:0] (plus E - 1077 when src0's biased exponent E > 1077) as an integer scaled by 2^(-53 - shift), or 2^(75 - shift) when E >= 1968; it is never negative. A window past the 1184-bit table (shift >= 1120) gives +0; a result below the normal range is truncated and flushed by the f64 result field; a NaN src0 is refused (Unsupported).",
      "AMD RDNA 3 ISA guide, V_TRIG_PREOP_F64 pseudo-code (rounding round-to-zero); LLVM llvm/llvm-project llvm/lib/Target/AMDGPU/AMDGPUInstCombineIntrinsic.cpp constant folding of llvm.amdgcn.trig.preop (the same algorithm and 2/pi table, zero for an out-of-table segment, 'hardware behavior'; it returns a quieted NaN for NaN, where the guide's pseudo-code only reads the exponent; its nearest rounding of subnormal results agrees with truncation, as the cut always falls on a 0 bit of 2/pi). The 2/pi bits were recomputed with mpmath. The f64 result flush is inferred (f64.denorm.field). Not measured."),
    r("fract.clamp_below_one", Documented,
      "v_fract returns x - floor(x), never above the largest value below 1; an infinity gives the default NaN (inferred).",
      "RDNA 2 ISA guide, V_FRACT_F32."),
    r("frexp.special", Documented,
      "v_frexp_mant returns zeros, infinities and NaNs as they are; v_frexp_exp returns 0 for them.",
      "RDNA 2 ISA guide, V_FREXP_MANT_F32 / V_FREXP_EXP_I32_F32."),
    r("transcendental.approximation", Inferred,
      "rcp, rsq, sqrt, log2, exp2, sin and cos (turns) return the correctly rounded value of the exact function, special values chosen on the bits; conformance compares them with the tolerance of rules::tolerance_ulp.",
      "The hardware approximation is undocumented. Seed 000: RADV returns the hardware's bits for rcp, rsq, sqrt, log (every f16 input, 32,832 f32 inputs on gfx1036); hardware log2 within 1 ULP of correctly rounded near 1.0; hardware sin/cos up to 9 ULP from the true value (gfx1035, 243,092 inputs)."),
    r("div.scale", Documented,
      "v_div_scale follows the RDNA ISA guide's pseudo-code; its inputs flush by the field (measured) and a NaN is never quieted (measured).",
      "RDNA 2 ISA guide V_DIV_SCALE_F32/F64; seed 000 (f32 denormals entry: 2744 operand triples on gfx1036) and signalling NaN entry."),
    r("div.fmas", Documented,
      "v_div_fmas computes a*b+c once, scaled by 2^32 (f32) or 2^64 (f64) when VCC is set.",
      "RDNA 2 ISA guide, V_DIV_FMAS_F32/F64."),
    r("div.fmas.f64_flush", Measured,
      "v_div_fmas_f64 rounds subnormal operands and results once and, when the f16/f64 field flushes, flushes only its result.",
      "Seed 000 (v_fma_f64 and v_div_fmas_f64 entry): gfx1035 at IEEE 0 and 1, VCC clear and set."),
    r("div.fmas.f32_flush", Inferred,
      "v_div_fmas_f32 flushes only its result by the f32 field.",
      "Seed 000 states it ('on hardware v_div_fmas_f32 flushes only its result') in its list of instructions not covered by measurement."),
    r("div.fixup", Documented,
      "v_div_fixup returns the special quotient for NaN, zero and infinite operands and otherwise the estimate with the quotient's sign; it flushes src1 and src2 and keeps a denormal src0 and result (measured).",
      "RDNA 2 ISA guide V_DIV_FIXUP_F32; seed 000 (f32 denormals entry: 6859 rows per mode, gfx1036)."),
    r("cube.ops", Documented,
      "v_cubeid/sc/tc/ma choose the major axis (z, then y, then x on ties) and return the face id, coordinates and twice the major coordinate; a NaN result is quieted only with IEEE 1 and keeps its sign (measured).",
      "RDNA 2 ISA guide V_CUBE*_F32; seed 000 (signalling NaN entry, gfx1036)."),
    r("interp.f32", Inferred,
      "v_interp_p1_f32 / v_interp_p2_f32 arithmetic rounds p * w + acc once in the f32 fields.",
      "Seed 000 says f32 interpolation was not measured."),
    r("interp.f16", Measured,
      "v_interp_p1ll/p1lv_f16 round the exact p10*i + p0 once to f32, v_interp_p2_f16 rounds p20*j + s2 once to f16; f32 denormals flush i/j, s2 and f32 results, f16 denormals flush p0, p10/p20 and f16 results; NaN quieted only with IEEE 1, except v_interp_p2_f16's result which is always quiet.",
      "Seed 000 (v_interp_*_f16 entry): gfx1035, all eight IEEE/denormal combinations, 768 special and 1,024 random rows (#697)."),
    // Interpreter (wave execution, integer, control flow, memory, cross-lane).
    r("exec.initial_registers", Inferred,
      "At launch the user SGPRs, workgroup ids, v0 (thread id in the workgroup) and EXEC (the lanes that exist) are set as the ABI says; every other register, VCC, M0 and SCC start at 0.",
      "DESIGN.md kernel ABIs; the hardware leaves the other registers undefined, so 0 is the model's choice and no measured kernel reads them before writing."),
    r("salu.setkill", Measured,
      "s_setkill ends the wave like s_endpgm, for any immediate.",
      "Seed 000 (s_setkill entry): measured on RDNA2 gfx1035, a store before it is visible and nothing after it runs."),
    r("salu.sethalt", Measured,
      "s_sethalt with SIMM16[0] clear is a no-op; with it set the model refuses the job (Unsupported).",
      "Seed 000 (s_sethalt entry): measured on a gfx1035 wave, s_sethalt 0 followed by a VALU op completes normally."),
    r("salu.cdbg_not_taken", Inferred,
      "s_cbranch_cdbgsys/cdbguser and their and/or forms never branch: the debug conditions are clear outside a debugger.",
      "RDNA 2 ISA guide, program control (the conditions test debug bits the driver sets only under a debugger); peer-scalar-program-flow runs them and passes."),
    r("salu.movrel_range", Inferred,
      "s_movrels/s_movreld with an index past the SGPR file read 0 and drop the write.",
      "Not measured; chosen so an out-of-range index never corrupts TTMP, M0 or EXEC."),
    r("salu.bfe_signed_shift", PeerPinned,
      "s_bfe_i32/i64 shift S0 arithmetically, so a field that runs past the top bit (offset + width beyond the register, width up to 127) takes the sign of S0; width 0 gives 0. v_bfe_i32 is modelled the same way (inferred for the VALU form).",
      "peer-scalar-sop2 columns 43 (bfe_i32) and 58/59 (bfe_i64), pinned on RDNA2: e.g. S0 a161d909 with offset 31 and width 64 gives ffffffff."),
    r("salu.saveexec_width", PeerPinned,
      "The _b64 saveexec/wrexec forms read and write the whole EXEC pair and a 64-bit destination, the _b32 forms EXEC_LO and one SGPR, whatever the wave size.",
      "peer-scalar-sop1 (wave32 kernel running the _b64 forms, columns 89-159), pinned on RDNA2."),
    r("valu.d16_preserve", PeerPinned,
      "A 16-bit VALU result is written to the low half of the destination (or the high half with VOP3 op_sel[3]) and the other half keeps its value.",
      "peer-float16-rounding (f16 results keep the destination's high half), pinned on RDNA2; the same rule for 16-bit integer results is inferred."),
    r("valu.mask_inactive_zero", Documented,
      "A VALU compare or carry-out writes its whole mask register: lanes that did not compute (EXEC off, or a DPP-disabled lane) read 0.",
      "RDNA 2 ISA guide, VOPC and VOP3b descriptions; peer-vopc-compare and peer-scalar-program-flow pass with it."),
    r("valu.quad_sad", Documented,
      "v_qsad_pk_u16_u8, v_mqsad_pk_u16_u8 and v_mqsad_u32_u8 slide a 4-byte window over the 8 bytes of source 0 (starting at bytes 0..3), take its SAD (masked: reference bytes of 0 skipped) against source 1 and add it to the window's 16-bit (truncated) or 32-bit accumulator field of source 2. Their clamp bit is refused (Unsupported).",
      "AMD RDNA 3 ISA guide pseudo-code for the three opcodes (same definitions as the GCN guides); not measured. The SAD clamp evidence (rule valu.sad_clamp) covers the single SADs only."),
    r("valu.cmpx_exec_only", Documented,
      "On gfx10 v_cmpx_* writes EXEC only (no VCC or SGPR destination).",
      "LLVM 19 AMDGPU (gfx10 v_cmpx has no sdst operand); RDNA 2 ISA guide VOPC chapter."),
    r("valu.readfirstlane_empty_exec", Documented,
      "v_readfirstlane_b32 with EXEC zero reads lane 0.",
      "AMD Vega ISA section 12.8, V_READFIRSTLANE_B32 (cited by seed 000); not measured on RDNA."),
    r("valu.readlane_wrap", Inferred,
      "v_readlane_b32 / v_writelane_b32 take the lane select modulo the wave size.",
      "Not measured: peer-read-lane (lane selects 37 and 69 read lane 5 in wave32) is a peer-formula suite, its expectation the peer's own formula. The oracle template that settles it runs v_readlane_b32 with selects 32..127 in wave32 and 64..127 in wave64."),
    r("valu.movrel_range", Measured,
      "v_movrel* with an index (base register + M0) at or past the register window read v0 and drop the write.",
      "Seed 000 (relative addressing entry): M0 is unsigned; measured on RDNA2 gfx1035 (agc_driver_relative_indexing). The model's window is the whole v0..v255 file."),
    r("valu.sad_clamp", PeerPinned,
      "With clamp, v_sad_u8, v_sad_hi_u8, v_sad_u16, v_sad_u32 and v_msad_u8 saturate their unsigned 32-bit result at 0xffffffff instead of wrapping.",
      "Rows pinned from RDNA2 hardware in measured data the project does not see: saturation fits every clamped cell and wrapping fails exactly those that overflow. AMD's guides say only that overflow into the upper bits is allowed."),
    r("valu.int_clamp", Documented,
      "clamp on integer add and subtract (v_add/sub/subrev_nc_u32/i32, the 16-bit and packed forms) and on the integer dot products saturates the exact result to the destination type's range, unsigned or signed by the opcode.",
      "LLVM's AMDGPU backend selects the saturating intrinsics (llvm.uadd.sat, usub.sat, sadd.sat, ssub.sat) as these instructions with clamp, and the clamp operand of llvm.amdgcn.sdot2/udot2/sdot4/udot4/sdot8/udot8 as the dot's clamp bit (llvm/lib/Target/AMDGPU, VOP2/VOP3/VOP3P instruction patterns). Not measured."),
    r("valu.int_clamp.mad", Inferred,
      "clamp on the integer multiply-adds (v_mad_u32_u24, v_mad_i32_i24, v_mad_u16, v_mad_i16, v_mad_u32_u16, v_mad_i32_i16, v_pk_mad_u16/i16) saturates the exact result like valu.int_clamp; clamp on other integer operations, and on the carry and 64-bit multiply-add forms, is refused.",
      "By analogy with valu.int_clamp; LLVM 19 accepts the bit on these opcodes but no document or measurement gives its effect."),
    r("valu.cndmask_modifiers", Documented,
      "The neg and abs bits of v_cndmask_b32's two data sources (VOP3 and DPP16) are sign-bit operations on the selected 32-bit value; v_mov_b32's are refused.",
      "LLVM 19 accepts neg/abs on v_cndmask_b32 (it folds fneg/fabs of a select into them) and rejects them on v_mov_b32 (llvm-mc, gfx1013 and gfx1030). Not measured."),
    r("valu.permlane_fi_bound_ctrl", Inferred,
      "v_permlane16_b32 / v_permlanex16_b32: op_sel[0] is fetch-inactive and op_sel[1] bound_ctrl. Lane l of a row reads the lane its 4-bit select names in its row (permlanex16: in the other row of the pair); an inactive source lane is read only with fetch-inactive; otherwise the lane gets 0 with bound_ctrl and keeps its old value without. Other op_sel bits are refused.",
      "The field assignment is documented by LLVM (llvm.amdgcn.permlane16/x16 take old, src, two lane-select words, fi and bound_ctrl, and llvm/test/CodeGen/AMDGPU/llvm.amdgcn.permlane.ll prints fi as op_sel:[1,0]); seed 000 describes the same inactive-lane behaviour for its translation. The inactive-lane result is not measured."),
    r("valu.movrel_dpp16", PeerPinned,
      "v_movrels/movreld/movrelsd/movrelsd_2_b32 in DPP16 form read src0 from the DPP-selected lane as any VOP1 does: the relatively addressed register for movrels and movrelsd, the plain source for movreld, whose destination is the relative one; DPP16's row/bank masks and bound_ctrl apply as usual.",
      "Rows pinned from RDNA2 hardware in measured data the project does not see fit this reading; no document defines DPP on relative moves. Their SDWA forms (which LLVM 19 accepts) are refused."),
    r("valu.movrel_dpp8", Inferred,
      "The DPP8 forms of the relative moves select src0's lane as valu.movrel_dpp16 does.",
      "By analogy with the DPP16 rows (rule valu.movrel_dpp16); not measured."),
    r("valu.pk_fmac_dpp", PeerPinned,
      "v_pk_fmac_f16 in DPP16 and DPP8 form (VOP2 0x3c, which LLVM 19 rejects) computes the packed f16 fused multiply-add of each half, src0 read from the DPP-selected lane, accumulating into the destination; its DPP16 neg/abs bits are refused.",
      "Rows pinned from RDNA2 hardware in measured data the project does not see; llvm-project PR #144782 added these forms for GFX10 and AMD's SP3 assembler accepts them."),
    r("nan.pack_b32_quiet", Measured,
      "v_pack_b32_f16 quiets each signalling-NaN half with IEEE 1 and leaves it unchanged with IEEE 0, the rule of the f16 unary results.",
      "Seed 000 (signalling NaN inputs entry): measured on RDNA2 (gfx1036) in both modes."),
    r("div.fixup_f16_nan_quotient", PeerPinned,
      "v_div_fixup_f16 with a NaN quotient estimate S0 (quiet or signalling) and S1, S2 neither NaN, zero nor infinite gives the infinity of sign S1 xor S2, not the NaN the guide's pseudo-code passes through; with FP16_OVFL 1 that infinity is then clamped to +-0x7bff.",
      "Rows pinned from RDNA2 hardware (FLOAT_MODE f0, IEEE 1, DX10_CLAMP 1, FP16_OVFL 0) in measured data the project does not see: S0 7e00, S1 bc00, S2 6dd1 gives fc00; S0 7de0, S1 bc00, S2 c000 gives 7c00. Seed 000 (FP16_OVFL entry, gfx1036, IEEE 0 and 1) agrees for FP16_OVFL 1: v_div_fixup_f16 clamps any other infinite quotient, a NaN one included. The f32 and f64 forms keep the documented pass-through (rule div.fixup)."),
    r("atomic.float_non_lds", Inferred,
      "Buffer, global and flat float atomics (fmin, fmax, fcmpswap and their x2 forms) apply the LDS float atomic rules (lds.float_minmax, lds.float_cmpst) by design.",
      "Not measured: seed 003 measured the LDS forms only; seed 000 says its recompiler shares that code with the buffer float atomics."),
    r("dpp.row_patterns", Documented,
      "DPP16 lane patterns: quad_perm, row_shl/shr/ror (within 16-lane rows), row_mirror, row_half_mirror, and gfx10's row_share (every lane reads lane n of its row) and row_xmask (lane l reads l xor n).",
      "RDNA 2 ISA guide, DPP16 dpp_ctrl table; peer-dpp16-row-share-xmask pins row_share and row_xmask on RDNA2."),
    r("dpp.invalid_source", Documented,
      "A DPP16 source lane outside the row, or inactive without fetch-inactive (fi), reads 0 when bound_ctrl is set and otherwise disables the lane's write; row_mask/bank_mask-disabled lanes keep their value.",
      "RDNA 2 ISA guide, DPP16 (bound_ctrl, fi, row_mask, bank_mask); peer-dpp16-row-share-xmask."),
    r("dpp8.inactive_source", PeerPinned,
      "DPP8: lane i reads lane (i & ~7) + sel[i & 7]; without fi an inactive source lane reads 0; inactive destination lanes keep their value.",
      "peer-dpp8 (Dpp8, pinned on RDNA2), columns 8-11 run with EXEC 0x5a5af0f3."),
    r("sdwa.select_merge", Documented,
      "SDWA sources read the selected byte or word, zero- or sign-extended (sext); the destination field takes the result and the other bits are zero (UNUSED_PAD), the field's sign (UNUSED_SEXT) or the old value (UNUSED_PRESERVE).",
      "RDNA 2 ISA guide, SDWA; peer-sdwa-integer-selectors pins the selectors on RDNA2."),
    r("buffer.range_check", Documented,
      "Buffer accesses are range-checked by OOB_SELECT: 0 index and offset against NUM_RECORDS and the stride, 1 index only, 2 only NUM_RECORDS 0, 3 (raw) the byte offset plus size against NUM_RECORDS (SOFFSET excluded). Out of range loads read 0 and stores are dropped; multi-dword accesses are checked per dword, format loads and atomics all or nothing.",
      "RDNA 2 ISA guide, buffer range checking; peer-buffer-load-store pins the raw (3) and structured (1) cases on RDNA2."),
    r("buffer.swizzle_element_4", Inferred,
      "Swizzled buffer addressing uses 4-byte elements (gfx10 has no ELEMENT_SIZE field) with INDEX_STRIDE 8 << field lanes.",
      "RDNA 2 ISA guide, swizzled addressing; the swizzled runtime-descriptor case of peer-buffer-load-store (formula expectation) passes with it."),
    r("buffer.format_convert", Documented,
      "Format loads convert each component (UINT/SINT extend, FLOAT f16 widened, UNORM/SNORM divide by the largest code, USCALED/SSCALED convert the integer), fill missing components with (0, 0, 0, 1) and swizzle by DST_SEL.",
      "RDNA 2 ISA guide, buffer data formats; unified format codes as LLVM 19 names them for gfx1030 (BUF_FMT_*). peer-buffer-load-store pins 32_UINT, 8_UINT, 16_UINT and 8_8_UINT with DST_SEL."),
    r("smem.buffer_range", Inferred,
      "s_buffer_load dwords whose offset reaches past NUM_RECORDS read 0; s_load ignores the address's low two bits.",
      "RDNA 2 ISA guide, scalar memory; the range rule is inferred from the vector buffer rule."),
    r("lds.out_of_range", Measured,
      "LDS reads past the workgroup's allocation return 0 and writes are dropped.",
      "Seed 000 (ds_condxchg32_rtn_b64 entry, RDNA2 gfx1035); peer-lds-read-write pins past-the-end b32/b64 reads on RDNA2."),
    r("lds.misaligned_fault", Measured,
      "A misaligned ds_condxchg32_rtn_b64 faults the wave (the model returns Fault).",
      "Seed 000 (ds_condxchg32_rtn_b64 entry): misaligned accesses fault the wave on gfx1035."),
    r("lds.misaligned_fault.widths", Inferred,
      "Every LDS access faults when misaligned: 2-byte accesses need 2-byte alignment, wider ones dword alignment, 64-bit atomics 8 bytes.",
      "Generalised from the one measured instruction (rule lds.misaligned_fault); the per-width alignments are not measured."),
    r("lds.atomic_lane_order", Inferred,
      "LDS and memory atomics of one instruction apply lane by lane in ascending lane order.",
      "Seed 000 leaves contended lane ordering unmeasured; peer-lds-atomics has no contended addresses."),
    r("flat.shared_aperture", Measured,
      "A flat address whose high dword is 0x00010000 goes to LDS (the shared aperture); other flat addresses go to global memory. The 64-bit reads of src_shared_base / src_shared_limit give 0x00010000_00000000 / 0x00010000_ffffffff; 32-bit reads are refused.",
      "Seed 000 (flat aperture bases): src_shared_base 0x00010000_00000000 and src_shared_limit 0x00010000_ffffffff measured on RDNA2 gfx1035. What a 32-bit read of these sources gives (the low dword, or the high one as older LLVM versions assumed in SIISelLowering.cpp getSegmentAperture) is not measured, so the model refuses it. The PS5's aperture is not measured (a peer recompiler infers high dword 0x80000000 from game addresses, seed 000), so gfx1013 uses the RDNA2 value."),
    r("ds.addtid", Documented,
      "ds_read_addtid_b32 / ds_write_addtid_b32 address LDS at the instruction offset + M0[15:0] + 4 * lane id; the ADDR VGPR is not used.",
      "AMD CDNA and RDNA 3 ISA guides (ADDTID description: M0 supplies a 16-bit byte offset, the thread id a dword index); not measured."),
    r("ds.append_consume", Documented,
      "LDS ds_append / ds_consume add / subtract the number of active lanes to the dword at the instruction offset (M0 unused for LDS) and return the old value to every active lane.",
      "AMD RDNA ISA guide, DS_APPEND / DS_CONSUME (M0.base applies to GDS only); not measured."),
    r("ds.wrxchg2_order", Measured,
      "ds_wrxchg2*_rtn performs every lane's first exchange (data0 at offset0) before any lane's second (data1 at offset1), each lane getting the two old values; equal offsets are two exchanges in order.",
      "Seed 000 (ds_wrxchg2_rtn entry): RDNA2 (gfx1035) performs every lane's first exchange before any lane's second one."),
    r("ds.src2", Documented,
      "gfx1013's ds_*_src2_* forms compute DS[A] = DS[A] op DS[B] per active lane in ascending order: A is the address VGPR, B = A + 4 * S with the 16-bit S = {A[31], A[31:17]} when offset bit 15 is set (then only A[16:0] addresses LDS) and S = {offset[14], offset[14:0]} otherwise; misaligned A or B faults like other LDS accesses.",
      "AMD GCN3 ISA guide, DS_*_SRC2_* descriptions (B formula); the A[16:0] mask follows the CLRX GCN ISA notes; the fault on misalignment is the measured lds.misaligned_fault rule carried over (inferred). gfx1030 does not decode these opcodes (LLVM 19)."),
    r("smem.cache_ops", Inferred,
      "Cache maintenance (s_dcache_inv/wb/discard, s_gl1_inv, buffer_gl0_inv, buffer_gl1_inv) and s_atc_probe* change nothing: the model has no caches and its scalar stores write through.",
      "The RDNA ISA guides describe them as cache and TLB operations only; a discard of dirty scalar-cache lines could lose a store on hardware that the model keeps (not measured)."),
    r("smem.atomics", Inferred,
      "gfx1013's scalar atomics (s_atomic_*, s_buffer_atomic_*) apply the buffer atomic of the same name once per wave, data and compare data in SDATA, the old value returned to SDATA when GLC is set, the element written only when all of it lies within the buffer; scalar stores write SDATA dwords to the dword-aligned address or buffer dword, dropped past NUM_RECORDS.",
      "The RDNA 1 ISA guide's SMEM chapter lists scalar stores and atomics under the buffer atomics' operation names; that each behaves as its same-named buffer atomic is inferred from that. gfx1030 has neither (LLVM 19 does not decode them). Not measured."),
    r("buffer.atomic_csub", Documented,
      "buffer_atomic_csub / global_atomic_csub (gfx1030) store old - data, or 0 when data exceeds old, and return old.",
      "AMD RDNA 3 ISA guide pseudo-code for BUFFER_ATOMIC_CSUB_U32 / GLOBAL_ATOMIC_CSUB_U32; not measured."),
    r("global.addtid", Documented,
      "gfx1030's global_load_dword_addtid / global_store_dword_addtid address SADDR + offset + 4 * lane id; there is no address VGPR.",
      "AMD RDNA 2 ISA guide, GLOBAL_LOAD_DWORD_ADDTID / GLOBAL_STORE_DWORD_ADDTID (base in a scalar register, offset from the thread id); not measured."),
    r("ds.swizzle_modes", Documented,
      "ds_swizzle_b32: offset >= 0xe000 FFT mode, >= 0xc000 rotate within 32 lanes, bit 15 quad permute, else and/or/xor bit masks within 32 lanes; an EXEC-off source lane reads 0.",
      "RDNA 2 ISA guide, DS_SWIZZLE_B32; peer-ds-swizzle (Expected tables hand-written from hardware) pins the bit-mask, quad and rotate modes."),
    r("ds.permute_inactive_zero", Documented,
      "ds_permute_b32 / ds_bpermute_b32 address lanes by (addr + offset) / 4 modulo the wave size; lanes not written, and reads of EXEC-off lanes, give 0.",
      "AMD GCN3 ISA guide, DS_PERMUTE_B32 / DS_BPERMUTE_B32; not measured in the peer corpus."),
];

/// The measured suites whose cells exercise each rule; reports show each rule's pass/fail count over them.
/// A rule without suites has no measured rows in the bundled data (its evidence is a seed or a document).
pub static SUITES: &[(&str, &[&str])] = &[
    (
        "modifier.neg_abs_bits",
        &["peer-f32-arithmetic-nan", "peer-f16-min-max-nan"],
    ),
    ("f32.denorm.arith", &["peer-f32-denormal-flush"]),
    ("f32.tininess.after_rounding", &["peer-f32-denormal-flush"]),
    ("f16.denorm.field_bits", &["peer-f16-min-max-nan"]),
    ("f16.tininess.after_rounding", &["peer-float16-rounding"]),
    ("nan.select.first_source", &["peer-f32-arithmetic-nan"]),
    (
        "nan.quiet.ieee_only",
        &[
            "peer-f32-arithmetic-nan",
            "peer-f64-arithmetic",
            "peer-f64-nan-conversions",
        ],
    ),
    ("nan.cvt_f64_f32", &["peer-f64-nan-conversions"]),
    (
        "legacy.zero_product",
        &["peer-f32-arithmetic-nan", "peer-fma-legacy"],
    ),
    ("legacy.fma_rdna2", &["peer-f32-arithmetic-nan"]),
    ("legacy.mad_gfx10", &["peer-fma-legacy"]),
    (
        "omod.mode_dependent",
        &["peer-f32-output-modifier", "peer-f32-arithmetic-nan"],
    ),
    ("clamp.dx10", &["peer-f32-output-modifier"]),
    (
        "minmax.nan.ieee0",
        &[
            "peer-f32-min-max-nan",
            "peer-f16-min-max-nan",
            "peer-f64-arithmetic",
        ],
    ),
    (
        "minmax.nan.ieee1",
        &["peer-f32-min-max-nan", "peer-f16-min-max-nan"],
    ),
    (
        "minmax.signed_zero",
        &["peer-f32-min-max-nan", "peer-f16-min-max-nan"],
    ),
    ("minmax.denorm_inputs", &["peer-f16-min-max-nan"]),
    (
        "minmax.three_as_pairs",
        &["peer-f32-min-max-nan", "peer-f16-min-max-nan"],
    ),
    (
        "minmax.med3_nan",
        &["peer-f32-min-max-nan", "peer-f16-min-max-nan"],
    ),
    ("cmp.denorm_inputs", &["peer-vopc-compare"]),
    ("lds.float_minmax", &["peer-lds-atomics"]),
    ("lds.float_cmpst", &["peer-lds-atomics"]),
    ("lds.add_f32", &["peer-lds-atomics"]),
    (
        "cvt.float_to_int",
        &["peer-vop1-vop2-integer", "peer-f32-denormal-flush"],
    ),
    ("cvt.flr_rpi_nan_sign", &["peer-vop1-vop2-integer"]),
    ("salu.cdbg_not_taken", &["peer-scalar-program-flow"]),
    ("salu.bfe_signed_shift", &["peer-scalar-sop2"]),
    ("salu.saveexec_width", &["peer-scalar-sop1"]),
    ("valu.d16_preserve", &["peer-float16-rounding"]),
    (
        "valu.mask_inactive_zero",
        &["peer-vopc-compare", "peer-scalar-program-flow"],
    ),
    ("valu.readlane_wrap", &["peer-read-lane"]),
    ("dpp.row_patterns", &["peer-dpp16-row-share-xmask"]),
    ("dpp.invalid_source", &["peer-dpp16-row-share-xmask"]),
    ("dpp8.inactive_source", &["peer-dpp8"]),
    (
        "sdwa.select_merge",
        &["peer-sdwa-integer-selectors", "peer-f16-min-max-nan"],
    ),
    ("buffer.range_check", &["peer-buffer-load-store"]),
    ("buffer.swizzle_element_4", &["peer-buffer-load-store"]),
    ("buffer.format_convert", &["peer-buffer-load-store"]),
    ("lds.out_of_range", &["peer-lds-read-write"]),
    ("ds.swizzle_modes", &["peer-ds-swizzle"]),
];

/// For each rule that is not `Measured`, the measurement that would settle it: the oracle template (instruction,
/// float mode, operand classes, what is read back) that an RDNA owner can run with `oracle collect`.
pub static SETTLE: &[(&str, &str)] = &[
    (
        "minmax.signed_zero",
        "v_min/max_f32, _f16 and _f64 and v_min3/max3/med3 with (+0, -0) and (-0, +0) in both operand orders at IEEE 0 and 1; read the result's sign.",
    ),
    (
        "cvt.flr_rpi_nan_sign",
        "v_cvt_flr_i32_f32 and v_cvt_rpi_i32_f32 of quiet and signalling NaNs of both signs with payloads, at IEEE 0 and 1; read the result.",
    ),
    (
        "salu.bfe_signed_shift",
        "s_bfe_i32, s_bfe_i64 and v_bfe_i32 with offsets 0..63 and widths 0..127 (packed in S1) on sign-set and sign-clear S0; read the result.",
    ),
    (
        "salu.saveexec_width",
        "s_and_saveexec_b64 / s_or_saveexec_b32 and the other saveexec forms in wave32 and wave64 with EXEC_HI non-zero; read the destination pair and EXEC.",
    ),
    (
        "valu.d16_preserve",
        "v_add_f16, v_cvt_f16_f32, v_add_nc_u16 and v_mad_u16 (op_sel[3] clear and set) with a marker in the destination's other half; read the whole destination dword.",
    ),
    (
        "dpp8.inactive_source",
        "v_mov_b32 and v_add_f32 in DPP8 form with EXEC 0x5a5af0f3, fi 0 and 1, sources naming inactive lanes; read every lane's destination.",
    ),
    (
        "round.mode_field.others",
        "v_add/sub/mul/fma_f32, v_add/mul/fma_f16 and v_add/mul/fma_f64 in FLOAT_MODE round fields 1, 2 and 3 (denormals kept, IEEE 0 and 1); operands: the 14 f32/f16/f64 special classes plus 256 random pairs whose exact result is not representable; read the result.",
    ),
    (
        "f16.denorm.field_bits.others",
        "v_fma_f16, v_min3/max3/med3_f16, v_div_fixup_f16 and v_pk_add/mul/fma_f16 in f16 denormal fields 0..3 (IEEE 0 and 1); operands: denormal halves of both signs against 1.0, -1.0 and each other; read the result.",
    ),
    (
        "f64.tininess.before_rounding.others",
        "v_add_f64, v_mul_f64 and v_ldexp_f64 with the f16/f64 field at 0 and 1; operands whose exact result lies in [2^-1022 (1 - 2^-53), 2^-1022) and rounds up to 2^-1022; read the result (0 means tininess before rounding).",
    ),
    (
        "nan.quiet.ieee_only.f16_f64",
        "v_add/mul/fma_f16 and v_add/mul/fma_f64 at IEEE 0 and 1; operands: signalling and quiet NaNs of both signs with payloads against 1.0 and against each other; read the result bits.",
    ),
    (
        "nan.default.f16_f64",
        "v_add_f16 (inf + -inf), v_mul_f16 (inf * 0), v_fma_f16 (0 * inf + 1), the same three for f64, and v_pk_fma_f16 (inf * 0 + 1) at IEEE 0 and 1; read the NaN bits.",
    ),
    (
        "nan.cvt_narrow_quiet",
        "v_cvt_f16_f32 of f32 NaNs 0x7f812345, 0xff812345, 0x7fc00001, 0x7f800001 and v_cvt_f32_f64 of f64 NaNs 0x7ff0000000000001, 0xfff4000000012345 at IEEE 0 and 1; read the result bits.",
    ),
    (
        "nan.dot2_quiet",
        "v_dot2_f32_f16 with signalling f16 NaN halves in each source position and an f32 signalling NaN c (0x7f812345) at IEEE 0 and 1; read the result bits.",
    ),
    (
        "omod.f16_f64",
        "v_add_f16 and v_add_f64 with mul:2, mul:4, div:2 at IEEE 0/1 and every f16/f64 denormal field; operands: +-0, +-1, the largest finite, the smallest normal and denormal values; read the result.",
    ),
    (
        "omod.denormal_result",
        "v_cubesc_f32 and v_div_fixup_f32 producing a denormal result (sources 0x007fffff, 0x00400000) with mul:2, mul:4 and div:2 in FLOAT_MODE 0xc0 and 0xf0; read the result.",
    ),
    (
        "minmax.denorm_inputs.others",
        "v_min3/max3/med3_f16 in f16 fields 0..3 and v_min/max/med3_f32 in f32 fields 1 and 2 with denormal operands whose min or max is the denormal; read the result (flushed or kept).",
    ),
    (
        "div.fmas.f32_flush",
        "v_div_fmas_f32 with VCC clear and set, f32 field 0..3, operands giving a denormal result (a = 2^-130, b = 1, c = 0) and denormal operands with a normal result; read the result.",
    ),
    (
        "lds.misaligned_fault.widths",
        "ds_read_u16, ds_read_b32, ds_read_b64, ds_write_b32, ds_add_u32 and ds_add_u64 at addresses 1, 2, 4 and 6; read whether the wave faults (the oracle's dispatch times out or reports the fault) and the stored values.",
    ),
    (
        "valu.int_clamp.mad",
        "v_mad_u32_u24, v_mad_i32_i24, v_mad_u16, v_mad_i16, v_mad_u32_u16, v_mad_i32_i16 and v_pk_mad_u16/i16 with clamp; operands whose exact result overflows in both directions; read the result (saturated or wrapped).",
    ),
    (
        "valu.permlane_fi_bound_ctrl",
        "v_permlane16_b32 and v_permlanex16_b32 with EXEC 0x5a5af0f3 (wave32 and wave64), op_sel:[0,0], [1,0], [0,1] and [1,1], selects naming inactive lanes, vdst pre-filled with a marker; read every lane's vdst.",
    ),
    (
        "valu.movrel_dpp16",
        "v_movrels_b32, v_movreld_b32, v_movrelsd_b32 and v_movrelsd_2_b32 in DPP16 form with quad_perm:[1,0,3,2], row_shr:1 (bound_ctrl 0 and 1) and row_mask:0x5, M0 = 2, EXEC with inactive lanes; read v0..v15 of every lane.",
    ),
    (
        "valu.movrel_dpp8",
        "The four relative moves in DPP8 form (dpp8:[7,6,5,4,3,2,1,0] and a broadcast), fi 0 and 1, M0 = 2, EXEC with inactive lanes; read v0..v15 of every lane.",
    ),
    (
        "valu.sad_clamp",
        "v_sad_u8, v_sad_hi_u8, v_sad_u16, v_sad_u32 and v_msad_u8 with clamp and accumulators 0xffffff00..0xffffffff; read the result (already pinned by peer rows; this measures it with the project's oracle).",
    ),
    (
        "valu.pk_fmac_dpp",
        "v_pk_fmac_f16 in DPP16 (quad_perm, row_shl:1 with bound_ctrl, row/bank masks) and DPP8 form, written as words (LLVM 19 cannot assemble them), with f16 special values in both halves; read the destination.",
    ),
    (
        "valu.readlane_wrap",
        "v_readlane_b32 and v_writelane_b32 with lane selects 0..127 in wave32 and wave64; read the scalar result and every lane of the written VGPR.",
    ),
    (
        "div.fixup_f16_nan_quotient",
        "v_div_fixup_f16 with S0 quiet and signalling NaNs and S1, S2 over the f16 special classes at IEEE 0 and 1, FP16_OVFL 0 and 1; read the result (already pinned by peer rows for IEEE 1, FP16_OVFL 0).",
    ),
    (
        "div.fixup",
        "v_div_fixup_f32 and v_div_fixup_f64 with a NaN S0 (quiet and signalling) and ordinary S1, S2 at IEEE 0 and 1; read whether the result is the NaN or an infinity as v_div_fixup_f16 gives (rule div.fixup_f16_nan_quotient).",
    ),
    (
        "atomic.float_non_lds",
        "buffer_atomic_fmin/fmax/fcmpswap (and _x2, global_ and flat_ forms) over the 14 x 14 operand sets of seed 003 at IEEE 0 and 1 with every denormal field; read memory and the returned values.",
    ),
    (
        "f32.denorm.modes_1_2",
        "v_add/mul/fma_f32 with the f32 denormal field at 1 and 2; operands: denormal inputs with normal results and normal inputs with denormal results; read the result.",
    ),
    (
        "f32.tininess.fma_addend",
        "v_fma_f32 with a non-zero addend whose exact sum lies just below 2^-126 in all four f32 round modes, f32 results flushed; read the result.",
    ),
    (
        "f64.denorm.field",
        "v_add/mul_f64, v_min/max_f64, v_floor/fract_f64 and conversions to and from f64 with the f16/f64 field at 0..3 and denormal operands and results; read the result.",
    ),
    (
        "legacy.mad_product_tininess",
        "v_mad_legacy_f32 on gfx1013 with products whose exact value lies just below 2^-126 and rounds to it; read the result.",
    ),
    (
        "mad.unfused_flush",
        "v_mad_f32, v_mac_f32, v_madak_f32 and v_madmk_f32 on gfx1013 in f32 fields 0..3 with denormal operands and products; read the result.",
    ),
    (
        "mad.unfused_f16",
        "v_mad_f16 / v_mac_f16 where present, rounding-sensitive products (f16 operands whose product needs more than 11 bits); read the result.",
    ),
    (
        "mix.f16_source_denorm",
        "v_fma_mix_f32 with f16 denormal sources (op_sel_hi set) in f16 fields 0..3; read the result.",
    ),
    (
        "dot2.single_rounding",
        "v_dot2_f32_f16 with operands whose two products cancel except for bits below f32 precision; read the result.",
    ),
    (
        "minmax.f64_denorm_inputs",
        "v_min_f64 and v_max_f64 with denormal operands in f16/f64 fields 0..3; read the result.",
    ),
    (
        "lds.add_f32",
        "ds_add_f32 and ds_add_rtn_f32 over seed 003's 14 x 14 operand sets at IEEE 0 and 1 with every f32 denormal field; read memory and the returned value.",
    ),
    (
        "cvt.pknorm",
        "v_cvt_pknorm_i16_f32 and v_cvt_pknorm_u16_f32 with values at code midpoints (k + 0.5) / 32767 and / 65535, NaN, +-inf; read the result.",
    ),
    (
        "cvt.pk_u8",
        "v_cvt_pk_u8_f32 with values at .5 boundaries, NaN, negative and above 255, in all four f32 round modes; read the result.",
    ),
    (
        "cvt.norm_f16",
        "v_cvt_norm_i16_f16, v_cvt_norm_u16_f16 and the pknorm f16 forms with f16 values at code midpoints, denormals in f16 fields 0..3, NaN; read the result.",
    ),
    (
        "mullit.zero_factor",
        "v_mullit_f32 with a zero factor against an infinite or NaN factor, src2 > 0; read the result.",
    ),
    (
        "transcendental.approximation",
        "v_rcp/rsq/sqrt/log/exp/sin/cos_f32 over every f32 input (a 2^32 sweep, sharded), the f16 forms over every f16 input and the f64 forms over 2^24 random inputs, in the title mode; read the result.",
    ),
    (
        "interp.f32",
        "v_interp_p1_f32 / v_interp_p2_f32 in a pixel wave with known attribute data; read the results in f32 denormal fields 0..3.",
    ),
    (
        "exec.initial_registers",
        "A kernel under oracle-v1 that stores v1..v3, v26..v255, VCC, M0 and SCC before writing them; read the stored values.",
    ),
    (
        "salu.cdbg_not_taken",
        "s_cbranch_cdbgsys/cdbguser and the and/or forms in a wave without a debugger attached; read which path stores.",
    ),
    (
        "salu.movrel_range",
        "s_movrels_b32/b64 and s_movreld_b32/b64 with M0 indexes reaching past s105; read the destination and the SGPRs after s105 (through s_mov to VGPRs).",
    ),
    (
        "buffer.swizzle_element_4",
        "buffer_load/store_dword with a swizzled V# (every INDEX_STRIDE, stride 4..16), several lanes and offsets; read the memory layout.",
    ),
    (
        "smem.buffer_range",
        "s_buffer_load_dword/x2/x4/x8/x16 with offsets reaching past NUM_RECORDS by 0..16 bytes, and s_load_dword at addresses with low bits set; read the SGPRs.",
    ),
    (
        "lds.atomic_lane_order",
        "ds_add/min/max/wrxchg/cmpst with every lane of a wave32 and a wave64 on one address; read the returned values per lane.",
    ),
    (
        "smem.cache_ops",
        "s_store_dword (gfx1013) then s_dcache_discard, s_dcache_inv and s_dcache_wb, then a vector load of the same address; read the value.",
    ),
    (
        "smem.atomics",
        "gfx1013 s_atomic_add/swap/cmpswap and s_buffer_atomic_* on a buffer with NUM_RECORDS at the element boundary, GLC 0 and 1; read memory and SDATA.",
    ),
];

/// The template that would settle rule `name`, if one is listed.
pub fn settle_of(name: &str) -> Option<&'static str> {
    SETTLE.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The suites that exercise rule `name` (empty when none of the bundled data does).
pub fn suites_of(name: &str) -> &'static [&'static str] {
    SUITES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, s)| s)
}

/// The rule named `name`.
pub fn lookup(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// How many units in the last place conformance may allow between the model and a
/// measured value of a transcendental instruction (LLVM mnemonic without encoding
/// suffix). `None` for instructions the model claims bit-exact.
///
/// The figures are inferred (rule `transcendental.approximation`): the model is correctly
/// rounded, and seed 000 bounds the hardware's distance from the true function (1 ULP for
/// rcp, rsq, sqrt, log and exp, about 9 ULP for sin and cos in f32).
pub fn tolerance_ulp(op: &str) -> Option<u32> {
    Some(match op {
        "v_rcp_f32" | "v_rcp_iflag_f32" | "v_rsq_f32" | "v_sqrt_f32" | "v_log_f32"
        | "v_exp_f32" => 1,
        "v_sin_f32" | "v_cos_f32" => 10,
        "v_rcp_f16" | "v_rsq_f16" | "v_sqrt_f16" | "v_log_f16" | "v_exp_f16" | "v_sin_f16"
        | "v_cos_f16" => 1,
        "v_rcp_f64" | "v_rsq_f64" | "v_sqrt_f64" => 2,
        _ => return None,
    })
}
