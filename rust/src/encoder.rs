//! The encoder: configuration, creation and loading, tensors by name, and
//! the forward pass over slices with explicit shapes.
use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr::{self, NonNull};

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::tokenizer::Tokenizer;

/// How a sentence vector is made from its tokens' vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pooling {
    /// The first token's ([CLS]) vector.
    Cls,
    /// The mean over the real tokens.
    Mean,
}

/// The feed-forward block's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// 0.5 x (1 + erf(x / sqrt 2)), BERT's "gelu".
    Gelu,
    /// The tanh approximation ("gelu_new", "gelu_pytorch_tanh").
    GeluTanh,
    Relu,
}

/// How positions enter the embeddings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    None,
    /// The tutorial's sin/cos table, computed for any length.
    Sinusoidal,
    /// A learned table of `max_positions` rows.
    Learned,
}

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
}

fn activation_code(a: Activation) -> i32 {
    match a {
        Activation::Gelu => 0,
        Activation::GeluTanh => 1,
        Activation::Relu => 2,
    }
}

impl Default for Config {
    fn default() -> Config {
        let mut c = ffi::tf_config::default();
        // SAFETY: fills a valid tf_config.
        unsafe { ffi::tf_config_init(&mut c) };
        Config::from_c(&c)
    }
}

/// A value that does not fit the C API's int32 (the library rejects the
/// rest with its own message).
fn to_i32(name: &str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| Error::invalid(format!("{}: {} does not fit in int32", name, v)))
}

impl Config {
    fn from_c(c: &ffi::tf_config) -> Config {
        Config {
            d_model: c.d_model as usize,
            n_heads: c.n_heads as usize,
            d_ff: c.d_ff as usize,
            n_layers: c.n_layers as usize,
            vocab_size: c.vocab_size as usize,
            max_positions: c.max_positions as usize,
            position: match c.position {
                1 => Position::Sinusoidal,
                2 => Position::Learned,
                _ => Position::None,
            },
            n_token_types: c.n_token_types as usize,
            embedding_norm: c.embedding_norm != 0,
            norm_first: c.norm_placement != 0,
            final_norm: c.final_norm != 0,
            activation: match c.activation {
                1 => Activation::GeluTanh,
                2 => Activation::Relu,
                _ => Activation::Gelu,
            },
            bias: c.bias != 0,
            pooler: c.pooler != 0,
            layer_norm_eps: c.layer_norm_eps,
            seed: c.seed,
        }
    }

    fn to_c(&self) -> Result<ffi::tf_config> {
        let mut c = ffi::tf_config::default();
        // SAFETY: fills a valid tf_config (struct_size included).
        unsafe { ffi::tf_config_init(&mut c) };
        c.d_model = to_i32("d_model", self.d_model)?;
        c.n_heads = to_i32("n_heads", self.n_heads)?;
        c.d_ff = to_i32("d_ff", self.d_ff)?;
        c.n_layers = to_i32("n_layers", self.n_layers)?;
        c.vocab_size = to_i32("vocab_size", self.vocab_size)?;
        c.max_positions = to_i32("max_positions", self.max_positions)?;
        c.position = match self.position {
            Position::None => 0,
            Position::Sinusoidal => 1,
            Position::Learned => 2,
        };
        c.n_token_types = to_i32("n_token_types", self.n_token_types)?;
        c.embedding_norm = self.embedding_norm as i32;
        c.norm_placement = self.norm_first as i32;
        c.final_norm = self.final_norm as i32;
        c.activation = activation_code(self.activation);
        c.bias = self.bias as i32;
        c.pooler = self.pooler as i32;
        c.layer_norm_eps = self.layer_norm_eps;
        c.seed = self.seed;
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

/// The inputs of a forward call: slices and the [batch, seq_len] they are.
/// Build with `Inputs::ids` or `Inputs::vectors`, then chain options.
#[derive(Clone, Debug, Default)]
pub struct Inputs<'a> {
    pub batch: usize,
    pub seq_len: usize,
    pub ids: Option<&'a [i32]>,
    pub vectors: Option<&'a [f32]>,
    pub token_type_ids: Option<&'a [i32]>,
    /// [batch, seq_len], 1 = real token (right padding).
    pub attention_mask: Option<&'a [i32]>,
    pub causal: bool,
    pub hidden_states: bool,
    pub attentions: bool,
}

impl<'a> Inputs<'a> {
    /// Token ids [batch, seq_len].
    pub fn ids(ids: &'a [i32], batch: usize, seq_len: usize) -> Inputs<'a> {
        Inputs { batch, seq_len, ids: Some(ids), ..Inputs::default() }
    }
    /// Vectors [batch, seq_len, d_model] for models without a vocabulary.
    pub fn vectors(x: &'a [f32], batch: usize, seq_len: usize) -> Inputs<'a> {
        Inputs { batch, seq_len, vectors: Some(x), ..Inputs::default() }
    }
    pub fn attention_mask(mut self, mask: &'a [i32]) -> Self {
        self.attention_mask = Some(mask);
        self
    }
    pub fn token_type_ids(mut self, types: &'a [i32]) -> Self {
        self.token_type_ids = Some(types);
        self
    }
    pub fn causal(mut self, causal: bool) -> Self {
        self.causal = causal;
        self
    }
    /// Also return every layer's hidden state.
    pub fn hidden_states(mut self, on: bool) -> Self {
        self.hidden_states = on;
        self
    }
    /// Also return every layer's attention weights.
    pub fn attentions(mut self, on: bool) -> Self {
        self.attentions = on;
        self
    }
}

/// A forward call's results, owned, row-major. Padded positions are 0.
#[derive(Clone, Debug)]
pub struct Output {
    /// [batch, seq_len, d_model]
    pub shape: [usize; 3],
    pub last_hidden_state: Vec<f32>,
    /// [n_layers + 1, batch, seq_len, d_model], embeddings first.
    pub hidden_states: Option<Vec<f32>>,
    /// [n_layers, batch, n_heads, seq_len, seq_len]
    pub attentions: Option<Vec<f32>>,
    /// [batch, d_model], for models with a pooler.
    pub pooler_output: Option<Vec<f32>>,
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

/// The slice has exactly `want` elements.
fn check_len<T>(name: &str, slice: Option<&[T]>, want: usize, shape: &str) -> Result<()> {
    match slice {
        Some(s) if s.len() != want => Err(Error::invalid(format!(
            "{}: expected {} values ({}), got {}",
            name,
            want,
            shape,
            s.len()
        ))),
        _ => Ok(()),
    }
}

fn ptr_or_null<T>(s: Option<&[T]>) -> *const T {
    s.map_or(ptr::null(), |s| s.as_ptr())
}

fn mut_ptr_or_null<T>(v: &mut Option<Vec<T>>) -> *mut T {
    v.as_mut().map_or(ptr::null_mut(), |v| v.as_mut_ptr())
}

impl Encoder {
    fn from_raw(ptr: *mut ffi::tf_encoder) -> Encoder {
        Encoder { ptr: NonNull::new(ptr).expect("the library returned TF_OK and a handle") }
    }

    /// A model with deterministic PyTorch-like random weights from config.seed.
    pub fn new(config: &Config) -> Result<Encoder> {
        let c = config.to_c()?;
        let mut out = ptr::null_mut();
        // SAFETY: c is a valid tf_config; out receives the handle.
        check(unsafe { ffi::tf_encoder_create(&c, &mut out) })?;
        Ok(Encoder::from_raw(out))
    }

    /// Loads a Hugging Face BERT directory or .safetensors, a PyTorch
    /// nn.TransformerEncoder state_dict in safetensors, or a saved file.
    pub fn from_file<P: AsRef<Path>>(path: P, options: &LoadOptions) -> Result<Encoder> {
        let path = path_string(path.as_ref())?;
        let mut o = ffi::tf_load_options {
            struct_size: 0,
            n_heads: 0,
            activation: 0,
            norm_placement: 0,
            layer_norm_eps: 0.0,
        };
        // SAFETY: fills a valid tf_load_options.
        unsafe { ffi::tf_load_options_init(&mut o) };
        if let Some(h) = options.n_heads {
            o.n_heads = to_i32("n_heads", h)?;
        }
        if let Some(a) = options.activation {
            o.activation = activation_code(a);
        }
        if let Some(n) = options.norm_first {
            o.norm_placement = n as i32;
        }
        if let Some(eps) = options.layer_norm_eps {
            o.layer_norm_eps = eps;
        }
        let mut out = ptr::null_mut();
        // SAFETY: valid path and options; out receives the handle.
        check(unsafe { ffi::tf_encoder_load(path.as_ptr(), &o, &mut out) })?;
        Ok(Encoder::from_raw(out))
    }

    pub fn config(&self) -> Config {
        let mut c = ffi::tf_config::default();
        // SAFETY: valid handle; c is initialised (struct_size).
        unsafe {
            ffi::tf_config_init(&mut c);
            ffi::tf_encoder_get_config(self.ptr.as_ptr(), &mut c);
        }
        Config::from_c(&c)
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
        let shape: Vec<usize> = dims[..rank as usize].iter().map(|&d| d as usize).collect();
        let mut data = vec![0f32; shape.iter().product()];
        // SAFETY: data holds exactly the tensor's element count.
        check(unsafe {
            ffi::tf_encoder_get_tensor(self.ptr.as_ptr(), cname.as_ptr(), data.as_mut_ptr(), rank, dims.as_ptr())
        })?;
        Ok(Tensor { shape, data })
    }

    /// Replaces the tensor `name`; shape must be its shape.
    pub fn set_tensor(&mut self, name: &str, data: &[f32], shape: &[usize]) -> Result<()> {
        let cname = c_string("name", name)?;
        let count: usize = shape.iter().product();
        if data.len() != count || shape.len() > ffi::TF_MAX_RANK {
            return Err(Error::invalid(format!(
                "{}: {} values do not make the shape {:?}",
                name,
                data.len(),
                shape
            )));
        }
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        // SAFETY: data holds the element count of (rank, dims), checked above.
        check(unsafe {
            ffi::tf_encoder_set_tensor(
                self.ptr.as_ptr(),
                cname.as_ptr(),
                data.as_ptr(),
                dims.len() as i32,
                dims.as_ptr(),
            )
        })
    }

    /// Runs the encoder. Every slice's length is checked against the shape
    /// before the library sees it; the library checks everything else.
    pub fn forward(&self, inputs: &Inputs<'_>) -> Result<Output> {
        let cfg = self.config();
        let (b, t, d) = (inputs.batch, inputs.seq_len, cfg.d_model);
        let bt = b
            .checked_mul(t)
            .ok_or_else(|| Error::invalid(format!("batch {} x seq_len {} overflows", b, t)))?;
        if inputs.ids.is_some() == inputs.vectors.is_some() {
            return Err(Error::invalid("pass exactly one of ids and vectors".to_string()));
        }
        check_len("ids", inputs.ids, bt, "batch x seq_len")?;
        check_len("vectors", inputs.vectors, bt * d, "batch x seq_len x d_model")?;
        check_len("token_type_ids", inputs.token_type_ids, bt, "batch x seq_len")?;
        check_len("attention_mask", inputs.attention_mask, bt, "batch x seq_len")?;
        let (l, h) = (cfg.n_layers, cfg.n_heads);
        let mut out = vec![0f32; bt * d];
        let mut hidden = if inputs.hidden_states { Some(vec![0f32; (l + 1) * bt * d]) } else { None };
        let mut attn = if inputs.attentions { Some(vec![0f32; l * bt * h * t]) } else { None };
        let mut pooled = if cfg.pooler { Some(vec![0f32; b * d]) } else { None };
        // SAFETY: every pointer is NULL or a buffer of the size the C API
        // documents for this (batch, seq_len), checked or allocated above.
        unsafe {
            let mut a: ffi::tf_forward_args = std::mem::zeroed();
            ffi::tf_forward_args_init(&mut a);
            a.batch = to_i32("batch", b)?;
            a.seq_len = to_i32("seq_len", t)?;
            a.input_ids = ptr_or_null(inputs.ids);
            a.input_embeds = ptr_or_null(inputs.vectors);
            a.token_type_ids = ptr_or_null(inputs.token_type_ids);
            a.attention_mask = ptr_or_null(inputs.attention_mask);
            a.causal = inputs.causal as i32;
            a.output = out.as_mut_ptr();
            a.hidden_states = mut_ptr_or_null(&mut hidden);
            a.attentions = mut_ptr_or_null(&mut attn);
            a.pooled_output = mut_ptr_or_null(&mut pooled);
            check(ffi::tf_encoder_forward(self.ptr.as_ptr(), &a))?;
        }
        Ok(Output {
            shape: [b, t, d],
            last_hidden_state: out,
            hidden_states: hidden,
            attentions: attn,
            pooler_output: pooled,
        })
    }
}

impl Encoder {
    /// One vector per text, flattened [texts.len(), d_model]: tokenised,
    /// run in padded batches of 32, pooled, L2-normalised when asked.
    pub fn embed(&self, tok: &Tokenizer, texts: &[&str], pooling: Pooling, normalize: bool) -> Result<Vec<f32>> {
        let cfg = self.config();
        let d = cfg.d_model;
        let mut vectors = vec![0f32; texts.len() * d];
        for (chunk, out) in texts.chunks(32).zip(vectors.chunks_mut(32 * d)) {
            let e = tok.encode_batch(chunk)?;
            let mut inputs = Inputs::ids(&e.ids, e.batch, e.seq_len).attention_mask(&e.attention_mask);
            if cfg.n_token_types > 0 {
                inputs = inputs.token_type_ids(&e.type_ids);
            }
            let hidden = self.forward(&inputs)?.last_hidden_state;
            let pooling = match pooling {
                Pooling::Cls => 0,
                Pooling::Mean => 1,
            };
            // SAFETY: hidden is [batch, seq_len, d], lengths [batch], out [batch, d].
            check(unsafe {
                ffi::tf_pool(
                    hidden.as_ptr(),
                    e.lengths.as_ptr(),
                    e.batch as i32,
                    e.seq_len as i32,
                    d as i32,
                    pooling,
                    normalize as i32,
                    out.as_mut_ptr(),
                )
            })?;
        }
        Ok(vectors)
    }
}
