//! The encoder: configuration, creation and loading, tensors by name, and
//! sentence vectors (the forward pass is in forward.rs).
use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr::{self, NonNull};

use crate::enums::{norm_placement, Activation, Pooling, Position};
use crate::error::{check, Error, Result};
use crate::ffi;
use crate::forward::Inputs;
use crate::layout;
use crate::sizes::{elements, from_c, to_c, zeroed};
use crate::tokenizer::Tokenizer;

/// A model's hyper-parameters. `Config::default()` is the tutorial's
/// model: d_model 512, 8 heads, d_ff 2048, 1 layer, GELU, post-norm,
/// sinusoidal positions, vectors in.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub d_model: usize,
    pub n_heads: usize,
    pub d_ff: usize,
    pub n_layers: usize,
    /// 0: no token embedding; the model takes vectors.
    pub vocab_size: usize,
    pub max_positions: usize,
    pub position: Position,
    pub n_token_types: usize,
    pub embedding_norm: bool,
    /// Pre-norm (x + f(LN(x))) instead of post-norm (LN(x + f(x))).
    pub norm_first: bool,
    pub final_norm: bool,
    pub activation: Activation,
    pub bias: bool,
    pub pooler: bool,
    pub layer_norm_eps: f32,
    pub seed: u64,
    /// Learned positions counted from this over the tokens that are not
    /// id `position_offset - 1` (RoBERTa: padding_idx + 1); 0: from 0.
    pub position_offset: usize,
    /// A gated feed-forward block: act(x W_gate^T) * (x W_up^T) (GeGLU,
    /// SwiGLU). Since 0.4.0, as every field below (tfenc.h says each one).
    pub ffn_gated: bool,
    /// LayerNorms with biases even when `bias` is false.
    pub norm_bias: bool,
    /// Pre-norm: layer 0's attention reads x itself (ModernBERT).
    pub skip_first_norm1: bool,
    /// Rotated dimensions of each head (0: all of d_k).
    pub rotary_dim: usize,
    /// Pairs (2i, 2i+1) instead of (i, i + r/2).
    pub rotary_interleaved: bool,
    /// theta (0: 10000), and that of local layers (0: the same).
    pub rotary_base: f32,
    pub rotary_base_local: f32,
    /// NTK-aware scaling factor (0: none); dynamic past `rotary_ntk_positions` (> 0).
    pub rotary_ntk_factor: f32,
    pub rotary_ntk_positions: usize,
    /// Local layers' window (0: every layer global); every `global_every`-th layer global.
    pub attn_window: usize,
    pub global_every: usize,
    /// Positions rotate as t / f (linear scaling; 0: none, else >= 1).
    pub rotary_linear_factor: f32,
    /// Relative position bias buckets (0: none), shared by every layer (MPNet: 32).
    pub relative_buckets: usize,
    /// Their max distance (0: 128).
    pub relative_max_distance: usize,
    /// The embeddings' width E (0: d_model); another than d_model: embed.project [D, E]
    /// takes them to d_model before layer 0 (ELECTRA's embeddings_project).
    pub embedding_dim: usize,
    /// LayerNorms over each row's d_model features of Q and of K after their projections
    /// (layers.l.attn.q_norm, k_norm: JinaBERT v2's code variant's layer_norm_q, layer_norm_k).
    pub qk_norm: bool,
    /// Post-norm: the layer's input added again after add_norm1 and normed by
    /// layers.l.norm1b before the feed-forward block (the same variant's layer_norm_1).
    pub add_norm1b: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config::from_c(&layout::init(ffi::tf_config_init_sized))
    }
}

/// The variant of a C enum value from the library; None only from a library
/// newer than this crate.
fn known<E>(field: &str, value: i32, variant: Option<E>) -> E {
    variant.unwrap_or_else(|| {
        panic!("config.{}: the library gave {}, which this crate does not know", field, value)
    })
}

impl Config {
    fn from_c(c: &ffi::tf_config) -> Config {
        Config {
            d_model: from_c(c.d_model),
            n_heads: from_c(c.n_heads),
            d_ff: from_c(c.d_ff),
            n_layers: from_c(c.n_layers),
            vocab_size: from_c(c.vocab_size),
            max_positions: from_c(c.max_positions),
            position: known("position", c.position, Position::from_c(c.position)),
            n_token_types: from_c(c.n_token_types),
            embedding_norm: c.embedding_norm != 0,
            norm_first: c.norm_placement == ffi::TF_NORM_PRE,
            final_norm: c.final_norm != 0,
            activation: known("activation", c.activation, Activation::from_c(c.activation)),
            bias: c.bias != 0,
            pooler: c.pooler != 0,
            layer_norm_eps: c.layer_norm_eps,
            seed: c.seed,
            position_offset: from_c(c.position_offset),
            ffn_gated: c.ffn_gated != 0,
            norm_bias: c.norm_bias != 0,
            skip_first_norm1: c.skip_first_norm1 != 0,
            rotary_dim: from_c(c.rotary_dim),
            rotary_interleaved: c.rotary_interleaved != 0,
            rotary_base: c.rotary_base,
            rotary_base_local: c.rotary_base_local,
            rotary_ntk_factor: c.rotary_ntk_factor,
            rotary_ntk_positions: from_c(c.rotary_ntk_positions),
            attn_window: from_c(c.attn_window),
            global_every: from_c(c.global_every),
            rotary_linear_factor: c.rotary_linear_factor,
            relative_buckets: from_c(c.relative_buckets),
            relative_max_distance: from_c(c.relative_max_distance),
            embedding_dim: from_c(c.embedding_dim),
            qk_norm: c.qk_norm != 0,
            add_norm1b: c.add_norm1b != 0,
        }
    }

    fn to_c(&self) -> Result<ffi::tf_config> {
        let mut c = layout::init(ffi::tf_config_init_sized);
        c.d_model = to_c("d_model", self.d_model)?;
        c.n_heads = to_c("n_heads", self.n_heads)?;
        c.d_ff = to_c("d_ff", self.d_ff)?;
        c.n_layers = to_c("n_layers", self.n_layers)?;
        c.vocab_size = to_c("vocab_size", self.vocab_size)?;
        c.max_positions = to_c("max_positions", self.max_positions)?;
        c.position = self.position.to_c();
        c.n_token_types = to_c("n_token_types", self.n_token_types)?;
        c.embedding_norm = self.embedding_norm as i32;
        c.norm_placement = norm_placement(self.norm_first);
        c.final_norm = self.final_norm as i32;
        c.activation = self.activation.to_c();
        c.bias = self.bias as i32;
        c.pooler = self.pooler as i32;
        c.layer_norm_eps = self.layer_norm_eps;
        c.seed = self.seed;
        c.position_offset = to_c("position_offset", self.position_offset)?;
        c.ffn_gated = self.ffn_gated as i32;
        c.norm_bias = self.norm_bias as i32;
        c.skip_first_norm1 = self.skip_first_norm1 as i32;
        c.rotary_dim = to_c("rotary_dim", self.rotary_dim)?;
        c.rotary_interleaved = self.rotary_interleaved as i32;
        c.rotary_base = self.rotary_base;
        c.rotary_base_local = self.rotary_base_local;
        c.rotary_ntk_factor = self.rotary_ntk_factor;
        c.rotary_ntk_positions = to_c("rotary_ntk_positions", self.rotary_ntk_positions)?;
        c.attn_window = to_c("attn_window", self.attn_window)?;
        c.global_every = to_c("global_every", self.global_every)?;
        c.rotary_linear_factor = self.rotary_linear_factor;
        c.relative_buckets = to_c("relative_buckets", self.relative_buckets)?;
        c.relative_max_distance = to_c("relative_max_distance", self.relative_max_distance)?;
        c.embedding_dim = to_c("embedding_dim", self.embedding_dim)?;
        c.qk_norm = self.qk_norm as i32;
        c.add_norm1b = self.add_norm1b as i32;
        Ok(c)
    }
}

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

fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::invalid(format!("{}: contains a NUL byte", what)))
}

fn path_string(path: &Path) -> Result<CString> {
    c_string("path", &path.to_string_lossy())
}

impl Encoder {
    fn from_raw(ptr: *mut ffi::tf_encoder) -> Encoder {
        Encoder { ptr: NonNull::new(ptr).expect("the library returned TF_OK and a handle") }
    }

    pub(crate) fn as_ptr(&self) -> *const ffi::tf_encoder {
        self.ptr.as_ptr()
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
}

/// Texts per forward call of Encoder::embed.
const EMBED_BATCH: usize = 32;

impl Encoder {
    /// One vector per text, flattened [texts.len(), d_model]: tokenized,
    /// run in padded batches of EMBED_BATCH (32), pooled, L2-normalised
    /// when asked.
    pub fn embed(
        &self,
        tok: &Tokenizer,
        texts: &[&str],
        pooling: Pooling,
        normalize: bool,
    ) -> Result<Vec<f32>> {
        let cfg = self.config();
        let d = cfg.d_model;
        let mut vectors = zeroed("vectors", &[texts.len(), d])?;
        for (chunk, out) in texts.chunks(EMBED_BATCH).zip(vectors.chunks_mut(EMBED_BATCH * d)) {
            let e = tok.encode_batch(chunk)?;
            let mut inputs = Inputs::ids(&e.ids, e.batch, e.seq_len).attention_mask(&e.attention_mask);
            if cfg.n_token_types > 0 {
                inputs = inputs.token_type_ids(&e.type_ids);
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
                    pooling.to_c(),
                    normalize as i32,
                    out.as_mut_ptr(),
                )
            })?;
        }
        Ok(vectors)
    }
}
