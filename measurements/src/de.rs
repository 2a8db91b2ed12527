//! Deserialization helpers shared by the kernel TOML and the peer JSON readers.

use serde::de::{Deserialize, Deserializer, Error as _, IgnoredAny, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// Deserializes an array of exactly `N` elements. serde's own `[T; N]` stops reading after `N` elements, and the
/// TOML reader then ignores the rest (`grid = [1, 1, 1, "junk"]` read as `[1, 1, 1]`), so the length is checked
/// here: one element too many or too few is an error at the array's position.
pub fn exact<'de, D, T, const N: usize>(d: D) -> Result<[T; N], D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Copy + Default,
{
    struct Exact<T, const N: usize>(PhantomData<T>);
    impl<'de, T: Deserialize<'de> + Copy + Default, const N: usize> Visitor<'de> for Exact<T, N> {
        type Value = [T; N];
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "an array of exactly {N} elements")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
            let mut out = [T::default(); N];
            for (i, slot) in out.iter_mut().enumerate() {
                *slot = seq.next_element()?.ok_or_else(|| {
                    A::Error::custom(format!(
                        "the array has {i} elements; it must have exactly {N}"
                    ))
                })?;
            }
            let mut extra = 0usize;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                extra += 1;
            }
            if extra > 0 {
                return Err(A::Error::custom(format!(
                    "the array has {} elements; it must have exactly {N}",
                    N + extra
                )));
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Exact::<T, N>(PhantomData))
}
