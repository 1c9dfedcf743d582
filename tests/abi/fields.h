/* fields.h — every field of the growing structs as 0.1.0 published them,
 * as X(struct, field): compiled once against tests/abi/0.1.0/tfenc.h
 * (layout_0_1_0.c) and once against today's header (test_abi_new.c), so
 * the test sees that each field is still where 0.1.0 put it. The list is laid
 * out by hand, outside clang-format. */
/* clang-format off */
#define TF_ABI_FIELDS_0_1_0(X) \
    X(tf_config, struct_size) X(tf_config, d_model) X(tf_config, n_heads) X(tf_config, d_ff) \
    X(tf_config, n_layers) X(tf_config, vocab_size) X(tf_config, max_positions) \
    X(tf_config, position) X(tf_config, n_token_types) X(tf_config, embedding_norm) \
    X(tf_config, norm_placement) X(tf_config, final_norm) X(tf_config, activation) \
    X(tf_config, bias) X(tf_config, pooler) X(tf_config, layer_norm_eps) X(tf_config, seed) \
    X(tf_load_options, struct_size) X(tf_load_options, n_heads) X(tf_load_options, activation) \
    X(tf_load_options, norm_placement) X(tf_load_options, layer_norm_eps) \
    X(tf_file_tensor, struct_size) X(tf_file_tensor, name) X(tf_file_tensor, dtype) \
    X(tf_file_tensor, rank) X(tf_file_tensor, dims) X(tf_file_tensor, maps_to) \
    X(tf_file_tensor, parts) \
    X(tf_trace_event, struct_size) X(tf_trace_event, name) X(tf_trace_event, layer) \
    X(tf_trace_event, rank) X(tf_trace_event, dims) X(tf_trace_event, dim_names) \
    X(tf_trace_event, data) \
    X(tf_forward_args, struct_size) X(tf_forward_args, batch) X(tf_forward_args, seq_len) \
    X(tf_forward_args, input_ids) X(tf_forward_args, input_embeds) \
    X(tf_forward_args, token_type_ids) X(tf_forward_args, lengths) \
    X(tf_forward_args, attention_mask) X(tf_forward_args, causal) \
    X(tf_forward_args, additive_mask) X(tf_forward_args, additive_mask_batched) \
    X(tf_forward_args, output) X(tf_forward_args, hidden_states) X(tf_forward_args, attentions) \
    X(tf_forward_args, pooled_output) X(tf_forward_args, workspace) X(tf_forward_args, trace) \
    X(tf_forward_args, trace_user_data) \
    X(tf_tokenizer_options, struct_size) X(tf_tokenizer_options, lowercase) \
    X(tf_tokenizer_options, strip_accents) X(tf_tokenizer_options, split_cjk) \
    X(tf_tokenizer_options, max_chars_per_word) X(tf_tokenizer_options, max_length) \
    X(tf_tokenizer_options, unk_token) X(tf_tokenizer_options, cls_token) \
    X(tf_tokenizer_options, sep_token) X(tf_tokenizer_options, pad_token)

typedef struct abi_field {
    const char *name; /* "tf_config.d_model" */
    size_t offset, size;
} abi_field;

#define TF_ABI_FIELD(type, field) \
    {#type "." #field, offsetof(type, field), sizeof(((type *)0)->field)},

/* layout_0_1_0.c: the fields as compiled against the 0.1.0 header. */
extern const abi_field abi_fields_0_1_0[];
extern const size_t abi_n_fields_0_1_0;
/* clang-format on */
