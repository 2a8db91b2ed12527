//! Cell comparison: bit-exact under the mask, the cell's check letter, then a declared tolerance.

use crate::kernel::{ColumnPolicy, TolFormat};
use crate::row::{Cell, Check};

/// The outcome of comparing one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Equal under the mask (or, for `a`, the actual value is an f32 NaN as required).
    Exact,
    /// Bits differ but the cell's NaN rule accepts both values (letters `n`, `h`, `l`).
    NanAccepted,
    /// Bits differ but within the column's declared tolerance (distance in ULP).
    WithinTolerance(u32),
    /// Neither.
    Mismatch,
}

impl Verdict {
    /// Does the verdict count as a pass?
    pub fn passed(self) -> bool {
        self != Verdict::Mismatch
    }
}

/// Is `v` an f32 NaN?
pub fn is_nan_f32(v: u32) -> bool {
    v & 0x7f80_0000 == 0x7f80_0000 && v & 0x007f_ffff != 0
}

/// Is the low half of `v` an f16 NaN?
pub fn is_nan_f16_low(v: u32) -> bool {
    v & 0x7c00 == 0x7c00 && v & 0x03ff != 0
}

/// Compares an actual value with an expected cell. `policy` is the column's declared tolerance, if any.
pub fn compare_cell(cell: &Cell, actual: u32, policy: Option<&ColumnPolicy>) -> Verdict {
    let m = cell.mask;
    let (e, a) = (cell.value & m, actual & m);
    match cell.check {
        Check::Unchecked => return Verdict::Exact,
        Check::AnyNanF32 => {
            return if is_nan_f32(actual) {
                Verdict::Exact
            } else {
                Verdict::Mismatch
            }
        }
        _ => {}
    }
    if e == a {
        return Verdict::Exact;
    }
    let nan_ok = match cell.check {
        Check::NanF32 => is_nan_f32(cell.value) && is_nan_f32(actual),
        Check::NanF16LowHighEqual => {
            (e >> 16) == (a >> 16) && is_nan_f16_low(cell.value) && is_nan_f16_low(actual)
        }
        Check::NanF16Low => is_nan_f16_low(cell.value) && is_nan_f16_low(actual),
        _ => false,
    };
    if nan_ok {
        return Verdict::NanAccepted;
    }
    if let Some(p) = policy {
        if let Some(d) = ulp_distance(p.format, cell.value, actual, m) {
            if d <= p.ulp as u64 {
                return Verdict::WithinTolerance(d as u32);
            }
        }
    }
    Verdict::Mismatch
}

/// Distance in units in the last place between two values of `format`; `None` when either is a NaN, or when
/// the bits outside the float (the high half for f16) differ under the mask.
pub fn ulp_distance(format: TolFormat, a: u32, b: u32, mask: u32) -> Option<u64> {
    match format {
        TolFormat::F32 => {
            if is_nan_f32(a) || is_nan_f32(b) {
                return None;
            }
            Some(ordered(a as u64, 31).abs_diff(ordered(b as u64, 31)))
        }
        TolFormat::F16 => {
            if (a ^ b) & mask & 0xffff_0000 != 0 || is_nan_f16_low(a) || is_nan_f16_low(b) {
                return None;
            }
            Some(ordered((a & 0xffff) as u64, 15).abs_diff(ordered((b & 0xffff) as u64, 15)))
        }
    }
}

/// Maps float bits to an integer line where adjacent floats are adjacent integers and -0 == +0.
fn ordered(bits: u64, sign_bit: u32) -> i64 {
    let mag = (bits & ((1 << sign_bit) - 1)) as i64;
    if bits >> sign_bit & 1 == 1 {
        -mag
    } else {
        mag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(value: u32, check: Check) -> Cell {
        Cell {
            column: 0,
            value,
            mask: u32::MAX,
            check,
        }
    }

    #[test]
    fn letters() {
        assert_eq!(
            compare_cell(&cell(0x7fc0_0000, Check::Exact), 0x7fc0_0000, None),
            Verdict::Exact
        );
        assert_eq!(
            compare_cell(&cell(0x7fc0_0000, Check::Exact), 0x7fc0_0001, None),
            Verdict::Mismatch
        );
        assert_eq!(
            compare_cell(&cell(0x7fc0_0000, Check::NanF32), 0xffc1_2345, None),
            Verdict::NanAccepted
        );
        assert_eq!(
            compare_cell(&cell(0x7fc0_0000, Check::NanF32), 0x7f80_0000, None),
            Verdict::Mismatch
        );
        assert_eq!(
            compare_cell(
                &cell(0x1234_7e00, Check::NanF16LowHighEqual),
                0x1234_fe01,
                None
            ),
            Verdict::NanAccepted
        );
        assert_eq!(
            compare_cell(
                &cell(0x1234_7e00, Check::NanF16LowHighEqual),
                0x1235_7e01,
                None
            ),
            Verdict::Mismatch
        );
        assert_eq!(
            compare_cell(&cell(0x1234_7e00, Check::NanF16Low), 0x9999_7c01, None),
            Verdict::NanAccepted
        );
        assert_eq!(
            compare_cell(&cell(0, Check::AnyNanF32), 0xff80_0001, None),
            Verdict::Exact
        );
        assert_eq!(
            compare_cell(&cell(0x7fc0_0000, Check::AnyNanF32), 0x7f80_0000, None),
            Verdict::Mismatch
        );
        let masked = Cell {
            column: 0,
            value: 0x0000_1234,
            mask: 0xffff,
            check: Check::Exact,
        };
        assert_eq!(compare_cell(&masked, 0xabcd_1234, None), Verdict::Exact);
    }

    #[test]
    fn tolerance() {
        let p = ColumnPolicy {
            index: 0,
            format: TolFormat::F32,
            ulp: 1,
            reason: "test".into(),
        };
        assert_eq!(
            compare_cell(&cell(0x3f80_0000, Check::Exact), 0x3f80_0001, Some(&p)),
            Verdict::WithinTolerance(1)
        );
        assert_eq!(
            compare_cell(&cell(0x3f80_0000, Check::Exact), 0x3f7f_ffff, Some(&p)),
            Verdict::WithinTolerance(1)
        );
        assert_eq!(
            compare_cell(&cell(0x3f80_0000, Check::Exact), 0x3f80_0002, Some(&p)),
            Verdict::Mismatch
        );
        // -0 and +0 are the same point; the smallest denormals either side are one step away.
        assert_eq!(
            ulp_distance(TolFormat::F32, 0x8000_0000, 0x0000_0001, u32::MAX),
            Some(1)
        );
        assert_eq!(
            ulp_distance(TolFormat::F32, 0x8000_0001, 0x0000_0001, u32::MAX),
            Some(2)
        );
        assert_eq!(
            ulp_distance(TolFormat::F32, 0x7fc0_0000, 0x0000_0001, u32::MAX),
            None
        );
        assert_eq!(
            ulp_distance(TolFormat::F16, 0x0001_3c00, 0x0001_3c01, u32::MAX),
            Some(1)
        );
        assert_eq!(
            ulp_distance(TolFormat::F16, 0x0001_3c00, 0x0002_3c00, u32::MAX),
            None
        );
    }
}
