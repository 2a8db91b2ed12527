//! MIMG and EXP (not yet table-driven).

use super::decode::Ctx;
use super::error::DecodeError;
use super::types::*;

pub(crate) fn decode(cx: &Ctx) -> Result<Instruction, DecodeError> {
    Err(cx.unknown(Encoding::Mimg, 0))
}

pub(crate) fn decode_exp(cx: &Ctx) -> Result<Instruction, DecodeError> {
    Err(cx.unknown(Encoding::Exp, 0))
}

pub(crate) fn write(_out: &mut String, _i: &Instruction) -> std::fmt::Result {
    Ok(())
}
