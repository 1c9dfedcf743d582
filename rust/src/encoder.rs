//! The encoder handle and every call on it: creation and loading, tensors
//! by name, the forward pass over slices with explicit shapes (every size,
//! and the limits of the model that bound the outputs, checked before any
//! output is allocated) and sentence vectors.
use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr::{self, NonNull};

use crate::config::Config;
use crate::enums::{norm_placement, Activation, Pooling};
use crate::error::{check, Error, Result};
use crate::ffi;
use crate::forward_types::{EncoderOutput, Inputs};
use crate::layout;
use crate::sizes::{elements, from_c, to_c, zeroed};
use crate::tokenizer::Tokenizer;

/// What a checkpoint cannot tell (PyTorch state_dicts): None = from the file.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub n_heads: Option<usize>,
    pub activation: Option<Activation>,
    pub norm_first: Option<bool>,
    pub layer_norm_eps: Option<f32>,
}

/// A tensor copied out of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// An encoder. `forward` takes `&self` and may run on one Encoder from many
/// threads at once; changing weights takes `&mut self`.
pub struct Encoder {
    ptr: NonNull<ffi::tf_encoder>,
}

// SAFETY: the C library documents tf_encoder_forward (and every other const
// function) as safe on one handle from many threads; mutation needs &mut.
unsafe impl Send for Encoder {}
unsafe impl Sync for Encoder {}

impl Drop for Encoder {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned.
        unsafe { ffi::tf_encoder_destroy(self.ptr.as_ptr()) };
    }
}

/// `Encoder::embed`'s options, named as Python's `Encoder.embed` keywords:
/// the pooling (`Pooling::Mean` by default), L2 normalisation, texts per
/// forward call (0, the default: 32) and each call's threads (as
/// `Inputs::n_threads`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbedOptions {
    pub pooling: Pooling,
    pub normalize: bool,
    pub batch_size: usize,
    pub n_threads: usize,
}

impl Default for EmbedOptions {
    fn default() -> EmbedOptions {
        EmbedOptions { pooling: Pooling::Mean, normalize: false, batch_size: 0, n_threads: 0 }
    }
}

/// Texts per forward call of Encoder::embed when its options say 0.
const EMBED_BATCH: usize = 32;

fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::invalid(format!("{}: contains a NUL byte", what)))
}

fn path_string(path: &Path) -> Result<CString> {
    c_string("path", &path.to_string_lossy())
}

/// The slice has the element count of `shape`.
fn check_len<T>(name: &str, slice: Option<&[T]>, shape: &[usize], dims: &str) -> Result<()> {
    if let Some(s) = slice {
        let want = elements(name, shape)?;
        if s.len() != want {
            let message = format!("{}: expected {} values ({}), got {}", name, want, dims, s.len());
            return Err(Error::invalid(message));
        }
    }
    Ok(())
}

/// The library's limits on batch and seq_len that bound the outputs' sizes,
/// with its messages: checked here too, before the outputs are allocated.
fn check_limits(cfg: &Config, longest: Option<usize>, batch: usize, seq_len: usize) -> Result<()> {
    let tokens = elements("batch x seq_len", &[batch, seq_len])?;
    if tokens > i32::MAX as usize {
        return Err(Error::invalid(format!(
            "batch {} x seq_len {} = {} tokens exceeds the limit of {}",
            batch,
            seq_len,
            tokens,
            i32::MAX
        )));
    }
    if longest.map_or(false, |n| seq_len > n) {
        let offset = if cfg.position_offset > 0 { " less position_offset" } else { "" };
        return Err(Error::invalid(format!(
            "sequence length {} exceeds max_positions {}{}",
            seq_len, cfg.max_positions, offset
        )));
    }
    Ok(())
}

fn ptr_or_null<T>(s: Option<&[T]>) -> *const T {
    s.map_or(ptr::null(), |s| s.as_ptr())
}

fn mut_ptr_or_null<T>(v: &mut Option<Vec<T>>) -> *mut T {
    v.as_mut().map_or(ptr::null_mut(), |v| v.as_mut_ptr())
}

/// `shape` zeroed when `on`.
fn optional(on: bool, what: &str, shape: &[usize]) -> Result<Option<Vec<f32>>> {
    if on {
        zeroed(what, shape).map(Some)
    } else {
        Ok(None)
    }
}

impl Encoder {
    fn from_raw(ptr: *mut ffi::tf_encoder) -> Encoder {
        Encoder { ptr: NonNull::new(ptr).expect("the library returned TF_OK and a handle") }
    }

    /// A model with deterministic PyTorch-like random weights from config.seed.
    pub fn new(config: &Config) -> Result<Encoder> {
        layout::check()?;
        let c = config.to_c()?;
        let mut out = ptr::null_mut();
        // SAFETY: c is a valid tf_config; out receives the handle.
        check(unsafe { ffi::tf_encoder_create(&c, &mut out) })?;
        Ok(Encoder::from_raw(out))
    }

    /// Loads a Hugging Face BERT directory or .safetensors, a PyTorch
    /// nn.TransformerEncoder state_dict in safetensors, or a saved file.
    pub fn from_file<P: AsRef<Path>>(path: P, options: &LoadOptions) -> Result<Encoder> {
        layout::check()?;
        let path = path_string(path.as_ref())?;
        let mut o = layout::init(ffi::tf_load_options_init_sized);
        if let Some(h) = options.n_heads {
            o.n_heads = to_c("n_heads", h)?;
        }
        if let Some(a) = options.activation {
            o.activation = a.to_c();
        }
        if let Some(n) = options.norm_first {
            o.norm_placement = norm_placement(n);
        }
        if let Some(eps) = options.layer_norm_eps {
            o.layer_norm_eps = eps;
        }
        let mut out = ptr::null_mut();
        // SAFETY: valid path and options; out receives the handle.
        check(unsafe { ffi::tf_encoder_load(path.as_ptr(), &o, &mut out) })?;
        Ok(Encoder::from_raw(out))
    }

    /// The model's configuration.
    ///
    /// # Panics
    /// When the library reports a position kind or activation this crate
    /// does not know (a library newer than the crate).
    pub fn config(&self) -> Config {
        Config::from_c(&self.raw_config())
    }

    fn raw_config(&self) -> ffi::tf_config {
        let mut c = layout::init(ffi::tf_config_init_sized);
        // SAFETY: valid handle; c's struct_size is its size.
        unsafe { ffi::tf_encoder_get_config(self.ptr.as_ptr(), &mut c) };
        c
    }

    /// The longest sequence a forward call takes, or None when the model's
    /// positions bound none (rotary, ALiBi: `max_positions` is then the
    /// trained length), as `tf_config_max_sequence` says.
    pub fn max_sequence(&self) -> Option<usize> {
        // SAFETY: c is a whole tf_config.
        let n = unsafe { ffi::tf_config_max_sequence(&self.raw_config()) };
        if n > 0 { Some(n as usize) } else { None }
    }

    /// Writes a safetensors file that from_file reads back bitwise.
    pub fn save<P: AsRef<Path>>(&self, path: P) -> Result<()> {
        let path = path_string(path.as_ref())?;
        // SAFETY: valid handle and path.
        check(unsafe { ffi::tf_encoder_save(self.ptr.as_ptr(), path.as_ptr()) })
    }

    /// The names of the model's tensors, in storage order.
    pub fn tensor_names(&self) -> Vec<String> {
        // SAFETY: valid handle; names are valid while it lives (copied here).
        unsafe {
            (0..ffi::tf_encoder_tensor_count(self.ptr.as_ptr()))
                .map(|i| {
                    CStr::from_ptr(ffi::tf_encoder_tensor_name(self.ptr.as_ptr(), i))
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        }
    }

    /// A copy of the tensor `name`.
    pub fn tensor(&self, name: &str) -> Result<Tensor> {
        let cname = c_string("name", name)?;
        let (mut rank, mut dims) = (0i32, [0i64; ffi::TF_MAX_RANK]);
        // SAFETY: valid handle and name; dims holds TF_MAX_RANK values.
        check(unsafe {
            ffi::tf_encoder_tensor_shape(self.ptr.as_ptr(), cname.as_ptr(), &mut rank, dims.as_mut_ptr())
        })?;
        let shape: Vec<usize> = dims[..from_c(rank)].iter().map(|&d| from_c(d)).collect();
        let mut data = zeroed(name, &shape)?;
        // SAFETY: data holds exactly the tensor's element count.
        check(unsafe {
            ffi::tf_encoder_get_tensor(
                self.ptr.as_ptr(),
                cname.as_ptr(),
                data.as_mut_ptr(),
                rank,
                dims.as_ptr(),
            )
        })?;
        Ok(Tensor { shape, data })
    }

    /// Replaces the tensor `name`; shape must be its shape.
    pub fn set_tensor(&mut self, name: &str, data: &[f32], shape: &[usize]) -> Result<()> {
        let cname = c_string("name", name)?;
        if data.len() != elements(name, shape)? || shape.len() > ffi::TF_MAX_RANK {
            return Err(Error::invalid(format!(
                "{}: {} values do not make the shape {:?}",
                name,
                data.len(),
                shape
            )));
        }
        let dims = shape
            .iter()
            .enumerate()
            .map(|(i, &d)| to_c(&format!("{} dims[{}]", name, i), d))
            .collect::<Result<Vec<i64>>>()?;
        let rank = to_c("rank", dims.len())?;
        // SAFETY: data holds the element count of (rank, dims), checked above.
        check(unsafe {
            ffi::tf_encoder_set_tensor(self.ptr.as_ptr(), cname.as_ptr(), data.as_ptr(), rank, dims.as_ptr())
        })
    }

    /// Runs the encoder. Every slice's length, and the limits of the model
    /// that bound the outputs (max_positions, the token count), are checked
    /// before an output is allocated; outputs that do not fit in memory are
    /// a `Status::OutOfMemory` error. The library checks everything else.
    pub fn forward(&self, inputs: &Inputs<'_>) -> Result<EncoderOutput> {
        if inputs.input_ids.is_some() == inputs.input_embeds.is_some() {
            let message = "pass exactly one of input_ids and input_embeds";
            return Err(Error::invalid(message.to_string()));
        }
        let mut a = layout::init(ffi::tf_forward_args_init_sized);
        a.batch = to_c("batch", inputs.batch)?;
        a.seq_len = to_c("seq_len", inputs.seq_len)?;
        a.n_threads = to_c("n_threads", inputs.n_threads)?;
        let cfg = self.config();
        let (b, t) = (inputs.batch, inputs.seq_len);
        let (d, l, h) = (cfg.d_model, cfg.n_layers, cfg.n_heads);
        check_limits(&cfg, self.max_sequence(), b, t)?;
        check_len("input_ids", inputs.input_ids, &[b, t], "batch x seq_len")?;
        check_len("input_embeds", inputs.input_embeds, &[b, t, d], "batch x seq_len x d_model")?;
        check_len("token_type_ids", inputs.token_type_ids, &[b, t], "batch x seq_len")?;
        check_len("attention_mask", inputs.attention_mask, &[b, t], "batch x seq_len")?;
        let mut out = zeroed("output", &[b, t, d])?;
        let mut hidden = optional(inputs.output_hidden_states, "hidden_states", &[l + 1, b, t, d])?;
        let mut attn = optional(inputs.output_attentions, "attentions", &[l, b, h, t, t])?;
        let mut pooled = optional(cfg.pooler, "pooler_output", &[b, d])?;
        a.input_ids = ptr_or_null(inputs.input_ids);
        a.input_embeds = ptr_or_null(inputs.input_embeds);
        a.token_type_ids = ptr_or_null(inputs.token_type_ids);
        a.attention_mask = ptr_or_null(inputs.attention_mask);
        a.causal = inputs.causal as i32;
        a.output = out.as_mut_ptr();
        a.hidden_states = mut_ptr_or_null(&mut hidden);
        a.attentions = mut_ptr_or_null(&mut attn);
        a.pooled_output = mut_ptr_or_null(&mut pooled);
        // SAFETY: every pointer is NULL or a buffer of the size the C API
        // documents for this (batch, seq_len), checked or allocated above.
        check(unsafe { ffi::tf_encoder_forward(self.ptr.as_ptr(), &a) })?;
        Ok(EncoderOutput {
            shape: [b, t, d],
            last_hidden_state: out,
            hidden_states: hidden,
            attentions: attn,
            pooler_output: pooled,
        })
    }

    /// One vector per text, flattened [texts.len(), d_model]: tokenized by
    /// `tokenizer`, run in padded batches of `options.batch_size` texts,
    /// pooled, L2-normalised when asked.
    pub fn embed(&self, texts: &[&str], tokenizer: &Tokenizer, options: &EmbedOptions)
                 -> Result<Vec<f32>> {
        let cfg = self.config();
        let d = cfg.d_model;
        let batch_size = if options.batch_size == 0 { EMBED_BATCH } else { options.batch_size };
        let mut vectors = zeroed("vectors", &[texts.len(), d])?; // [texts, d]
        let rows = vectors.chunks_mut(batch_size.saturating_mul(d)); // [batch_size, d] each
        for (chunk, out) in texts.chunks(batch_size).zip(rows) {
            let e = tokenizer.encode_batch(chunk)?;
            let mut inputs = Inputs::input_ids(&e.input_ids, e.batch, e.seq_len)
                .attention_mask(&e.attention_mask)
                .n_threads(options.n_threads);
            if cfg.n_token_types > 0 {
                inputs = inputs.token_type_ids(&e.token_type_ids);
            }
            let hidden = self.forward(&inputs)?.last_hidden_state;
            let (batch, seq_len) = (to_c("batch", e.batch)?, to_c("seq_len", e.seq_len)?);
            // SAFETY: hidden is [batch, seq_len, d], lengths [batch], out [batch, d].
            check(unsafe {
                ffi::tf_pool(
                    hidden.as_ptr(),
                    e.lengths.as_ptr(),
                    batch,
                    seq_len,
                    to_c("d_model", d)?,
                    options.pooling.to_c(),
                    options.normalize as i32,
                    out.as_mut_ptr(),
                )
            })?;
        }
        Ok(vectors)
    }
}
