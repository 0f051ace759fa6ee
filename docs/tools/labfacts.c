/*
 * labfacts.c - the numbers the course pages state, from the grader's own lab
 * tables and size lists (grader/labs/, grader/labs/sizes.c): one
 * "KEY VALUE" a line. docs/tools/facts.lua holds every [text]{.fact
 * key=KEY} of a page to it, and every [id]{.check} to the lab's check ids,
 * so that a page and the grader cannot disagree (make check-docs fails).
 *
 *   labN.points            what the lab is worth (optional kernels: nothing)
 *   labN.kernels           its graded kernels
 *   labN.KERNEL.points     one kernel
 *   labN.CHECK             one check's points, where every kernel that has
 *                          it gives the same (else per kernel:)
 *   labN.KERNEL.CHECK
 *   labN.check.CHECK       1 for every check id the lab has
 *   lab5.sizes.gpu|emulator, lab5.largest.gpu|emulator, lab5.traffic,
 *   lab6.sizes1d.*, lab6.sizes2d.*, lab6.masks1d, lab6.masks2d
 *   reduce.sizes.gpu|emulator (labs 7 and 8), reduce.traffic.gpu|emulator,
 *   reduce.speed, shfl.values (lab 8's exercises: the values each is tried with)
 *   lab7.tree.requests     the sequential tree's shared requests a block (model)
 *   lab7.tree.need_loads, lab7.tree.need_stores
 *                          the fewest a tree in the tile makes (the floor of
 *                          smem-conflicts: grader/model/reduce_model.h)
 *   lab9.sizes.both        lab 9's matrices nx × ny, every device ("1 × 1, 77 × 1, ...")
 *   lab9.sizes.gpu         those a GPU runs besides, lab9.traffic.gpu|emulator, lab9.timed
 *   BANKS.labN.KERNEL.load|store   a tile lab kernel's access as graded on BANKS (the
 *                          bank model): "16-way", "1.50-way", "conflict-free"; BANKS is
 *                          today (32 x 4 bytes), kepler (the K40's 8-byte mode, make grade
 *                          GPU=kepler) or kepler4 (its 4-byte mode)
 *   BANKS.labN.KERNEL.ipad the pad a padded exercise asks for there (the least that
 *                          makes its read conflict-free), BANKS.labN.KERNEL.one its
 *                          read with one pad column
 */
#include "../../grader/labs/calls.h"
#include "../../grader/labs/course.h"
#include "../../grader/labs/lab_table.h"
#include "../../grader/model/reduce_model.h"
#include "../../grader/labs/reduce_sizes.h"
#include "../../grader/labs/sizes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* "1024³", or "257 × 129 × 145" (the pages' way of writing a size). */
static void print_size(const char *key, int m, int n, int k)
{
    if (m == n && n == k)
        printf("%s %d³\n", key, m);
    else
        printf("%s %d × %d × %d\n", key, m, n, k);
}

/* The points of check id in every graded kernel of lab: the one value, or -1
   when they differ, or -2 when no kernel has it. */
static double uniform_points(const lab_def *lab, check_id id)
{
    double value = -2;
    for (int i = 0; i < lab->n_kernels; i++) {
        kernel_check c[KERNEL_MAX_CHECKS];
        int n = lab->kernels[i].optional ? 0 : kernel_checks(lab, &lab->kernels[i], c);
        for (int j = 0; j < n; j++)
            if (c[j].id == id) {
                if (value != -2 && value != c[j].points)
                    return -1;
                value = c[j].points;
            }
    }
    return value;
}

static void lab_facts(const lab_def *lab)
{
    check_id ids[CHECK_IDS];
    int n_ids = 0, graded = 0;
    double total = 0;
    for (int i = 0; i < lab->n_kernels; i++) {
        const lab_kernel *k = &lab->kernels[i];
        kernel_check c[KERNEL_MAX_CHECKS];
        int n = kernel_checks(lab, k, c);
        total += kernel_max_points(lab, k);
        graded += !k->optional;
        printf("%s.%s.points %g\n", lab->id, k->name, kernel_max_points(lab, k));
        for (int j = 0; j < n; j++) {
            int seen = 0;
            for (int m = 0; m < n_ids; m++)
                seen |= ids[m] == c[j].id;
            if (!seen && n_ids < CHECK_IDS)
                ids[n_ids++] = c[j].id;
            printf("%s.%s.%s %g\n", lab->id, k->name, check_name(c[j].id), c[j].points);
        }
    }
    for (int m = 0; m < n_ids; m++) {
        double u = uniform_points(lab, ids[m]);
        printf("%s.check.%s 1\n", lab->id, check_name(ids[m]));
        if (u >= 0)
            printf("%s.%s %g\n", lab->id, check_name(ids[m]), u);
    }
    printf("%s.points %g\n%s.kernels %d\n", lab->id, total, lab->id, graded);
}

/* A degree as the pages write it: "16-way", "1.50-way", "conflict-free". */
static void print_degree(const char *key, const bank_geometry *g, const tile_access *a,
                         const lab_def *lab, int load)
{
    smem_cost c;
    if (tile_model_cost(g, a, lab->bdimx, lab->bdimy, 4, load, &c) != 0)
        return;
    double d = smem_degree(&c);
    if (d < 1.005)
        printf("%s conflict-free\n", key);
    else if (fabs(d - round(d)) < 0.005)
        printf("%s %.0f-way\n", key, d);
    else
        printf("%s %.2f-way\n", key, d);
}

/* The tile labs' accesses on today's banks and on the course's K40 in each mode. */
static void bank_facts(const lab_def *lab)
{
    static const struct { const char *name; int major, eight; } banks[] = {
        {"today", 9, 0}, {"kepler", 3, 1}, {"kepler4", 3, 0}};
    char key[160];
    if (lab->kind != PROBLEM_TILE)
        return;
    for (size_t b = 0; b < sizeof banks / sizeof banks[0]; b++) {
        bank_geometry g;
        bank_geometry_for(banks[b].major, 5, 32, banks[b].eight, &g);
        for (int i = 0; i < lab->n_kernels; i++) {
            const lab_kernel *k = &lab->kernels[i];
            tile_spec t;
            tile_spec_on(lab, k, &g, &t);
            snprintf(key, sizeof key, "%s.%s.%s.load", banks[b].name, lab->id, k->name);
            print_degree(key, &g, &t.load, lab, 1);
            snprintf(key, sizeof key, "%s.%s.%s.store", banks[b].name, lab->id, k->name);
            print_degree(key, &g, &t.store, lab, 0);
            if (!t.pad_free)
                continue;
            printf("%s.%s.%s.ipad %d\n", banks[b].name, lab->id, k->name, t.load.pitch - lab->bdimx);
            tile_access one = t.load;
            one.pitch = lab->bdimx + 1;
            snprintf(key, sizeof key, "%s.%s.%s.one", banks[b].name, lab->id, k->name);
            print_degree(key, &g, &one, lab, 1);
        }
    }
}

/* How many entries of a size list run where (SIZE_GPU or SIZE_EMULATOR). */
#define COUNT_ON(list, count, where, out)                  \
    do {                                                   \
        out = 0;                                           \
        for (int i_ = 0; i_ < (count); i_++)               \
            out += ((list)[i_].devices & (where)) != 0;    \
    } while (0)

static void size_facts(void)
{
    static const struct { const char *name; int where; } on[] = {
        {"gpu", SIZE_GPU}, {"emulator", SIZE_EMULATOR}};
    char key[64];
    for (int d = 0; d < 2; d++) {
        int n, last = -1;
        COUNT_ON(sizes_matmul, sizes_matmul_count, on[d].where, n);
        printf("lab5.sizes.%s %d\n", on[d].name, n);
        for (int i = 0; i < sizes_matmul_count; i++)
            if (sizes_matmul[i].devices & on[d].where)
                last = i;
        snprintf(key, sizeof key, "lab5.largest.%s", on[d].name);
        print_size(key, sizes_matmul[last].M, sizes_matmul[last].N, sizes_matmul[last].K);
        COUNT_ON(sizes_conv1d_n, sizes_conv1d_n_count, on[d].where, n);
        printf("lab6.sizes1d.%s %d\n", on[d].name, n);
        COUNT_ON(sizes_conv2d, sizes_conv2d_count, on[d].where, n);
        printf("lab6.sizes2d.%s %d\n", on[d].name, n);
        COUNT_ON(sizes_reduce, sizes_reduce_count, on[d].where, n);
        printf("reduce.sizes.%s %d\n", on[d].name, n);
    }
    printf("reduce.traffic.gpu %d\nreduce.traffic.emulator %d\nreduce.speed %d\n",
           sizes_reduce_traffic.n, sizes_reduce_traffic_emulated.n, sizes_reduce_speed.n);
    printf("shfl.values %d\n", sizes_shfl_broadcast_count + 2 * sizes_shfl_delta_count +
                                   sizes_shfl_wrap_count + 2 * sizes_shfl_xor_count);
    print_size("lab5.traffic", sizes_matmul_traffic.M, sizes_matmul_traffic.N,
               sizes_matmul_traffic.K);
    printf("lab6.masks1d %d\nlab6.masks2d %d\n", sizes_conv1d_mask_count, sizes_conv2d_mask_count);
}

/* Lab 7's tree, from the model the grader judges it with (32 banks of 4 bytes, any GPU
   the kit supports: the requests do not depend on the banks). */
static void tree_facts(void)
{
    bank_geometry g;
    tree_cost t;
    const lab_def *lab7 = lab_find("lab7");
    if (!lab7 || bank_geometry_for(9, 0, 32, 0, &g) != 0 ||
        reduce_tree_model(&g, lab_param_value(lab7, "DIM"), 0, &t) != 0)
        return;
    printf("lab7.tree.requests %ld\nlab7.tree.need_loads %ld\nlab7.tree.need_stores %ld\n",
           t.block_requests, t.need_ld_requests, t.need_st_requests);
}

/* Lab 9's matrices, from its calls (grader/labs/transpose_calls.c): "nx × ny" joined. */
static void transpose_facts(void)
{
    extern const lab_def lab9_def;
    static call_spec specs[CALL_MAX];
    int n = transpose_calls(&lab9_def, &lab9_def.kernels[0], specs);
    char both[512] = "", gpu[512] = "";
    for (int i = 0; i < n; i++) {
        const call_spec *c = &specs[i];
        char size[32];
        snprintf(size, sizeof size, "%d × %d", c->width, c->height);
        if (c->role & CALL_CORRECT) {
            char *list = (c->devices & SIZE_EMULATOR) ? both : gpu;
            size_t at = strlen(list);
            snprintf(list + at, sizeof both - at, "%s%s", at ? ", " : "", size);
        } else if (c->role & CALL_TRAFFIC) {
            printf("lab9.traffic.%s %s\n", (c->devices & SIZE_EMULATOR) ? "emulator" : "gpu",
                   size);
        } else if (c->role & CALL_SPEED) {
            printf("lab9.timed %s\n", size);
        }
    }
    printf("lab9.sizes.both %s\nlab9.sizes.gpu %s\n", both, gpu);
}

int main(int argc, char **argv)
{
    /* the course file (make's COURSE_FILE): the pages state the course's points */
    course crs;
    char why[1024];
    const char *path = argc == 3 && !strcmp(argv[1], "--course") ? argv[2] : COURSE_NONE;
    if (argc != 1 && argc != 3) {
        fprintf(stderr, "usage: labfacts [--course FILE|none]\n");
        return 2;
    }
    if (course_load(path, NULL, &crs, why, sizeof why) != 0) {
        fprintf(stderr, "labfacts: %s\n", why);
        return 2;
    }
    for (int i = 0; i < lab_registry_count; i++) {
        lab_facts(lab_registry[i]);
        bank_facts(lab_registry[i]);
    }
    size_facts();
    tree_facts();
    transpose_facts();
    return 0;
}
