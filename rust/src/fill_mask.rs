//! `FillMask`: a *ForMaskedLM folder's best tokens for each mask token of a
//! text, as transformers' fill-mask pipeline (pipelines/fill_mask.py,
//! FillMaskPipeline) gives them, over the C library's tf_pipeline_fill_mask.
use std::ptr;

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::pipeline::{c_string, string, Pipeline, PipelineOptions};
use crate::sizes::to_c;

/// One prediction for a mask: FillMaskPipeline's {"score", "token",
/// "token_str", "sequence"}.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskPrediction {
    /// The softmax of the masked-LM head's logits at the mask.
    pub score: f32,
    /// The token's id.
    pub token: i32,
    /// The token decoded.
    pub token_str: String,
    /// The text decoded with the token in the mask's place (special tokens
    /// skipped when the text has one mask, kept with several).
    pub sequence: String,
}

/// A masked-LM folder: fill-mask as transformers' pipeline.
pub struct FillMask(Pipeline);

pipeline_constructors!(FillMask, ffi::TF_PIPELINE_FILL_MASK);

impl FillMask {
    /// For each mask token of text (the tokenizer's mask_token), its top_k
    /// predictions (>= 1; the pipeline's default is 5), best first.
    pub fn fill(&self, text: &str, top_k: usize) -> Result<Vec<Vec<MaskPrediction>>> {
        if top_k == 0 {
            return Err(Error::invalid("top_k: expected at least 1, got 0".to_string()));
        }
        let c = c_string("text", text)?;
        let top_k = to_c("top_k", top_k)?;
        let mut m = ptr::null_mut();
        // SAFETY: valid handle and text; m receives the result, read then destroyed.
        unsafe {
            check(ffi::tf_pipeline_fill_mask(self.0.raw(), c.as_ptr(), top_k, &mut m))?;
            let k_count = ffi::tf_fill_mask_top_k(m);
            let out = (0..ffi::tf_fill_mask_count(m))
                .map(|i| {
                    (0..k_count)
                        .map(|k| MaskPrediction {
                            score: ffi::tf_fill_mask_score(m, i, k),
                            token: ffi::tf_fill_mask_token(m, i, k),
                            token_str: string(ffi::tf_fill_mask_token_str(m, i, k))
                                .unwrap_or_default(),
                            sequence: string(ffi::tf_fill_mask_sequence(m, i, k))
                                .unwrap_or_default(),
                        })
                        .collect()
                })
                .collect();
            ffi::tf_fill_mask_destroy(m);
            Ok(out)
        }
    }
}
