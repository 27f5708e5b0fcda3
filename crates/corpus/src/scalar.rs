//! Element types as Rust values: little-endian reading and writing.

use crate::{bf16, f16, Elem};

/// A Rust type that is one corpus element type.
pub trait Scalar: Copy + std::fmt::Debug {
    const SIZE: usize;
    const ELEM: Elem;
    /// Reads from the first `SIZE` bytes (little-endian).
    fn read(b: &[u8]) -> Self;
    /// Writes into the first `SIZE` bytes (little-endian).
    fn write(self, out: &mut [u8]);
}

macro_rules! scalar {
    ($t:ty, $e:expr) => {
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const ELEM: Elem = $e;
            fn read(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b[..Self::SIZE].try_into().unwrap())
            }
            fn write(self, out: &mut [u8]) {
                out[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}

scalar!(u8, Elem::U8);
scalar!(i8, Elem::I8);
scalar!(u16, Elem::U16);
scalar!(i16, Elem::I16);
scalar!(u32, Elem::U32);
scalar!(i32, Elem::I32);
scalar!(u64, Elem::U64);
scalar!(i64, Elem::I64);
scalar!(f16, Elem::F16);
scalar!(bf16, Elem::Bf16);
scalar!(f32, Elem::F32);
scalar!(f64, Elem::F64);
