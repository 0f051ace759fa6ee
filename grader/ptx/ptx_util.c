/*
 * ptx_util.c - the PTX reader's small tools: an arena for names, two hash
 * maps, growable arrays, and the tables of types and state spaces.
 */
#include "ptx_internal.h"

#include <stdlib.h>
#include <string.h>

/* --- arena ------------------------------------------------------------------- */

struct ptx_arena {
    struct chunk *head;
};

struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
};

#define CHUNK_BYTES 65536u

ptx_arena *ptx_arena_new(void)
{
    return calloc(1, sizeof(ptx_arena));
}

void ptx_arena_free(ptx_arena *a)
{
    if (!a)
        return;
    for (struct chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}

char *ptx_arena_str(ptx_arena *a, const char *s, size_t n)
{
    struct chunk *c = a->head;
    if (!c || c->cap - c->used < n + 1) {
        size_t cap = n + 1 > CHUNK_BYTES ? n + 1 : CHUNK_BYTES;
        struct chunk *nc = malloc(sizeof *nc + cap);
        if (!nc)
            return NULL;
        nc->used = 0;
        nc->cap = cap;
        nc->next = a->head;
        a->head = nc;
        c = nc;
    }
    char *r = c->data + c->used;
    memcpy(r, s, n);
    r[n] = '\0';
    c->used += n + 1;
    return r;
}

/* --- string map (open addressing, FNV-1a) ------------------------------------ */

struct ptx_map_slot {
    const char *key; /* NULL: empty */
    uint32_t len, value, hash;
};

static uint32_t hash_str(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

void ptx_map_free(ptx_map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

static struct ptx_map_slot *map_find(const ptx_map *m, const char *key, size_t n, uint32_t h)
{
    if (!m->cap)
        return NULL;
    for (uint32_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct ptx_map_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->len == n && memcmp(s->key, key, n) == 0))
            return s;
    }
}

uint32_t ptx_map_get(const ptx_map *m, const char *key, size_t n)
{
    struct ptx_map_slot *s = map_find(m, key, n, hash_str(key, n));
    return s && s->key ? s->value : PTX_NONE;
}

static int map_rehash(ptx_map *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 64;
    struct ptx_map_slot *old = m->slots;
    uint32_t old_cap = m->cap;
    m->slots = calloc(cap, sizeof *m->slots);
    if (!m->slots) {
        m->slots = old;
        return -1;
    }
    m->cap = cap;
    for (uint32_t i = 0; i < old_cap; i++)
        if (old[i].key)
            *map_find(m, old[i].key, old[i].len, old[i].hash) = old[i];
    free(old);
    return 0;
}

int ptx_map_put(ptx_map *m, ptx_arena *a, const char *key, size_t n, uint32_t value,
                uint32_t *old)
{
    if ((m->count + 1) * 2 > m->cap && map_rehash(m))
        return -1;
    uint32_t h = hash_str(key, n);
    struct ptx_map_slot *s = map_find(m, key, n, h);
    if (old)
        *old = s->key ? s->value : PTX_NONE;
    if (!s->key) {
        char *k = ptx_arena_str(a, key, n);
        if (!k)
            return -1;
        s->key = k;
        s->len = (uint32_t)n;
        s->hash = h;
        m->count++;
    }
    s->value = value;
    return 0;
}

/* --- integer-pair map ---------------------------------------------------------- */

struct ptx_imap_slot {
    uint32_t a, b, value, used;
};

static uint32_t hash_pair(uint32_t a, uint32_t b)
{
    uint64_t x = ((uint64_t)a << 32 | b) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(x >> 32);
}

void ptx_imap_free(ptx_imap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

static struct ptx_imap_slot *imap_find(const ptx_imap *m, uint32_t a, uint32_t b)
{
    if (!m->cap)
        return NULL;
    for (uint32_t i = hash_pair(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct ptx_imap_slot *s = &m->slots[i];
        if (!s->used || (s->a == a && s->b == b))
            return s;
    }
}

uint32_t ptx_imap_get(const ptx_imap *m, uint32_t a, uint32_t b)
{
    struct ptx_imap_slot *s = imap_find(m, a, b);
    return s && s->used ? s->value : PTX_NONE;
}

int ptx_imap_put(ptx_imap *m, uint32_t a, uint32_t b, uint32_t value)
{
    if ((m->count + 1) * 2 > m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 64;
        struct ptx_imap_slot *old = m->slots;
        uint32_t old_cap = m->cap;
        m->slots = calloc(cap, sizeof *m->slots);
        if (!m->slots) {
            m->slots = old;
            return -1;
        }
        m->cap = cap;
        for (uint32_t i = 0; i < old_cap; i++)
            if (old[i].used)
                *imap_find(m, old[i].a, old[i].b) = old[i];
        free(old);
    }
    struct ptx_imap_slot *s = imap_find(m, a, b);
    if (!s->used)
        m->count++;
    *s = (struct ptx_imap_slot){a, b, value, 1};
    return 0;
}

/* --- growable arrays ----------------------------------------------------------- */

int ptx_grow(void *p, uint32_t *cap, uint32_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    if (n >= UINT32_MAX / 2)
        return -1;
    uint32_t c = *cap ? *cap : 8;
    while (c <= n)
        c *= 2;
    void *q = realloc(*(void **)p, (size_t)c * sz);
    if (!q)
        return -1;
    memset((char *)q + (size_t)*cap * sz, 0, (size_t)(c - *cap) * sz);
    *(void **)p = q;
    *cap = c;
    return 0;
}

/* --- types and spaces ---------------------------------------------------------- */

static const struct {
    const char *name;
    uint8_t size, is_signed, is_float;
} types[PT_COUNT] = {
    [PT_NONE] = {"", 0, 0, 0},     [PT_PRED] = {"pred", 0, 0, 0},
    [PT_B8] = {"b8", 1, 0, 0},     [PT_B16] = {"b16", 2, 0, 0},
    [PT_B32] = {"b32", 4, 0, 0},   [PT_B64] = {"b64", 8, 0, 0},
    [PT_B128] = {"b128", 16, 0, 0}, [PT_U8] = {"u8", 1, 0, 0},
    [PT_U16] = {"u16", 2, 0, 0},   [PT_U32] = {"u32", 4, 0, 0},
    [PT_U64] = {"u64", 8, 0, 0},   [PT_S8] = {"s8", 1, 1, 0},
    [PT_S16] = {"s16", 2, 1, 0},   [PT_S32] = {"s32", 4, 1, 0},
    [PT_S64] = {"s64", 8, 1, 0},   [PT_F16] = {"f16", 2, 1, 1},
    [PT_F16X2] = {"f16x2", 4, 1, 1}, [PT_BF16] = {"bf16", 2, 1, 1},
    [PT_BF16X2] = {"bf16x2", 4, 1, 1}, [PT_F32] = {"f32", 4, 1, 1},
    [PT_F64] = {"f64", 8, 1, 1},
};

int ptx_type_size(ptx_type t)
{
    return (unsigned)t < PT_COUNT ? types[t].size : 0;
}
int ptx_type_is_signed(ptx_type t)
{
    return (unsigned)t < PT_COUNT && types[t].is_signed;
}
int ptx_type_is_float(ptx_type t)
{
    return (unsigned)t < PT_COUNT && types[t].is_float;
}
const char *ptx_type_name(ptx_type t)
{
    return (unsigned)t < PT_COUNT ? types[t].name : "?";
}

ptx_type ptx_type_parse(const char *s, size_t n)
{
    for (int t = PT_PRED; t < PT_COUNT; t++)
        if (strlen(types[t].name) == n && memcmp(types[t].name, s, n) == 0)
            return (ptx_type)t;
    return PT_NONE;
}

const char *ptx_space_name(ptx_space s)
{
    static const char *const names[] = {"generic", "global", "const", "shared",
                                        "local",   "param",  "param", "reg"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

/* --- module lookups --------------------------------------------------------------- */

uint32_t ptx_find_func(const ptx_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_funcs; i++)
        if (strcmp(m->funcs[i].name, name) == 0)
            return i;
    return PTX_NONE;
}

uint32_t ptx_find_var(const ptx_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_vars; i++)
        if (m->vars[i].func == PTX_NONE && strcmp(m->vars[i].name, name) == 0)
            return i;
    return PTX_NONE;
}
