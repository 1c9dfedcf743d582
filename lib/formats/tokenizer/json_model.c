/* json_model.c — tokenizer.json's "model" object: its "type" finds the
 * row of the tokenizer model (tokenizer/models/tokenizer_models.c), whose
 * build reads the fields it has through tf__fields (json_field_reads.c),
 * named "model.<key>" in messages. */
#include "json_fields.h"

tf_status tf__json_model_load(const tf__json_loader *l, const cJSON *model)
{
    const char *type;
    tf_status s = tf__field_type(l, model, "model", &type);
    const tf__tokenizer_model *row = s ? NULL : tf__tokenizer_model_find(type);
    if (s == TF_OK && !row)
        s = tf__field_unsupported(l, "model", type);
    if (s)
        return s;
    tf_tokenizer *tok = l->tok;
    if ((s = tf__tokenizer_set_model(tok, row, l->path)) != TF_OK)
        return s;
    const tf__fields fields = tf__json_fields(l, model, "model");
    return row->build(tok->model_state, &tok->vocab, &fields);
}
