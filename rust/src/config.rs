//! A model's hyper-parameters (Config) and their C struct, tf_config.
use crate::enums::{norm_placement, Activation, Position};
use crate::error::Result;
use crate::ffi;
use crate::layout;
use crate::sizes::{from_c, to_c};

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
    pub(crate) fn from_c(c: &ffi::tf_config) -> Config {
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

    pub(crate) fn to_c(&self) -> Result<ffi::tf_config> {
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
