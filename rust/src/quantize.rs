//! Quantized embeddings as sentence-transformers' `quantize_embeddings`
//! computes them (tf_quantize; include/tfenc.h says the rule): int8 and
//! uint8 buckets of each dimension's range, binary and ubinary sign bits;
//! the Hamming distance of binary and ubinary rows (tf_hamming_distance).
use std::ptr;

use crate::enums::Precision;
use crate::error::{check, Error, Result};
use crate::ffi;
use crate::sizes;

/// `rows` quantized embeddings, `row_bytes` bytes each: i8 values for
/// Int8 and Binary, u8 for Uint8 and Ubinary, f32 (native-endian) for
/// Float32.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantized {
    pub precision: Precision,
    pub rows: usize,
    /// The values a row had before (the embeddings' dimension).
    pub dim: usize,
    pub row_bytes: usize,
    bytes: Vec<u8>, // [rows, row_bytes]
}

impl Quantized {
    /// All rows' bytes, [rows, row_bytes].
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Row i's bytes (panics out of range, as slice indexing).
    pub fn row(&self, i: usize) -> &[u8] {
        &self.bytes[i * self.row_bytes..(i + 1) * self.row_bytes]
    }

    /// The values as i8 ([rows, row_bytes]; Int8 and Binary), else None.
    pub fn to_i8(&self) -> Option<Vec<i8>> {
        matches!(self.precision, Precision::Int8 | Precision::Binary)
            .then(|| self.bytes.iter().map(|&b| b as i8).collect())
    }

    /// The values as u8 ([rows, row_bytes]; Uint8 and Ubinary), else None.
    pub fn to_u8(&self) -> Option<Vec<u8>> {
        matches!(self.precision, Precision::Uint8 | Precision::Ubinary).then(|| self.bytes.clone())
    }
}

/// Bytes of one row of `dim` values in `precision` (tf_precision_row_bytes);
/// 0 for a dim of 0 or one beyond int32.
pub fn precision_row_bytes(precision: Precision, dim: usize) -> usize {
    i32::try_from(dim).map_or(0, |d| {
        // SAFETY: takes plain integers.
        unsafe { ffi::tf_precision_row_bytes(precision.to_c(), d) }
    })
}

/// `embeddings` ([rows, dim], row-major) in `precision`; `ranges` ([2, dim]:
/// each dimension's minimum, then maximum, e.g. of calibration embeddings)
/// for Int8 and Uint8, None for the rows' own. A length that is not a
/// multiple of dim (or ranges not 2 * dim), a non-finite value or a
/// dimension without a range is an error naming it.
pub fn quantize(embeddings: &[f32], dim: usize, precision: Precision, ranges: Option<&[f32]>)
    -> Result<Quantized> {
    if dim == 0 || embeddings.len() % dim != 0 {
        return Err(Error::invalid(format!(
            "embeddings: {} values are not rows of dim {}",
            embeddings.len(),
            dim
        )));
    }
    if let Some(r) = ranges.filter(|r| r.len() != 2 * dim) {
        return Err(Error::invalid(format!(
            "ranges: expected [2, {}] (each dimension's minimum, then maximum), got {} values",
            dim,
            r.len()
        )));
    }
    let rows = embeddings.len() / dim;
    let c_dim: i32 = sizes::to_c("dim", dim)?;
    let row_bytes = precision_row_bytes(precision, dim);
    let mut bytes = vec![0u8; sizes::elements("quantized embeddings", &[rows, row_bytes])?];
    // SAFETY: embeddings holds rows * dim floats, ranges (when given) 2 * dim,
    // bytes rows * row_bytes bytes, each length passed with its pointer.
    check(unsafe {
        ffi::tf_quantize(
            embeddings.as_ptr(),
            rows,
            c_dim,
            precision.to_c(),
            ranges.map_or(ptr::null(), |r| r.as_ptr()),
            bytes.as_mut_ptr().cast(),
            bytes.len(),
        )
    })?;
    Ok(Quantized { precision, rows, dim, row_bytes, bytes })
}

/// The Hamming distances of `a`'s and `b`'s rows, [a.rows, b.rows]
/// row-major: the bits of the `dim` values that differ (tf_hamming_distance;
/// Binary and Ubinary are the same bits). Another precision, or two dims,
/// is an error naming it.
pub fn hamming_distance(a: &Quantized, b: &Quantized) -> Result<Vec<i32>> {
    for (name, q) in [("a", a), ("b", b)] {
        if !matches!(q.precision, Precision::Binary | Precision::Ubinary) {
            return Err(Error::invalid(format!(
                "{}: expected binary or ubinary rows, got {}",
                name,
                q.precision.name()
            )));
        }
    }
    if a.dim != b.dim {
        return Err(Error::invalid(format!("b: rows of {} values, a's have {}", b.dim, a.dim)));
    }
    let c_dim: i32 = sizes::to_c("dim", a.dim)?;
    let mut out = vec![0i32; sizes::elements("distances", &[a.rows, b.rows])?];
    // SAFETY: a and b hold rows * row_bytes bytes for dim values each, out
    // a.rows * b.rows ints.
    check(unsafe {
        ffi::tf_hamming_distance(
            a.bytes.as_ptr().cast(),
            a.rows,
            b.bytes.as_ptr().cast(),
            b.rows,
            c_dim,
            out.as_mut_ptr(),
        )
    })?;
    Ok(out)
}

/// dim - hamming_distance: the bits that agree, larger is closer.
pub fn hamming_similarity(a: &Quantized, b: &Quantized) -> Result<Vec<i32>> {
    let dim = a.dim as i32; // checked by hamming_distance to fit i32
    Ok(hamming_distance(a, b)?.into_iter().map(|d| dim - d).collect())
}
