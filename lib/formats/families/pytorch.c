/* pytorch.c — PyTorch's nn.TransformerEncoder (torch/nn/modules/
 * transformer.py: TransformerEncoder, TransformerEncoderLayer and its
 * MultiheadAttention) as a state_dict: layers.{i}. before each layer's
 * names, or one nn.TransformerEncoderLayer's names alone; q, k and v
 * stacked in in_proj_weight [3D, D]; "norm." the encoder's final
 * LayerNorm. No embeddings (tf__encoder_forward_embeds) and no record of
 * n_heads, the activation or norm_first: __metadata__ may give them (and
 * layer_norm_eps, else PyTorch's default 1e-5), else the load options. */
#include <string.h>

#include "checkpoint.h"
#include "hf_family.h"
#include "metadata.h"

static const tf__name_rule top[] = {
    {"norm.weight", "final_norm.weight", 1}, {"norm.bias", "final_norm.bias", 1}, {NULL, NULL, 0}};

static const tf__name_rule layer[] = {{"self_attn.in_proj_weight", "attn.q.weight", 3},
                                      {"self_attn.in_proj_bias", "attn.q.bias", 3},
                                      {"self_attn.out_proj.weight", "attn.out.weight", 1},
                                      {"self_attn.out_proj.bias", "attn.out.bias", 1},
                                      {"linear1.weight", "ffn.up.weight", 1},
                                      {"linear1.bias", "ffn.up.bias", 1},
                                      {"linear2.weight", "ffn.down.weight", 1},
                                      {"linear2.bias", "ffn.down.bias", 1},
                                      {"norm1.weight", "norm1.weight", 1},
                                      {"norm1.bias", "norm1.bias", 1},
                                      {"norm2.weight", "norm2.weight", 1},
                                      {"norm2.bias", "norm2.bias", 1},
                                      {NULL, NULL, 0}};

/* A tensor "self_attn.in_proj_weight" of one layer, or "layers.<...>" of
 * one with that in its name. */
static int recognises(const tf__st_file *file)
{
    for (size_t i = 0; i < file->n_tensors; i++) {
        const char *name = file->tensors[i].name;
        const char *in_proj = strstr(name, "self_attn.in_proj_weight");
        if (in_proj && (in_proj == name || strncmp(name, "layers.", 7) == 0))
            return 1;
    }
    return 0;
}

static tf_status infer(const tf__checkpoint *ck, tf_config *c)
{
    tf_status s;
    if ((s = tf__checkpoint_dim(ck, "layers.0.attn.q.weight", "d_model", 1, &c->d_model)) ||
        (s = tf__checkpoint_dim(ck, "layers.0.ffn.up.weight", "d_ff", 0, &c->d_ff)))
        return s;
    c->n_layers = tf__checkpoint_count_layers(ck);
    c->vocab_size = 0;
    c->position = TF_POSITION_NONE;
    c->final_norm = tf__checkpoint_has_part(ck, "final_norm.", "");
    c->bias = tf__checkpoint_has_part(ck, "", ".bias");
    c->n_heads = 0;
    c->activation = -1;
    c->norm_placement = -1;
    c->layer_norm_eps = 1e-5f; /* PyTorch's default */
    return tf__metadata_read_overrides(&ck->file, c);
}

const tf__hf_family tf__family_pytorch = {
    .format = "pytorch-transformer-encoder",
    .base_prefix = "",
    .layer_prefix = "layers.",
    .top = top,
    .layer = layer,
    .recognises = recognises,
    .single_layer = 1,
    .infer = infer,
    .unrecorded = "a PyTorch state_dict does not record it",
    .example = "PyTorch nn.TransformerEncoder (layers.N.self_attn.in_proj_weight)",
};
