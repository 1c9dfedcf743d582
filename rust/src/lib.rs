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
mod config;
mod encoder;
mod enums;
mod error;
pub mod ffi;
mod forward_types;
pub mod hub;
mod layout;
mod pipeline;
mod runtime;
mod sizes;
mod tokenizer;

pub use config::Config;
pub use encoder::{EmbedOptions, Encoder, LoadOptions, Tensor};
pub use enums::{Activation, Pooling, Position};
pub use error::{Error, Result, Status};
pub use forward_types::{EncoderOutput, Inputs};
pub use hub::HubOptions;
pub use pipeline::{
    Aggregation, Classifier, CrossEncoder, EncodeOptions, Embeddings, Entity, PipelineOptions,
    SentenceEncoder, TokenClassifier,
};
pub use runtime::{runtime_info, RuntimeInfo};
pub use tokenizer::{Encoding, Padding, PaddingSide, TokenizeOptions, Tokenizer, Truncation};

/// The version of the loaded C library, "MAJOR.MINOR.PATCH".
pub fn version() -> String {
    // SAFETY: returns a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(ffi::tf_version_string()) }.to_string_lossy().into_owned()
}
