/* stages.h — what the stages of a tokenizer between the added tokens and
 * its model (normalizers/, pretokenizers/) and after it (decoders/) have
 * in common, as Hugging Face's tokenizers defines them: each type is one
 * file defining one row of its kind's table, the row naming the type as
 * tokenizer.json's "type" writes it, the bytes of its state, how the state
 * is read from the fields of its object (component_fields.h) and freed;
 * the kind's row adds how a stage runs. A tokenizer holds a list of stages of each
 * kind, each a row and its state; a Sequence is such a list, nested ones
 * flattened. */
#ifndef TF_STAGES_H
#define TF_STAGES_H

#include <stddef.h>

#include "component_fields.h"
#include "tfenc.h"

/* The part of a row every kind has (the first member of each kind's row). */
typedef struct tf__stage_type {
    const char *name;  /* tokenizer.json's "type" */
    size_t state_size; /* bytes of the stage's own state (its file's struct); 0: none */
    /* Reads the state (state_size bytes, zeroed) from the fields of the
     * stage's object; the state is left for destroy on failure too. NULL
     * when the type has no fields. */
    tf_status (*read)(void *state, const tf__fields *f);
    /* Frees what the state holds (not the state itself); NULL when it
     * holds nothing to free. */
    void (*destroy)(void *state);
} tf__stage_type;

/* A stage: its row and its state ([type->state_size], NULL when 0). */
typedef struct tf__stage {
    const tf__stage_type *type;
    void *state;
} tf__stage;

/* The stages of one kind, in order. */
typedef struct tf__stages {
    tf__stage *v; /* [n] */
    size_t n;
} tf__stages;

/* A stage of type appended to l, its state zeroed; NULL when out of memory
 * (l unchanged). */
tf__stage *tf__stages_add(tf__stages *l, const tf__stage_type *type);
void tf__stages_destroy(tf__stages *l);

#endif
