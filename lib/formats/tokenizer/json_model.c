/* json_model.c — tokenizer.json's "model" object: its "type" finds the
 * row of the tokenizer model (tokenizer/models/tokenizer_models.c), whose
 * build reads the fields it has through tf_fields (json_field_reads.c),
 * named "model.<key>" in messages. */
#include "json_fields.h"

tf_status tf_json_model_load(const tf_json_loader *l, const cJSON *model)
{
    const char *type;
    tf_status s = tf_field_type(l, model, "model", &type);
    const tf_tokenizer_model *row = s ? NULL : tf_tokenizer_model_find(type);
    if (s == TF_OK && !row)
        s = tf_field_unsupported(l, "model", type);
    if (s)
        return s;
    tf_tokenizer *tok = l->tok;
    if ((s = tf_tokenizer_set_model(tok, row, l->path)) != TF_OK)
        return s;
    const tf_fields fields = tf_json_fields(l, model, "model");
    return row->build(tok->model_state, &tok->vocab, &fields);
}
