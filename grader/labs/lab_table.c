/* lab_table.c - looking things up in the lab tables; see lab_table.h. */
#include "lab_table.h"

#include <stdio.h>
#include <string.h>

extern const lab_def *corpus_lab(void);

int tile_elem_bytes(const tile_spec *t)
{
    return t->elem_bytes > 0 ? t->elem_bytes : (int)sizeof(int);
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

int kernel_checks(const lab_def *lab, const lab_kernel *k, kernel_check out[KERNEL_MAX_CHECKS])
{
    const check_points *p = &k->points;
    double scale = k->optional ? 0.0 : 1.0;
    int n = 0;

    if (lab->kind == PROBLEM_TILE) {
        const kernel_check tile[] = {{"correct", p->correct}, {"store-requests", p->requests},
                                     {"load-requests", p->requests},
                                     {"store-conflicts", p->conflicts},
                                     {"load-conflicts", p->conflicts}};
        for (int i = 0; i < 5; i++)
            out[n++] = (kernel_check){tile[i].id, scale * tile[i].points};
        if (p->race > 0) /* after the five above, which keep their places */
            out[n++] = (kernel_check){"race", scale * p->race};
        if (p->dynamic > 0)
            out[n++] = (kernel_check){"dynamic-tile", scale * p->dynamic};
        return n;
    }
    if (lab->kind == PROBLEM_IDIOM) {
        out[n++] = (kernel_check){"correct", scale * p->correct};
        out[n++] = (kernel_check){"counts", scale * p->requests};
        return n;
    }
    if (lab->kind == PROBLEM_REDUCE) { /* labs 7 and 8: as 5 and 6, a check with no points is not run */
        const kernel_check red[] = {{"correct", p->correct}, {"global-traffic", p->global_loads},
                                    {"smem-conflicts", p->conflicts}, {"shuffle", p->shuffle},
                                    {"dynamic-tile", p->dynamic}, {"race", p->race},
                                    {"speed", p->speed}};
        for (int i = 0; i < 7; i++)
            if (red[i].points > 0)
                out[n++] = (kernel_check){red[i].id, scale * red[i].points};
        return n;
    }
    if (lab->kind == PROBLEM_TRANSPOSE) { /* lab 9: a check with no points is not run */
        const kernel_check tr[] = {{"correct", p->correct}, {"load-coalescing", p->coalescing},
                                   {"store-coalescing", p->coalescing},
                                   {"smem-conflicts", p->conflicts}, {"dynamic-tile", p->dynamic},
                                   {"race", p->race}, {"speed", p->speed}};
        for (int i = 0; i < 7; i++)
            if (tr[i].points > 0)
                out[n++] = (kernel_check){tr[i].id, scale * tr[i].points};
        return n;
    }
    /* Labs 5, 6 and 10: a check with no points in the table is not run. */
    const kernel_check flt[] = {{"correct", p->correct}, {"global-loads", p->global_loads},
                                {"smem-conflicts", p->conflicts}, {"speed", p->speed},
                                {"race", p->race}, {"memory-path", p->memory_path},
                                {"const-serialization", p->const_serial}};
    for (int i = 0; i < 7; i++)
        if (flt[i].points > 0)
            out[n++] = (kernel_check){flt[i].id, scale * flt[i].points};
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
