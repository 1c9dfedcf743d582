//! The C API of include/tfenc.h, declared by hand (no bindgen: no registry
//! crates). Layouts are #[repr(C)] and must match the header: the safe API
//! checks each mirror's size against the library's `tf_struct_size` before
//! first use, and passes its size as `struct_size` to the `*_init_sized`
//! functions (the header's "Structs that grow").
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

pub type tf_status = c_int;
pub const TF_OK: tf_status = 0;
pub const TF_ERR_INVALID_ARGUMENT: tf_status = 1;
pub const TF_ERR_SHAPE: tf_status = 2;
pub const TF_ERR_OUT_OF_MEMORY: tf_status = 3;
pub const TF_ERR_IO: tf_status = 4;
pub const TF_ERR_FORMAT: tf_status = 5;
pub const TF_ERR_UNSUPPORTED: tf_status = 6;
pub const TF_ERR_NOT_FOUND: tf_status = 7;

pub const TF_POSITION_NONE: i32 = 0;
pub const TF_POSITION_SINUSOIDAL: i32 = 1;
pub const TF_POSITION_LEARNED: i32 = 2;
pub const TF_POSITION_ROTARY: i32 = 3;
pub const TF_POSITION_ALIBI: i32 = 4;
pub const TF_ACTIVATION_GELU: i32 = 0;
pub const TF_ACTIVATION_GELU_TANH: i32 = 1;
pub const TF_ACTIVATION_RELU: i32 = 2;
pub const TF_ACTIVATION_SILU: i32 = 3;
pub const TF_ACTIVATION_QUICK_GELU: i32 = 4;
pub const TF_NORM_POST: i32 = 0;
pub const TF_NORM_PRE: i32 = 1;
pub const TF_POOLING_CLS: i32 = 0;
pub const TF_POOLING_MEAN: i32 = 1;
pub const TF_POOLING_MAX: i32 = 2;
pub const TF_POOLING_MEAN_SQRT_LEN: i32 = 3;
pub const TF_POOLING_WEIGHTED_MEAN: i32 = 4;
pub const TF_POOLING_LAST_TOKEN: i32 = 5;

pub const TF_MAX_RANK: usize = 8;

#[repr(C)]
pub struct tf_encoder {
    _private: [u8; 0],
}
#[repr(C)]
pub struct tf_tokenizer {
    _private: [u8; 0],
}
#[repr(C)]
pub struct tf_encoding {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct tf_config {
    pub struct_size: usize,
    pub d_model: i32,
    pub n_heads: i32,
    pub d_ff: i32,
    pub n_layers: i32,
    pub vocab_size: i32,
    pub max_positions: i32,
    pub position: i32,
    pub n_token_types: i32,
    pub embedding_norm: i32,
    pub norm_placement: i32,
    pub final_norm: i32,
    pub activation: i32,
    pub bias: i32,
    pub pooler: i32,
    pub layer_norm_eps: f32,
    pub seed: u64,
    pub position_offset: i32,
    // Since 0.4.0.
    pub ffn_gated: i32,
    pub norm_bias: i32,
    pub skip_first_norm1: i32,
    pub rotary_dim: i32,
    pub rotary_interleaved: i32,
    pub rotary_base: f32,
    pub rotary_base_local: f32,
    pub rotary_ntk_factor: f32,
    pub rotary_ntk_positions: i32,
    pub attn_window: i32,
    pub global_every: i32,
    pub rotary_linear_factor: f32,
    pub relative_buckets: i32,
    pub relative_max_distance: i32,
    pub embedding_dim: i32,
    pub qk_norm: i32,
    pub add_norm1b: i32,
}

#[repr(C)]
pub struct tf_forward_args {
    pub struct_size: usize,
    pub batch: i32,
    pub seq_len: i32,
    pub input_ids: *const i32,
    pub input_embeds: *const f32,
    pub token_type_ids: *const i32,
    pub lengths: *const i32,
    pub attention_mask: *const i32,
    pub causal: i32,
    pub additive_mask: *const f32,
    pub additive_mask_batched: i32,
    pub output: *mut f32,
    pub hidden_states: *mut f32,
    pub attentions: *mut f32,
    pub pooled_output: *mut f32,
    pub workspace: *mut c_void,
    pub trace: tf_trace_fn,
    pub trace_user_data: *mut c_void,
    /// Since 0.2.0.
    pub n_threads: i32,
}

/// Handed out by the library, with the library's size in struct_size.
#[repr(C)]
pub struct tf_trace_event {
    pub struct_size: usize,
    pub name: *const c_char,
    pub layer: i32,
    pub rank: i32,
    pub dims: [i64; TF_MAX_RANK],
    pub dim_names: *const c_char,
    pub data: *const f32,
}

pub type tf_trace_fn = Option<unsafe extern "C" fn(event: *const tf_trace_event, user_data: *mut c_void)>;

#[repr(C)]
pub struct tf_load_options {
    pub struct_size: usize,
    pub n_heads: i32,
    pub activation: i32,
    pub norm_placement: i32,
    pub layer_norm_eps: f32,
}

#[repr(C)]
pub struct tf_tokenizer_options {
    pub struct_size: usize,
    pub lowercase: i32,
    pub strip_accents: i32,
    pub split_cjk: i32,
    pub max_chars_per_word: i32,
    pub max_length: i32,
    pub unk_token: *const c_char,
    pub cls_token: *const c_char,
    pub sep_token: *const c_char,
    pub pad_token: *const c_char,
}

/// Since 0.3.0; filled by tf_runtime_info_get_sized.
#[repr(C)]
pub struct tf_runtime_info {
    pub struct_size: usize,
    pub blas: *const c_char,
    pub blas_build: *const c_char,
    pub blas_kernels: *const c_char,
    pub vector_loops: *const c_char,
    pub blas_threads: i32,
    pub max_threads: i32,
}

#[repr(C)]
pub struct tf_pipeline {
    _private: [u8; 0],
}

/// Since 0.4.0.
#[repr(C)]
pub struct tf_encode_options {
    pub struct_size: usize,
    pub truncation: i32,
    pub max_length: i32,
    pub pad_to_max_length: i32,
    pub pad_to_multiple_of: i32,
    pub pad_left: i32,
    pub stride: i32,
    pub return_overflowing: i32,
}

/// Since 0.3.0.
#[repr(C)]
pub struct tf_pipeline_options {
    pub struct_size: usize,
    pub max_seq_length: i32,
    pub truncation_error: i32,
    /// Since 0.5.0.
    pub kind: i32,
}

/// Since 0.3.0.
#[repr(C)]
pub struct tf_pipeline_args {
    pub struct_size: usize,
    pub n: usize,
    pub texts: *const *const c_char,
    pub pairs: *const *const c_char,
    pub prompt_name: *const c_char,
    pub normalize: i32,
    pub dimensions: i32,
    pub batch_size: i32,
    pub n_threads: i32,
    pub out: *mut f32,
    pub truncated: *mut usize,
    /// Since 0.4.0.
    pub dimensions_layer_norm: i32,
    pub out_len: usize,
    /// Since 0.5.0.
    pub is_query: i32,
    pub max_active_dims: i32,
    pub first_index: usize,
}

/// Since 0.5.0: one call's images (encoded files, RGB pixels or pixel_values).
#[repr(C)]
pub struct tf_image_args {
    pub struct_size: usize,
    pub n: usize,
    pub data: *const *const u8,
    pub sizes: *const usize,
    pub pixels: *const u8,
    pub pixel_values: *const f32,
    pub height: i32,
    pub width: i32,
    pub normalize: i32,
    pub batch_size: i32,
    pub n_threads: i32,
    pub max_pixels: i64,
    pub out: *mut f32,
    pub out_len: usize,
    pub first_index: usize,
    pub trace: tf_trace_fn,
    pub trace_user_data: *mut c_void,
}

/// Since 0.4.0. Handed out by the library, with the library's size in struct_size.
#[repr(C)]
pub struct tf_hub_progress {
    pub struct_size: usize,
    pub repo_id: *const c_char,
    pub file: *const c_char,
    pub file_index: i32,
    pub file_count: i32,
    pub file_bytes: i64,
    pub file_size: i64,
    pub bytes: i64,
    pub total_bytes: i64,
    pub waiting: i32,
}

pub type tf_hub_progress_fn =
    Option<unsafe extern "C" fn(progress: *const tf_hub_progress, user_data: *mut c_void) -> i32>;

/// Since 0.4.0.
#[repr(C)]
pub struct tf_hub_options {
    pub struct_size: usize,
    pub revision: *const c_char,
    pub cache_dir: *const c_char,
    pub endpoint: *const c_char,
    pub token: *const c_char,
    pub local_files_only: i32,
    pub progress: tf_hub_progress_fn,
    pub progress_user_data: *mut c_void,
}

pub const TF_PIPELINE_EMBEDDING: i32 = 0;
pub const TF_PIPELINE_CROSS_ENCODER: i32 = 1;
pub const TF_PIPELINE_CLASSIFIER: i32 = 2;
pub const TF_PIPELINE_TOKEN_CLASSIFIER: i32 = 3;
pub const TF_PIPELINE_FILL_MASK: i32 = 4; // since 0.5.0
pub const TF_PIPELINE_SPARSE: i32 = 5; // since 0.5.0
pub const TF_PIPELINE_MULTI_VECTOR: i32 = 6; // since 0.5.0
pub const TF_PIPELINE_IMAGE_EMBEDDING: i32 = 7; // since 0.5.0
pub const TF_PIPELINE_IMAGE_CLASSIFIER: i32 = 8; // since 0.5.0

#[repr(C)]
pub struct tf_entities {
    _private: [u8; 0],
}

/// Since 0.5.0.
#[repr(C)]
pub struct tf_fill_mask {
    _private: [u8; 0],
}

/// Since 0.5.0.
#[repr(C)]
pub struct tf_sparse_vectors {
    _private: [u8; 0],
}

#[repr(C)]
pub struct tf_token_vectors {
    _private: [u8; 0],
}

extern "C" {
    pub fn tf_struct_size(name: *const c_char) -> usize;
    pub fn tf_runtime_info_get_sized(info: *mut tf_runtime_info, struct_size: usize) -> tf_status;
    pub fn tf_version_string() -> *const c_char;
    pub fn tf_status_name(status: tf_status) -> *const c_char;
    pub fn tf_last_error() -> *const c_char;
    pub fn tf_activation_name(activation: i32) -> *const c_char;
    pub fn tf_activation_from_name(name: *const c_char) -> i32;
    pub fn tf_position_name(position: i32) -> *const c_char;
    pub fn tf_position_from_name(name: *const c_char) -> i32;
    pub fn tf_norm_placement_name(norm_placement: i32) -> *const c_char;
    pub fn tf_norm_placement_from_name(name: *const c_char) -> i32;
    pub fn tf_pooling_name(pooling: i32) -> *const c_char;
    pub fn tf_pooling_from_name(name: *const c_char) -> i32;
    pub fn tf_config_init_sized(cfg: *mut tf_config, struct_size: usize);
    pub fn tf_encoder_create(cfg: *const tf_config, out: *mut *mut tf_encoder) -> tf_status;
    pub fn tf_encoder_destroy(enc: *mut tf_encoder);
    pub fn tf_encoder_get_config(enc: *const tf_encoder, cfg: *mut tf_config) -> tf_status;
    /// Since 0.4.0.
    pub fn tf_config_max_sequence(cfg: *const tf_config) -> i32;
    pub fn tf_encoder_tensor_count(enc: *const tf_encoder) -> usize;
    pub fn tf_encoder_tensor_name(enc: *const tf_encoder, index: usize) -> *const c_char;
    pub fn tf_encoder_tensor_shape(
        enc: *const tf_encoder,
        name: *const c_char,
        rank: *mut i32,
        dims: *mut i64,
    ) -> tf_status;
    pub fn tf_encoder_get_tensor(
        enc: *const tf_encoder,
        name: *const c_char,
        dst: *mut f32,
        rank: i32,
        dims: *const i64,
    ) -> tf_status;
    pub fn tf_encoder_set_tensor(
        enc: *mut tf_encoder,
        name: *const c_char,
        src: *const f32,
        rank: i32,
        dims: *const i64,
    ) -> tf_status;
    pub fn tf_forward_args_init_sized(args: *mut tf_forward_args, struct_size: usize);
    pub fn tf_encoder_forward(enc: *const tf_encoder, args: *const tf_forward_args) -> tf_status;
    pub fn tf_load_options_init_sized(opts: *mut tf_load_options, struct_size: usize);
    pub fn tf_encoder_load(
        path: *const c_char,
        opts: *const tf_load_options,
        out: *mut *mut tf_encoder,
    ) -> tf_status;
    pub fn tf_encoder_save(enc: *const tf_encoder, path: *const c_char) -> tf_status;
    pub fn tf_tokenizer_options_init_sized(opts: *mut tf_tokenizer_options, struct_size: usize);
    pub fn tf_tokenizer_load(
        path: *const c_char,
        opts: *const tf_tokenizer_options,
        out: *mut *mut tf_tokenizer,
    ) -> tf_status;
    pub fn tf_tokenizer_destroy(tok: *mut tf_tokenizer);
    pub fn tf_tokenizer_vocab_size(tok: *const tf_tokenizer) -> i32;
    pub fn tf_tokenizer_id_to_token(tok: *const tf_tokenizer, id: i32) -> *const c_char;
    pub fn tf_tokenizer_encode_batch(
        tok: *const tf_tokenizer,
        n: usize,
        texts: *const *const c_char,
        lens: *const usize,
        pairs: *const *const c_char,
        pair_lens: *const usize,
        out: *mut *mut tf_encoding,
    ) -> tf_status;
    pub fn tf_encode_options_init_sized(opts: *mut tf_encode_options, struct_size: usize);
    pub fn tf_tokenizer_encode_batch_with(
        tok: *const tf_tokenizer,
        n: usize,
        texts: *const *const c_char,
        lens: *const usize,
        pairs: *const *const c_char,
        pair_lens: *const usize,
        opts: *const tf_encode_options,
        out: *mut *mut tf_encoding,
    ) -> c_int;
    pub fn tf_tokenizer_decode(
        tok: *const tf_tokenizer,
        ids: *const i32,
        n: usize,
        skip_special_tokens: i32,
        buf: *mut c_char,
        size: usize,
        len: *mut usize,
    ) -> c_int;
    pub fn tf_tokenizer_model_max_length(tok: *const tf_tokenizer) -> i32;
    pub fn tf_encoding_char_offsets(enc: *const tf_encoding) -> *const i64;
    pub fn tf_encoding_overflow_to_sample(enc: *const tf_encoding) -> *const i32;
    pub fn tf_encoding_destroy(enc: *mut tf_encoding);
    pub fn tf_encoding_batch(enc: *const tf_encoding) -> i32;
    pub fn tf_encoding_seq_len(enc: *const tf_encoding) -> i32;
    pub fn tf_encoding_lengths(enc: *const tf_encoding) -> *const i32;
    pub fn tf_encoding_ids(enc: *const tf_encoding) -> *const i32;
    pub fn tf_encoding_type_ids(enc: *const tf_encoding) -> *const i32;
    pub fn tf_encoding_attention_mask(enc: *const tf_encoding) -> *const i32;
    pub fn tf_pipeline_options_init_sized(opts: *mut tf_pipeline_options, struct_size: usize);
    pub fn tf_pipeline_args_init_sized(args: *mut tf_pipeline_args, struct_size: usize);
    pub fn tf_image_args_init_sized(args: *mut tf_image_args, struct_size: usize); // since 0.5.0
    pub fn tf_pipeline_embed_images(p: *const tf_pipeline, args: *const tf_image_args)
        -> tf_status;
    pub fn tf_pipeline_classify_images(p: *const tf_pipeline, args: *const tf_image_args)
        -> tf_status;
    pub fn tf_pipeline_tokenizer(p: *const tf_pipeline) -> *const tf_tokenizer;
    pub fn tf_pipeline_zero_shot(
        p: *const tf_pipeline,
        args: *const tf_image_args,
        labels: *const *const c_char,
        n_labels: usize,
    ) -> tf_status; // since 0.5.0
    pub fn tf_pipeline_load(
        dir: *const c_char,
        opts: *const tf_pipeline_options,
        out: *mut *mut tf_pipeline,
    ) -> tf_status;
    pub fn tf_pipeline_destroy(p: *mut tf_pipeline);
    pub fn tf_pipeline_kind_of(p: *const tf_pipeline) -> i32;
    pub fn tf_pipeline_kind_name(kind: i32) -> *const c_char;
    pub fn tf_pipeline_dim(p: *const tf_pipeline) -> i32;
    pub fn tf_pipeline_max_seq_length(p: *const tf_pipeline) -> i32;
    pub fn tf_pipeline_label(p: *const tf_pipeline, index: i32) -> *const c_char;
    pub fn tf_pipeline_similarity(p: *const tf_pipeline) -> *const c_char;
    pub fn tf_pipeline_prompt_count(p: *const tf_pipeline) -> usize;
    pub fn tf_pipeline_prompt_name(p: *const tf_pipeline, index: usize) -> *const c_char;
    pub fn tf_pipeline_prompt(p: *const tf_pipeline, name: *const c_char) -> *const c_char;
    pub fn tf_pipeline_default_prompt_name(p: *const tf_pipeline) -> *const c_char;
    pub fn tf_pipeline_embed(p: *const tf_pipeline, args: *const tf_pipeline_args) -> tf_status;
    pub fn tf_pipeline_score(p: *const tf_pipeline, args: *const tf_pipeline_args) -> tf_status;
    pub fn tf_pipeline_classify(p: *const tf_pipeline, args: *const tf_pipeline_args) -> tf_status;
    pub fn tf_pipeline_entities(
        p: *const tf_pipeline,
        text: *const c_char,
        aggregation: i32,
        out: *mut *mut tf_entities,
    ) -> tf_status;
    pub fn tf_entities_destroy(e: *mut tf_entities);
    pub fn tf_pipeline_fill_mask(
        p: *const tf_pipeline,
        text: *const c_char,
        top_k: i32,
        out: *mut *mut tf_fill_mask,
    ) -> tf_status;
    pub fn tf_pipeline_embed_sparse(
        p: *const tf_pipeline,
        args: *const tf_pipeline_args,
        out: *mut *mut tf_sparse_vectors,
    ) -> tf_status;
    pub fn tf_pipeline_embed_tokens(
        p: *const tf_pipeline,
        args: *const tf_pipeline_args,
        out: *mut *mut tf_token_vectors,
    ) -> tf_status;
    pub fn tf_token_vectors_destroy(v: *mut tf_token_vectors);
    pub fn tf_token_vectors_count(v: *const tf_token_vectors) -> usize;
    pub fn tf_token_vectors_dim(v: *const tf_token_vectors) -> i32;
    pub fn tf_token_vectors_rows(v: *const tf_token_vectors, i: usize) -> i32;
    pub fn tf_token_vectors_data(v: *const tf_token_vectors, i: usize) -> *const f32;
    pub fn tf_token_vectors_ids(v: *const tf_token_vectors, i: usize) -> *const i32;
    pub fn tf_maxsim(
        query: *const f32,
        q_rows: i32,
        doc: *const f32,
        d_rows: i32,
        dim: i32,
        score: *mut f32,
    ) -> tf_status;
    pub fn tf_sparse_vectors_destroy(v: *mut tf_sparse_vectors);
    pub fn tf_sparse_vectors_count(v: *const tf_sparse_vectors) -> usize;
    pub fn tf_sparse_vectors_dim(v: *const tf_sparse_vectors) -> i32;
    pub fn tf_sparse_vectors_nnz(v: *const tf_sparse_vectors, i: usize) -> i32;
    pub fn tf_sparse_vectors_indices(v: *const tf_sparse_vectors, i: usize) -> *const i32;
    pub fn tf_sparse_vectors_values(v: *const tf_sparse_vectors, i: usize) -> *const f32;
    pub fn tf_fill_mask_destroy(m: *mut tf_fill_mask);
    pub fn tf_fill_mask_count(m: *const tf_fill_mask) -> usize;
    pub fn tf_fill_mask_top_k(m: *const tf_fill_mask) -> i32;
    pub fn tf_fill_mask_token(m: *const tf_fill_mask, mask: usize, k: i32) -> i32;
    pub fn tf_fill_mask_score(m: *const tf_fill_mask, mask: usize, k: i32) -> f32;
    pub fn tf_fill_mask_token_str(m: *const tf_fill_mask, mask: usize, k: i32) -> *const c_char;
    pub fn tf_fill_mask_sequence(m: *const tf_fill_mask, mask: usize, k: i32) -> *const c_char;
    pub fn tf_entities_count(e: *const tf_entities) -> usize;
    pub fn tf_entities_label(e: *const tf_entities, i: usize) -> *const c_char;
    pub fn tf_entities_word(e: *const tf_entities, i: usize) -> *const c_char;
    pub fn tf_aggregation_name(aggregation: i32) -> *const c_char;
    pub fn tf_entities_score(e: *const tf_entities, i: usize) -> f32;
    pub fn tf_entities_start(e: *const tf_entities, i: usize) -> i64;
    pub fn tf_entities_end(e: *const tf_entities, i: usize) -> i64;
    pub fn tf_entities_index(e: *const tf_entities, i: usize) -> i32;
    pub fn tf_hub_options_init_sized(opts: *mut tf_hub_options, struct_size: usize);
    pub fn tf_hub_resolve(
        repo_id: *const c_char,
        opts: *const tf_hub_options,
        dir: *mut c_char,
        size: usize,
        len: *mut usize,
    ) -> tf_status;
    pub fn tf_model_resolve(
        source: *const c_char,
        opts: *const tf_hub_options,
        dir: *mut c_char,
        size: usize,
        len: *mut usize,
    ) -> tf_status;
    pub fn tf_pool(
        hidden: *const f32,
        lengths: *const i32,
        batch: i32,
        seq_len: i32,
        d_model: i32,
        pooling: i32,
        normalize: i32,
        out: *mut f32,
    ) -> tf_status;
}

/// tf_precision (since 0.5.0).
pub const TF_PRECISION_FLOAT32: i32 = 0;
pub const TF_PRECISION_INT8: i32 = 1;
pub const TF_PRECISION_UINT8: i32 = 2;
pub const TF_PRECISION_BINARY: i32 = 3;
pub const TF_PRECISION_UBINARY: i32 = 4;

// Quantized embeddings (since 0.5.0).
extern "C" {
    pub fn tf_precision_name(precision: i32) -> *const c_char;
    pub fn tf_precision_from_name(name: *const c_char) -> i32;
    pub fn tf_precision_row_bytes(precision: i32, dim: i32) -> usize;
    pub fn tf_hamming_distance(
        a: *const c_void,
        n_a: usize,
        b: *const c_void,
        n_b: usize,
        dim: i32,
        out: *mut i32,
    ) -> tf_status;
    pub fn tf_quantize(
        embeddings: *const f32,
        n: usize,
        dim: i32,
        precision: i32,
        ranges: *const f32,
        out: *mut c_void,
        out_bytes: usize,
    ) -> tf_status;
}
