//! `ColBERT`: a PyLate folder's multi-vector encodings, as PyLate's
//! ColBERT.encode(is_query=) gives them (a [tokens, dim] matrix a text: the
//! query or document prefix, [MASK] expansion of queries, the skiplist left
//! out of documents, unit rows), and MaxSim (PyLate's colbert_scores), over
//! the C library's tf_pipeline_embed_tokens and tf_maxsim.
use std::os::raw::c_char;
use std::ptr;

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::pipeline::{c_string, Pipeline, PipelineOptions};
use crate::sizes::to_c;

/// One text's token vectors: `rows` rows of `dim` values, row-major, and
/// the token id of each row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TokenVectors {
    pub rows: usize,
    pub dim: usize,
    pub data: Vec<f32>,
    pub ids: Vec<i32>,
}

impl TokenVectors {
    /// Row r's values.
    pub fn row(&self, r: usize) -> &[f32] {
        &self.data[r * self.dim..(r + 1) * self.dim]
    }
}

/// MaxSim of a query and a document (tf_maxsim): the sum over the query's
/// rows of the largest dot product with a document's row.
pub fn maxsim(query: &TokenVectors, document: &TokenVectors) -> Result<f32> {
    if query.dim != document.dim {
        return Err(Error::invalid(format!(
            "document: {} values a row, but query has {}",
            document.dim, query.dim
        )));
    }
    let mut score = 0f32;
    // SAFETY: each data holds rows x dim floats; score receives the result.
    check(unsafe {
        ffi::tf_maxsim(query.data.as_ptr(), to_c("query rows", query.rows)?,
                       document.data.as_ptr(), to_c("document rows", document.rows)?,
                       to_c("dim", query.dim)?, &mut score)
    })?;
    Ok(score)
}

/// A PyLate (ColBERT) folder.
pub struct ColBERT(Pipeline);

pipeline_constructors!(ColBERT, ffi::TF_PIPELINE_MULTI_VECTOR);

impl ColBERT {
    /// Values a token's vector has (the last Dense module's out_features).
    pub fn dim(&self) -> usize {
        // SAFETY: valid handle.
        unsafe { ffi::tf_pipeline_dim(self.0.raw()) }.max(0) as usize
    }

    /// Each text's token vectors, as queries or as documents; batch_size
    /// texts a forward call (0: 32).
    pub fn encode(&self, texts: &[&str], is_query: bool, batch_size: usize)
                  -> Result<Vec<TokenVectors>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let owned = texts.iter().map(|t| c_string("text", t)).collect::<Result<Vec<_>>>()?;
        let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        let mut a = crate::layout::init(ffi::tf_pipeline_args_init_sized);
        a.n = ptrs.len();
        a.texts = ptrs.as_ptr();
        a.is_query = is_query as i32;
        a.batch_size = to_c("batch_size", batch_size)?;
        let mut v = ptr::null_mut();
        // SAFETY: the texts live until the call returns; v receives the
        // result, read then destroyed.
        unsafe {
            check(ffi::tf_pipeline_embed_tokens(self.0.raw(), &a, &mut v))?;
            let dim = ffi::tf_token_vectors_dim(v).max(0) as usize;
            let out = (0..ffi::tf_token_vectors_count(v))
                .map(|i| {
                    let rows = ffi::tf_token_vectors_rows(v, i).max(0) as usize;
                    let slice = |p: *const f32, n: usize| {
                        if n == 0 { Vec::new() } else { std::slice::from_raw_parts(p, n).to_vec() }
                    };
                    let ids = if rows == 0 {
                        Vec::new()
                    } else {
                        std::slice::from_raw_parts(ffi::tf_token_vectors_ids(v, i), rows).to_vec()
                    };
                    TokenVectors { rows, dim, data: slice(ffi::tf_token_vectors_data(v, i),
                                                          rows * dim), ids }
                })
                .collect();
            ffi::tf_token_vectors_destroy(v);
            Ok(out)
        }
    }

    /// (index, score) of each document by MaxSim with the query, best
    /// first (PyLate's rank.rerank for one query).
    pub fn rerank(&self, query: &str, documents: &[&str], batch_size: usize)
                  -> Result<Vec<(usize, f32)>> {
        let q = self.encode(&[query], true, batch_size)?;
        let docs = self.encode(documents, false, batch_size)?;
        let mut ranked = docs
            .iter()
            .enumerate()
            .map(|(i, d)| maxsim(&q[0], d).map(|s| (i, s)))
            .collect::<Result<Vec<_>>>()?;
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(ranked)
    }
}
