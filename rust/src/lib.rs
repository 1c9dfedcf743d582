//! libtfenc from Rust: a Transformer encoder forward pass on the CPU, and
//! BERT's WordPiece tokenizer.
//!
//! ```no_run
//! let enc = tfenc::Encoder::from_file("bert-dir", &tfenc::LoadOptions::default())?;
//! let ids = [2, 45, 67, 3];
//! let out = enc.forward(&tfenc::Inputs::input_ids(&ids, 1, 4))?;
//! println!("{:?}", out.shape); // [1, 4, d_model]
//! # Ok::<(), tfenc::Error>(())
//! ```
#[macro_use]
mod constructors;

mod config;
mod encoder;
mod enums;
mod error;
pub mod ffi;
mod fill_mask;
mod forward_types;
pub mod hub;
mod images;
mod layout;
mod multi_vector;
mod pipeline;
mod quantize;
mod runtime;
mod sizes;
mod sparse;
mod tokenizer;

pub use config::Config;
pub use encoder::{EmbedOptions, Encoder, LoadOptions, Tensor};
pub use enums::{Activation, Pooling, Position, Precision};
pub use error::{Error, Result, Status};
pub use fill_mask::{FillMask, MaskPrediction};
pub use forward_types::{EncoderOutput, Inputs};
pub use hub::HubOptions;
pub use images::{Image, ImageClassifier, ImageEncoder};
pub use multi_vector::{maxsim, ColBERT, TokenVectors};
pub use pipeline::{
    Aggregation, Classifier, CrossEncoder, EncodeOptions, Embeddings, Entity, PipelineOptions,
    SentenceEncoder, TokenClassifier,
};
pub use quantize::{
    hamming_distance, hamming_similarity, precision_row_bytes, quantize, Quantized,
};
pub use runtime::{runtime_info, RuntimeInfo};
pub use sparse::{SparseEncoder, SparseOptions, SparseVector};
pub use tokenizer::{Encoding, Padding, PaddingSide, TokenizeOptions, Tokenizer, Truncation};

/// The version of the loaded C library, "MAJOR.MINOR.PATCH".
pub fn version() -> String {
    // SAFETY: returns a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(ffi::tf_version_string()) }.to_string_lossy().into_owned()
}
