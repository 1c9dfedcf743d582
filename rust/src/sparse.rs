//! `SparseEncoder`: a SPLADE folder's sparse vectors over the vocabulary, as
//! sentence-transformers 5's SparseEncoder gives them (encode_query,
//! encode_document, max_active_dims; similarity by dot product), over the C
//! library's tf_pipeline_embed_sparse: a SparseEncoder folder (MLMTransformer
//! + SpladePooling, or a Router with an inference-free query route) or a bare
//! *ForMaskedLM (the older SPLADE folders).
use std::os::raw::c_char;
use std::path::Path;
use std::ptr;

use crate::error::{check, Result};
use crate::ffi;
use crate::pipeline::{c_string, Pipeline, PipelineOptions};
use crate::sizes::to_c;

/// One text's non-zero values, indices ascending.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SparseVector {
    pub indices: Vec<i32>,
    pub values: Vec<f32>,
}

impl SparseVector {
    /// The dot product with another (SparseEncoder's similarity).
    pub fn dot(&self, other: &SparseVector) -> f32 {
        let (mut i, mut j, mut sum) = (0, 0, 0f64);
        while i < self.indices.len() && j < other.indices.len() {
            match self.indices[i].cmp(&other.indices[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    sum += self.values[i] as f64 * other.values[j] as f64;
                    i += 1;
                    j += 1;
                }
            }
        }
        sum as f32
    }

    /// The vector over all `dim` entries of the vocabulary.
    pub fn to_dense(&self, dim: usize) -> Vec<f32> {
        let mut out = vec![0f32; dim];
        for (&i, &v) in self.indices.iter().zip(&self.values) {
            out[i as usize] = v;
        }
        out
    }
}

/// encode's options: the prompt by name (None: the folder's default),
/// the query route (a Router's; false: documents), the k largest values
/// kept (0: every non-zero one), texts per batch (0: 32).
#[derive(Clone, Debug, Default)]
pub struct SparseOptions<'a> {
    pub prompt_name: Option<&'a str>,
    pub is_query: bool,
    pub max_active_dims: usize,
    pub batch_size: usize,
}

/// A SPLADE folder.
pub struct SparseEncoder(Pipeline);

pipeline_constructors!(SparseEncoder);

impl SparseEncoder {
    /// A SparseEncoder folder, else (loaded again as such) a bare *ForMaskedLM;
    /// a folder of neither kind is the first load's error.
    pub fn with_options<P: AsRef<Path>>(path: P, opts: &PipelineOptions)
                                        -> Result<SparseEncoder> {
        let path = path.as_ref();
        Pipeline::load(path, opts, ffi::TF_PIPELINE_SPARSE, "SparseEncoder")
            .or_else(|e| {
                Pipeline::load(path, opts, ffi::TF_PIPELINE_FILL_MASK, "SparseEncoder")
                    .map_err(|_| e)
            })
            .map(SparseEncoder)
    }

    /// The vocabulary's size: the vectors' width.
    pub fn dim(&self) -> usize {
        // SAFETY: valid handle.
        unsafe { ffi::tf_pipeline_dim(self.0.raw()) }.max(0) as usize
    }

    /// Each text's sparse vector.
    pub fn encode(&self, texts: &[&str], opts: &SparseOptions<'_>) -> Result<Vec<SparseVector>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let owned =
            texts.iter().map(|t| c_string("text", t)).collect::<Result<Vec<_>>>()?;
        let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        let prompt = opts.prompt_name.map(|n| c_string("prompt_name", n)).transpose()?;
        let mut a = crate::layout::init(ffi::tf_pipeline_args_init_sized);
        a.n = ptrs.len();
        a.texts = ptrs.as_ptr();
        a.prompt_name = prompt.as_ref().map_or(ptr::null(), |p| p.as_ptr());
        a.is_query = opts.is_query as i32;
        a.max_active_dims = to_c("max_active_dims", opts.max_active_dims)?;
        a.batch_size = to_c("batch_size", opts.batch_size)?;
        let mut v = ptr::null_mut();
        // SAFETY: the texts and the prompt live until the call returns; v
        // receives the result, read then destroyed.
        unsafe {
            check(ffi::tf_pipeline_embed_sparse(self.0.raw(), &a, &mut v))?;
            let out = (0..ffi::tf_sparse_vectors_count(v))
                .map(|i| {
                    let nnz = ffi::tf_sparse_vectors_nnz(v, i).max(0) as usize;
                    if nnz == 0 {
                        return SparseVector::default();
                    }
                    SparseVector {
                        indices: std::slice::from_raw_parts(ffi::tf_sparse_vectors_indices(v, i),
                                                            nnz)
                            .to_vec(),
                        values: std::slice::from_raw_parts(ffi::tf_sparse_vectors_values(v, i),
                                                           nnz)
                            .to_vec(),
                    }
                })
                .collect();
            ffi::tf_sparse_vectors_destroy(v);
            Ok(out)
        }
    }

    /// encode through the query route (SparseEncoder.encode_query).
    pub fn encode_query(&self, texts: &[&str]) -> Result<Vec<SparseVector>> {
        self.encode(texts, &SparseOptions { is_query: true, ..Default::default() })
    }

    /// encode as documents (SparseEncoder.encode_document).
    pub fn encode_document(&self, texts: &[&str]) -> Result<Vec<SparseVector>> {
        self.encode(texts, &SparseOptions::default())
    }
}
