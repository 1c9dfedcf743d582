/* mlm_folders.h — the *ForMaskedLM test folders of tests/data/gen_mlm.py
 * (under <data>/mlm) and their loading as fill-mask pipelines. Test-only. */
#ifndef TEST_MLM_FOLDERS_H
#define TEST_MLM_FOLDERS_H

#include <check.h>

#include "tfenc.h"
#include "tmp_dir.h"

/* Laid out as bert-base-uncased, roberta-base, xlm-roberta-base,
 * distilbert-base-uncased, ModernBERT-base and an ELECTRA generator; tied
 * and untied decoders. */
static const char *const mlm_folders[] = {
    "bert_base_uncased", "bert_untied",    "distilbert_base_uncased", "electra_generator",
    "roberta_base",      "roberta_untied", "xlm_roberta_base",        "modernbert_base",
};
enum { N_MLM_FOLDERS = sizeof mlm_folders / sizeof mlm_folders[0] };

/* <data_dir>/mlm/<name>. */
static inline path_buf mlm_folder(const char *data_dir, const char *name)
{
    return join(join(data_dir, "mlm").s, name);
}

/* Options that load a bare *ForMaskedLM folder with its head (by default
 * it is an embedding, as SentenceTransformer loads it). */
static inline tf_pipeline_options fill_mask_options(void)
{
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.kind = TF_PIPELINE_FILL_MASK;
    return o;
}

/* The folder at path as a fill-mask pipeline; the test fails otherwise. */
static inline tf_pipeline *load_fill_mask(const char *path)
{
    const tf_pipeline_options o = fill_mask_options();
    tf_pipeline *p;
    ck_assert_msg(tf_pipeline_load(path, &o, &p) == TF_OK, "%s: %s", path, tf_last_error());
    return p;
}

#endif
