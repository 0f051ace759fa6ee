/*
 * lesson.c - a library is not the student's work: the lesson's check of a kernel
 * whose device code holds a library's code that does the lesson (the lab table's
 * lesson_spec) fails, naming the library, what its code does, and the student's line
 * that calls it; the hint says what the lab lets the student write instead.
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

/* What each library's code does for the kernel, true of its headers (CUDA 12 and 13), in
   the order searched: a block's reduction before a warp's. The message says this, not the
   lesson's words: cooperative_groups::reduce adds in registers (a redux.sync or shuffles),
   and over a tile of more than a warp passes the warps' sums through its own scratch. */
static const struct {
    unsigned bit;
    const char *does;
} library_words[] = {
    {LIB_CODE_CG_BLOCK_REDUCE,
     "adds each warp in registers, then the warps' sums in its own shared scratch"},
    {LIB_CODE_CUB_REDUCE, "sums the values with its own warp shuffles and shared TempStorage"},
    {LIB_CODE_CUB_EXCHANGE, "re-deals the items through its own shared TempStorage"},
    {LIB_CODE_THRUST, "runs its own algorithm over the values"},
    {LIB_CODE_CG_WARP_REDUCE, "adds a warp's values in registers (a redux.sync or shuffles)"},
};

/* The library code the lesson lists, in the kernels the plan launches: its bit with what
   and where of the first found (in library_words' order), else 0. */
static unsigned lesson_library_found(const problem *p, const char *ptx, size_t len, char *what,
                                     size_t what_size, char *where, size_t where_size)
{
    const kernel_plan *plan = p->env->plan;
    unsigned want = p->k->lesson.libraries;
    int kernels[IMAGE_MAX_KERNELS], n = launched_kernels(plan, kernels);
    for (int i = 0; i < n; i++) {
        lib_use use;
        if (lib_code_of_kernel(ptx, len, p->env->img->kernels[kernels[i]].name, &use) != 0 ||
            !(use.found & want))
            continue;
        for (size_t o = 0; o < sizeof library_words / sizeof *library_words; o++) {
            unsigned bit = library_words[o].bit;
            int b = __builtin_ctz(bit);
            if (!(use.found & want & bit))
                continue;
            snprintf(what, what_size, "%s", use.first[b].what);
            snprintf(where, where_size, "%s", use.first[b].where);
            return bit;
        }
    }
    return 0;
}

void lesson_library_fail(check_result *c, const lesson_spec *lesson, unsigned library,
                         const char *what, const char *where)
{
    const char *does = "does the lesson";
    for (size_t o = 0; o < sizeof library_words / sizeof *library_words; o++)
        if (library_words[o].bit == library)
            does = library_words[o].does;
    check_set(c, CHECK_FAIL, "%s %s for your kernel%s%s%s: a library's work earns none of "
              "this check's points", what, does, where[0] ? " (" : "", where, where[0] ? ")" : "");
    check_field(c->measured, sizeof c->measured, "library code in the kernel: %s%s%s", what,
                where[0] ? " at " : "", where);
    c->n_lines = 0; /* the measured lines and warp are the library's, in its headers */
    c->bank_map[0] = '\0';
    check_field(c->hint, sizeof c->hint, "This step's lesson is %s, written by you; your "
                "kernel's compiled code holds %s, and a library that does the lesson earns "
                "none of its points, whatever it measures. %s", lesson->what, what,
                lesson->yours ? lesson->yours : "");
}

int problem_lesson_libraries(problem *p)
{
    const lesson_spec *lesson = &p->k->lesson;
    check_result *c = lesson->check != CHK_NONE ? &p->c[lesson->check] : NULL;
    char *ptx = NULL, what[128], where[96], why[128];
    size_t len = 0;
    int arch = 0;
    unsigned found;
    if (!c || !p->listed[lesson->check] || !lesson->libraries || p->sent[lesson->check] ||
        lab_image_ptx(p->env->img, &ptx, &len, &arch, why, sizeof why) != 0)
        return 0; /* no PTX: the count checks judge alone */
    found = lesson_library_found(p, ptx, len, what, sizeof what, where, sizeof where);
    if (found)
        lesson_library_fail(c, lesson, found, what, where);
    free(ptx);
    return found != 0;
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
