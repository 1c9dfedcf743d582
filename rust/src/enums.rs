//! The C API's enums as Rust enums: each variant's value is tfenc.h's (the
//! constants of ffi) and its name the library's (tf_*_name and
//! tf_*_from_name), so that the library stays the one source of both.
use std::ffi::{CStr, CString};
use std::os::raw::c_char;

use crate::ffi;

/// The library's static name of `value`, None for a value it does not know.
pub(crate) fn name_of(name: unsafe extern "C" fn(i32) -> *const c_char, value: i32) -> Option<&'static str> {
    // SAFETY: the library returns NULL or a static NUL-terminated string.
    let p = unsafe { name(value) };
    if p.is_null() {
        return None;
    }
    // SAFETY: not NULL, so a static NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// The library's value of `name`, None for a name it does not know.
fn value_of(from_name: unsafe extern "C" fn(*const c_char) -> i32, name: &str) -> Option<i32> {
    let name = CString::new(name).ok()?;
    // SAFETY: a NUL-terminated string, only read.
    let value = unsafe { from_name(name.as_ptr()) };
    (value >= 0).then_some(value)
}

macro_rules! c_enum {
    ($(#[$doc:meta])* $Enum:ident = $c_name:path, $c_from_name:path {
        $($(#[$variant_doc:meta])* $Variant:ident = $value:path,)+
    }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(i32)]
        pub enum $Enum {
            $($(#[$variant_doc])* $Variant = $value,)+
        }

        impl $Enum {
            const ALL: &'static [$Enum] = &[$($Enum::$Variant,)+];

            /// The library's name, the one config files, metadata and the
            /// CLI use.
            pub fn name(self) -> &'static str {
                name_of($c_name, self.to_c()).expect("the library names every value of tfenc.h")
            }

            /// The variant of a name the library gives, or None.
            pub fn from_name(name: &str) -> Option<$Enum> {
                value_of($c_from_name, name).and_then($Enum::from_c)
            }

            /// The C API's value.
            pub(crate) fn to_c(self) -> i32 {
                self as i32
            }

            /// The variant of a C value, or None for one this crate does not know.
            pub(crate) fn from_c(value: i32) -> Option<$Enum> {
                $Enum::ALL.iter().copied().find(|v| v.to_c() == value)
            }
        }
    };
}

c_enum! {
    /// How a sentence vector is made from its tokens' vectors (tf_pooling:
    /// sentence-transformers' "cls", "mean", "max", "mean_sqrt_len_tokens",
    /// "weightedmean", "lasttoken", as Python's `tfenc.POOLINGS`).
    Pooling = ffi::tf_pooling_name, ffi::tf_pooling_from_name {
        /// The first token's (`[CLS]`) vector.
        Cls = ffi::TF_POOLING_CLS,
        /// The mean over the real tokens.
        Mean = ffi::TF_POOLING_MEAN,
        /// Each component's maximum over the real tokens (since 0.3.0, as below).
        Max = ffi::TF_POOLING_MAX,
        /// Their sum / sqrt(their count).
        MeanSqrtLen = ffi::TF_POOLING_MEAN_SQRT_LEN,
        /// Sum of (t + 1) h[t] / sum of (t + 1), t the position.
        WeightedMean = ffi::TF_POOLING_WEIGHTED_MEAN,
        /// The last real token's vector.
        LastToken = ffi::TF_POOLING_LAST_TOKEN,
    }
}

c_enum! {
    /// The feed-forward block's activation (tf_activation: "gelu",
    /// "gelu_tanh", "relu", "silu", "quick_gelu").
    Activation = ffi::tf_activation_name, ffi::tf_activation_from_name {
        /// 0.5 x (1 + erf(x / sqrt 2)), BERT's "gelu".
        Gelu = ffi::TF_ACTIVATION_GELU,
        /// The tanh approximation (Hugging Face's "gelu_new", "gelu_pytorch_tanh").
        GeluTanh = ffi::TF_ACTIVATION_GELU_TANH,
        Relu = ffi::TF_ACTIVATION_RELU,
        /// x / (1 + e^-x), SwiGLU's gate (since 0.4.0).
        Silu = ffi::TF_ACTIVATION_SILU,
        /// x / (1 + e^(-1.702 x)), CLIP's "quick_gelu" (since 0.5.0).
        QuickGelu = ffi::TF_ACTIVATION_QUICK_GELU,
    }
}

c_enum! {
    /// How positions enter the model (tf_position_kind: "none",
    /// "sinusoidal", "learned", "rotary", "alibi").
    Position = ffi::tf_position_name, ffi::tf_position_from_name {
        None = ffi::TF_POSITION_NONE,
        /// The tutorial's sin/cos table, computed for any length.
        Sinusoidal = ffi::TF_POSITION_SINUSOIDAL,
        /// A learned table of `max_positions` rows.
        Learned = ffi::TF_POSITION_LEARNED,
        /// Rotary embedding of each head's Q and K (Config's `rotary_*`; since 0.4.0).
        Rotary = ffi::TF_POSITION_ROTARY,
        /// ALiBi's per-head linear biases of the scores (since 0.4.0).
        Alibi = ffi::TF_POSITION_ALIBI,
    }
}

c_enum! {
    /// A quantized embedding's type (tf_precision: sentence-transformers'
    /// "float32", "int8", "uint8", "binary", "ubinary"; since 0.5.0).
    Precision = ffi::tf_precision_name, ffi::tf_precision_from_name {
        /// The floats as they are.
        Float32 = ffi::TF_PRECISION_FLOAT32,
        /// Each dimension's range in 256 buckets, -128..127.
        Int8 = ffi::TF_PRECISION_INT8,
        /// Each dimension's range in 256 buckets, 0..255.
        Uint8 = ffi::TF_PRECISION_UINT8,
        /// The signs (value > 0), 8 a byte, each byte - 128 as i8.
        Binary = ffi::TF_PRECISION_BINARY,
        /// The signs (value > 0), 8 a byte (numpy.packbits).
        Ubinary = ffi::TF_PRECISION_UBINARY,
    }
}

/// tf_norm_placement of Config's and LoadOptions' `norm_first`.
pub(crate) fn norm_placement(norm_first: bool) -> i32 {
    if norm_first {
        ffi::TF_NORM_PRE
    } else {
        ffi::TF_NORM_POST
    }
}
