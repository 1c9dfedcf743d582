//! Sizes by checked arithmetic, conversions to and from the C API's integers
//! that cannot truncate, and buffers whose allocation failure is an error,
//! not an abort.
use std::alloc::{self, Layout};
use std::fmt::Debug;
use std::mem::size_of;

use crate::error::{Error, Result, Status};

/// The element count of `shape`; an error naming `what` when it overflows.
pub(crate) fn elements(what: &str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| Error::invalid(format!("{}: {:?} elements overflow usize", what, shape)))
}

/// `v` as a C integer (int32_t, int64_t); an error naming `what` when it
/// does not fit (the library checks the rest of its range).
pub(crate) fn to_c<T: TryFrom<usize>>(what: &str, v: usize) -> Result<T> {
    T::try_from(v)
        .map_err(|_| Error::invalid(format!("{}: {} does not fit in int{}", what, v, 8 * size_of::<T>())))
}

/// A count or size the library reports, which is never negative.
pub(crate) fn from_c<T: TryInto<usize> + Copy + Debug>(v: T) -> usize {
    v.try_into().unwrap_or_else(|_| panic!("the library reported a negative size {:?}", v))
}

/// Zeroed floats of `shape`; an error naming `what` when they do not fit in
/// memory. Like vec![0.0; n] (calloc) no page is touched until written.
pub(crate) fn zeroed(what: &str, shape: &[usize]) -> Result<Vec<f32>> {
    let n = elements(what, shape)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let no_memory = || Error {
        status: Status::OutOfMemory,
        message: format!("{}: {:?} floats do not fit in memory", what, shape),
    };
    let layout = Layout::array::<f32>(n).map_err(|_| no_memory())?;
    // SAFETY: layout's size is not zero.
    let data = unsafe { alloc::alloc_zeroed(layout) } as *mut f32;
    if data.is_null() {
        return Err(no_memory());
    }
    // SAFETY: n zeroed f32 from the global allocator, with the layout of a
    // Vec<f32> of capacity n.
    Ok(unsafe { Vec::from_raw_parts(data, n, n) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        assert_eq!(elements("x", &[2, 3, 4]), Ok(24));
        assert_eq!(elements("x", &[]), Ok(1));
        assert_eq!(elements("x", &[usize::MAX, 0]), Ok(0));
        let e = elements("x", &[1 << 32, 1 << 32]).unwrap_err();
        assert_eq!(e.message, "x: [4294967296, 4294967296] elements overflow usize");
        assert_eq!(to_c::<i32>("n", 7), Ok(7));
        let e = to_c::<i32>("n", 1 << 31).unwrap_err();
        assert_eq!(e.message, "n: 2147483648 does not fit in int32");
        let e = to_c::<i64>("n", usize::MAX).unwrap_err();
        assert_eq!(e.message, "n: 18446744073709551615 does not fit in int64");
    }

    #[test]
    fn buffers_are_zeroed_or_an_error() {
        assert_eq!(zeroed("b", &[2, 3]).unwrap(), vec![0.0; 6]);
        assert!(zeroed("b", &[0, 3]).unwrap().is_empty());
        let e = zeroed("b", &[1 << 62, 2]).unwrap_err(); // 2^65 bytes > isize::MAX
        assert_eq!(
            (e.status, e.message.as_str()),
            (Status::OutOfMemory, "b: [4611686018427387904, 2] floats do not fit in memory")
        );
    }
}
