/*
 * lesson.c - a library is not the student's work: the lesson's check of a kernel
 * whose device code holds a library's code that does the lesson (the lab table's
 * lesson_spec) fails, naming the library and the student's line that calls it.
 * Read from the lab's PTX (image/lib_code.h), not from a run: every backend, and a
 * kernel that did not run, gets the same verdict. See problem.h.
 */
#include "../image/lib_code.h"
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((unsigned)LESSON_LIB_CUB_REDUCE == LIB_CODE_CUB_REDUCE &&
                   (unsigned)LESSON_LIB_CUB_EXCHANGE == LIB_CODE_CUB_EXCHANGE &&
                   (unsigned)LESSON_LIB_THRUST == LIB_CODE_THRUST &&
                   (unsigned)LESSON_LIB_CG_WARP_REDUCE == LIB_CODE_CG_WARP_REDUCE &&
                   (unsigned)LESSON_LIB_CG_BLOCK_REDUCE == LIB_CODE_CG_BLOCK_REDUCE,
               "the lab tables' lesson libraries are image/lib_code.h's bits");

/* The kernels of the image the plan launches, each once, into out: how many. */
static int launched_kernels(const kernel_plan *plan, int out[IMAGE_MAX_KERNELS])
{
    unsigned char seen[IMAGE_MAX_KERNELS] = {0};
    int n = 0;
    for (int i = 0; i < plan->n_calls; i++)
        for (int j = 0; j < plan->calls[i].n_launches; j++) {
            int k = plan->calls[i].launches[j].kernel;
            if (k >= 0 && k < IMAGE_MAX_KERNELS && !seen[k]++)
                out[n++] = k;
        }
    return n;
}

/* The library code the lesson lists, in the kernels the plan launches: 1 with what and
   where of the first found (a block's reduction before a warp's), else 0. */
static int lesson_library_found(const problem *p, const char *ptx, size_t len, char *what,
                                size_t what_size, char *where, size_t where_size)
{
    const kernel_plan *plan = p->env->plan;
    unsigned want = p->k->lesson.libraries;
    static const unsigned order[] = {LIB_CODE_CG_BLOCK_REDUCE, LIB_CODE_CUB_REDUCE,
                                     LIB_CODE_CUB_EXCHANGE, LIB_CODE_THRUST,
                                     LIB_CODE_CG_WARP_REDUCE};
    int kernels[IMAGE_MAX_KERNELS], n = launched_kernels(plan, kernels);
    for (int i = 0; i < n; i++) {
        lib_use use;
        if (lib_code_of_kernel(ptx, len, p->env->img->kernels[kernels[i]].name, &use) != 0 ||
            !(use.found & want))
            continue;
        for (size_t o = 0; o < sizeof order / sizeof *order; o++) {
            int b = __builtin_ctz(order[o]);
            if (!(use.found & want & order[o]))
                continue;
            snprintf(what, what_size, "%s", use.first[b].what);
            snprintf(where, where_size, "%s", use.first[b].where);
            return 1;
        }
    }
    return 0;
}

int problem_lesson_libraries(problem *p)
{
    const lesson_spec *lesson = &p->k->lesson;
    check_result *c = lesson->check != CHK_NONE ? &p->c[lesson->check] : NULL;
    char *ptx = NULL, what[128], where[96], why[128];
    size_t len = 0;
    int arch = 0, found;
    if (!c || !p->listed[lesson->check] || !lesson->libraries || p->sent[lesson->check] ||
        lab_image_ptx(p->env->img, &ptx, &len, &arch, why, sizeof why) != 0)
        return 0; /* no PTX: the count checks judge alone */
    found = lesson_library_found(p, ptx, len, what, sizeof what, where, sizeof where);
    if (found) {
        check_set(c, CHECK_FAIL, "%s does %s for your kernel%s%s%s: a library's work is not "
                  "yours, and earns none of this check's points", what, lesson->what,
                  where[0] ? " (" : "", where, where[0] ? ")" : "");
        check_field(c->measured, sizeof c->measured, "library code in the kernel: %s%s%s", what,
                    where[0] ? " at " : "", where);
        c->n_lines = 0; /* the measured lines and warp are the library's, in its headers */
        c->bank_map[0] = '\0';
        check_field(c->hint, sizeof c->hint, "This step's lesson is %s, written by you: the "
                    "grader reads your kernel's compiled code and finds %s there. A library "
                    "that does the lesson (CUB's BlockReduce, WarpReduce or BlockExchange, "
                    "Thrust, cooperative_groups::reduce) loses its points whatever it measures; "
                    "helpers that do not (a cooperative group's tile and its shfl_xor, "
                    "__shfl_*_sync, __syncwarp) are yours to use. The lab's page lists them.",
                    lesson->what, what);
    }
    free(ptx);
    return found;
}

void problem_name_op_lines(problem *p, check_result *c, const char *op, const char *what)
{
    const kernel_plan *plan = p->env->plan;
    char *ptx = NULL, why[128], file[sizeof ((check_line *)0)->file];
    size_t len = 0;
    int arch = 0;
    int kernels[IMAGE_MAX_KERNELS], lines[CHECK_MAX_LINES];
    if (!plan || lab_image_ptx(p->env->img, &ptx, &len, &arch, why, sizeof why) != 0)
        return;
    int n_kernels = launched_kernels(plan, kernels);
    for (int i = 0; i < n_kernels; i++) {
        int n = lib_code_op_lines(ptx, len, p->env->img->kernels[kernels[i]].name, op, lines,
                                  CHECK_MAX_LINES, file, sizeof file);
        for (int l = 0; l < n && c->n_lines < CHECK_MAX_LINES && file[0]; l++) {
            check_line *x = &c->lines[c->n_lines++];
            memset(x, 0, sizeof *x);
            snprintf(x->file, sizeof x->file, "%s", file);
            x->line = lines[l];
            snprintf(x->op, sizeof x->op, "%s", what);
        }
    }
    free(ptx);
}
