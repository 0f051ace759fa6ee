/* lab_table.c - looking things up in the lab tables; see lab_table.h. */
#include "lab_table.h"
#include "../base/sha256.h"

#include <stdio.h>
#include <string.h>

extern const lab_def *corpus_lab(void);

int tile_elem_bytes(const tile_spec *t)
{
    return t->elem_bytes > 0 ? t->elem_bytes : (int)sizeof(int);
}

void tile_spec_on(const lab_def *lab, const lab_kernel *k, const bank_geometry *g,
                  tile_spec *out)
{
    *out = k->tile;
    if (!out->pad_free)
        return;
    int pad = tile_least_pad(g, &out->load, lab->bdimx, lab->bdimy, tile_elem_bytes(out));
    if (pad > 0)
        out->store.pitch = out->load.pitch = lab->bdimx + pad;
}

const lab_def *lab_find(const char *id)
{
    char full[16];
    if (id == NULL)
        return NULL;
    if (strcmp(id, CORPUS_LAB_ID) == 0)
        return corpus_lab();
    /* "3" is accepted as shorthand for "lab3". */
    snprintf(full, sizeof full, "%s%s", strncmp(id, "lab", 3) == 0 ? "" : "lab", id);
    for (int i = 0; i < lab_registry_count; i++)
        if (strcmp(lab_registry[i]->id, full) == 0)
            return lab_registry[i];
    return NULL;
}

int lab_param_value(const lab_def *lab, const char *name)
{
    for (int i = 0; i < LAB_MAX_PARAMS && lab->params[i].name; i++)
        if (name && strcmp(lab->params[i].name, name) == 0)
            return lab->params[i].value;
    return -1;
}

/* The checks of each kind of problem, in the order reports list them. */
static const check_id tile_ids[] = {CHK_CORRECT, CHK_STORE_REQUESTS, CHK_LOAD_REQUESTS,
                                    CHK_STORE_CONFLICTS, CHK_LOAD_CONFLICTS, CHK_RACE,
                                    CHK_DYNAMIC_TILE};
static const check_id idiom_ids[] = {CHK_CORRECT, CHK_COUNTS};
static const check_id reduce_ids[] = {CHK_CORRECT, CHK_GLOBAL_TRAFFIC, CHK_SMEM_CONFLICTS,
                                      CHK_SHUFFLE, CHK_DYNAMIC_TILE, CHK_RACE, CHK_SPEED};
static const check_id transpose_ids[] = {CHK_CORRECT, CHK_LOAD_COALESCING,
                                         CHK_STORE_COALESCING, CHK_SMEM_CONFLICTS,
                                         CHK_DYNAMIC_TILE, CHK_RACE, CHK_SPEED};
/* labs 5, 6 and 10 */
static const check_id float_ids[] = {CHK_CORRECT, CHK_GLOBAL_LOADS, CHK_SMEM_CONFLICTS,
                                     CHK_SPEED, CHK_RACE, CHK_MEMORY_PATH, CHK_CONST_SERIAL};

#define IDS(a) {a, (int)(sizeof a / sizeof a[0])}
_Static_assert(sizeof tile_ids / sizeof tile_ids[0] <= KERNEL_MAX_CHECKS &&
                   sizeof reduce_ids / sizeof reduce_ids[0] <= KERNEL_MAX_CHECKS &&
                   sizeof transpose_ids / sizeof transpose_ids[0] <= KERNEL_MAX_CHECKS &&
                   sizeof float_ids / sizeof float_ids[0] <= KERNEL_MAX_CHECKS,
               "a kind lists more checks than a kernel's slots hold (KERNEL_MAX_CHECKS)");
static const struct {
    const check_id *ids;
    int n;
} by_kind[] = {
    [PROBLEM_TILE] = IDS(tile_ids), [PROBLEM_MATMUL] = IDS(float_ids),
    [PROBLEM_CONV] = IDS(float_ids), [PROBLEM_IDIOM] = IDS(idiom_ids),
    [PROBLEM_REDUCE] = IDS(reduce_ids), [PROBLEM_TRANSPOSE] = IDS(transpose_ids),
    [PROBLEM_STENCIL] = IDS(float_ids),
};

int kind_checks(problem_kind kind, const check_id **ids)
{
    *ids = by_kind[kind].ids;
    return by_kind[kind].n;
}

int kernel_checks(const lab_def *lab, const lab_kernel *k, kernel_check out[KERNEL_MAX_CHECKS])
{
    const check_id *ids;
    double scale = k->optional ? 0.0 : 1.0;
    int n = 0, all = kind_checks(lab->kind, &ids);
    for (int i = 0; i < all; i++)
        if (k->points.of[ids[i]] > 0)
            out[n++] = (kernel_check){ids[i], scale * k->points.of[ids[i]]};
    return n;
}

double kernel_max_points(const lab_def *lab, const lab_kernel *k)
{
    kernel_check checks[KERNEL_MAX_CHECKS];
    double sum = 0;
    int n = kernel_checks(lab, k, checks);
    for (int i = 0; i < n; i++)
        sum += checks[i].points;
    return sum;
}

size_t lab_table_text(const lab_def *lab, char *out, size_t size)
{
    size_t o = 0;
#define PUT(...) (o += (size_t)snprintf(out + (o < size ? o : size), o < size ? size - o : 0, __VA_ARGS__))
    PUT("%s kind %d block %dx%d limits %d %llu %u", lab->id, (int)lab->kind, lab->bdimx,
        lab->bdimy, lab->limits.launches, lab->limits.blocks, lab->limits.shared_bytes);
    for (int i = 0; i < LAB_MAX_PARAMS && lab->params[i].name; i++)
        PUT(" %s=%d", lab->params[i].name, lab->params[i].value);
    PUT("\n");
    for (int k = 0; k < lab->n_kernels; k++) {
        const lab_kernel *kern = &lab->kernels[k];
        kernel_check checks[KERNEL_MAX_CHECKS];
        int n = kernel_checks(lab, kern, checks);
        PUT("%s %s%s", kern->name, kern->launcher, kern->optional ? " optional" : "");
        for (int c = 0; c < n; c++)
            PUT(" %s=%g", check_name(checks[c].id), checks[c].points);
        if (kern->speed_fraction > 0 && kern->points.of[CHK_SPEED] > 0)
            PUT(" speed-fraction=%g", kern->speed_fraction);
        PUT("\n");
    }
#undef PUT
    return o;
}

void lab_table_digest(const lab_def *lab, char out[65])
{
    char text[16384];
    size_t n = lab_table_text(lab, text, sizeof text);
    sha256_hex_of(text, n < sizeof text ? n : sizeof text - 1, out);
}

double lab_total_points(const lab_def *lab)
{
    double sum = 0;
    for (int k = 0; k < lab->n_kernels; k++)
        sum += kernel_max_points(lab, &lab->kernels[k]);
    return sum;
}
