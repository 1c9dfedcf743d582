/* decoder_texts.c — the lists of token strings decoders map
 * (decoders.h). */
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "decoders.h"

int tf__text_append(tf__text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        const size_t cap = 2 * (t->n + n + 1);
        char *bigger = tf__realloc(t->s, cap);
        if (!bigger)
            return 0;
        t->s = bigger, t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
    return 1;
}

int tf__text_append_cp(tf__text *t, int32_t cp)
{
    utf8proc_uint8_t utf8[4];
    return tf__text_append(t, (const char *)utf8, (size_t)utf8proc_encode_char(cp, utf8));
}

size_t tf__utf8_prefix_bytes(const unsigned char *s, size_t n, int *valid)
{
    const unsigned char c = s[0];
    const size_t need = c < 0x80 ? 1
        : c >= 0xC2 && c <= 0xDF ? 2
        : c >= 0xE0 && c <= 0xEF ? 3
        : c >= 0xF0 && c <= 0xF4 ? 4
                                 : 0;
    *valid = need == 1;
    if (need <= 1)
        return 1;
    const unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    size_t k = 1;
    while (k < need && k < n && s[k] >= (k == 1 ? lo : 0x80) && s[k] <= (k == 1 ? hi : 0xBF))
        k++;
    *valid = k == need;
    return k;
}

int tf__text_append_lossy(tf__text *t, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        int valid;
        const size_t k = tf__utf8_prefix_bytes(s + i, n - i, &valid);
        if (!(valid ? tf__text_append(t, (const char *)s + i, k) : tf__text_append_cp(t, 0xFFFD)))
            return 0;
        i += k;
    }
    return 1;
}

tf__text *tf__texts_more(tf__texts *l)
{
    tf__text *v = tf__reserve_one(l->v, &l->cap, l->n, sizeof *v, 16);
    if (!v)
        return NULL;
    l->v = v;
    l->v[l->n] = (tf__text){0};
    tf__text *t = &l->v[l->n++];
    return tf__text_append(t, "", 0) ? t : NULL;
}

void tf__texts_free(tf__texts *l)
{
    for (size_t k = 0; k < l->n; k++)
        tf__free(l->v[k].s);
    tf__free(l->v);
    *l = (tf__texts){0};
}

int tf__text_append_replaced(tf__text *t, const char *s, const char *from, const char *to)
{
    const size_t nf = strlen(from), nt = strlen(to);
    for (const char *hit; nf && (hit = strstr(s, from)) != NULL; s = hit + nf)
        if (!tf__text_append(t, s, (size_t)(hit - s)) || !tf__text_append(t, to, nt))
            return 0;
    return tf__text_append(t, s, strlen(s));
}
