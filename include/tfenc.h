/*
 * tfenc.h — libtfenc: a Transformer encoder forward pass on the CPU.
 *
 * The only installed header. Everything here is the stable C ABI: enum
 * values are explicit and never renumbered, symbols are never removed, and
 * structs grow only as "Structs that grow" below says, so a program built
 * against an older (or newer) tfenc.h keeps working with this library.
 *
 * Dimension letters used in the shape comments below:
 *   B = batch, T = sequence length (padded), D = d_model, H = n_heads,
 *   d_k = D / H, F = d_ff, L = n_layers, V = vocab_size, P = max_positions,
 *   N = number of real (non-padding) tokens in a batch.
 * Brackets and parentheses say which layout a buffer has, here and in the
 * library's sources: [B, T, D] is padded (a caller's buffer, or one laid
 * out like it: T slots per sequence, padding included); (N, D) is packed
 * (the real tokens' rows only, one sequence after another), the layout the
 * library computes in. Every tensor is float32, row-major, contiguous.
 *
 * Errors: every function that can fail returns a tf_status. On failure
 * tf_last_error() gives a message (thread-local) naming the argument or
 * tensor and both the expected and the actual shape or value, e.g.
 *   "layers.0.attn.q.weight: expected [512, 512], got [512, 64]".
 * A failed call changes nothing: no handle is half-built, no weight is
 * half-written. The library never prints, exits or aborts.
 *
 * Threads: tf_encoder_forward() takes a const handle and may be called on
 * the same handle from many threads at once (each call with its own
 * workspace, or none). Functions that modify a handle (tf_encoder_set_tensor)
 * must not run concurrently with anything else on that handle.
 *   A forward call runs on up to tf_forward_args.n_threads threads: its
 * caller's and the library's own, one pool per process (one thread per
 * online core, at most 32, started by the first call that wants more than
 * one; between the steps of a call a thread out of work spins for at most
 * 50 microseconds, then sleeps). One call at a time has the pool; a call that
 * finds it busy runs on its caller's thread alone, and while several calls
 * run, each step runs on its caller's thread alone: concurrent calls never
 * put more threads on the cores than the callers' own. The work is
 * cut the same way for any thread count (by the number of online cores),
 * so results are bitwise the same for any n_threads, and whether calls run
 * alone or concurrently. While a call has them, the pool's threads may run
 * on every core they were started with except the calling thread's (on a
 * virtual machine, Linux otherwise wakes them on the caller's own core
 * after an idle spell); the calling thread's own affinity is never
 * changed. At most 32 of the library's threads compute at
 * once (the BLAS has a fixed number of buffers); further calls wait.
 *   The BLAS's thread count: each of those threads calls the BLAS on one
 * thread. While any forward call runs, the library holds the BLAS's
 * process-wide thread count at 1 (openblas_set_num_threads, or BLIS's);
 * when the last running call returns, it sets back the count it found,
 * unless that is no longer 1 (the host changed it meanwhile: the host's
 * value stays). So a host that uses the same BLAS (numpy on the system
 * OpenBLAS, a Rust program's own products) runs its BLAS calls on one
 * thread only while a forward call is running, when the library's threads
 * occupy the cores, and with its own setting at every other time.
 *   fork(): the pool's threads stop before a fork and start again when
 * next needed, in parent and child; a child forked while another thread's
 * call held the pool runs its calls on one thread.
 */
#ifndef TFENC_H
#define TFENC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(TFENC_BUILDING_LIBRARY) && defined(__GNUC__)
#define TF_API __attribute__((visibility("default")))
#else
#define TF_API
#endif

/* ---- Structs that grow --------------------------------------------------- *
 *
 * tf_config, tf_forward_args, tf_load_options, tf_tokenizer_options and
 * tf_file_tensor start with `size_t struct_size`: the size of the struct in
 * the CALLER's tfenc.h. The *_init macros set it (sizeof *ptr, compiled into
 * the caller) through the *_init_sized functions; always start from them.
 * The library then reads and writes only min(struct_size, its own size):
 *  - an older caller (smaller struct): fields it does not have take their
 *    defaults, and nothing is written past its struct;
 *  - a newer caller (larger struct): fields this library does not know must
 *    be 0, which every field added after 0.1.0 takes as its default (the
 *    _init_sized of an older library zeroes them); a non-zero one is
 *    TF_ERR_UNSUPPORTED naming the struct, both sizes and the byte.
 * struct_size below the 0.1.0 size, or above 4096, is
 * TF_ERR_INVALID_ARGUMENT. Why sizes and not one setter per field (zstd,
 * libinput): the structs stay plain C, designated initialisers and ctypes /
 * Rust #[repr(C)] mirrors keep working, and a whole configuration is
 * checked at once, in one call that can fail. The functions without
 * "_sized" (tf_config_init, ...) stay exported for programs built against
 * 0.1.0: they initialise exactly the 0.1.0 struct.
 *
 * Structs the library hands out (tf_trace_event) carry the LIBRARY's size
 * in struct_size: read a field only if it ends within struct_size. */

/* sizeof of the library's struct named `name` ("tf_config",
 * "tf_forward_args", "tf_load_options", "tf_tokenizer_options",
 * "tf_file_tensor", "tf_trace_event", ...; "tf_image_args" since 0.5.0), or
 * 0 for another name: for bindings to check their mirrors of the structs. */
TF_API size_t tf_struct_size(const char *name);

/* ---- Versions ----------------------------------------------------------- *
 * The project's one statement of its version: the build reads it from here. */

#define TFENC_VERSION_MAJOR 0
#define TFENC_VERSION_MINOR 5
#define TFENC_VERSION_PATCH 0
#define TFENC_VERSION_NUMBER \
    (TFENC_VERSION_MAJOR * 10000 + TFENC_VERSION_MINOR * 100 + TFENC_VERSION_PATCH)

/* TFENC_VERSION_NUMBER of the library actually loaded. */
TF_API unsigned tf_version(void);
/* "MAJOR.MINOR.PATCH" of the library actually loaded. */
TF_API const char *tf_version_string(void);

/* ---- Status codes ------------------------------------------------------- */

typedef enum tf_status {
    TF_OK = 0,
    TF_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, bad value, bad id */
    TF_ERR_SHAPE = 2,            /* a tensor or buffer of the wrong shape */
    TF_ERR_OUT_OF_MEMORY = 3,    /* an allocation failed or a size overflowed */
    TF_ERR_IO = 4,               /* reading or writing a file failed */
    TF_ERR_FORMAT = 5,           /* a file's contents are malformed */
    TF_ERR_UNSUPPORTED = 6,      /* valid, but not something this build does
                                    (e.g. a forward pass whose finite values
                                    overflow float32) */
    TF_ERR_NOT_FOUND = 7         /* no tensor of that name; a Hub repository,
                                    revision or file that is not there */
} tf_status;

/* A static, never-NULL name such as "TF_ERR_SHAPE" ("TF_ERR_UNKNOWN" for
 * values this version does not know). */
TF_API const char *tf_status_name(tf_status status);

/* The value of a name such as "TF_ERR_SHAPE", or -1. */
TF_API int32_t tf_status_from_name(const char *name);

/* The message of the most recent failed call on this thread ("" if none).
 * Successful calls leave it unchanged. Valid until the next failing call on
 * this thread. Always valid UTF-8: a byte of the caller's input that is
 * not UTF-8 (a Latin-1 file name) appears as the four characters \xNN, and
 * a quoted value cut short ends between two characters. Long enough to name
 * two paths of PATH_MAX bytes whole; a longer message is cut between two
 * characters and ends in " [...]". */
TF_API const char *tf_last_error(void);

/* ---- Runtime: what forward calls run on ------------------------------------ *
 * Since 0.3.0. Strings are static, valid for the life of the process. */

typedef struct tf_runtime_info {
    size_t struct_size;       /* the caller's sizeof (tf_runtime_info_get sets it) */
    const char *blas;         /* the BLAS the library was built with: "OpenBLAS", "BLIS" */
    const char *blas_build;   /* its own description of its version and build */
    const char *blas_kernels; /* the CPU kernels it runs: OpenBLAS's core ("Cooperlake",
                                 "Haswell"; the environment's OPENBLAS_CORETYPE picks it
                                 when set), BLIS's configuration ("zen3") */
    const char *vector_loops; /* the build of the library's own loops (softmax,
                                 activations) this CPU runs: "avx512", "avx2", "base" */
    int32_t blas_threads;     /* the BLAS's thread setting now: the host's, or 1 while
                                 forward calls run (see Threads above) */
    int32_t max_threads;      /* threads a forward call may use (n_threads 0): one per
                                 online core, at most 32 */
} tf_runtime_info;

/* Fills *info (struct_size bytes, the caller's sizeof; see "Structs that
 * grow": fields the caller lacks are left out, bytes past the library's
 * own are zeroed). TF_ERR_INVALID_ARGUMENT for NULL or a struct_size below
 * 0.3.0's. */
TF_API tf_status tf_runtime_info_get_sized(tf_runtime_info *info, size_t struct_size);
#define tf_runtime_info_get(info) tf_runtime_info_get_sized((info), sizeof *(info))

/* ---- Configuration ------------------------------------------------------ */

typedef enum tf_position_kind {
    TF_POSITION_NONE = 0,       /* no positional information is added */
    TF_POSITION_SINUSOIDAL = 1, /* PE(t,2i) = sin(t / 10000^(2i/D)),
                                   PE(t,2i+1) = cos(t / 10000^(2i/D));
                                   computed for any t, so it extrapolates */
    TF_POSITION_LEARNED = 2,    /* a learned [P, D] table; T <= P */
    /* Since 0.4.0: positions inside attention, nothing added to the embeddings. */
    TF_POSITION_ROTARY = 3, /* rotary embedding (RoPE) of each head's Q and K:
                                   pair (a, b) of position t, frequency
                                   w_i = theta^(-2i / r), becomes
                                   (a cos(t w_i) - b sin(t w_i), b cos(t w_i) + a sin(t w_i));
                                   see tf_config.rotary_* */
    TF_POSITION_ALIBI = 4   /* ALiBi: score(i, j) -= m_h |i - j| (symmetric, as
                                   JinaBERT uses it), m_h = 2^(-8 (h + 1) / H) for a
                                   power-of-two H (Press et al.'s slopes otherwise);
                                   computed on the fly, never a [T, T] table */
} tf_position_kind;

typedef enum tf_activation {
    TF_ACTIVATION_GELU = 0,      /* 0.5 x (1 + erf(x / sqrt 2)) (BERT "gelu") */
    TF_ACTIVATION_GELU_TANH = 1, /* 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))) */
    TF_ACTIVATION_RELU = 2,      /* max(x, 0) */
    TF_ACTIVATION_SILU = 3,      /* x / (1 + e^-x) (SwiGLU's gate); since 0.4.0 */
    TF_ACTIVATION_QUICK_GELU = 4 /* x / (1 + e^(-1.702 x)) (CLIP's "quick_gelu"); since 0.5.0 */
} tf_activation;

typedef enum tf_norm_placement {
    TF_NORM_POST = 0, /* x = LN1(x + MHA(x)); x = LN2(x + FFN(x))  (BERT) */
    TF_NORM_PRE = 1   /* x = x + MHA(LN1(x)); x = x + FFN(LN2(x)) */
} tf_norm_placement;

/* Names of the enum values, the ones config files, metadata, the CLI and
 * the bindings use: activations "gelu", "gelu_tanh", "relu", "silu", "quick_gelu";
 * positions "none", "sinusoidal", "learned", "rotary", "alibi"; norm placement "post", "pre"; pooling
 * "cls", "mean". *_name gives a static string, or NULL for a value this
 * version does not know; *_from_name gives the value, or -1. */
TF_API const char *tf_activation_name(int32_t activation);
TF_API int32_t tf_activation_from_name(const char *name);
TF_API const char *tf_position_name(int32_t position);
TF_API int32_t tf_position_from_name(const char *name);
TF_API const char *tf_norm_placement_name(int32_t norm_placement);
TF_API int32_t tf_norm_placement_from_name(const char *name);

/* The model's hyper-parameters. Always start from tf_config_init(). Every
 * field is an int32_t (booleans are 0 or 1) so the layout is the same from
 * C, ctypes and Rust. */
typedef struct tf_config {
    size_t struct_size;     /* the caller's sizeof(tf_config), set by tf_config_init */
    int32_t d_model;        /* D, 1..65536 */
    int32_t n_heads;        /* H, D % H == 0 */
    int32_t d_ff;           /* F, 1..1048576 */
    int32_t n_layers;       /* L, 1..1024 */
    int32_t vocab_size;     /* V; 0 = no token embedding: pass vectors */
    int32_t max_positions;  /* P; required for LEARNED (T <= P); for
                                  SINUSOIDAL 0 = unbounded, else a bound on
                                  T; for ROTARY and ALIBI the trained length
                                  (config.json's max_position_embeddings),
                                  which a pipeline's token limit defaults to
                                  but which does not bound T: those positions
                                  are computed for any length, as upstream's
                                  code computes them (0 = none given) */
    int32_t position;       /* tf_position_kind */
    int32_t n_token_types;  /* 0 = no token-type embedding (BERT: 2) */
    int32_t embedding_norm; /* LayerNorm after the embedding sum (BERT) */
    int32_t norm_placement; /* tf_norm_placement */
    int32_t final_norm;     /* a LayerNorm after the last layer */
    int32_t activation;     /* tf_activation of the feed-forward block */
    int32_t bias;           /* biases in every Linear and LayerNorm */
    int32_t pooler;         /* pooled = tanh(W_p h[CLS] + b_p), [B, D] */
    float layer_norm_eps;   /* > 0 */
    uint64_t seed;          /* seed of the deterministic initialisation */
    /* Since 0.4.0. Each one's default, 0, is the model as 0.3.0 computed it. */
    int32_t position_offset;       /* 0: token t has position t. O > 0 (RoBERTa:
                                  padding_idx + 1, from config.json's
                                  pad_token_id): positions count from O over
                                  the tokens whose id is not O - 1, which take
                                  position O - 1 (transformers'
                                  create_position_ids_from_input_ids); vectors
                                  in: token t has O + t. Learned positions
                                  only; then T + O <= P */
    int32_t ffn_gated;             /* 1: a gated feed-forward block, hidden =
                                  act(x W_gate^T + b_gate) * (x W_up^T + b_up),
                                  up and gate each (F, D): GeGLU with GELU,
                                  SwiGLU with SiLU */
    int32_t norm_bias;             /* 1: LayerNorms have biases even when bias is 0
                                  (Linear layers without, LayerNorms with) */
    int32_t skip_first_norm1;      /* 1 (pre-norm only): layer 0's attention reads x
                                  itself, with no norm1 (ModernBERT) */
    int32_t rotary_dim;            /* ROTARY: r, the rotated dimensions of each head
                                  (even, 2..d_k; the rest pass unchanged);
                                  0 = d_k. Must be 0 for other positions */
    int32_t rotary_interleaved;    /* ROTARY: 1 = pairs (2i, 2i+1) (GPT-J,
                                  "interleaved"); 0 = pairs (i, i + r/2)
                                  (GPT-NeoX, "rotate_half") */
    float rotary_base;             /* ROTARY: theta, > 1; 0 = 10000 */
    float rotary_base_local;       /* ROTARY: theta of local-window layers; 0 =
                                  rotary_base */
    float rotary_ntk_factor;       /* ROTARY: NTK-aware scaling factor a >= 1 (0 = none):
                                  theta' = theta a^(r / (r - 2)) */
    int32_t rotary_ntk_positions;  /* with rotary_ntk_factor: 0 = static (theta'
                                  always); P0 > 0 = dynamic: a call whose longest
                                  sequence L exceeds P0 uses theta'' = theta
                                  (a L / P0 - (a - 1))^(r / (r - 2)) for all its
                                  sequences, theta below. Per call, so a result
                                  never depends on earlier calls; nomic's
                                  NomicBertDynamicNTKRotaryEmbedding instead keeps
                                  the tables of the longest padded length it has
                                  seen (a call after a longer one reuses that
                                  one's theta''; see README) */
    int32_t attn_window;           /* W: 0 = every layer attends globally; W > 0 (even):
                                  local layers' query i sees keys |i - j| <= W/2,
                                  computed in O(T W), not O(T^2) */
    int32_t global_every;          /* with attn_window: layer l is global when l %
                                  global_every == 0 (ModernBERT: 3); 0 = every
                                  layer local */
    float rotary_linear_factor;    /* ROTARY: f >= 1 (0 = none): position t rotates as
                                  t / f (linear position interpolation, transformers'
                                  "linear" rope scaling; GTE's NTK scaling is theta a
                                  with f = a^(2 / r)) */
    int32_t relative_buckets;      /* R: 0 = no relative position bias; R > 0 (even,
                                  4..1024): every layer's score (i, j) of head h
                                  gains bias[bucket(j - i), h] from one (R, H)
                                  table shared by the layers ("relative_bias.weight"),
                                  MPNet's and T5's bidirectional buckets: half
                                  of them for keys after the query (j > i),
                                  half for the rest; of each half, with E =
                                  floor(R/4), distances n = |i - j| < E one
                                  bucket each, larger ones E + floor(ln(n / E)
                                  / ln(M / E) * (R/2 - E)), at most R/2 - 1
                                  (relative_position_bucket). Computed per call
                                  as a table of H values per distance, never
                                  a [T, T] tensor. Any position kind */
    int32_t relative_max_distance; /* M of relative_buckets: distances from M on
                                  share the last bucket; 0 = 128 (MPNet's and
                                  T5's); else > E. Must be 0 without
                                  relative_buckets */
    int32_t embedding_dim;         /* E: 0 (or D) = the embeddings are D wide; E in
                                  1..65536 other than D: the token, position and
                                  token-type embeddings and their LayerNorm are E
                                  wide, and embed.project [D, E] (+ bias) takes
                                  their sum to D before layer 0 (ELECTRA's
                                  embeddings_project, electra-small's E 128, D 256) */
    int32_t qk_norm;               /* 1: a LayerNorm over the D features of each row of
                                  Q and one over K, right after their projections
                                  (before the split into heads and any rotation):
                                  layers.l.attn.q_norm and .k_norm, D wide, with
                                  biases when bias or norm_bias (JinaBERT v2's code
                                  variant, jina-bert-v2-qk-post-norm's layer_norm_q
                                  and layer_norm_k) */
    int32_t add_norm1b;            /* 1 (post-norm only): after a = LN1(x + MHA(x)),
                                  x = LN1b(x + a), the layer's input added a
                                  second time, before the feed-forward block
                                  (layers.l.norm1b; the same code variant's
                                  JinaBertLayer.layer_norm_1) */
} tf_config;

/* Fills *cfg with the tutorial's model: D 512, H 8, F 2048, L 1, GELU (erf),
 * post-norm, sinusoidal positions (unbounded), vocab_size 0 (vectors in),
 * no token types, no embedding norm, no final norm, biases on, no pooler,
 * layer_norm_eps 1e-5, seed 0, and every 0.4.0 field 0 (see "Structs that
 * grow"). tf_encoder_create refuses a field out of its range, or one that
 * does not fit the others (rotary_* without ROTARY positions, global_every
 * without attn_window, skip_first_norm1 with post-norm, add_norm1b with
 * pre-norm, relative_max_distance without relative_buckets), naming it and its
 * value (TF_ERR_INVALID_ARGUMENT). */
TF_API void tf_config_init_sized(tf_config *cfg, size_t struct_size);
TF_API void tf_config_init(tf_config *cfg); /* 0.1.0's: tf_config as 0.1.0 had it */
#define tf_config_init(cfg) tf_config_init_sized((cfg), sizeof *(cfg))

/* ---- tf_config's limits and defaults, for a caller's own checks ----------- *
 * tf_encoder_create refuses a field past its limit (TF_ERR_INVALID_ARGUMENT,
 * naming it and its value); with these a command line says the range before
 * it builds a config. The limits keep every dimension, and every product the
 * BLAS sees, in an int (n_heads is at most d_model). Macros only: no symbol. */
#define TF_MAX_D_MODEL 65536
#define TF_MAX_D_FF (1 << 20)
#define TF_MAX_LAYERS 1024
#define TF_MAX_VOCAB (1 << 24)
#define TF_MAX_POSITIONS (1 << 24)
#define TF_MAX_TOKEN_TYPES 65536
/* What a 0 in rotary_base (the RoFormer paper's theta, every family's default) and in
 * relative_max_distance (MPNet's and T5's) stands for. */
#define TF_ROTARY_DEFAULT_THETA 10000.0
#define TF_RELATIVE_DEFAULT_MAX_DISTANCE 128

/* Largest rank of any tensor shape the API passes. */
#define TF_MAX_RANK 8

/* ---- The encoder handle ------------------------------------------------- */

typedef struct tf_encoder tf_encoder; /* opaque */

/* Creates an encoder whose weights live in one contiguous block, initialised
 * deterministically from cfg->seed the way PyTorch initialises the same
 * modules: Linear weight and bias ~ U(-1/sqrt(in), 1/sqrt(in)); embedding
 * tables ~ N(0, 1); LayerNorm weight 1, bias 0. On failure *out is NULL. */
TF_API tf_status tf_encoder_create(const tf_config *cfg, tf_encoder **out);

/* Frees everything the handle owns. NULL is a no-op. */
TF_API void tf_encoder_destroy(tf_encoder *enc);

/* Copies the handle's configuration into *cfg: cfg->struct_size (set by
 * tf_config_init) says how many bytes it holds. */
TF_API tf_status tf_encoder_get_config(const tf_encoder *enc, tf_config *cfg);

/* Since 0.4.0. The longest sequence (tokens) a forward call of a model of
 * cfg takes: a learned position table's rows less position_offset, the
 * sinusoidal encodings' max_positions when > 0; 0 when its positions bound
 * no length (rotary, ALiBi, relative, none: upstream computes those for any
 * length, and max_positions is then the length the model was trained on).
 * 0 for NULL. */
TF_API int32_t tf_config_max_sequence(const tf_config *cfg);

/* ---- Checkpoints: load, save, inspect -------------------------------------- *
 *
 * tf_encoder_load opens, without a conversion step:
 *  - a Hugging Face checkpoint: a directory holding model.safetensors
 *    and config.json, or a .safetensors file (then n_heads must be given);
 *    a directory with PyTorch's pytorch_model.bin (or its shards' index)
 *    instead is TF_ERR_UNSUPPORTED naming it and saying how to convert it
 *    (a pickle can run code when read: it is never opened), as is a
 *    sentence-transformers Dense module's folder (tf_pipeline_load);
 *    config.json's model_type picks the family (without it, the names do):
 *    "bert" (names embeddings.*, encoder.layer.{i}.*, pooler.*, optionally
 *    under "bert."); "roberta", "xlm-roberta", "camembert" (BERT's names,
 *    optionally under "roberta."; positions start after pad_token_id:
 *    tf_config.position_offset); "distilbert" (embeddings.*,
 *    transformer.layer.{i}.attention.q_lin ... output_layer_norm, optionally
 *    under "distilbert."; config keys dim, hidden_dim, n_layers, n_heads,
 *    activation; no token types, no pooler); "modernbert" (embeddings.
 *    tok_embeddings / norm, layers.{i}.attn_norm (none in layer 0),
 *    attn.Wqkv [3D, D], attn.Wo, mlp_norm, mlp.Wi [2F, D] (the activated
 *    half first), mlp.Wo, final_norm, optionally under "model."; rotary
 *    positions, pre-norm, gated feed-forward; config keys hidden_activation,
 *    norm_eps, global_rope_theta, local_rope_theta, local_attention,
 *    global_attn_every_n_layers, attention_bias, mlp_bias, norm_bias, with
 *    ModernBertConfig's defaults; attention_bias unlike mlp_bias, Linear
 *    biases without norm_bias, or local_attention < 2 are
 *    TF_ERR_UNSUPPORTED); "electra" (BERT's names, optionally under
 *    "electra."; an embedding_size other than hidden_size, whose
 *    embeddings_project this library lacks, is TF_ERR_UNSUPPORTED);
 *    "nomic_bert" (emb_ln, encoder.layers.{i}.attn.Wqkv, attn.out_proj,
 *    mlp.fc11 (up) / fc12 (gate) / fc2, norm1, norm2, optionally under
 *    "bert."; post-norm, rotary positions on head_dim * rotary_emb_fraction
 *    dimensions; GPT-2's config keys n_embd, n_head, n_layer, n_inner,
 *    n_positions, layer_norm_epsilon; see README.md); "new" (GTE v1.5:
 *    embeddings.*, encoder.layer.{i}.attention.qkv_proj, attention.o_proj,
 *    attn_ln, mlp.up_gate_proj (up | gate, no bias), mlp.down_proj, mlp_ln,
 *    optionally under "new."; rotary positions with rope_theta and
 *    rope_scaling {"type": "ntk", "factor": a}: theta a and
 *    rotary_linear_factor a^(2 / d_k)); "bert" with position_embedding_type
 *    "alibi" (JinaBERT v2: BERT's names without positions, mlp.gated_layers
 *    (the activated half first, no bias), mlp.wo, mlp.layernorm; ALiBi;
 *    feed_forward_type geglu, reglu or original); the same with an
 *    auto_map to jinaai/jina-bert-v2-qk-post-norm (JinaBERT v2's code
 *    variant, jina-embeddings-v2-base-code: also
 *    attention.self.layer_norm_q / layer_norm_k (qk_norm), layer_norm_1
 *    (add_norm1b), mlp.up_gated_layer (the multiplied half first, no
 *    bias), mlp.down_layer, layer_norm_2);
 *    "mpnet" (embeddings.word_embeddings / position_embeddings / LayerNorm,
 *    no token types, encoder.layer.{i}.attention.attn.q / k / v / o,
 *    attention.LayerNorm, intermediate.dense, output.dense,
 *    output.LayerNorm, encoder.relative_attention_bias [32, H] shared by
 *    every layer (tf_config.relative_buckets 32, max distance 128),
 *    pooler.dense, optionally under "mpnet."; positions start at 2, after
 *    MPNet's padding_idx 1 whatever pad_token_id says; a
 *    relative_attention_num_buckets other than 32, the buckets MPNetEncoder
 *    computes, is TF_ERR_UNSUPPORTED).
 *    A family may name
 *    the position_embedding_type that picks it and the auto_map code it
 *    follows; any other auto_map is TF_ERR_UNSUPPORTED naming it. Other
 *    tensors
 *    (embeddings.position_ids, MLM or classifier heads) are ignored. An
 *    unknown model_type, or an architecture outside its family, is
 *    TF_ERR_UNSUPPORTED listing the supported ones. config.json gives num_attention_heads, hidden_act
 *    ("gelu" / "gelu_python" = erf, "gelu_new" / "gelu_pytorch_tanh" /
 *    "gelu_fast" = tanh, "relu") and layer_norm_eps (BERT's defaults: "gelu",
 *    1e-12; an eps that is 0 as a float32, such as 1e-50, is refused), and is
 *    cross-checked against the shapes. A field that would make transformers'
 *    BertModel compute something else is TF_ERR_UNSUPPORTED naming the field
 *    and its value: model_type other than "bert", is_decoder or
 *    add_cross_attention true, position_embedding_type other than
 *    "absolute", a non-empty pruned_heads or quantization_config, a
 *    hidden_act not listed above. chunk_size_feed_forward is accepted (it
 *    does not change the result); dropout, initialisation and output
 *    selection fields are ignored (the table is in formats/hf_config.c).
 *  - a PyTorch nn.TransformerEncoder state_dict saved as safetensors
 *    (layers.{i}.self_attn.in_proj_weight [3D, D] = q, k, v stacked, ...,
 *    an optional final norm.*), or a single nn.TransformerEncoderLayer (no
 *    "layers.{i}." prefix). n_heads, activation and norm_first cannot be read
 *    from the names: they come from the options or from the file's
 *    __metadata__ (keys "n_heads", "activation" = "gelu" | "gelu_tanh" |
 *    "relu", "norm_first" = "true" | "false", "layer_norm_eps"; eps defaults to
 *    PyTorch's 1e-5).
 *  - the library's own files, written by tf_encoder_save.
 * Everything the shapes imply (d_model, d_ff, layers, vocabulary, positions,
 * token types, biases, pooler) is inferred and cross-checked; a tensor of
 * the wrong shape is TF_ERR_SHAPE naming it and both shapes. Tensors may be
 * F32, F16 or BF16 (converted to float32 once). A malformed file is
 * TF_ERR_FORMAT (or TF_ERR_IO) saying what is wrong and where; the loader
 * never allocates more than the file's own size implies. In config.json,
 * the safetensors header and its __metadata__, a key that appears twice in
 * any object (readers disagree on which one counts) and a \u0000 in any key
 * or string are TF_ERR_FORMAT naming the key and the file. A part of the
 * model (a LayerNorm, the pooler, the biases) is there when any of its
 * tensors is; each one it lacks is named as missing. */

typedef struct tf_load_options {
    size_t struct_size;     /* the caller's sizeof(tf_load_options), set by init */
    int32_t n_heads;        /* 0: from the file, else 1..d_model */
    int32_t activation;     /* tf_activation, or -1: from the file */
    int32_t norm_placement; /* tf_norm_placement, or -1: from the file */
    float layer_norm_eps;   /* 0: from the file, else finite and > 0 */
} tf_load_options;
/* Any other value of an option is TF_ERR_INVALID_ARGUMENT naming it
 * ("options.n_heads") and the value. */

/* Sets every option to "from the file". */
TF_API void tf_load_options_init_sized(tf_load_options *opts, size_t struct_size);
TF_API void tf_load_options_init(tf_load_options *opts); /* 0.1.0's */
#define tf_load_options_init(opts) tf_load_options_init_sized((opts), sizeof *(opts))

/* Loads a checkpoint (see above); opts may be NULL. On failure *out is NULL.
 * Every file it reads (model.safetensors, config.json; tf_tokenizer_load's
 * vocab.txt likewise) must be a regular file, or a symbolic link to one: a
 * FIFO, a directory or a device is TF_ERR_IO "<path>: not a regular file:
 * it is a FIFO" (a directory, a character device, ...), told without
 * opening a device and without ever blocking. A file of a folder that is a
 * symbolic link to nothing (a Hugging Face cache snapshot copied without
 * its blobs) is TF_ERR_IO "<dir>/config.json: a symbolic link to <target>
 * that does not exist (a cache snapshot without its blobs?)", an optional
 * one (config.json) too: it is not taken as absent. In config.json, null
 * is Python's None, which BertConfig keeps: pad_token_id, rope_scaling and
 * position_embedding_type take it as none; a size, a name or a number
 * (hidden_size, hidden_act, layer_norm_eps, ...) refuses it as any other
 * wrong value, TF_ERR_FORMAT naming the field and "null". */
TF_API tf_status tf_encoder_load(const char *path, const tf_load_options *opts, tf_encoder **out);

/* Writes the handle's weights as float32 safetensors under the library's
 * tensor names, with the complete config in __metadata__, so that loading
 * the file gives a bitwise-identical encoder without any option.
 * The file appears whole or not at all: the bytes go to a new temporary file
 * in path's directory ("<path>.tmp" and 16 hex digits, created with O_EXCL,
 * so that nothing that exists, a planted link included, is written
 * through), every write is checked, the file is fsync'ed and renamed over
 * path, then the directory is fsync'ed. The new file's mode is 0666 less
 * the umask. An existing path that is not a regular file (a symbolic link,
 * FIFO, directory, device) is refused and left as it is: TF_ERR_IO "<path>:
 * not a regular file: it is a FIFO; only a regular file is replaced". Any
 * failure before the rename is TF_ERR_IO naming path and the cause ("cannot
 * create: Permission denied", "cannot write: File too large", ...); the
 * temporary file is removed and a file already at path is untouched. Only a
 * failure to sync the directory is reported with the new file in place.
 * Concurrent saves to one path, from threads or processes, each write their
 * own temporary file: each succeeds whole, and path holds exactly one of
 * the saved models. */
TF_API tf_status tf_encoder_save(const tf_encoder *enc, const char *path);

/* What a checkpoint holds and how it would load, without loading it. */
typedef struct tf_model_info tf_model_info; /* opaque */

/* One tensor of the file. */
typedef struct tf_file_tensor {
    size_t struct_size; /* the caller's sizeof(tf_file_tensor) */
    const char *name;   /* as in the file */
    const char *dtype;  /* "F32", "F16", "BF16", "I64", ... */
    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    const char *maps_to; /* the library's tensor it fills, or NULL: ignored */
    int32_t parts;       /* 3 when it is q, k, v stacked (maps_to is q's);
                                  2 when it is a gated block's two halves, up and
                                  gate, stacked (maps_to is up's; the family says
                                  their order: ModernBERT's Wi has gate first) */
} tf_file_tensor;

/* Opens and checks a checkpoint exactly as tf_encoder_load would. */
TF_API tf_status tf_model_inspect(const char *path, const tf_load_options *opts,
                                  tf_model_info **out);
/* NULL is a no-op. */
TF_API void tf_model_info_destroy(tf_model_info *info);
/* "huggingface-<family>" ("huggingface-bert", "huggingface-roberta",
 * "huggingface-distilbert", "huggingface-modernbert", "huggingface-electra",
 * "huggingface-jina-bert", "huggingface-jina-bert-code", ...),
 * "pytorch-transformer-encoder" or "tfenc". */
TF_API const char *tf_model_info_format(const tf_model_info *info);
/* The configuration the file implies (cfg->struct_size must be set). */
TF_API tf_status tf_model_info_config(const tf_model_info *info, tf_config *cfg);
TF_API size_t tf_model_info_tensor_count(const tf_model_info *info);
/* Tensor `index` of the file into *out (struct_size bytes, the caller's
 * sizeof, set by the macro); pointers are valid while info lives. */
TF_API tf_status tf_model_info_tensor_sized(const tf_model_info *info, size_t index,
                                            tf_file_tensor *out, size_t struct_size);
/* 0.1.0's: fills tf_file_tensor as 0.1.0 had it. */
TF_API tf_status tf_model_info_tensor(const tf_model_info *info, size_t index, tf_file_tensor *out);
#define tf_model_info_tensor(info, index, out) \
    tf_model_info_tensor_sized((info), (index), (out), sizeof *(out))

/* ---- Weights by name ---------------------------------------------------- *
 *
 * Tensors of a handle (only those its config has; a Linear's bias exists
 * when cfg.bias is 1, a LayerNorm's when cfg.bias or cfg.norm_bias is;
 * linear weights are [out, in] as in PyTorch):
 *   embed.token.weight         [V, D]   when V > 0
 *   embed.position.weight      [P, D]   when position is LEARNED
 *   embed.token_type.weight    [n_token_types, D]  when n_token_types > 0
 *   embed.norm.weight, .bias   [D]      when embedding_norm
 *   embed.project.weight [D, E] and .bias [D]  with an embedding_dim E other
 *                                       than D, whose four embed.* tensors
 *                                       above are then E wide, not D
 *   layers.{l}.attn.q.weight   [D, D]   and .bias [D]        (query)
 *   layers.{l}.attn.k.weight   [D, D]   and .bias [D]        (key)
 *   layers.{l}.attn.v.weight   [D, D]   and .bias [D]        (value)
 *   layers.{l}.attn.q_norm.weight [D] and .bias [D]  with qk_norm (also
 *                                       attn.k_norm)
 *   layers.{l}.attn.out.weight [D, D]   and .bias [D]        (W_O)
 *   layers.{l}.norm1.weight    [D]      and .bias [D]  (not layer 0's with
 *                                       skip_first_norm1)
 *   layers.{l}.norm1b.weight   [D]      and .bias [D]  with add_norm1b
 *   layers.{l}.ffn.up.weight   [F, D]   and .bias [F]        (D -> F)
 *   layers.{l}.ffn.gate.weight [F, D]   and .bias [F]        (with ffn_gated)
 *   layers.{l}.ffn.down.weight [D, F]   and .bias [D]        (F -> D)
 *   layers.{l}.norm2.weight    [D]      and .bias [D]
 *   final_norm.weight, .bias   [D]      when final_norm
 *   pooler.weight [D, D], pooler.bias [D]  when pooler
 * These shapes are what get/set/save and the checkpoints see. Inside the
 * handle a layer's projection weights are kept transposed, [in, out]
 * row-major, the layout cblas_sgemm packs fastest: the q, k and v weights
 * side by side as one [D, 3D] matrix, so the three projections are a
 * single matrix product (a checkpoint's fused [3D, D] Wqkv is its
 * transpose); likewise up and gate one [D, 2F] matrix, attn.out [D, D] and
 * ffn.down [F, D].
 */

/* Number of tensors in the handle; names are enumerated by index. */
TF_API size_t tf_encoder_tensor_count(const tf_encoder *enc);
/* Name of tensor `index` (0 <= index < count), or NULL. Owned by the handle. */
TF_API const char *tf_encoder_tensor_name(const tf_encoder *enc, size_t index);
/* Rank and dims of a tensor; dims must hold TF_MAX_RANK values. */
TF_API tf_status tf_encoder_tensor_shape(const tf_encoder *enc, const char *name, int32_t *rank,
                                         int64_t *dims);
/* Copies a tensor out into dst; (rank, dims) is the shape of dst and must be
 * the tensor's shape. */
TF_API tf_status tf_encoder_get_tensor(const tf_encoder *enc, const char *name, float *dst,
                                       int32_t rank, const int64_t *dims);
/* Replaces a tensor's values with src; (rank, dims) is the shape of src and
 * must be the tensor's shape; every value must be finite (NaN and infinities
 * are TF_ERR_INVALID_ARGUMENT, as they are TF_ERR_FORMAT in a checkpoint).
 * A finite value of any size is taken: whether it overflows depends on the
 * inputs, so a forward pass it overflows says so (TF_ERR_UNSUPPORTED, naming
 * the first tensor, see tf_encoder_forward). */
TF_API tf_status tf_encoder_set_tensor(tf_encoder *enc, const char *name, const float *src,
                                       int32_t rank, const int64_t *dims);

/* ---- Workspace ---------------------------------------------------------- *
 * Scratch memory for forward calls. A workspace grows to the largest call it
 * has seen and is then reused: a forward call with a workspace that is large
 * enough allocates nothing. One workspace serves one call at a time. */

typedef struct tf_workspace tf_workspace; /* opaque */

TF_API tf_status tf_workspace_create(tf_workspace **out);
/* Frees the workspace. NULL is a no-op. */
TF_API void tf_workspace_destroy(tf_workspace *ws);
/* Grows ws so that forward calls on enc with at most `batch` sequences of
 * at most `seq_len` tokens (and no trace callback) need no allocation. */
TF_API tf_status tf_workspace_reserve(tf_workspace *ws, const tf_encoder *enc, int32_t batch,
                                      int32_t seq_len);
/* Bytes currently held by ws. */
TF_API size_t tf_workspace_bytes(const tf_workspace *ws);

/* ---- Tracing: every intermediate tensor, as it is computed ---------------- *
 *
 * When tf_forward_args.trace is set, it is called once per intermediate, in
 * the order of computation, with data laid out [B, T, ...] (padded positions
 * hold 0) and valid only during the call. Events (l = layer index):
 *   embed.token         [B, T, D]      token vectors (looked up, or the input)
 *   embed.position      [T, D]         positional encodings (if any)
 *   embed.token_type    [B, T, D]      token-type vectors (if any)
 *   embed.sum           [B, T, D]      their sum
 *   embed.norm          [B, T, D]      after the embedding LayerNorm (if any)
 *   embed.project       [B, T, D]      embedding_dim E other than D: the
 *                                      embeddings (the five events above,
 *                                      E wide) . embed.project^T + bias
 *   layers.l.norm1      [B, T, D]      LN1(x), pre-norm only
 *   layers.l.attn.q     [B, H, T, d_k] per-head queries (also .k, .v)
 *   layers.l.attn.q_norm [B, H, T, d_k] qk_norm: the queries after their
 *                                      LayerNorm over all D features (also
 *                                      .k_norm), which the scores use
 *   layers.l.attn.q_rotated [B, H, T, d_k] ROTARY: the queries rotated (also
 *                                      .k_rotated), which the scores use
 *   layers.l.attn.alibi_slopes [H]     ALIBI: m_h of each head; the scores
 *                                      hold -m_h |i - j| added
 *   layers.l.attn.relative_bias [H, 2 max_len - 1] relative_buckets: what
 *                                      score (i, j) of head h gains, at
 *                                      [h, j - i + max_len - 1] (max_len: the
 *                                      call's longest sequence)
 *   layers.l.attn.scores  [B, H, T, T] Q K^T / sqrt(d_k) + masks (-inf where
 *                                      masked or outside a local layer's
 *                                      window; rows of padded queries 0)
 *   layers.l.attn.weights [B, H, T, T] softmax of each row of the scores
 *   layers.l.attn.context [B, T, D]    heads' weights . V, concatenated
 *   layers.l.attn.out   [B, T, D]      context . W_O^T + b_O
 *   layers.l.add_norm1  [B, T, D]      post-norm: LN1(x + attn.out);
 *                                      pre-norm: x + attn.out
 *   layers.l.add_norm1b [B, T, D]      add_norm1b: LN1b(x + add_norm1), x
 *                                      the layer's input
 *   layers.l.norm2      [B, T, D]      LN2(x), pre-norm only
 *   layers.l.ffn.up     [B, T, F]      ffn_gated: x W_up^T + b_up
 *   layers.l.ffn.gate   [B, T, F]      ffn_gated: x W_gate^T + b_gate
 *   layers.l.ffn.hidden [B, T, F]      act(x W_up^T + b_up); ffn_gated:
 *                                      act(ffn.gate) * ffn.up
 *   layers.l.ffn.out    [B, T, D]      hidden W_down^T + b_down
 *   layers.l.add_norm2  [B, T, D]      post-norm: LN2(x + ffn.out);
 *                                      pre-norm: x + ffn.out
 *   final_norm          [B, T, D]      (if any)
 *   pooler              [B, D]         (if any)
 * Tracing allocates per call; without a trace callback nothing is gathered.
 */
typedef struct tf_trace_event {
    size_t struct_size; /* sizeof(tf_trace_event) of the library: read a
                                field only if it ends within struct_size */
    const char *name;   /* e.g. "layers.0.attn.q" */
    int32_t layer;      /* layer index, or -1 */
    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    const char *dim_names; /* e.g. "B,H,T,d_k" */
    const float *data;     /* row-major, valid only during the call */
} tf_trace_event;

typedef void (*tf_trace_fn)(const tf_trace_event *event, void *user_data);

/* ---- Forward ------------------------------------------------------------ */

typedef struct tf_forward_args {
    size_t struct_size; /* the caller's sizeof(tf_forward_args), set by init */
    int32_t batch;      /* B >= 1 */
    int32_t seq_len;    /* T >= 1 */

    /* Input: exactly one of these two. */
    const int32_t *input_ids;      /* [B, T] ids in [0, V) (padding ignored) */
    const float *input_embeds;     /* [B, T, D] vectors, used as embed.token
                                      ([B, T, E] with an embedding_dim E) */
    const int32_t *token_type_ids; /* [B, T] in [0, n_token_types), or NULL = 0 */

    /* Padding (right-padded sequences): at most one of these; neither means
     * every sequence has T real tokens. */
    const int32_t *lengths;        /* [B] real tokens per sequence, 0..T */
    const int32_t *attention_mask; /* [B, T] 1 = real token, 0 = padding; each
                                      row must be 1...1 0...0 */

    int32_t causal;             /* 1: token t attends to tokens <= t only */
    const float *additive_mask; /* added to the scaled scores: [T, T], or
                                      [B, T, T] when additive_mask_batched is
                                      1. Finite values, or -INFINITY to block
                                      the key; +inf and NaN in an entry a real
                                      token reads are TF_ERR_INVALID_ARGUMENT
                                      naming it */
    int32_t additive_mask_batched;

    /* Outputs (caller-owned). Padded positions are written as 0. */
    float *output;        /* [B, T, D] required */
    float *hidden_states; /* [L+1, B, T, D] or NULL: embeddings, then
                                      each layer's output (before final_norm) */
    float *attentions;    /* [L, B, H, T, T] or NULL: softmax weights */
    float *pooled_output; /* [B, D] or NULL; needs cfg.pooler. A
                                      sequence of length 0 gives zeros */

    tf_workspace *workspace; /* NULL: the handle's own scratch, kept
                                      (grown to the largest such call) until
                                      tf_encoder_destroy; a call that finds it
                                      in use by another allocates scratch of
                                      its own for the call */
    tf_trace_fn trace;       /* NULL: no tracing */
    void *trace_user_data;

    /* Since 0.2.0. */
    int32_t n_threads; /* threads this call may use: 0 = one per
                                      online core, 1 = the caller's only, N =
                                      at most N (see "Threads" above) */
} tf_forward_args;

/* Zeroes *args and sets struct_size. */
TF_API void tf_forward_args_init_sized(tf_forward_args *args, size_t struct_size);
TF_API void tf_forward_args_init(tf_forward_args *args); /* 0.1.0's */
#define tf_forward_args_init(args) tf_forward_args_init_sized((args), sizeof *(args))

/* Runs the encoder. Validates everything first; on failure no output is
 * written (but see overflow below for hidden_states and attentions). A query
 * that can see no key at all (e.g. an additive-mask row of -INFINITY) gets
 * attention weights of 0, so its context is 0, not NaN.
 *
 * Never a silent NaN. A NaN or infinity in input_embeds is the caller's: it
 * carries on (as NaN) into the outputs of its own sequence, not the others',
 * and the call succeeds; it is never hidden. Any other non-finite value is a
 * float32 overflow of finite inputs and weights (e.g. inputs of 1e20, whose
 * scores exceed 3.4e38, or a weight of 3e38): the pass looks for one after
 * the embeddings, in each layer's attention scores and output, after the
 * final norm and in the pooler (per layer, a vectorised scan of the hidden
 * state and a bound on the scores from the norms of Q's and K's rows and the
 * largest position bias; the scores as attention computes them: Q and K
 * rotated, q . k / sqrt(d_k) plus the relative position bias and ALiBi's
 * -m_h |i - j|, over the keys a causal or local-window query sees), and
 * on finding one fails with TF_ERR_UNSUPPORTED naming the first
 * traced tensor (see Tracing) that holds it, its position and value, e.g.
 *   "layers.0.attn.scores: a non-finite value (inf) at [0, 3, 1, 2]
 *    (B,H,T,T) from finite inputs and weights (float32 overflow)"
 * (an attn.scores entry of -inf that no mask put there counts: it would act
 * as a masked key). To name it the pass is run again with tracing, which
 * allocates even with a workspace; when that trace would take more than
 * 256 MiB, the tensor named is where the check found it instead: the
 * layer's attn.scores or add_norm2, embed.sum or .norm, final_norm or
 * pooler. Then output and pooled_output are not written; hidden_states and
 * attentions may hold values of the layers up to it, and the trace callback
 * has seen the events up to it. */
TF_API tf_status tf_encoder_forward(const tf_encoder *enc, const tf_forward_args *args);

/* ---- Tokenizers: tokenizer.json, BERT's vocab.txt, CLIP's and SigLIP's files - *
 *
 * Text to ids exactly as Hugging Face's tokenizers library does it, from a
 * tokenizer.json (its serialisation) or from BERT's vocab.txt.
 *
 * A tokenizer.json runs its pipeline: its added tokens (special or not;
 * single_word, lstrip, rstrip; normalized ones are found in the normalised
 * text) are matched first, leftmost and longest; then the normalizer
 * (BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip,
 * Replace with a string or a regex, Prepend, Precompiled: SentencePiece's
 * charsmap, as XLM-R's file has it (since 0.4.0), Sequence), the
 * pre-tokenizer (BertPreTokenizer, ByteLevel with add_prefix_space and
 * GPT-2's regex, Whitespace, WhitespaceSplit, Punctuation, Digits, Split
 * with a string or a regex, every behavior and invert, Metaspace with its
 * replacement, prepend_scheme "always", "first" or "never" (or the older
 * add_prefix_space) and split (since 0.4.0), Sequence), the model
 * (WordPiece with "##"; BPE with merges by rank, continuing_subword_prefix,
 * end_of_word_suffix, byte_fallback, ignore_merges, unk_token, fuse_unk;
 * Unigram (since 0.4.0): the Viterbi best path over its scored pieces,
 * unk_id, byte_fallback, unknown characters fused into one unk as
 * tokenizers does; without unk_id a character that is no piece makes the
 * encoding fail, TF_ERR_INVALID_ARGUMENT naming the text) and
 * the post-processor (TemplateProcessing, BertProcessing, RobertaProcessing,
 * ByteLevel, Sequence), which adds the special tokens and token types; the
 * file's truncation (LongestFirst, OnlyFirst, OnlySecond; Left or Right)
 * and padding (pad_id, pad_type_id, BatchLongest or Fixed,
 * pad_to_multiple_of). Regexes are PCRE2's in Unicode mode. A text's work
 * and growth are linear in its length (since 0.4.0): over a text (or a
 * piece a pre-tokenizer splits) of n bytes a regex looks at no more than
 * 256 (n + 1) bytes in all, each start position counted as the bytes from
 * it to the end of the window it may read (32 bytes, doubled while it needs
 * more), with at most 16 backtracking steps per byte of that window, and
 * 64, and beyond that up to 4 MiB more for all the pieces of one input (a
 * run of up to about 2,800 spaces that every start reads to its end, as
 * \s*\n does, still encodes); a normalizer makes at most 16 characters per byte of the text (NFKD
 * makes at most 6; a Replace of a byte by up to 16 fits). A text past
 * either bound, e.g. a pattern that backtracks catastrophically or reads
 * the rest of the text from every start (\s*\d+ on a run of spaces), makes
 * the encoding (or a decoder's Replace, the decoding) fail with
 * TF_ERR_UNSUPPORTED naming the component, its pattern, the text's length
 * and the bound; it never hangs, and the tokenizer stays as it was.
 * Another component's type
 * (WordLevel, UnicodeScripts, ...) is TF_ERR_UNSUPPORTED naming the
 * component and its "type"; malformed JSON, a field of the wrong type, an
 * id given twice, a merge of tokens not in the vocabulary are TF_ERR_FORMAT
 * naming the field. A TemplateProcessing pair template must use both $A
 * and $B, as tokenizers' builder requires (its deserializer does not check,
 * and encodes pairs with an empty template to no tokens), and a single one
 * $A and not $B (tokenizers panics on a $B there): otherwise TF_ERR_FORMAT
 * naming post_processor.single or .pair and the template. A template's
 * special tokens must be keys of special_tokens, each with ids and tokens
 * of one length (tokenizers' SpecialToken::new; its deserializer does not
 * check, and its encoding then panics); a Sequence with two processors that
 * add special tokens is TF_ERR_UNSUPPORTED naming both. The
 * vocabulary's ids must be 0..n-1, each once; an added
 * token in the vocabulary has its id there (as tokenizers gives it). Where
 * ours differ from tokenizers': offsets are bytes of the text
 * (tf_encoding_offsets; code points, as tokenizers counts them, in
 * tf_encoding_char_offsets), a
 * character that normalisation composes of several spans them all, and a
 * mark moved by canonical reordering keeps its own bytes; a character
 * Precompiled makes of several, or several of one, spans them all; a
 * Unigram byte token (byte_fallback) spans its own character, not the whole
 * unknown run, as SentencePiece's spans have it;
 * ByteLevel's and RobertaProcessing's trim_offsets are not applied (a
 * token's offsets include the space its "Ġ" came from); the file's
 * truncation.stride is used when the caller asks overflowing tokens
 * (tf_encode_options). A batch
 * is padded to its longest row even without "padding" (with pad_id, else the
 * id of "[PAD]" or "<pad>", else 0).
 *
 * A vocab.txt is the pipeline Hugging Face's BertTokenizerFast builds: the
 * special tokens ([CLS], [SEP], [PAD], [UNK], [MASK]) written in the text
 * are kept whole; the rest is, in this order, cleaned (control and format
 * characters and U+FFFD dropped, unassigned code points kept; Unicode
 * whitespace made spaces), CJK ideographs made words of their own,
 * optionally stripped of accents (NFD, nonspacing marks removed: a CJK
 * compatibility ideograph becomes its unified one), optionally lower-cased
 * (Unicode's full mapping: U+0130, I with a dot, becomes i and U+0307);
 * words are split on whitespace and on punctuation (ASCII punctuation and
 * Unicode P*), then split greedily into the longest vocabulary pieces, "##"
 * marking a continuation; a word with no such split, or longer than
 * max_chars_per_word characters, is [UNK]; a pair that does not fit
 * max_length loses tokens from the end of the longer text (the second on
 * ties), as BERT's Python tokenizer does.
 *
 * Unicode data comes from utf8proc, with tokenizers' classes where they
 * differ (its category tables are Unicode 9.0's: a character made
 * punctuation, a format character or a nonspacing mark since stays in its
 * word there, and so here). Invalid UTF-8 is TF_ERR_INVALID_ARGUMENT naming
 * the byte. A tokenizer is immutable once loaded: use it from many threads
 * at once. */

typedef struct tf_tokenizer tf_tokenizer; /* opaque */

typedef struct tf_tokenizer_options {
    size_t struct_size; /* the caller's sizeof(tf_tokenizer_options), set by init */
    /* vocab.txt only (a tokenizer.json says these itself): */
    int32_t lowercase;          /* 1 (default): "uncased"; 0: "cased" */
    int32_t strip_accents;      /* -1 (default): as lowercase; 0 or 1 */
    int32_t split_cjk;          /* 1 (default): each CJK ideograph is a word */
    int32_t max_chars_per_word; /* 100 (default): longer words become [UNK] */
    int32_t max_length;         /* 0 (default): no limit (a tokenizer.json: its own);
                                    else at most this many ids per text (pair),
                                    specials included, >= 3 (a tokenizer.json: with
                                    its truncation strategy, else longest_first) */
    /* vocab.txt only: */
    const char *unk_token; /* NULL: "[UNK]" (these four must be in the vocabulary) */
    const char *cls_token; /* NULL: "[CLS]" */
    const char *sep_token; /* NULL: "[SEP]" */
    const char *pad_token; /* NULL: "[PAD]" */
} tf_tokenizer_options;

TF_API void tf_tokenizer_options_init_sized(tf_tokenizer_options *opts, size_t struct_size);
TF_API void tf_tokenizer_options_init(tf_tokenizer_options *opts); /* 0.1.0's */
#define tf_tokenizer_options_init(opts) tf_tokenizer_options_init_sized((opts), sizeof *(opts))

/* Loads a tokenizer from path: a tokenizer.json (a name ending in ".json"),
 * a model directory (its tokenizer.json, else its vocab.txt, else, since
 * 0.5.0, CLIP's vocab.json with merges.txt when tokenizer_config.json's
 * tokenizer_class is CLIPTokenizer(Fast), else SigLIP's spiece.model when
 * it is SiglipTokenizer: each read as transformers' converter would write
 * its tokenizer.json), a BERT vocab.txt (one token per line, id = line
 * number), a file named spiece.model, or a vocab.json with merges.txt
 * beside it. opts may be NULL (the defaults).
 *
 * A model directory's tokenizer_config.json and special_tokens_map.json
 * are read as transformers' AutoTokenizer reads them (since 0.4.0):
 * special_tokens_map.json's special tokens replace tokenizer_config.json's
 * unless tokenizer_config.json has added_tokens_decoder (then
 * special_tokens_map.json is not read). The tokens of added_tokens_decoder
 * (in order of id), then the special tokens (bos, eos, unk, sep, pad, cls,
 * mask, additional_special_tokens, with their lstrip / rstrip /
 * single_word / normalized flags) that the tokenizer lacks as added tokens
 * are added, as PreTrainedTokenizerFast does: at the vocabulary's id of the
 * token, else at the next id. pad_token pads; model_max_length is the
 * length truncation cuts to. For a vocab.txt, the files' unk, cls, sep,
 * pad and mask tokens name the specials where the options name none, and
 * do_lower_case, strip_accents and tokenize_chinese_chars set the casing
 * where the options keep their defaults. A field of the wrong type is
 * TF_ERR_FORMAT naming the file, the field and its value: do_lower_case
 * and tokenize_chinese_chars true or false (BertTokenizerFast's normalizer
 * takes no None), strip_accents also null; the special tokens a non-empty
 * string, an AddedToken object or null; model_max_length an integer >= 1
 * or null, where null and any integer from 2^31 on are no limit, as
 * transformers takes its VERY_LARGE_INTEGER int(1e30) (written
 * 1000000000000000019884624838656, or 1e30) for none; "512", 2.5, 0, -1
 * are refused. A folder with none of these is TF_ERR_IO "<dir>: not a
 * regular file: it is a directory, with neither tokenizer.json nor
 * vocab.txt (nor CLIP's ...)"; a file of it that is a symbolic link to
 * nothing is TF_ERR_IO naming the file and the link's target (see
 * tf_encoder_load), not taken as absent. */
TF_API tf_status tf_tokenizer_load(const char *path, const tf_tokenizer_options *opts,
                                   tf_tokenizer **out);
/* NULL is a no-op. */
TF_API void tf_tokenizer_destroy(tf_tokenizer *tok);
/* The model's vocabulary and the added tokens: one more than the largest id. */
TF_API int32_t tf_tokenizer_vocab_size(const tf_tokenizer *tok);
/* The token of an id (owned by tok), as the vocabulary writes it (byte-level
 * BPE's "Ġthe"), or NULL when there is none. */
TF_API const char *tf_tokenizer_id_to_token(const tf_tokenizer *tok, int32_t id);
/* The id of a token, or -1. */
TF_API int32_t tf_tokenizer_token_to_id(const tf_tokenizer *tok, const char *token);

/* Since 0.4.0. The text of the ids ids[0..n) as the tokenizer's decoder
 * makes it (tokenizers' Tokenizer::decode: ByteLevel, WordPiece,
 * Metaspace, BPEDecoder, Replace, ByteFallback, Fuse, Strip, Sequence;
 * without a decoder the tokens joined by spaces; a vocab.txt's is
 * WordPiece's with its cleanup of spaces), the special added tokens left
 * out when skip_special_tokens is 1. Writes the UTF-8 text and a NUL into
 * buf (size bytes) and its length (without the NUL) into *len; buf NULL
 * and size 0 only asks the length. An id that is no token is
 * TF_ERR_INVALID_ARGUMENT naming it (tokenizers skips it); a buf too small
 * is TF_ERR_INVALID_ARGUMENT with *len set and buf untouched; a decoder
 * type this library lacks is TF_ERR_UNSUPPORTED naming it (loading the
 * file still succeeds). */
TF_API tf_status tf_tokenizer_decode(const tf_tokenizer *tok, const int32_t *ids, size_t n,
                                     int32_t skip_special_tokens, char *buf, size_t size,
                                     size_t *len);
/* Since 0.4.0. The text of the token strings tokens[0..n) (NUL-terminated
 * UTF-8, in the vocabulary's spelling, "Ġthe" or "##s", or any other text)
 * through the same decoder: transformers' convert_tokens_to_string. buf,
 * size and *len as tf_tokenizer_decode's; a NULL token is
 * TF_ERR_INVALID_ARGUMENT naming it. */
TF_API tf_status tf_tokenizer_decode_tokens(const tf_tokenizer *tok, const char *const *tokens,
                                            size_t n, char *buf, size_t size, size_t *len);

/* The result of encoding: B texts (or pairs), padded to the longest (with
 * [PAD], or as the tokenizer.json says), T ids each. Arrays are [B, T], row-major, owned by the encoding,
 * and fit tf_forward_args directly (input_ids, token_type_ids,
 * attention_mask). */
typedef struct tf_encoding tf_encoding; /* opaque */

/* Encodes one UTF-8 text of len bytes with the tokenizer's special tokens
 * ([CLS] text [SEP], or a pair as [CLS] text [SEP] pair [SEP] with token
 * types 0 then 1, for BERT); pair may be NULL. A text or pair of more than
 * 4294967295 bytes is TF_ERR_INVALID_ARGUMENT. */
TF_API tf_status tf_tokenizer_encode(const tf_tokenizer *tok, const char *text, size_t len,
                                     const char *pair, size_t pair_len, tf_encoding **out);
/* Encodes n texts (lens[i] bytes each, or NUL-terminated when lens is NULL),
 * optionally with n pairs, into one padded batch. */
TF_API tf_status tf_tokenizer_encode_batch(const tf_tokenizer *tok, size_t n,
                                           const char *const *texts, const size_t *lens,
                                           const char *const *pairs, const size_t *pair_lens,
                                           tf_encoding **out);
/* Since 0.4.0: truncation and padding as the caller asks (Hugging Face's
 * tokenizer(texts, truncation=..., max_length=..., padding=...,
 * pad_to_multiple_of=..., padding_side=...)). */
typedef enum tf_truncation_mode {
    TF_TRUNCATION_TOKENIZER = 0,     /* the tokenizer's own (its file's, or max_length's) */
    TF_TRUNCATION_NONE = 1,          /* none, whatever the tokenizer says */
    TF_TRUNCATION_LONGEST_FIRST = 2, /* a token at a time from the longer of text and pair */
    TF_TRUNCATION_ONLY_FIRST = 3,    /* from the text only */
    TF_TRUNCATION_ONLY_SECOND = 4    /* from the pair only */
} tf_truncation_mode;

typedef struct tf_encode_options {
    size_t struct_size;         /* the caller's sizeof(tf_encode_options), set by init */
    int32_t truncation;         /* tf_truncation_mode (TF_TRUNCATION_TOKENIZER) */
    int32_t max_length;         /* ids a row may have, specials included, for truncation
                                   2..4 and pad_to_max_length; 0: the tokenizer's
                                   model_max_length (tokenizer_config.json's, else its
                                   file's truncation) */
    int32_t pad_to_max_length;  /* 1: every row padded to max_length; 0 (default): to the
                                   longest row (or as the tokenizer.json's padding says) */
    int32_t pad_to_multiple_of; /* > 0: rows padded to a multiple of it; 0: as the tokenizer */
    int32_t pad_left;           /* 1: padding (and attention_mask's zeros) on the left;
                                   -1: on the right; 0 (default): as the tokenizer.json
                                   says (Right when it says nothing) */
    int32_t stride;             /* the tokens each overflowing window repeats of the one
                                   before (tokenizers' stride, transformers' stride=):
                                   >= 0, below max_length less a text's special tokens;
                                   0 with truncation 0: the tokenizer.json's
                                   truncation.stride (0 when it has none) */
    int32_t return_overflowing; /* 1: the tokens truncation cuts off come back as more
                                   rows (transformers' return_overflowing_tokens=True),
                                   each input's rows together, see
                                   tf_encoding_overflow_to_sample; 0 (default): cut off */
} tf_encode_options;

TF_API void tf_encode_options_init_sized(tf_encode_options *opts, size_t struct_size);
#define tf_encode_options_init(opts) tf_encode_options_init_sized((opts), sizeof *(opts))

/* tf_tokenizer_encode_batch with opts (NULL: the defaults, which are what
 * tf_tokenizer_encode_batch does). A value out of range, a max_length the
 * strategy needs and neither the caller nor the tokenizer gives, is
 * TF_ERR_INVALID_ARGUMENT naming the field and its value.
 *
 * With return_overflowing (since 0.4.0), each text (or pair) truncation
 * cuts gives several rows, as Hugging Face's tokenizers makes them
 * (Encoding::truncate, truncate_encodings) and transformers flattens them:
 * a truncated sequence keeps the window truncation gives it (its first
 * tokens, or its last with direction Left), then windows that start
 * window - stride tokens on (back, with Left) until one reaches its end;
 * the first row is both sequences' first windows, then each further window
 * of the text with every window of the pair, then the text's first window
 * with each further one of the pair. Special tokens and type ids are the
 * template's in every row, but as tokenizers has it, a TemplateProcessing
 * row's tokens from a window past their sequence's first have that
 * sequence's type (0 for the text, 1 for the pair). A stride (or
 * return_overflowing) where a truncated sequence keeps no more tokens than
 * the stride (tokenizers asserts there) is TF_ERR_INVALID_ARGUMENT naming
 * the text, the stride and the window; rows past 2^31-1 tokens in all are
 * TF_ERR_INVALID_ARGUMENT too. All rows are padded alike. */
TF_API tf_status tf_tokenizer_encode_batch_with(const tf_tokenizer *tok, size_t n,
                                                const char *const *texts, const size_t *lens,
                                                const char *const *pairs, const size_t *pair_lens,
                                                const tf_encode_options *opts, tf_encoding **out);
/* The length the tokenizer cuts to when asked to truncate without a
 * max_length: tokenizer_config.json's model_max_length (a model folder),
 * else the tokenizer.json's truncation.max_length, else the options'
 * max_length of a vocab.txt; 0 when none says, or when model_max_length
 * says no limit (see tf_tokenizer_load). */
TF_API int32_t tf_tokenizer_model_max_length(const tf_tokenizer *tok);

/* NULL is a no-op. */
TF_API void tf_encoding_destroy(tf_encoding *enc);
TF_API int32_t tf_encoding_batch(const tf_encoding *enc);                 /* B */
TF_API int32_t tf_encoding_seq_len(const tf_encoding *enc);               /* T */
TF_API const int32_t *tf_encoding_lengths(const tf_encoding *enc);        /* [B] real ids */
TF_API const int32_t *tf_encoding_ids(const tf_encoding *enc);            /* [B, T] */
TF_API const int32_t *tf_encoding_type_ids(const tf_encoding *enc);       /* [B, T] */
TF_API const int32_t *tf_encoding_attention_mask(const tf_encoding *enc); /* [B, T] */
/* Since 0.4.0. [B]: the input (0..n-1) each row came from
 * (transformers' overflow_to_sample_mapping); row b is input b unless
 * return_overflowing made more rows. */
TF_API const int32_t *tf_encoding_overflow_to_sample(const tf_encoding *enc);
/* [B, T, 2]: each token's byte range [begin, end) in the text or the pair
 * it came from (the bytes it was made of, through normalisation); [0, 0]
 * for the specials the template adds and for padding. */
TF_API const int64_t *tf_encoding_offsets(const tf_encoding *enc);
/* Since 0.4.0. [B, T, 2]: the same ranges in Unicode code points of the
 * text or pair (as Python indexes a str, and Hugging Face's
 * offset_mapping counts them); [0, 0] likewise. */
TF_API const int64_t *tf_encoding_char_offsets(const tf_encoding *enc);

/* ---- Sentence vectors ------------------------------------------------------ */

typedef enum tf_pooling {
    TF_POOLING_CLS = 0,  /* the first token's vector ([CLS]) */
    TF_POOLING_MEAN = 1, /* the mean over the real tokens */
    /* Since 0.3.0: sentence-transformers' other modes (its Pooling module). */
    TF_POOLING_MAX = 2,           /* each component's maximum over the real tokens */
    TF_POOLING_MEAN_SQRT_LEN = 3, /* their sum / sqrt(their count) */
    TF_POOLING_WEIGHTED_MEAN = 4, /* sum of (t + 1) h[t] / sum of (t + 1), t = position */
    TF_POOLING_LAST_TOKEN = 5     /* the last real token's vector */
} tf_pooling;

/* "cls", "mean", "max", "mean_sqrt_len_tokens", "weightedmean", "lasttoken"
 * (sentence-transformers' names; see tf_activation_name). */
TF_API const char *tf_pooling_name(int32_t pooling);
TF_API int32_t tf_pooling_from_name(const char *name);

/* out [B, D] = one vector per sequence of hidden [B, T, D] (e.g. a forward
 * call's output), pooled as `pooling` says over the first lengths[b] tokens
 * (lengths NULL: all T); with normalize = 1 each vector is scaled to unit L2
 * norm (a zero vector stays zero). A sequence of length 0 gives zeros. */
TF_API tf_status tf_pool(const float *hidden, const int32_t *lengths, int32_t batch,
                         int32_t seq_len, int32_t d_model, int32_t pooling, int32_t normalize,
                         float *out);

/* ---- Model folders: sentence-transformers pipelines and heads ------------ *
 *
 * Since 0.3.0. A model folder as the Hugging Face hub holds it, loaded with
 * no options into what sentence-transformers or transformers computes from
 * it (the architecture: config.json's model_type, any family
 * tf_encoder_load reads, e.g. BERT's "bert" or ModernBERT's "modernbert",
 * whose sentence-transformers folders (modernbert-embed-base,
 * gte-modernbert-base) hold a ModernBertModel without "model."; any other
 * is TF_ERR_UNSUPPORTED naming model_type and architectures and listing the
 * supported ones):
 *  - a sentence-transformers folder (modules.json): TF_PIPELINE_EMBEDDING.
 *    Its modules run in order: Transformer (the BERT checkpoint of the
 *    folder; sentence_bert_config.json's max_seq_length and do_lower_case),
 *    Pooling (its config.json: word_embedding_dimension, required;
 *    pooling_mode_cls_token, _max_tokens, _mean_tokens (true unless said,
 *    as Pooling's default), _mean_sqrt_len_tokens, _weightedmean_tokens,
 *    _lasttoken, several concatenated in that order, as tf_pool computes
 *    each, or pooling_mode "cls", "max", "mean", ... (any case) for one
 *    alone over them; include_prompt false leaves the prompt's tokens,
 *    [CLS] included, out), Dense (its config.json: in_features,
 *    out_features and activation_function, required as Dense.load needs
 *    them; bias; activation_function torch.nn.modules.activation.Tanh,
 *    ReLU, Sigmoid, GELU or torch.nn.modules.linear.Identity;
 *    module_input_name and module_output_name "sentence_embedding" or
 *    null; linear.weight and linear.bias in its model.safetensors) and
 *    Normalize (unit L2 norm); config_sentence_transformers.json gives
 *    prompts ({"query": "query: "}), default_prompt_name and
 *    similarity_fn_name. A module's path is read as modules.json writes
 *    it: an absolute one or one with a ".." is TF_ERR_FORMAT (path
 *    "../x" leaves the folder); symbolic links inside the folder (a
 *    cache snapshot's) are followed wherever they lead.
 *    Every field of every file read (tokenizer_config.json,
 *    special_tokens_map.json, sentence_bert_config.json,
 *    config_sentence_transformers.json, modules.json, the modules'
 *    config.json, config.json) has the type and range upstream takes, or is
 *    TF_ERR_FORMAT naming the file, the field and the value as written
 *    ("1_Pooling/config.json: include_prompt must be true or false, got
 *    null"); null is Python's None, the field not said where upstream takes
 *    None as its default (max_seq_length, prompts, default_prompt_name,
 *    similarity_fn_name, pooling_mode, the special tokens, model_max_length,
 *    strip_accents), refused where upstream has no None (a boolean such as
 *    bias or include_prompt, a size, activation_function).
 *  - a *ForSequenceClassification folder (config.json's architectures),
 *    its family's head on the encoder's output: BERT's pooler, then
 *    classifier.weight [labels, D] and .bias; RoBERTa's (XLM-R's,
 *    CamemBERT's) classifier.out_proj(tanh(classifier.dense(h[<s>])));
 *    DistilBERT's classifier(ReLU(pre_classifier(h[CLS])));
 *    ELECTRA's classifier.out_proj(gelu(classifier.dense(h[CLS])));
 *    ModernBERT's classifier(head.norm(act(head.dense(pool(h))))) (since
 *    0.4.0; ModernBertForSequenceClassification): pool by config.json's
 *    classifier_pooling, "cls" (h[CLS]) or "mean" (over the attention
 *    mask); act by classifier_activation: "gelu", "gelu_python", "relu",
 *    "tanh", "sigmoid" or "linear"; head.dense's bias by classifier_bias,
 *    head.norm a LayerNorm with norm_eps and a bias by norm_bias
 *    (ModernBertConfig's defaults "cls", "gelu", false, false); another
 *    classifier_pooling or classifier_activation is TF_ERR_UNSUPPORTED
 *    naming it, and a ModernBertForTokenClassification too. Labels from
 *    id2label; problem_type. With one label, or with the
 *    "sentence_transformers" object a CrossEncoder saves in config.json,
 *    TF_PIPELINE_CROSS_ENCODER, else TF_PIPELINE_CLASSIFIER.
 *  - another folder: TF_PIPELINE_EMBEDDING, mean pooling and no
 *    normalisation (sentence-transformers' pipeline for a plain model).
 * Texts are tokenised with the folder's tokenizer.json (its own pipeline:
 * RoBERTa's pairs are <s> a </s></s> b </s>, ModernBERT's [CLS] a [SEP] b
 * [SEP]), else its vocab.txt
 * (WordPiece; tokenizer_config.json's do_lower_case, default true, and
 * strip_accents; sentence_bert_config.json's do_lower_case true
 * lower-cases too); token types reach the model only when it has more
 * than one. At most max_seq_length tokens each (or pair):
 * sentence_bert_config.json's, else tokenizer_config.json's
 * model_max_length when below the model's positions (null, or 2^31 and
 * more as transformers' 1e30, is none), else those (max_position_embeddings
 * less position_offset); one below 3, which leaves no room for a token
 * beside [CLS] and [SEP], is TF_ERR_FORMAT naming its file and field. A
 * file of the folder that is a symbolic link to nothing is TF_ERR_IO naming
 * it (see tf_encoder_load). A longer input is cut (pairs:
 * the longer segment first) and counted, or refused (options). Every
 * inconsistency names the file and the field with both values, e.g.
 *   "2_Dense/config.json: in_features 32 disagrees with the 64 values the
 *    modules before it give (1_Pooling/config.json: 2 modes of 32)". */

typedef enum tf_pipeline_kind {
    TF_PIPELINE_EMBEDDING = 0,     /* texts to vectors: tf_pipeline_embed */
    TF_PIPELINE_CROSS_ENCODER = 1, /* (query, passage) pairs to scores: tf_pipeline_score */
    TF_PIPELINE_CLASSIFIER = 2, /* texts (or pairs) to label probabilities: tf_pipeline_classify */
    TF_PIPELINE_TOKEN_CLASSIFIER = 3, /* since 0.4.0: a text to per-token labels and entities:
                                        tf_pipeline_entities */
    /* Since 0.5.0 (see "Retrieval outputs" below): */
    TF_PIPELINE_FILL_MASK = 4,    /* a *ForMaskedLM folder: tf_pipeline_fill_mask, and
                                    tf_pipeline_embed_sparse as the older SPLADE folders */
    TF_PIPELINE_SPARSE = 5,       /* a sentence-transformers SparseEncoder folder (SPLADE):
                                    tf_pipeline_embed_sparse */
    TF_PIPELINE_MULTI_VECTOR = 6, /* a PyLate (ColBERT) folder: tf_pipeline_embed_tokens, and
                                    tf_pipeline_score by MaxSim */
    /* Since 0.5.0 (see "Images" below): */
    TF_PIPELINE_IMAGE_EMBEDDING = 7, /* a ViT, CLIP or SigLIP vision folder: images to
                                        vectors, tf_pipeline_embed_images */
    TF_PIPELINE_IMAGE_CLASSIFIER = 8 /* a ViTForImageClassification folder: images to label
                                        probabilities, tf_pipeline_classify_images */
} tf_pipeline_kind;

/* "embedding", "cross-encoder", "classifier", "token-classifier" (since
 * 0.4.0), "fill-mask", "sparse-embedding", "multi-vector",
 * "image-embedding", "image-classifier" (since 0.5.0); NULL for another
 * value. */
TF_API const char *tf_pipeline_kind_name(int32_t kind);

typedef struct tf_pipeline tf_pipeline; /* opaque; immutable once loaded */

typedef struct tf_pipeline_options {
    size_t struct_size;       /* the caller's sizeof, set by init */
    int32_t max_seq_length;   /* 0 (default): the folder's; else 3..the model's positions */
    int32_t truncation_error; /* 0 (default): a longer input is cut and counted;
                                 1: TF_ERR_INVALID_ARGUMENT naming the first one */
    /* Since 0.5.0: */
    int32_t kind; /* -1 (default): as the folder says; a bare *ForMaskedLM folder (no
                     modules.json) is then an embedding, its encoder mean-pooled, as
                     SentenceTransformer loads it. TF_PIPELINE_FILL_MASK: such a folder
                     with its masked-LM head, as transformers' fill-mask pipeline loads
                     it (tf_pipeline_fill_mask, and tf_pipeline_embed_sparse as the older
                     SPLADE folders); other folders load as they say. Another value is
                     TF_ERR_INVALID_ARGUMENT */
} tf_pipeline_options;

TF_API void tf_pipeline_options_init_sized(tf_pipeline_options *opts, size_t struct_size);
#define tf_pipeline_options_init(opts) tf_pipeline_options_init_sized((opts), sizeof *(opts))

/* Loads the folder dir (see above); opts may be NULL. On failure *out is
 * NULL and nothing stays allocated. Since 0.5.0 dir may also be anything
 * else tf_encoder_load reads: libtfenc's own folder (tf_encoder_save's
 * model.safetensors, no config.json) or one weights file, each run as
 * sentence-transformers runs a plain model (mean pooling) with the
 * tokenizer of its folder (tokenizer.json, else vocab.txt, and
 * tokenizer_config.json if there is one). */
TF_API tf_status tf_pipeline_load(const char *dir, const tf_pipeline_options *opts,
                                  tf_pipeline **out);
/* NULL is a no-op. */
TF_API void tf_pipeline_destroy(tf_pipeline *p);
/* tf_pipeline_kind, or -1 for NULL. */
TF_API int32_t tf_pipeline_kind_of(const tf_pipeline *p);
/* Embedding: the width of its vectors (after any Dense); heads: the number
 * of labels; fill-mask (since 0.5.0): the vocabulary's size. 0 for NULL. */
TF_API int32_t tf_pipeline_dim(const tf_pipeline *p);
/* Tokens per input (or pair), [CLS] and [SEP] included (a multi-vector
 * pipeline: a document's, less its prefix token, as tf_pipeline_count_tokens
 * counts a text; since 0.5.0). */
TF_API int32_t tf_pipeline_max_seq_length(const tf_pipeline *p);
/* Label `index` (id2label), or NULL out of range or for an embedding. */
TF_API const char *tf_pipeline_label(const tf_pipeline *p, int32_t index);
/* similarity_fn_name: "cosine" (the default), "dot", "euclidean", "manhattan";
 * "MaxSim" for a multi-vector pipeline (since 0.5.0). */
TF_API const char *tf_pipeline_similarity(const tf_pipeline *p);
/* The folder's prompts: their number, name `index` (or NULL), the text of
 * the one named (or NULL), and default_prompt_name (or NULL). */
TF_API size_t tf_pipeline_prompt_count(const tf_pipeline *p);
TF_API const char *tf_pipeline_prompt_name(const tf_pipeline *p, size_t index);
TF_API const char *tf_pipeline_prompt(const tf_pipeline *p, const char *name);
TF_API const char *tf_pipeline_default_prompt_name(const tf_pipeline *p);

/* One call's inputs and outputs. Always start from tf_pipeline_args_init. */
typedef struct tf_pipeline_args {
    size_t struct_size;       /* the caller's sizeof, set by init */
    size_t n;                 /* inputs, >= 1 */
    const char *const *texts; /* [n] NUL-terminated UTF-8 (queries, for score) */
    const char *const *pairs; /* [n] second segments (passages), token type 1, or NULL;
                                  required by tf_pipeline_score */
    const char *prompt_name;  /* embed: NULL = default_prompt_name (none if unset),
                                  "" = none; the prompt's text goes before each text */
    int32_t normalize;        /* embed: -1 (default) = as the modules say; 0 = their
                                  Normalize skipped; 1 = unit L2 norm at the end */
    int32_t dimensions;       /* embed: 0 (default) = all; 1..dim = the first
                                  `dimensions` (Matryoshka), renormalised when the
                                  vectors are normalised */
    int32_t batch_size;       /* inputs per forward call: 0 (default) = 32 */
    int32_t n_threads;        /* as tf_forward_args.n_threads */
    float *out;               /* embed: [n, dimensions or dim]; score and classify:
                                  [n, labels] */
    size_t *truncated;        /* NULL, or set to the number of inputs cut */
    /* Since 0.4.0: */
    int32_t dimensions_layer_norm; /* embed: 0 (default) = `dimensions` as above;
                                  1 = nomic-embed-text-v1.5's Matryoshka recipe
                                  (its model card): each vector the modules give
                                  (what SentenceTransformer.encode returns) goes
                                  through a layer norm over all dim values (no
                                  weight or bias, eps 1e-5: F.layer_norm's
                                  default), then keeps its first `dimensions` (0:
                                  all), then is scaled to unit L2 norm whatever
                                  normalize says */
    size_t out_len;                /* the floats `out` holds: at least n times the call's
                                  width (embed: dimensions, or dim for 0; score and
                                  classify: labels), else TF_ERR_INVALID_ARGUMENT
                                  naming both; 0 is refused. (A caller built with a
                                  header before this field, whose struct_size ends
                                  before it, is trusted to hold n times the width.) */
    /* Since 0.5.0: */
    int32_t is_query;        /* 0 (default): the inputs are documents; 1: queries.
                                  Multi-vector: PyLate's encode(is_query=) (the query
                                  prefix, [MASK] expansion to query_length); sparse with a
                                  Router module: its query route (encode_query); other
                                  kinds ignore it */
    int32_t max_active_dims; /* tf_pipeline_embed_sparse: 0 (default) = every non-zero
                                  value; k >= 1 = the k largest of each vector, as
                                  SparseEncoder.encode(max_active_dims=) */
    size_t first_index;      /* the index messages give texts[0] ("text 33: ..."): 0 by
                                  default; a caller that runs one job as several calls
                                  passes each call's offset in the job */
} tf_pipeline_args;

/* -1 normalize, everything else 0, struct_size set. */
TF_API void tf_pipeline_args_init_sized(tf_pipeline_args *args, size_t struct_size);
#define tf_pipeline_args_init(args) tf_pipeline_args_init_sized((args), sizeof *(args))

/* Sentence vectors (TF_PIPELINE_EMBEDDING; a whole CLIP or SigLIP folder's
 * text vectors, see tf_pipeline_zero_shot, with pairs, prompts and
 * dimensions refused). A `dimensions` above dim is
 * TF_ERR_INVALID_ARGUMENT naming both, as is a dimensions_layer_norm other
 * than 0 or 1; an unknown prompt_name names the folder's. On failure out is
 * not written.
 *
 * Matryoshka: sentence-transformers' truncate_dim keeps the first
 * `dimensions` values (then its Normalize, if the folder has one, has already
 * run: a cut of unit vectors is renormalised here, as a cosine needs).
 * nomic-embed-text-v1.5 was trained for another recipe, which its model card
 * writes out as code: layer norm, cut, L2 normalise (dimensions_layer_norm
 * 1). A folder does not say which one it wants: v1.5's config.json and
 * config_sentence_transformers.json hold the same keys as v1's (model_type
 * nomic_bert, the same auto_map, max_trained_positions 2048, the same
 * prompts), so the caller chooses. */
TF_API tf_status tf_pipeline_embed(const tf_pipeline *p, const tf_pipeline_args *args);
/* A head's scores of (text, pair) inputs, as sentence-transformers'
 * CrossEncoder.predict: the logits through the activation config.json
 * names (sentence_transformers.activation_fn, else the older
 * sbert_ce_default_activation_function: torch.nn's Sigmoid, Identity, Tanh,
 * ReLU or Softmax over each row; tf_pipeline_load refuses another, naming
 * the field and the value), else Sigmoid for one label and the logits for
 * more. (ms-marco cross-encoders saved by sentence-transformers v4 name
 * Identity: their scores are the logits.) */
TF_API tf_status tf_pipeline_score(const tf_pipeline *p, const tf_pipeline_args *args);
/* A head's label probabilities, as transformers' text-classification
 * pipeline: softmax (problem_type single_label_classification, or unset
 * with several labels), sigmoid (multi_label_classification, or one label),
 * the logits (regression). pairs may be NULL. */
TF_API tf_status tf_pipeline_classify(const tf_pipeline *p, const tf_pipeline_args *args);

/* Since 0.4.0: for a caller that batches inputs itself (a server), what it
 * needs to know of an input before running it. */

/* The tokenizer the pipeline's calls use (owned by p; NULL for NULL): it
 * cuts each input (or pair) to tf_pipeline_max_seq_length tokens, [CLS]
 * and [SEP] included. */
TF_API const tf_tokenizer *tf_pipeline_tokenizer(const tf_pipeline *p);
/* *tokens = the tokens of one input uncut: text (with the prompt that
 * prompt_name chooses before it, as tf_pipeline_args.prompt_name: NULL the
 * default, "" none; heads have no prompts and ignore it) and pair (NULL for
 * none), [CLS] and [SEP] included. An input with more than
 * tf_pipeline_max_seq_length tokens is one a call cuts (or refuses). An
 * unknown prompt_name is TF_ERR_INVALID_ARGUMENT naming it; invalid UTF-8
 * as tf_tokenizer_encode. */
TF_API tf_status tf_pipeline_count_tokens(const tf_pipeline *p, const char *text, const char *pair,
                                          const char *prompt_name, int32_t *tokens);
/* A head's logits [n, labels] (pairs may be NULL), before the activation
 * tf_pipeline_score or _classify applies: TEI's raw_scores. */
TF_API tf_status tf_pipeline_logits(const tf_pipeline *p, const tf_pipeline_args *args);
/* ---- Token classification (since 0.4.0) -------------------------------------- *
 *
 * A *ForTokenClassification folder (config.json's architectures) is a
 * TF_PIPELINE_TOKEN_CLASSIFIER: classifier.weight [labels, D] and .bias on
 * every token's state, a softmax over each token's labels (id2label), then
 * transformers' TokenClassificationPipeline (pipelines/token_classification.py,
 * postprocess): the special tokens left out, then per aggregation
 *  - TF_AGGREGATION_NONE: each token, its best label and score, its index;
 *  - TF_AGGREGATION_SIMPLE: the tokens' best labels grouped into entities
 *    (a run of one tag, B- starting a new one; the group's score the mean);
 *  - TF_AGGREGATION_FIRST: each word takes its first token's best label and
 *    score, then the words are grouped as SIMPLE groups tokens;
 *  - TF_AGGREGATION_AVERAGE: each word the best label of the mean of its
 *    tokens' softmaxes, and that mean, then grouped;
 *  - TF_AGGREGATION_MAX: each word the label and score of its best-scored
 *    token (the first of equals), then grouped.
 * A word is its first token and the subword tokens after it: with a
 * WordPiece tokenizer (vocab.txt, or a tokenizer.json whose model has a
 * continuing_subword_prefix) a token whose text span is not as long as the
 * token is a subword (the unknown token never is); with others (byte-level
 * BPE's "Ġ", Unigram's) a token not after a space and not at one. Entities
 * (or tokens) labelled "O" are left out, as the pipeline's ignore_labels.
 * start and end are byte offsets of the text (a byte-level token's without
 * the spaces its leading "Ġ"s stand for, as tokenizers' trim_offsets has
 * them; the one space before the text's first word, which add_prefix_space
 * adds, kept); the word is the pipeline's:
 * the token (the unknown token: its text span), and for a word or a group
 * the tokenizer's decoder's text of its tokens or words
 * (tf_tokenizer_decode_tokens: "##" joined, "Ġ" a space). */
typedef enum tf_aggregation {
    TF_AGGREGATION_NONE = 0,
    TF_AGGREGATION_SIMPLE = 1,
    TF_AGGREGATION_FIRST = 2,
    TF_AGGREGATION_AVERAGE = 3,
    TF_AGGREGATION_MAX = 4
} tf_aggregation;

/* Since 0.4.0. transformers' name of an aggregation ("none", "simple",
 * "first", "average", "max"), or NULL for another value. */
TF_API const char *tf_aggregation_name(int32_t aggregation);

typedef struct tf_entities tf_entities; /* opaque: the entities of one text */

/* The entities of text (NUL-terminated UTF-8; cut to max_seq_length as
 * every pipeline input) by aggregation; *out is NULL on failure. */
TF_API tf_status tf_pipeline_entities(const tf_pipeline *p, const char *text, int32_t aggregation,
                                      tf_entities **out);
/* NULL is a no-op. */
TF_API void tf_entities_destroy(tf_entities *e);
/* The number of entities (tokens, for TF_AGGREGATION_NONE); 0 for NULL. */
TF_API size_t tf_entities_count(const tf_entities *e);
/* Entity i's label (its entity_group: the label without "B-" or "I-",
 * except for TF_AGGREGATION_NONE), or NULL out of range. */
TF_API const char *tf_entities_label(const tf_entities *e, size_t i);
/* Its word (see above; owned by e), or NULL out of range. */
TF_API const char *tf_entities_word(const tf_entities *e, size_t i);
/* Its score (the mean of its tokens' or words'), its bytes [start, end) of
 * the text, and (TF_AGGREGATION_NONE) its token's index in the encoding,
 * else -1; 0 (index -1) out of range. */
TF_API float tf_entities_score(const tf_entities *e, size_t i);
TF_API int64_t tf_entities_start(const tf_entities *e, size_t i);
TF_API int64_t tf_entities_end(const tf_entities *e, size_t i);
TF_API int32_t tf_entities_index(const tf_entities *e, size_t i);

/* ---- Retrieval outputs (since 0.5.0) ----------------------------------------- *
 *
 * What a retrieval stack asks an encoder for besides one pooled vector:
 * every token's vector (TEI's /embed_all; ColBERT's multi-vector
 * documents), a sparse vector over the vocabulary (SPLADE), the masked-LM
 * head's predictions (fill-mask), and quantized embeddings. Each call
 * takes tf_pipeline_args as tf_pipeline_embed does (n, texts, prompt_name,
 * batch_size, n_threads, truncated, is_query, max_active_dims; out and
 * out_len must be NULL and 0: the results come back in an object the call
 * allocates, since their sizes differ between inputs) and gives all its
 * inputs' results or none. */

/* The pooling of a pipeline's vectors, as TEI's /info names it: an
 * embedding's sentence-transformers modes ("cls", "mean", "max",
 * "mean_sqrt_len_tokens", "weightedmean", "lasttoken"; several joined by
 * '+' in Pooling.py's order), "splade" for sparse kinds, NULL for the
 * other kinds (heads pool as their architecture says) and for NULL. */
TF_API const char *tf_pipeline_pooling(const tf_pipeline *p);

/* Per-token vectors: for each input a matrix [rows, dim].
 *  - TF_PIPELINE_EMBEDDING: the encoder's last hidden state of every real
 *    token, [CLS] and [SEP] included (sentence-transformers'
 *    output_value="token_embeddings", TEI's /embed_all), dim = d_model;
 *    args.prompt_name's prompt included; args.normalize 1 gives unit rows
 *    (-1 and 0: as they are);
 *  - TF_PIPELINE_MULTI_VECTOR: PyLate's ColBERT.encode(is_query=): the
 *    prefix ("[Q] " / "[D] " as the folder names them) inserted after
 *    [CLS], queries padded with [MASK] to query_length (attended or not as
 *    attend_to_expansion_tokens says) and documents cut to
 *    document_length, the Dense projection, the document tokens of the
 *    skiplist and the padding left out, each row at unit L2 norm
 *    (args.normalize 0: as the projection gives them); dim = the
 *    projection's width. Unattended expansion tokens are computed as
 *    transformers' attention computes padding rows (they see the attended
 *    tokens); one that sees none within a local-attention window (farther
 *    than half the window past the last attended token: no Hub ColBERT's
 *    query_length is) gets a context of 0, where transformers averages
 *    over every key. A ColBERT's query longer than query_length and a
 *    document longer than document_length are cut, as PyLate cuts them,
 *    and counted in args.truncated (options.truncation_error refuses them).
 * Other kinds are TF_ERR_INVALID_ARGUMENT naming the call theirs has. */
typedef struct tf_token_vectors tf_token_vectors; /* opaque */
TF_API tf_status tf_pipeline_embed_tokens(const tf_pipeline *p, const tf_pipeline_args *args,
                                          tf_token_vectors **out);
TF_API void tf_token_vectors_destroy(tf_token_vectors *v);       /* NULL is a no-op */
TF_API size_t tf_token_vectors_count(const tf_token_vectors *v); /* inputs; 0 for NULL */
TF_API int32_t tf_token_vectors_dim(const tf_token_vectors *v);  /* values a row */
/* Input i's rows (0 out of range), its values [rows, dim] and the token id
 * of each row [rows] (NULL out of range; owned by v). */
TF_API int32_t tf_token_vectors_rows(const tf_token_vectors *v, size_t i);
TF_API const float *tf_token_vectors_data(const tf_token_vectors *v, size_t i);
TF_API const int32_t *tf_token_vectors_ids(const tf_token_vectors *v, size_t i);

/* tf_pipeline_score on a TF_PIPELINE_MULTI_VECTOR pipeline: out[i] = MaxSim
 * of texts[i] encoded as a query and pairs[i] as a document, one batch of
 * each at a time (args.normalize is ignored there, as a head's score
 * ignores it: PyLate's unit vectors). */
/* ColBERT's late-interaction score of a query [q_rows, dim] and a document
 * [d_rows, dim] (row-major; both as tf_pipeline_embed_tokens gives them):
 * the sum over query rows of the largest dot product with a document row
 * (PyLate's scores.colbert_scores). Zero rows, dim < 1 or a NULL pointer is
 * TF_ERR_INVALID_ARGUMENT naming the argument. */
TF_API tf_status tf_maxsim(const float *query, int32_t q_rows, const float *doc, int32_t d_rows,
                           int32_t dim, float *score);

/* Sparse vectors over the vocabulary: for each input its non-zero values
 * in ascending index order (dim = the vocabulary's size).
 *  - TF_PIPELINE_SPARSE: the folder's modules as sentence-transformers'
 *    SparseEncoder runs them (MLMTransformer, then SpladePooling with its
 *    pooling_strategy and activation; a Router's query route, e.g. an
 *    inference-free SparseStaticEmbedding, when args.is_query is 1);
 *  - TF_PIPELINE_FILL_MASK: the older SPLADE folders' recipe,
 *    max over the real tokens of log(1 + ReLU(logits)).
 * The logits [T, V] of one sequence at a time: memory holds one sequence's
 * logits, never a batch's. args.max_active_dims keeps the largest. */
typedef struct tf_sparse_vectors tf_sparse_vectors; /* opaque */
TF_API tf_status tf_pipeline_embed_sparse(const tf_pipeline *p, const tf_pipeline_args *args,
                                          tf_sparse_vectors **out);
TF_API void tf_sparse_vectors_destroy(tf_sparse_vectors *v);       /* NULL is a no-op */
TF_API size_t tf_sparse_vectors_count(const tf_sparse_vectors *v); /* inputs; 0 for NULL */
TF_API int32_t tf_sparse_vectors_dim(const tf_sparse_vectors *v);  /* the vocabulary's size */
/* Input i's non-zero values: their count (0 out of range), their indices
 * [nnz] (ascending) and values [nnz] (NULL out of range; owned by v). */
TF_API int32_t tf_sparse_vectors_nnz(const tf_sparse_vectors *v, size_t i);
TF_API const int32_t *tf_sparse_vectors_indices(const tf_sparse_vectors *v, size_t i);
TF_API const float *tf_sparse_vectors_values(const tf_sparse_vectors *v, size_t i);

/* Fill-mask (TF_PIPELINE_FILL_MASK), as transformers' FillMaskPipeline: for
 * each mask token of text (the tokenizer's mask_token), the top_k
 * vocabulary entries by the softmax of the masked-LM head's logits there,
 * best first. A text without a mask token is TF_ERR_INVALID_ARGUMENT
 * naming the mask token; top_k < 1 likewise. */
typedef struct tf_fill_mask tf_fill_mask; /* opaque */
TF_API tf_status tf_pipeline_fill_mask(const tf_pipeline *p, const char *text, int32_t top_k,
                                       tf_fill_mask **out);
TF_API void tf_fill_mask_destroy(tf_fill_mask *m);        /* NULL is a no-op */
TF_API size_t tf_fill_mask_count(const tf_fill_mask *m);  /* mask tokens in the text */
TF_API int32_t tf_fill_mask_top_k(const tf_fill_mask *m); /* predictions a mask */
/* Prediction k of mask `mask`: its token id (-1 out of range), its score
 * (the probability; 0 out of range), the token as text (token_str:
 * decoded, NULL out of range) and the sequence with it in the mask's place
 * (as the pipeline's "sequence"; NULL out of range). Owned by m. */
TF_API int32_t tf_fill_mask_token(const tf_fill_mask *m, size_t mask, int32_t k);
TF_API float tf_fill_mask_score(const tf_fill_mask *m, size_t mask, int32_t k);
TF_API const char *tf_fill_mask_token_str(const tf_fill_mask *m, size_t mask, int32_t k);
TF_API const char *tf_fill_mask_sequence(const tf_fill_mask *m, size_t mask, int32_t k);
/* The masked-LM head's top_k at EVERY token of text (a mask token or not;
 * [CLS] and [SEP] included), ranked as tf_pipeline_fill_mask ranks a mask's:
 * what the head predicts each position holds (the glass box's view of the
 * head). The result is a tf_fill_mask whose count is the text's tokens,
 * "mask" i being token i; sequence k of token i is the text with that
 * prediction in token i's place, special tokens kept (as for several
 * masks). The logits of a block of tokens at a time: memory holds
 * [min(T, 16), V], never [T, V]. A TF_PIPELINE_FILL_MASK pipeline, or a
 * TF_PIPELINE_SPARSE one (its MLMTransformer's head, the documents' route);
 * a text longer than max_seq_length and top_k outside 1..V are
 * TF_ERR_INVALID_ARGUMENT naming them. */
TF_API tf_status tf_pipeline_predict_tokens(const tf_pipeline *p, const char *text, int32_t top_k,
                                            tf_fill_mask **out);

/* Quantized embeddings, as sentence-transformers' quantize_embeddings
 * (quantization.py): int8 and uint8 map each dimension's range
 * [min, max] onto 256 steps (from `ranges` [2, dim]: the minima, then the
 * maxima, e.g. of calibration embeddings; NULL: the n rows' own), binary
 * and ubinary keep the sign bits (value > 0), 8 a byte, packed as
 * numpy.packbits (first value in the high bit; binary subtracts 128).
 *
 * The numbers are upstream's for float32 embeddings and float32 ranges
 * (what encode gives; numpy keeps every step of float32 arrays in
 * float32): step = (max - min) / 255 and q = (x - min) / step (- 128 for
 * int8), each rounded to float32, then truncated toward zero as numpy's
 * astype casts. Float64 arithmetic (upstream's, when given float64 ranges)
 * puts some values on a bucket's edge in the next bucket down or up.
 * Where upstream is undefined, this defines:
 *  - a value outside the ranges (calibrated on other embeddings) takes the
 *    end bucket (-128 / 127, 0 / 255), where numpy's cast of an
 *    out-of-range float is undefined (x86 wraps 128.5 to -128);
 *  - a dimension whose step is not a positive finite float32 (max == min:
 *    a constant dimension, one row without ranges) is refused, where
 *    upstream divides 0 by 0;
 *  - each row is packed on its own, its last byte padded with zero bits;
 *    upstream packs the flattened batch, which is the same bytes for one
 *    row or a dim that is a multiple of 8 and mixes rows otherwise.
 * ranges is read for int8 and uint8 only; n = 0 writes nothing. */
typedef enum tf_precision {
    TF_PRECISION_FLOAT32 = 0, /* the floats as they are */
    TF_PRECISION_INT8 = 1,    /* int8_t [n, dim] */
    TF_PRECISION_UINT8 = 2,   /* uint8_t [n, dim] */
    TF_PRECISION_BINARY = 3,  /* int8_t [n, ceil(dim / 8)] */
    TF_PRECISION_UBINARY = 4  /* uint8_t [n, ceil(dim / 8)] */
} tf_precision;

/* "float32", "int8", "uint8", "binary", "ubinary" (sentence-transformers'
 * names); NULL / -1 for others. */
TF_API const char *tf_precision_name(int32_t precision);
TF_API int32_t tf_precision_from_name(const char *name);
/* Bytes of one quantized row of dim values (0 for a bad precision or dim). */
TF_API size_t tf_precision_row_bytes(int32_t precision, int32_t dim);
/* out (out_bytes bytes, at least n rows of tf_precision_row_bytes) = the
 * n rows of embeddings [n, dim] quantized. A non-finite value, a range
 * whose max is below its min or equals it, too small an out, a bad
 * precision, dim < 1 or a NULL pointer (n > 0) is TF_ERR_INVALID_ARGUMENT
 * naming it and its values; out is then untouched. */
TF_API tf_status tf_quantize(const float *embeddings, size_t n, int32_t dim, int32_t precision,
                             const float *ranges, void *out, size_t out_bytes);
/* Hamming distance of binary or ubinary rows (tf_quantize's packing, dim
 * values each; the two are the same bits, binary's bytes less 128):
 * out[i * n_b + j] = the number of the first dim bits that differ between
 * row i of a [n_a, ceil(dim / 8)] and row j of b [n_b, ceil(dim / 8)]; the
 * padding bits past dim are not read. 0..dim; dim - distance is the
 * number of bits that agree, the similarity larger-is-closer callers
 * rank by (sentence-transformers has no similarity of packed rows; this
 * defines it). dim < 1 or a NULL pointer (n_a and n_b > 0) is
 * TF_ERR_INVALID_ARGUMENT naming it; n_a or n_b 0 writes nothing. */
TF_API tf_status tf_hamming_distance(const void *a, size_t n_a, const void *b, size_t n_b,
                                     int32_t dim, int32_t *out);

/* ---- Images (since 0.5.0) ---------------------------------------------------- *
 *
 * tf_pipeline_load of a vision model folder gives an image pipeline:
 *  - config.json's model_type "vit", "clip", "clip_vision_model", "siglip"
 *    or "siglip_vision_model" (ViTModel, ViTForImageClassification,
 *    CLIPModel, CLIPVisionModel(WithProjection), SiglipModel,
 *    SiglipVisionModel, as transformers saves them; a CLIPModel's or
 *    SiglipModel's text half is loaded when the folder has a tokenizer,
 *    else left in its file), or a
 *    sentence-transformers folder whose modules.json has a
 *    sentence_transformers.models.CLIPModel module (clip-ViT-B-32: that
 *    module's folder is a CLIPModel folder);
 *  - and preprocessor_config.json beside that config.json: CLIPImageProcessor,
 *    SiglipImageProcessor or ViTImageProcessor (or their FeatureExtractor
 *    names), whose resize (PIL's filters), center crop, rescale and
 *    normalise run as transformers' preprocess() does. Another processor
 *    class is TF_ERR_UNSUPPORTED naming it.
 * ViTForImageClassification is TF_PIPELINE_IMAGE_CLASSIFIER (labels from
 * id2label: tf_pipeline_label, tf_pipeline_dim their number); every other
 * folder TF_PIPELINE_IMAGE_EMBEDDING, whose vector (tf_pipeline_dim wide)
 * is CLIP's image_embeds (get_image_features: visual_projection of the
 * post-LayerNormed class token, not normalised; CLIPVisionModel without a
 * projection: that pooled output), SigLIP's pooler_output (its
 * attention-pooling head; without vision_use_head the model is refused) and
 * ViTModel's pooler_output (tanh(dense(h[CLS]))) or, without a pooler in
 * its file, its last hidden state's class token (after the final
 * LayerNorm). tf_pipeline_max_seq_length is 0 (tf_pipeline_options'
 * max_seq_length other than 0 is refused) and tf_pipeline_similarity
 * "cosine". The text calls (tf_pipeline_embed, tf_pipeline_count_tokens,
 * ...) refuse an image pipeline by its kind, as the image calls refuse a
 * text one; except that a whole CLIPModel or SiglipModel folder with its
 * tokenizer (tokenizer.json, CLIP's vocab.json and merges.txt, SigLIP's
 * spiece.model) has its text tower too: tf_pipeline_tokenizer and
 * tf_pipeline_max_seq_length are its (the option sets it), tf_pipeline_embed
 * gives its text vectors and tf_pipeline_zero_shot compares the two (below).
 *
 * Images are decoded as transformers' image_utils.load_image sees a file:
 * PIL.Image.open, exif_transpose (the EXIF Orientation tag of a JPEG's APP1,
 * a PNG's eXIf or a WebP's EXIF chunk), convert("RGB") as Pillow 9.4 does
 * it (alpha dropped, palette looked up, 16-bit to 8, CMYK inverted and
 * converted); JPEG by libjpeg-turbo, PNG by libpng, WebP by libwebp (an
 * animation's first frame). docs/images.md has each mode. */

/* One call's images and outputs. Always start from tf_image_args_init. The
 * images are one of three forms, the others NULL:
 *  - data[i], sizes[i]: image i's encoded bytes (a JPEG, PNG or WebP file's
 *    contents), decoded and preprocessed;
 *  - pixels: [n, height, width, 3] RGB uint8 rows top to bottom (decoded by
 *    the caller), preprocessed as a decoded image is;
 *  - pixel_values: [n, 3, height, width] float32, what the processor gives
 *    (preprocessing done by the caller), the model's trained size. */
typedef struct tf_image_args {
    size_t struct_size;         /* the caller's sizeof, set by init */
    size_t n;                   /* images, >= 1 */
    const uint8_t *const *data; /* [n] encoded images, or NULL */
    const size_t *sizes;        /* [n] their bytes (with data) */
    const uint8_t *pixels;      /* [n, height, width, 3], or NULL */
    const float *pixel_values;  /* [n, 3, height, width], or NULL */
    int32_t height, width;      /* pixels' and pixel_values' sides, >= 1 */
    int32_t normalize;          /* embed: 0 (default) = the vectors as upstream gives
                                         them; 1 = unit L2 norm */
    int32_t batch_size;         /* images per forward call: 0 (default) = 32 */
    int32_t n_threads;          /* as tf_forward_args.n_threads */
    int64_t max_pixels;         /* an encoded image's height x width at most: 0
                                         (default) = PIL's Image.MAX_IMAGE_PIXELS,
                                         89478485; refused above it before decoding */
    float *out;                 /* embed: [n, dim]; classify: [n, labels] */
    size_t out_len;             /* the floats out holds: at least n times dim (embed)
                                         or labels (classify), else
                                         TF_ERR_INVALID_ARGUMENT naming both */
    size_t first_index;         /* the index messages give image 0 ("image 33: ..."):
                                         0 by default */
    tf_trace_fn trace;          /* NULL (default): no tracing; else called with
                                         every step of each image ("Tracing an
                                         image" below) */
    void *trace_user_data;
} tf_image_args;

/* Tracing an image: with args.trace set, the callback gets each step of
 * every image as the encoder's trace events do (data valid only during the
 * call; layer -1 outside the layers), in this order, for each forward call
 * of a batch of B images (args.batch_size):
 *   image.decoded      [H0, W0, 3]   an encoded or pixels image as decoded,
 *                                    RGB values 0..255 (not for pixel_values)
 *   image.resized      [H1, W1, 3]   after the processor's resize (if it has
 *                                    one), before its center crop
 *   pixel_values       [B, 3, H, W]  what the tower reads: the images
 *                                    cropped, rescaled and normalised
 *   embed.patches      [B, P, D]     the patch embedding: the Conv2d of
 *                                    stride = kernel = p over each of the
 *                                    P = H/p x W/p patches, row by row
 *   embed.class_token  [D]           ViT's and CLIP's class token (SigLIP
 *                                    has none)
 *   embed.position     [T, D]        the positions added: the class token's,
 *                                    then one per patch (T = P + 1, or P)
 *   then the encoder's events (see Tracing) from embed.token [B, T, D], the
 *   class token and patches with their positions: CLIP's pre_layrnorm is
 *   embed.norm; layers.l.attn.weights [B, H, T, T] every head's attention;
 *   ViT's and SigLIP's last LayerNorm final_norm, ViT's pooler pooler;
 *   head.attn.weights  [B, H, 1, T]  SigLIP's attention-pooling head: the
 *                                    probe's attention over the T tokens.
 * image.decoded and image.resized come once per image (B of each before the
 * batch's pixel_values). */

/* Everything 0 / NULL, struct_size set. */
TF_API void tf_image_args_init_sized(tf_image_args *args, size_t struct_size);
#define tf_image_args_init(args) tf_image_args_init_sized((args), sizeof *(args))

/* Image vectors (TF_PIPELINE_IMAGE_EMBEDDING) into args.out [n, dim].
 * Refused with nothing written, TF_ERR_INVALID_ARGUMENT naming the argument
 * and its value unless said: a pipeline of another kind ("the pipeline is
 * an embedding; use tf_pipeline_embed"); n 0; no image form, or more than
 * one; data[i] NULL, sizes NULL; pixels' or pixel_values' height or width
 * outside 1..16384, or pixel_values not of the model's trained size;
 * normalize not 0 or 1; batch_size or max_pixels negative;
 * out NULL or out_len below n x dim; an image the decoder refuses, its
 * message after "image <i>: " (TF_ERR_FORMAT for bytes that are not an
 * image or end early, TF_ERR_UNSUPPORTED for a GIF, BMP, TIFF, HEIF/AVIF or
 * JPEG XL, TF_ERR_INVALID_ARGUMENT for more than max_pixels pixels: the
 * limit is checked from the header, before the pixels are allocated); a
 * preprocessed size other than the model's trained one (a CLIP config
 * without center crop: upstream's "Input image size (H*W) doesn't match
 * model (S*S).", naming the image); a non-finite pixel value. */
TF_API tf_status tf_pipeline_embed_images(const tf_pipeline *p, const tf_image_args *args);

/* *is_image = 1 when path is a folder tf_pipeline_load reads as an image
 * pipeline (a vision model folder, as the list above has them; its
 * preprocessor_config.json not read), else 0: a text model's folder or
 * file, a Hub id, a path that is not there. Only a config.json or
 * modules.json that cannot be read (or a module outside the folder) fails,
 * naming it. path or is_image NULL: TF_ERR_INVALID_ARGUMENT. The tools use
 * it to tell a text call's refusal of an image model apart. */
TF_API tf_status tf_model_is_image(const char *path, int32_t *is_image);

/* Label probabilities (TF_PIPELINE_IMAGE_CLASSIFIER) into args.out [n,
 * labels], as transformers' ImageClassificationPipeline's
 * function_to_apply "default": sigmoid for problem_type
 * "multi_label_classification" or one label, else softmax; args.normalize
 * must be 0. Refused as tf_pipeline_embed_images is. */
TF_API tf_status tf_pipeline_classify_images(const tf_pipeline *p, const tf_image_args *args);

/* Since 0.5.0. Zero-shot image classification with a whole CLIPModel or
 * SiglipModel folder (config.json with text_config and vision_config, one
 * model.safetensors holding both towers, and a tokenizer; a
 * sentence-transformers clip-ViT-B-32 folder's 0_CLIPModel/ alike): such a
 * folder loads as TF_PIPELINE_IMAGE_EMBEDDING whose tf_pipeline_embed embeds
 * texts with its text tower (CLIPModel.get_text_features: text_projection of
 * the end-of-text token's row, not normalised; SiglipModel's: its head on the
 * last row of the text padded to max_seq_length, 64 for google/siglip-*) and
 * tf_pipeline_embed_images images, both tf_pipeline_dim wide.
 * Writes args.out [n, n_labels]: for image i and label j, with the cosine c
 * of their vectors, CLIPModel.forward's logits_per_image exp(logit_scale) c
 * softmaxed over the labels (transformers' ZeroShotImageClassificationPipeline),
 * or for SigLIP sigmoid(exp(logit_scale) c + logit_bias). labels are the
 * texts as given (the pipeline's hypothesis_template, "This is a photo of
 * {}.", is the caller's to apply). args.normalize must be 0 and args.out_len
 * at least n x n_labels. Refused with nothing written, TF_ERR_INVALID_ARGUMENT:
 * a pipeline without a text tower, labels NULL, n_labels 0, labels[j] NULL,
 * and what tf_pipeline_embed_images refuses. */
TF_API tf_status tf_pipeline_zero_shot(const tf_pipeline *p, const tf_image_args *args,
                                       const char *const *labels, size_t n_labels);

/* ---- Models by name: the Hugging Face Hub (since 0.4.0) --------------------- *
 *
 * tf_hub_resolve turns a Hub id ("sentence-transformers/all-MiniLM-L6-v2")
 * into the path of a model folder that tf_pipeline_load and tf_encoder_load
 * read, as huggingface_hub's snapshot_download does: from its cache, and
 * when the cache lacks it, by downloading the files such a folder needs
 * into it. The cache is huggingface_hub's own, laid out as it lays it out,
 * so what Python (or @huggingface/hub) downloaded is used here and what
 * this downloads is used there:
 *   <cache>/models--<org>--<name>/refs/<revision>  the commit (40 hex digits)
 *                                 blobs/<etag>     each file's bytes, named by its
 *                                                  ETag: sha256 for LFS files, else
 *                                                  the git blob id
 *                                 snapshots/<commit>/<file>  a relative symbolic
 *                                                  link to ../../blobs/<etag>
 * <cache> is options.cache_dir, else the environment's HF_HUB_CACHE,
 * HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub,
 * ~/.cache/huggingface/hub (the first set).
 *
 * The files a folder needs, of those the repository has: in its top folder,
 * in each module folder its modules.json names (1_Pooling, 2_Dense, ...) and,
 * for a Router module, its router_config.json and each route's module folder
 * that names (query_0_SparseStaticEmbedding, document_1_SpladePooling, ...):
 * config.json, preprocessor_config.json (an image model's),
 * model.safetensors or model.safetensors.index.json and the shards it names,
 * tokenizer.json, tokenizer_config.json, special_tokens_map.json,
 * added_tokens.json, vocab.txt, vocab.json, merges.txt, the SentencePiece
 * models (spiece.model, sentencepiece.bpe.model, tokenizer.model),
 * modules.json, config_sentence_transformers.json and
 * sentence_bert_config.json (and its sentence_<model>_config.json kin). Not
 * pytorch_model.bin, README.md, ONNX or other exports.
 *
 * Online: GET <endpoint>/api/models/<id>/revision/<revision> gives the
 * commit and the file list; each file the snapshot lacks is asked for with
 * HEAD <endpoint>/<id>/resolve/<commit>/<file> (X-Repo-Commit, ETag or
 * X-Linked-Etag, Content-Length or X-Linked-Size; a redirect to another
 * host is where an LFS file's bytes are, fetched without the token), then
 * fetched into blobs/<etag>.incomplete and renamed to blobs/<etag> once its
 * size (and, for a sha256 ETag, its sha256) is right. A connection broken
 * in the middle of a file is resumed where it broke (an HTTP Range request),
 * up to 5 times in a row without new bytes; bytes kept after the last try
 * (the .incomplete file) are resumed by the next call. A file whose bytes
 * disagree with its size or sha256 is refused, TF_ERR_FORMAT naming both
 * values, and nothing of it is kept. Concurrent downloads of one file, from
 * threads or processes (huggingface_hub's included), take turns through
 * huggingface_hub's lock file, <cache>/.locks/models--<org>--<name>/<etag>.lock.
 * refs/<revision> is written once every file is there.
 *
 * Offline (options.local_files_only, or HF_HUB_OFFLINE or
 * TRANSFORMERS_OFFLINE set to 1, ON, YES or TRUE), or when the Hub cannot
 * be reached or answers an error other than "no such revision": the
 * revision's commit is refs/<revision> (or the revision itself when it is
 * a commit), and its snapshot is the folder, if its model folder (below)
 * holds config.json and the weights (model.safetensors, or the index and
 * every shard it names) and each module folder modules.json names (a
 * Router's: its router_config.json and each route's module folder, their
 * config.json); otherwise the error says which file is missing, or why
 * the Hub could not be asked.
 *
 * Errors: a repo_id that is not "name" or "org/name" of letters, digits,
 * '-', '_' and '.' (not at either end, no "--" or "..", at most 96
 * characters a part), a revision with a ".." part, a control character or
 * more than 255 bytes, a path longer than 4095 bytes are
 * TF_ERR_INVALID_ARGUMENT naming the argument; a repository, revision or
 * file the Hub does not have, and a private or gated one without a token
 * that may read it, TF_ERR_NOT_FOUND with the Hub's X-Error-Code and
 * X-Error-Message; a file name, module path, shard name or ETag from the
 * Hub that would lead out of its folder, a missing header, a commit or size
 * that disagrees, TF_ERR_FORMAT; a repository (or cached snapshot) whose
 * model folder has no model.safetensors (nor its index) TF_ERR_NOT_FOUND,
 * and one whose top or module folder has pytorch_model.bin (or its shards'
 * index) in its place TF_ERR_UNSUPPORTED saying how to convert it, before
 * anything but modules.json (and a Router's config) is downloaded (the
 * model folder: the top one, unless modules.json names no module there, as
 * sentence-transformers/clip-ViT-B-32, whose model is 0_CLIPModel's: then
 * the first module folder holding the weights); a network or file failure TF_ERR_IO; a
 * library built without the Hub client (meson -Dhub=disabled, or no
 * libcurl), when the cache does not hold the folder, TF_ERR_UNSUPPORTED.
 * The library never prints: a caller that wants a progress bar draws it
 * from the progress callback. */

/* What a download has done so far, for a progress callback. Handed out by
 * the library: struct_size is the library's sizeof, read a field only if it
 * ends within struct_size. Valid during the call only. */
typedef struct tf_hub_progress {
    size_t struct_size;  /* the library's sizeof(tf_hub_progress) */
    const char *repo_id; /* as the caller gave it */
    const char *file;    /* the repository file being fetched ("model.safetensors") */
    int32_t file_index;  /* 0..file_count-1 */
    int32_t file_count;  /* the files of this batch not already cached: a call fetches
                            in batches (modules.json; each Router's
                            router_config.json; a sharded checkpoint's index
                            files; then the rest), and
                            file_index, bytes and total_bytes start again with each */
    int64_t file_bytes;  /* bytes of this file on disk (a resumed one starts above 0) */
    int64_t file_size;   /* its size */
    int64_t bytes;       /* bytes of the batch's files on disk */
    int64_t total_bytes; /* their sizes */
    int32_t waiting;     /* 1: waiting for another download of this file (its lock) */
} tf_hub_progress;

/* Called as bytes arrive (and while waiting for a lock): a non-zero return
 * stops the download, TF_ERR_IO "cancelled by the progress callback", the
 * bytes so far kept to be resumed. */
typedef int32_t (*tf_hub_progress_fn)(const tf_hub_progress *progress, void *user_data);

typedef struct tf_hub_options {
    size_t struct_size;          /* the caller's sizeof, set by init */
    const char *revision;        /* a branch, tag or commit; NULL: "main" */
    const char *cache_dir;       /* NULL: the environment's (see above) */
    const char *endpoint;        /* NULL: HF_ENDPOINT, else https://huggingface.co */
    const char *token;           /* NULL: HF_TOKEN, HUGGING_FACE_HUB_TOKEN, else the
                                   file HF_TOKEN_PATH or $HF_HOME/token;
                                   "": none. Sent as "Authorization: Bearer" to the
                                   endpoint's host only */
    int32_t local_files_only;    /* 0 (default): the Hub unless HF_HUB_OFFLINE says
                                   not; 1: the cache only */
    tf_hub_progress_fn progress; /* NULL: none */
    void *progress_user_data;    /* handed to progress */
} tf_hub_options;

/* Every field its default (NULL, 0), struct_size set. */
TF_API void tf_hub_options_init_sized(tf_hub_options *opts, size_t struct_size);
#define tf_hub_options_init(opts) tf_hub_options_init_sized((opts), sizeof *(opts))

/* Resolves repo_id (see above); opts may be NULL. Writes the snapshot
 * folder's path and a NUL into dir (size bytes) and its length (without
 * the NUL) into *len (len may be NULL). A dir too small is
 * TF_ERR_INVALID_ARGUMENT with *len set and dir untouched (the files stay
 * cached: a second call with 4096 bytes finds them). */
TF_API tf_status tf_hub_resolve(const char *repo_id, const tf_hub_options *opts, char *dir,
                                size_t size, size_t *len);

/* ---- One model source for every surface (since 0.5.0) ----------------------- *
 *
 * What a user names as a model, read one way by every surface (tfenc's
 * --model, the server, Python's model_name_or_path, Rust): when something
 * is on disk at source (a folder in any format tf_pipeline_load reads, or
 * one weights file), that path; otherwise a Hub id, resolved by
 * tf_hub_resolve with opts (which may be NULL). Writes the path and a NUL
 * into dir (size bytes) and its length into *len (len may be NULL); a dir
 * too small is TF_ERR_INVALID_ARGUMENT with *len set. A source on disk with
 * opts.revision is TF_ERR_INVALID_ARGUMENT (a path has no revisions); one
 * that is neither on disk nor a Hub id is TF_ERR_IO
 * "<source>: no such folder, and not a Hub id (expected ...)"; a Hub id
 * tf_hub_resolve fails on, its status and "<source>: no such folder; as a
 * Hub id: " before its message. */
TF_API tf_status tf_model_resolve(const char *source, const tf_hub_options *opts, char *dir,
                                  size_t size, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* TFENC_H */
