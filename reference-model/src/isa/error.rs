//! Decode errors: every one names the word index where the instruction starts and the words involved.

use super::Encoding;

/// Why the words at an index are not a gfx10 instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The index is past the end of the stream.
    #[error("word {index}: past the end of a {len}-word stream")]
    OutOfRange {
        /// Word index asked for.
        index: usize,
        /// Stream length in words.
        len: usize,
    },
    /// The top bits match no gfx10 encoding family.
    #[error("word {index}: {word:#010x} matches no gfx10 encoding")]
    UnknownEncoding {
        /// Word index of the instruction.
        index: usize,
        /// The first word.
        word: u32,
    },
    /// The encoding family is known but this opcode is not defined for the target.
    #[error(
        "word {index}: {word:#010x}: {encoding:?} opcode {opcode} is not defined on this target"
    )]
    UnknownOpcode {
        /// Word index of the instruction.
        index: usize,
        /// The first word.
        word: u32,
        /// Encoding family.
        encoding: Encoding,
        /// Opcode field value.
        opcode: u16,
    },
    /// The instruction (with its literal or extra address dwords) runs past the end of the stream.
    #[error("word {index}: {word:#010x}: {encoding:?} instruction needs {needed} words, only {available} left")]
    Truncated {
        /// Word index of the instruction.
        index: usize,
        /// The first word.
        word: u32,
        /// Encoding family.
        encoding: Encoding,
        /// Words the instruction needs.
        needed: usize,
        /// Words left from `index`.
        available: usize,
    },
    /// A field holds a value the encoding reserves (an operand code with no meaning, a DPP control
    /// LLVM and the manual leave undefined, ...).
    #[error("word {index}: {words:08x?}: reserved value {value:#x} in {field}")]
    Reserved {
        /// Word index of the instruction.
        index: usize,
        /// The instruction's words (up to the first two).
        words: Vec<u32>,
        /// Which field.
        field: &'static str,
        /// The value found.
        value: u32,
    },
}
