//! A static check over emitted modules: no instruction whose result the SPIR-V or Vulkan specifications
//! leave undefined, or to the implementation, for some operand it can receive.
//!
//! What it enforces, per instruction:
//! - **Floats only as the host fast paths use them** ([`crate::sem::float`], "Host fast paths"): the one
//!   float type is scalar f32 and the module declares `RoundingModeRTE` for 32 bits (without float
//!   controls Vulkan leaves the rounding to the implementation; f64 it bounds only by single precision);
//!   a float value comes only from `OpBitcast`, `OpFAdd` or `OpFMul`, and the adds and multiplies are
//!   decorated `NoContraction` (a fused multiply-add rounds once where the engine's guards assume two
//!   roundings). No float comparison,
//!   classification or float-to-integer conversion appears at all (their NaN and out-of-range results are
//!   the implementation's), nor a float constant, vector, pointer, variable, parameter or return value, so
//!   denormals, NaN payloads and GLSL.std.450 `FMin`/`FMax`/`FClamp` never decide a result.
//! - **Extended instructions**: only the integer GLSL.std.450 ones, exact for every operand (`UMin`, `SMin`,
//!   `UMax`, `SMax`, `UClamp`, `SClamp`, `FindILsb`, `FindSMsb`, `FindUMsb`).
//! - **Shifts** (`OpShiftLeftLogical`, `OpShiftRightLogical`, `OpShiftRightArithmetic`): the amount is a
//!   constant below the width, or an `OpBitwiseAnd` with a constant below the width (a shift by the width
//!   or more is undefined).
//! - **Division and remainder** (`OpUDiv`, `OpUMod`, `OpSDiv`, `OpSRem`, `OpSMod`): the divisor is a non-zero
//!   constant (and not -1 for the signed ones, whose `MIN / -1` is undefined).
//! - **Bit-field instructions** (`OpBitFieldInsert`, `OpBitFieldSExtract`, `OpBitFieldUExtract`): offset and
//!   count constants whose sum fits the width.
//!
//! Not checked here: indices into arrays (workgroup and function arrays are indexed by values the emitter
//! bounds by construction: lane numbers, register numbers, slots modulo their count; guest-memory accesses
//! are range-checked in the module and the buffers are bound with robustBufferAccess2).

use rspirv::grammar::{OperandKind, INSTRUCTION_TABLE};
use rspirv::spirv::{Decoration, ExecutionMode, Op};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::OnceLock;

/// GLSL.std.450 instructions exact for every integer operand.
const EXACT_GLSL: [u32; 9] = [38, 39, 41, 42, 44, 45, 73, 74, 75];

/// Whether the check looks at opcode `op` (a definition it looks back at, or an instruction it checks);
/// everything else is skipped without the match.
fn watched(op: u32) -> bool {
    const fn table() -> [bool; 256] {
        let mut t = [false; 256];
        let ops = [
            Op::ExtInstImport,
            Op::TypeInt,
            Op::TypeFloat,
            Op::ExecutionMode,
            Op::Decorate,
            Op::Constant,
            Op::ExtInst,
            Op::UDiv,
            Op::SDiv,
            Op::UMod,
            Op::SRem,
            Op::SMod,
            Op::ShiftRightLogical,
            Op::ShiftRightArithmetic,
            Op::ShiftLeftLogical,
            Op::BitwiseAnd,
            Op::BitFieldInsert,
            Op::BitFieldSExtract,
            Op::BitFieldUExtract,
        ];
        let mut i = 0;
        while i < ops.len() {
            t[ops[i] as usize] = true;
            i += 1;
        }
        t
    }
    const WATCHED: [bool; 256] = table();
    (op as usize) < WATCHED.len() && WATCHED[op as usize]
}

/// Checks `spirv` (a whole module, host word order); the error names the first offending instruction by its
/// word offset and says what is undefined about it.
pub fn check(spirv: &[u32]) -> Result<(), String> {
    if spirv.len() < 5 || spirv[0] != 0x0723_0203 {
        return Err("not a SPIR-V module (magic number)".into());
    }
    // Integer type widths and constants by id (few), and per id the smallest constant operand of an
    // `OpBitwiseAnd` defining it, plus one (0: none below 255, or not an and). An id at or past the table
    // (a header bound larger than the module) is unknown: the check stays conservative.
    let mut width: HashMap<u32, u32> = HashMap::default();
    let mut consts: HashMap<u32, u64> = HashMap::default();
    let mut masked = vec![0u8; (spirv[3] as usize).min(spirv.len())];
    let bits_of = |width: &HashMap<u32, u32>, ty: u32| width.get(&ty).copied().unwrap_or(32);
    let mut glsl = None;
    let mut floats = Floats::default();
    let mut at = 5;
    while at < spirv.len() {
        let w = spirv[at];
        let (n, op) = ((w >> 16) as usize, w & 0xffff);
        if n == 0 || at + n > spirv.len() {
            return Err(format!(
                "word {at}: instruction of {n} words runs past the module"
            ));
        }
        let ins = &spirv[at..at + n];
        let bad = |what: &str| Err(format!("word {at}: opcode {op}: {what}"));
        if !floats.types.is_empty() {
            if let Err(what) = floats.check(op, ins) {
                return bad(&what);
            }
        }
        if !watched(op) {
            at += n;
            continue;
        }
        match op {
            x if x == Op::ExtInstImport as u32 => {
                let name: Vec<u8> = ins[2..]
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .take_while(|&b| b != 0)
                    .collect();
                if name == b"GLSL.std.450" {
                    glsl = Some(ins[1]);
                } else {
                    return bad(&format!("imports `{}`", String::from_utf8_lossy(&name)));
                }
            }
            x if x == Op::TypeInt as u32 => {
                width.insert(ins[1], ins[2]);
            }
            x if x == Op::TypeFloat as u32 => {
                let bits = ins.get(2).copied().unwrap_or(0);
                if bits != 32 {
                    return bad(&format!(
                        "a {bits}-bit float type: only f32 arithmetic is correctly rounded by Vulkan"
                    ));
                }
                if !floats.rte.contains(&bits) {
                    return bad(&format!(
                        "an f{bits} type without RoundingModeRTE for f{bits}: the device would pick the rounding"
                    ));
                }
                floats.types.insert(ins[1]);
            }
            x if x == Op::ExecutionMode as u32
                && n >= 4
                && ins[2] == ExecutionMode::RoundingModeRTE as u32 =>
            {
                floats.rte.insert(ins[3]);
            }
            x if x == Op::Decorate as u32
                && n >= 3
                && ins[2] == Decoration::NoContraction as u32 =>
            {
                floats.exact.insert(ins[1]);
            }
            x if x == Op::Constant as u32 => {
                let lo = ins[3] as u64;
                let hi = ins.get(4).copied().unwrap_or(0) as u64;
                consts.insert(ins[2], lo | hi << 32);
            }
            x if x == Op::ExtInst as u32
                && (Some(ins[3]) != glsl || !EXACT_GLSL.contains(&ins[4])) =>
            {
                return bad(&format!(
                    "extended instruction {} is not one of the exact integer GLSL.std.450 ones",
                    ins[4]
                ));
            }
            // Shifts: amount below the width.
            x if (Op::ShiftRightLogical as u32..=Op::ShiftLeftLogical as u32).contains(&x) => {
                let bits = bits_of(&width, ins[1]) as u64;
                let ok = match consts.get(&ins[4]) {
                    Some(&v) => v < bits,
                    None => masked
                        .get(ins[4] as usize)
                        .is_some_and(|&m| m != 0 && u64::from(m - 1) < bits),
                };
                if !ok {
                    return bad("a shift whose amount may reach the width");
                }
            }
            // Division and remainder.
            x if (Op::UDiv as u32..=Op::SMod as u32).contains(&x) => {
                let bits = bits_of(&width, ins[1]);
                let all = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                let signed = [Op::SDiv, Op::SRem, Op::SMod]
                    .iter()
                    .any(|&o| o as u32 == op);
                match consts.get(&ins[4]).copied() {
                    Some(0) | None => return bad("a division whose divisor may be zero"),
                    Some(v) if signed && v & all == all => return bad("a signed division by -1"),
                    _ => {}
                }
            }
            // Bit-field instructions: constant offset and count within the width.
            x if (Op::BitFieldInsert as u32..=Op::BitFieldUExtract as u32).contains(&x) => {
                let bits = bits_of(&width, ins[1]) as u64;
                let (off, cnt) = if op == Op::BitFieldInsert as u32 {
                    (ins[5], ins[6])
                } else {
                    (ins[4], ins[5])
                };
                match (consts.get(&off).copied(), consts.get(&cnt).copied()) {
                    (Some(o), Some(c)) if o + c <= bits => {}
                    _ => {
                        return bad(
                            "a bit-field instruction whose offset and count may pass the width",
                        )
                    }
                }
            }
            _ => {}
        }
        // The ands the shift check looks back at: their smallest constant operand.
        if op == Op::BitwiseAnd as u32 && n >= 5 {
            let m = [ins[3], ins[4]]
                .iter()
                .filter_map(|k| consts.get(k))
                .min()
                .map_or(0, |&m| if m < 255 { m as u8 + 1 } else { 0 });
            if let Some(slot) = masked.get_mut(ins[2] as usize) {
                *slot = m;
            }
        }
        at += n;
    }
    Ok(())
}

/// What the float rules look back at: float type ids, the widths with round-to-nearest-even, the ids
/// decorated `NoContraction`.
#[derive(Default)]
struct Floats {
    types: HashSet<u32>,
    rte: HashSet<u32>,
    exact: HashSet<u32>,
}

/// Opcodes whose first operand is a result type, from the SPIR-V grammar.
fn typed_result(op: u32) -> bool {
    static TYPED: OnceLock<HashSet<u32>> = OnceLock::new();
    TYPED
        .get_or_init(|| {
            INSTRUCTION_TABLE
                .iter()
                .filter(|i| {
                    i.operands
                        .first()
                        .is_some_and(|o| o.kind == OperandKind::IdResultType)
                })
                .map(|i| i.opcode as u32)
                .collect()
        })
        .contains(&op)
}

impl Floats {
    /// The float rules for one instruction of a module that declared a float type.
    fn check(&self, op: u32, ins: &[u32]) -> Result<(), String> {
        let float = |id: Option<&u32>| id.is_some_and(|t| self.types.contains(t));
        // Ops that only read floats and answer in another type: comparisons, classes, conversions to ints.
        let reads_float = (Op::ConvertFToU as u32..=Op::ConvertFToS as u32).contains(&op)
            || (Op::IsNan as u32..=Op::SignBitSet as u32).contains(&op)
            || (Op::FOrdEqual as u32..=Op::FUnordGreaterThanEqual as u32).contains(&op);
        if reads_float {
            return Err("a float comparison, classification or conversion to an integer".into());
        }
        if (op == Op::TypeVector as u32 || op == Op::TypeMatrix as u32) && float(ins.get(2))
            || op == Op::TypePointer as u32 && float(ins.get(3))
            || op == Op::TypeFunction as u32 && ins.iter().skip(2).any(|t| self.types.contains(t))
        {
            return Err("a float vector, pointer or function type".into());
        }
        if !typed_result(op) || !float(ins.get(1)) {
            return Ok(());
        }
        match op {
            x if x == Op::Bitcast as u32 => Ok(()),
            x if x == Op::FAdd as u32 || x == Op::FMul as u32 => {
                if ins.get(2).is_some_and(|r| self.exact.contains(r)) {
                    Ok(())
                } else {
                    Err("a float add or multiply without NoContraction".into())
                }
            }
            _ => Err("a float result of an operation other than a bitcast, add or multiply".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &[u32]) -> Vec<u32> {
        let mut m = vec![0x0723_0203, 0x0001_0300, 0, 100, 0];
        m.extend_from_slice(body);
        m
    }
    const fn ins(n: u32, op: u32) -> u32 {
        n << 16 | op
    }

    #[test]
    fn undefined_shapes_are_found() {
        // %1 = u32, %2 = 40, %3 = 31, %4 = and(%9, %3), shifts by %4 (masked) and by %2 (too far).
        let base = [
            ins(4, 21),
            1,
            32,
            0,
            ins(4, 43),
            1,
            2,
            40,
            ins(4, 43),
            1,
            3,
            31,
            ins(5, 199),
            1,
            4,
            9,
            3,
        ];
        let mut ok = base.to_vec();
        ok.extend([ins(5, 196), 1, 5, 9, 4]);
        assert_eq!(check(&module(&ok)), Ok(()));
        let mut far = base.to_vec();
        far.extend([ins(5, 196), 1, 5, 9, 2]);
        assert!(check(&module(&far)).unwrap_err().contains("shift"));
        let mut run = base.to_vec();
        run.extend([ins(5, 196), 1, 5, 9, 9]);
        assert!(check(&module(&run)).is_err());
        let mut div = base.to_vec();
        div.extend([ins(5, 134), 1, 6, 9, 9]);
        assert!(check(&module(&div)).unwrap_err().contains("divisor"));
        let mut div_k = base.to_vec();
        div_k.extend([ins(5, 137), 1, 6, 9, 3]);
        assert_eq!(check(&module(&div_k)), Ok(()));
        assert!(check(&module(&[ins(3, 22), 7, 32]))
            .unwrap_err()
            .contains("RoundingModeRTE"));
        assert!(check(&[1, 2, 3]).is_err());
        // %7 = f32 under RoundingModeRTE 32; %8 = FAdd decorated NoContraction.
        let rte = [ins(4, 16), 1, 4462, 32];
        let decor = [ins(3, 71), 8, 42];
        let f32t = [ins(3, 22), 7, 32];
        let floats = |body: &[u32]| {
            let mut m = rte.to_vec();
            m.extend(decor);
            m.extend(f32t);
            m.extend_from_slice(body);
            check(&module(&m))
        };
        assert_eq!(floats(&[ins(5, 129), 7, 8, 9, 9]), Ok(()));
        assert_eq!(floats(&[ins(5, 133), 7, 8, 9, 9]), Ok(()), "FMul");
        assert!(floats(&[ins(5, 129), 7, 6, 9, 9])
            .unwrap_err()
            .contains("NoContraction"));
        assert!(floats(&[ins(5, 131), 7, 8, 9, 9])
            .unwrap_err()
            .contains("other than"));
        assert!(floats(&[ins(5, 184), 1, 6, 9, 9])
            .unwrap_err()
            .contains("comparison"));
        assert!(floats(&[ins(4, 43), 7, 6, 0]).is_err(), "float constant");
        assert!(floats(&[ins(4, 32), 6, 7, 7]).is_err(), "float pointer");
        let mut f64_too = rte.to_vec();
        f64_too.extend([ins(4, 16), 1, 4462, 64, ins(3, 22), 7, 64]);
        assert!(check(&module(&f64_too)).unwrap_err().contains("64-bit"));
        assert!(floats(&[ins(4, 115), 7, 8, 9]).is_err(), "FConvert");
        assert!(check(&module(&[ins(9, 21)]))
            .unwrap_err()
            .contains("runs past"));
    }
}
