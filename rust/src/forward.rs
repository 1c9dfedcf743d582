//! The forward pass over slices with explicit shapes: every size checked,
//! and the limits of the model that bound the outputs, before any output is
//! allocated.
use std::ptr;

use crate::encoder::{Config, Encoder};
use crate::error::{check, Error, Result};
use crate::ffi;
use crate::layout;
use crate::sizes::{elements, to_c, zeroed};

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
    /// Most threads the call may use, the caller's included: 0 (the
    /// default) = one per online core, 1 = the caller's thread only. Must
    /// fit in an int32.
    pub n_threads: usize,
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
    /// At most n threads (see the field).
    pub fn n_threads(mut self, n: usize) -> Self {
        self.n_threads = n;
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
    /// Runs the encoder. Every slice's length, and the limits of the model
    /// that bound the outputs (max_positions, the token count), are checked
    /// before an output is allocated; outputs that do not fit in memory are
    /// a `Status::OutOfMemory` error. The library checks everything else.
    pub fn forward(&self, inputs: &Inputs<'_>) -> Result<Output> {
        if inputs.ids.is_some() == inputs.vectors.is_some() {
            return Err(Error::invalid("pass exactly one of ids and vectors".to_string()));
        }
        let mut a = layout::init(ffi::tf_forward_args_init_sized);
        a.batch = to_c("batch", inputs.batch)?;
        a.seq_len = to_c("seq_len", inputs.seq_len)?;
        a.n_threads = to_c("n_threads", inputs.n_threads)?;
        let cfg = self.config();
        let (b, t, d, l, h) = (inputs.batch, inputs.seq_len, cfg.d_model, cfg.n_layers, cfg.n_heads);
        check_limits(&cfg, self.max_sequence(), b, t)?;
        check_len("ids", inputs.ids, &[b, t], "batch x seq_len")?;
        check_len("vectors", inputs.vectors, &[b, t, d], "batch x seq_len x d_model")?;
        check_len("token_type_ids", inputs.token_type_ids, &[b, t], "batch x seq_len")?;
        check_len("attention_mask", inputs.attention_mask, &[b, t], "batch x seq_len")?;
        let mut out = zeroed("output", &[b, t, d])?;
        let mut hidden = optional(inputs.hidden_states, "hidden_states", &[l + 1, b, t, d])?;
        let mut attn = optional(inputs.attentions, "attentions", &[l, b, h, t, t])?;
        let mut pooled = optional(cfg.pooler, "pooler_output", &[b, d])?;
        a.input_ids = ptr_or_null(inputs.ids);
        a.input_embeds = ptr_or_null(inputs.vectors);
        a.token_type_ids = ptr_or_null(inputs.token_type_ids);
        a.attention_mask = ptr_or_null(inputs.attention_mask);
        a.causal = inputs.causal as i32;
        a.output = out.as_mut_ptr();
        a.hidden_states = mut_ptr_or_null(&mut hidden);
        a.attentions = mut_ptr_or_null(&mut attn);
        a.pooled_output = mut_ptr_or_null(&mut pooled);
        // SAFETY: every pointer is NULL or a buffer of the size the C API
        // documents for this (batch, seq_len), checked or allocated above.
        check(unsafe { ffi::tf_encoder_forward(self.as_ptr(), &a) })?;
        Ok(Output {
            shape: [b, t, d],
            last_hidden_state: out,
            hidden_states: hidden,
            attentions: attn,
            pooler_output: pooled,
        })
    }
}
