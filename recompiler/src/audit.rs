//! A static check over emitted modules: no instruction whose result the SPIR-V or Vulkan specifications
//! leave undefined, or to the implementation, for some operand it can receive.
//!
//! What it enforces, per instruction:
//! - **No float type at all** (`OpTypeFloat`): every float operation is the integer engine's
//!   ([`crate::sem::float`]); a host float op would leave denormals, NaN payloads or rounding to the device
//!   (and GLSL.std.450 `FMin`/`FMax`/`FClamp` their NaN results).
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

use rspirv::spirv::Op;
use rustc_hash::FxHashMap as HashMap;

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
    let mut at = 5;
    while at < spirv.len() {
        let w = spirv[at];
        let (n, op) = ((w >> 16) as usize, w & 0xffff);
        if n == 0 || at + n > spirv.len() {
            return Err(format!(
                "word {at}: instruction of {n} words runs past the module"
            ));
        }
        if !watched(op) {
            at += n;
            continue;
        }
        let ins = &spirv[at..at + n];
        let bad = |what: &str| Err(format!("word {at}: opcode {op}: {what}"));
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
                return bad("a float type: float operations are the integer engine's")
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
            .contains("float"));
        assert!(check(&[1, 2, 3]).is_err());
        assert!(check(&module(&[ins(9, 21)]))
            .unwrap_err()
            .contains("runs past"));
    }
}
