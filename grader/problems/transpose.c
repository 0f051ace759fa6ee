/*
 * transpose.c - grading one kernel of lab 9 (PROBLEM_TRANSPOSE).
 *
 * A float matrix, ny rows of nx, copied (step 1) or transposed: out[x * ny + y]
 * = in[y * nx + x], blocks of BDIMX x BDIMY threads. Checks:
 *   correct           every matrix of labs/transpose_calls.c, exactly (one
 *                     element, one row, one column, non-multiples both ways)
 *   load-coalescing   sectors of the global loads against their ideal (model/
 *   store-coalescing  sector.h); a naive step's strided side held to being strided,
 *                     its cost drawn over the sectors
 *   smem-conflicts    the tile's stores conflict-free, its column read as the
 *                     tile's layout makes it (model/transpose_model.h)
 *   dynamic-tile      extern __shared__, its bytes at launch
 *   race              between warps of a block (the barrier between the tile's
 *                     writes and reads)
 *   speed             against the grader's own copyRow (device/grader_kernels.cu)
 *                     on the same 8192 x 8192 matrix; GPU only
 */
#include "../compare/compare.h"
#include "../model/transpose_model.h"
#include "../run/device.h"
#include "../run/gpu.h"
#include "float_run.h"
#include "problem.h"
#include "traffic.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tr {
    problem *p;
    const lab_kernel *k;
    float *in, *out;
    int bdimx, bdimy, pad;
    int nx, ny;      /* the measured matrix */
    float *host_ref; /* its expected output, every element */
} tr;

static void tr_bind(const problem *p, void *bufs[])
{
    const tr *t = p->state;
    bufs[0] = t->in, bufs[1] = t->out;
}

/* The block every launch must have: a named failure, never a run the models do not
   assume. 0, or -1 with correct failed. */
static int tr_shapes(problem *p)
{
    tr *t = p->state;
    const kernel_plan *plan = p->env->plan;
    check_result *c = &p->c[CHK_CORRECT];
    for (int i = 0; i < plan->n_calls; i++)
        for (int j = 0; j < plan->calls[i].n_launches; j++) {
            const plan_launch *l = &plan->calls[i].launches[j];
            if (l->block[0] == (unsigned)t->bdimx && l->block[1] == (unsigned)t->bdimy &&
                l->block[2] == 1)
                continue;
            check_set(c, CHECK_FAIL, "at %s: %s launches blocks of %ux%ux%u threads; the lab's "
                      "blocks are %d x %d", plan->specs[i].label, t->k->launcher, l->block[0],
                      l->block[1], l->block[2], t->bdimx, t->bdimy);
            check_field(c->hint, sizeof c->hint, "The contract fixes blocks of BDIMX x BDIMY = "
                        "%d x %d threads: the tile, its index mapping and the grader's models "
                        "assume them. Launch dim3(BDIMX, BDIMY) blocks and a grid that covers "
                        "the matrix.", t->bdimx, t->bdimy);
            return -1;
        }
    return 0;
}

/* --- correct ------------------------------------------------------------------- */

/* The host reference: the copy, or the transpose (out nx rows of ny). */
static void reference(const tr *t, const float *in, int nx, int ny, float *ref)
{
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            float v = in[(size_t)y * nx + x];
            if (t->k->transpose.copy)
                ref[(size_t)y * nx + x] = v;
            else
                ref[(size_t)x * ny + y] = v;
        }
}

static run_outcome tr_run(problem *p, check_result *c)
{
    tr *t = p->state;
    const call_spec *s = &p->env->plan->specs[p->call];
    int nx = s->width, ny = s->height;
    size_t n = (size_t)nx * ny;
    char why[256];
    float *host = host_random(n, problem_seed(p)), *ref = malloc(n * sizeof *ref);
    reference(t, host, nx, ny, ref);
    t->in = dev_upload(host, n, why, sizeof why);
    run_outcome out;
    if (!t->in) {
        out = fail_cuda(c, s->label, why);
    } else {
        int copy = t->k->transpose.copy;
        float_case fc = {s->label, problem_launch, p, &t->out, ref, copy ? ny : nx, copy ? nx : ny,
                         1e-30, copy ? t->bdimy : t->bdimx, copy ? t->bdimx : t->bdimy,
                         copy ? "a row segment" : "a tile, read by rows, written transposed", NULL};
        out = float_run_case(p, &fc, c);
        if (out != RUN_LOST)
            dev_free(t->in);
    }
    t->in = NULL;
    free(host);
    free(ref);
    return out;
}

/*
 * A case came out never written. A kernel that writes the later matrices is not a TODO,
 * though: its edge guard skips the small one whole (the chapter's unrolled guard, one
 * test for both elements). Say so, from the first later case that wrote something.
 */
static void written_elsewhere(problem *p, check_result *c)
{
    const kernel_plan *plan = p->env->plan;
    int i = p->call;
    if (!strstr(c->message, "never written"))
        return;
    for (int j = i + 1; j < plan->n_calls; j++) {
        const call_spec *s = &plan->specs[j];
        check_result other = *c;
        if (!(s->role & CALL_CORRECT) || !problem_runs(p, j))
            continue;
        p->call = j;
        run_outcome out = tr_run(p, &other);
        p->call = i;
        if (out == RUN_LOST || out == RUN_FAILED)
            return;
        if (out == RUN_RIGHT || !strstr(other.message, "never written")) {
            check_set(c, CHECK_FAIL, "at %s: no element was written, though at %s %s: a "
                      "guard skips the matrix's last elements", plan->specs[i].label, s->label,
                      out == RUN_RIGHT ? "every one was right" : "some were");
            check_field(c->hint, sizeof c->hint, "Guard each element's load and store on its "
                        "own: with two elements a thread, the second's test (ix + BDIMX < nx) "
                        "must not decide the first's.");
            return;
        }
    }
}

static void tr_passed(problem *p, int runs, int last, const char *each, check_result *c)
{
    (void)last;
    check_set(c, CHECK_PASS, "all %d matrices right%s, one element, one row and one column "
              "among them (seed %llu)", runs, each, p->env->opt->seed);
}

/* --- the measured run ------------------------------------------------------------ */

/* The measured matrix of this device on the device (in random, out zeroed); 0, or -1. */
static int tr_prepare(problem *p, char *why, size_t size)
{
    tr *t = p->state;
    t->nx = p->env->plan->specs[p->call].width, t->ny = p->env->plan->specs[p->call].height;
    size_t n = (size_t)t->nx * t->ny;
    float *host = host_random(n, p->env->opt->seed + 99);
    t->host_ref = malloc(n * sizeof *t->host_ref);
    reference(t, host, t->nx, t->ny, t->host_ref);
    t->in = dev_upload(host, n, why, size);
    free(host);
    if (!t->in || dev_malloc((void **)&t->out, n * sizeof(float)) != cudaSuccess ||
        dev_memset(t->out, 0, n * sizeof(float)) != cudaSuccess) {
        snprintf(why, size, "no device memory for the measured run");
        return -1;
    }
    return 0;
}

/* The measured run's whole output against the reference, element by element (the
   floats are moved, not computed: exactly). 1 when right. */
static int tr_right(problem *p, char *why, size_t size)
{
    tr *t = p->state;
    size_t n = (size_t)t->nx * t->ny, wrong = n;
    float *got = malloc(n * sizeof *got);
    if (got && dev_copy(got, t->out, n * sizeof *got, cudaMemcpyDeviceToHost) == cudaSuccess) {
        wrong = 0;
        for (size_t i = 0; i < n; i++)
            wrong += memcmp(&got[i], &t->host_ref[i], sizeof *got) != 0;
    }
    free(got);
    if (wrong)
        snprintf(why, size, "the measured run gave a wrong result (%zu of %zu elements wrong)",
                 wrong, n);
    return wrong == 0;
}

/* The flow run's output: the matrix written, buffer 1. */
static void tr_output(const problem *p, flow_output *out)
{
    const tr *t = p->state;
    *out = (flow_output){1, (size_t)t->nx * (size_t)t->ny, NULL, 0, 0};
}

static void tr_release(problem *p)
{
    tr *t = p->state;
    problem_drop(p, &t->in);
    problem_drop(p, &t->out);
    free(t->host_ref);
    t->host_ref = NULL;
}

/* "a 16-way conflict" or "conflict-free", to follow "is". */
static const char *is_degree(double d, char *buf, size_t size)
{
    char t[40];
    degree_text(d, t, sizeof t);
    snprintf(buf, size, "%s%s", strcmp(t, "conflict-free") ? "a " : "", t);
    return buf;
}

/* The row length, in words, that makes the column read the measured degree ld: the
   one row length of the unpadded tile plus 0 to 4 words that does, else 0. */
static int rows_that_give(const tr *t, double ld)
{
    int base = t->k->transpose.unroll * t->bdimx, found = 0;
    for (int w = base; w <= base + 4; w++) {
        double d = transpose_read_degree(&t->p->env->gpu.banks, t->bdimx, t->bdimy, w);
        if (ld <= d * (1 + DEGREE_TOLERANCE) && ld >= d * (1 - DEGREE_TOLERANCE)) {
            if (found)
                return 0; /* two row lengths read alike: no telling which */
            found = w;
        }
    }
    return found;
}

/* The tile's layout as the kernel wrote it, from where the first block's threads (0, 0),
   (1, 0) and (0, 1) stored their first element: along a row as the step writes
   (tile[threadIdx.y][threadIdx.x]: (1, 0) a word on, (0, 1) a row on), or down a column
   (tile[threadIdx.x][threadIdx.y]: (0, 1) a word on, (1, 0) a row on). */
typedef struct tile_layout {
    int row;  /* the row length in words; 0 where the trace does not show it */
    int down; /* written down its columns */
} tile_layout;

static tile_layout tile_written(const tr *t, const trace_summary *s)
{
    tile_layout l = {0, 0};
    if (!s || !s->threads || 2 * t->bdimx > TRACE_FLOW_THREADS || t->bdimx < 2)
        return l;
    const trace_thread *th = s->threads, *x1 = &th[1], *y1 = &th[t->bdimx];
    if (!th[0].stores || !x1->stores || !y1->stores)
        return l;
    long long dx = ((long long)x1->store_addr - th[0].store_addr) / (long long)sizeof(float);
    long long dy = ((long long)y1->store_addr - th[0].store_addr) / (long long)sizeof(float);
    if ((x1->store_addr - th[0].store_addr) % sizeof(float) ||
        (y1->store_addr - th[0].store_addr) % sizeof(float))
        return l;
    if (dx == 1 && dy >= t->k->transpose.unroll * t->bdimx && dy < 1 << 20)
        l.row = (int)dy;
    else if (dy == 1 && dx > 1 && dx < 1 << 20)
        l.row = (int)dx, l.down = 1;
    return l;
}

/* A padded step's tile read with a conflict: the hint from the layout the kernel wrote
   and the pad its file declares (IPAD), as lab 3's reads the student's file. */
static void pad_hint(const tr *t, tile_layout l, check_result *c)
{
    int unpadded = t->k->transpose.unroll * t->bdimx, pad = 0, row = l.row;
    const char *cols = t->k->transpose.unroll > 1 ? "2 * BDIMX" : "BDIMX";
    int have_pad = lab_image_int(t->p->env->img, "smemlab_param_IPAD", &pad) == 0;
    if (l.down) { /* the transpose moved into the write: the read goes along the rows */
        check_field(c->hint, sizeof c->hint, "Your kernel writes the tile down its columns "
                    "(tile[threadIdx.x][threadIdx.y], rows of %d words) and reads it along "
                    "them. This step writes along a row, tile[threadIdx.y][threadIdx.x], and "
                    "reads the column at tile[icol][irow], with rows of %s + IPAD words: lane "
                    "(icol, irow) then falls in bank 2 * icol + irow (IPAD = 2), a warp's two "
                    "columns in the even and the odd banks.", row, cols);
        return;
    }
    if (row <= 0 || row == unpadded) { /* no pad where the tile is read */
        check_field(c->hint, sizeof c->hint, "Pad each tile row by IPAD = 2 words, where the "
                    "tile is declared and where it is indexed (row * (%s + IPAD) + col: a "
                    "padded allocation read with rows of %s words is not padded): lanes "
                    "(icol, irow) then fall in bank 2 * icol + irow, a warp's two columns in the "
                    "even and the odd banks.", cols, cols);
        return;
    }
    if (have_pad && pad > 0 && row == unpadded + pad) { /* the step's rows: the read is off */
        check_field(c->hint, sizeof c->hint, "Your tile's rows are %d words apart, as this "
                    "step's (%s + IPAD): the conflict is in where the warp reads it. This step "
                    "reads the column, tile[icol][irow]: lane (icol, irow) reads word %d * icol "
                    "+ irow, bank (2 * icol + irow) %% 32, one column in the even banks and the "
                    "other in the odd. A read with the subscripts the other way round, or "
                    "indices of its own, puts lanes of the warp's two rows in one bank.", row,
                    cols, row);
        return;
    }
    char yours[96] = "";
    if (have_pad && row != unpadded + pad)
        snprintf(yours, sizeof yours, ", not %s + IPAD = %d (your file's IPAD = %d)", cols,
                 unpadded + pad, pad);
    check_field(c->hint, sizeof c->hint, "Your kernel's tile rows are %d words apart (%s + %d)%s: "
                "lane (icol, irow) reads word %d * icol + irow, bank (%d * icol + irow) %% 32, "
                "and a warp reads two columns, irow and irow + 1: work out where lanes of the "
                "two meet. Rows of %s + IPAD words give bank 2 * icol + irow (IPAD = 2): one "
                "column in the even banks, the other in the odd. Declare the tile, and index "
                "it, with that row length.", row, cols, row - unpadded, yours, row, row, cols);
}

/* The tile's banks: stores conflict-free, the column read as the layout makes it. */
static void judge_tile(tr *t, const measurement *m, const trace_summary *s, check_result *c)
{
    int words = t->k->transpose.unroll * t->bdimx + t->k->transpose.tile_pad;
    double want = transpose_read_degree(&t->p->env->gpu.banks, t->bdimx, t->bdimy, words);
    double ld = measured_degree(m, &SIDE_LOAD), st = measured_degree(m, &SIDE_STORE);
    char a[48], b[48];
    check_field(c->measured, sizeof c->measured, "tile reads %s, writes %s",
                degree_text(ld, a, sizeof a), degree_text(st, b, sizeof b));
    check_field(c->expected, sizeof c->expected, "reads %s (rows of %d words), writes conflict-free",
                degree_text(want, a, sizeof a), words);
    c->degree = ld;
    c->accept_lo = want * (1 - DEGREE_TOLERANCE), c->accept_hi = want * (1 + DEGREE_TOLERANCE);
    c->expect_load = want; /* the report page colours the tile's lines by these */
    c->expect_store = 1.0;
    if (m->value[METRIC_SHARED_LD_REQUESTS] <= 0 || m->value[METRIC_SHARED_ST_REQUESTS] <= 0) {
        /* nothing to judge: the coalescing checks say where the data went instead */
        if (m->value[METRIC_SHARED_ST_REQUESTS] > 0) /* written, never read */
            compare_tile_unread(c);
        else
            check_set(c, CHECK_FAIL, "waits for a shared tile: no shared stores ran, no bank "
                      "to judge (this step goes through a tile)");
    } else if (st > 1 + DEGREE_TOLERANCE) {
        check_set(c, CHECK_FAIL, "the tile's writes have a %s, where this step's warp writes "
                  "along a row of the tile, tile[threadIdx.y][threadIdx.x], conflict-free",
                  degree_text(st, b, sizeof b));
        check_field(c->hint, sizeof c->hint, "Your warp's 32 lanes write words of the tile "
                    "that share banks: down a column, or with a stride (a tile stored "
                    "column-major moves the transpose's column into the write). Write the tile "
                    "as the step does, consecutive lanes to consecutive words of one row, and "
                    "let the read take the column, as the step's tile[icol][irow] does.");
    } else if (ld > want * (1 + DEGREE_TOLERANCE) || ld < want * (1 - DEGREE_TOLERANCE)) {
        tile_layout l = tile_written(t, s);
        int yours = l.row > 0 ? l.row : rows_that_give(t, ld);
        char like[96] = "";
        if (ld <= 1 + DEGREE_TOLERANCE) /* rows of any pad read so, or the rows read along */
            snprintf(like, sizeof like, ", as a padded tile or a read along its rows makes it");
        else if (l.down)
            snprintf(like, sizeof like, ", as your tile written down its columns (rows of %d "
                     "words) makes it", l.row);
        else if (yours && yours != words)
            snprintf(like, sizeof like, ", as rows of %d words make it", yours);
        check_set(c, CHECK_FAIL, "the tile's column read is %s%s, where this step's tile (rows "
                  "of %d words: %sBDIMX%s) makes it %s", is_degree(ld, a, sizeof a), like, words,
                  t->k->transpose.unroll > 1 ? "2 * " : "",
                  t->k->transpose.tile_pad ? " + IPAD" : ", no pad", is_degree(want, b, sizeof b));
        if (want > 1.5) /* this step's own tile: one element a thread, or two */
            check_field(c->hint, sizeof c->hint, "This step's tile is unpadded: %s, read at "
                        "tile[icol][irow] as the skeleton maps it.", t->k->transpose.unroll > 1
                        ? "BDIMY rows of 2 * BDIMX words (two elements a thread)"
                        : "tile[BDIMY][BDIMX]");
        else
            pad_hint(t, l, c);
    } else {
        /* what this step asks, not how the file got it (a swizzle, 8-byte elements) */
        tile_layout l = tile_written(t, s);
        char yours[96] = "";
        if (l.row > 0) /* what this file did, where the trace shows it */
            snprintf(yours, sizeof yours, " (your tile: rows of %d words%s)", l.row,
                     l.down ? ", written down its columns" : "");
        check_set(c, CHECK_PASS, "the tile's column read is %s, as this step asks%s; its "
                  "writes conflict-free", is_degree(ld, a, sizeof a), yours);
    }
    if (s)
        compare_trace_lines(c, s, -1, &t->p->env->gpu.banks);
}

/* Every element once, each way: the sectors of a coalesced side. */
static double ideal_sectors(const tr *t)
{
    return (double)t->nx * t->ny * sizeof(float) / 32.0;
}

/* A global side's sectors against their ideal (load-coalescing, store-coalescing); a
   naive step's strided side held to being strided (its index in the exercise's words). */
static void judge_side(problem *p, check_id id, const measurement *m, const trace_summary *s,
                       check_result *c)
{
    tr *t = p->state;
    const transpose_spec *x = &t->k->transpose;
    int store = id == CHK_STORE_COALESCING, strided = store ? x->strided_store : x->strided_load;
    compare_coalescing(c, store, m, ideal_sectors(t), s,
                       strided ? (store ? "out[x * ny + y]" : "in[x * nx + y]") : NULL, strided);
}

static void judge_smem(problem *p, check_id id, const measurement *m, const trace_summary *s,
                       check_result *c)
{
    (void)id;
    judge_tile(p->state, m, s, c);
}

/* --- speed ---------------------------------------------------------------------- */

#define COPY_ROWS "smemlab_grader_copy_rows"      /* the roof (device/grader_kernels.cu) */
#define TRANSPOSE_REF "smemlab_grader_transpose" /* the timed runs' reference */

/* Blocks of 32 x 16 over the timed matrix, as the lab's: for the grader's two kernels. */
static cudaError_t launch_own(const tr *t, const char *kernel, const float *in, float *out)
{
    const call_spec *s = &t->p->env->plan->specs[t->p->call];
    int nx = s->width, ny = s->height;
    void *args[] = {&in, &out, &nx, &ny};
    dim3 grid = {(unsigned)((nx + 31) / 32), (unsigned)((ny + 15) / 16), 1}, block = {32, 16, 1};
    cudaKernel_t k = module_own_kernel(t->p->mod, kernel);
    return k ? cudaLaunchKernel((const void *)k, grid, block, args, 0, 0)
             : cudaErrorInvalidDeviceFunction;
}

static void launch_copy(void *arg)
{
    tr *t = arg;
    launch_own(t, COPY_ROWS, t->in, t->out); /* an error stays for cudaGetLastError */
}

/* The timed run's expected output, made on the device after the run from its input
   filled again (time_fresh): a copy for copyRow, else the grader's transpose. */
typedef struct tr_ref {
    tr *t;
    float *ref;
} tr_ref;

static cudaError_t make_ref(worker_env *env, void *arg)
{
    tr_ref *r = arg;
    const call_spec *s = &env->plan->specs[r->t->p->call];
    size_t n = (size_t)s->width * s->height;
    if (r->t->k->transpose.copy)
        return dev_copy(r->ref, r->t->in, n * sizeof(float), cudaMemcpyDeviceToDevice);
    return launch_own(r->t, TRANSPOSE_REF, r->t->in, r->ref);
}

static void tr_speed(problem *p, check_result *c)
{
    tr *t = p->state;
    p->call = problem_call(p, CALL_SPEED);
    if (p->call < 0 || p->env->plan->calls[p->call].n_launches == 0) {
        check_set(c, CHECK_FAIL, "nothing was launched for the timed matrix");
        return;
    }
    size_t n = (size_t)p->env->plan->specs[p->call].width * p->env->plan->specs[p->call].height;
    tr_ref ref = {t, NULL};
    t->in = t->out = NULL;
    if (!module_own_kernel(p->mod, COPY_ROWS) || !module_own_kernel(p->mod, TRANSPOSE_REF)) {
        check_set(c, CHECK_NOT_MEASURED, "not measured: the grader's copyRow or transpose is not "
                  "in its GPU code (rebuild the grader: make clean)");
    } else if (dev_malloc((void **)&t->in, n * sizeof(float)) != cudaSuccess ||
               dev_malloc((void **)&t->out, n * sizeof(float)) != cudaSuccess ||
               dev_malloc((void **)&ref.ref, n * sizeof(float)) != cudaSuccess) {
        check_set(c, CHECK_FAIL, "could not prepare the timed matrix: no device memory");
    } else {
        /* Every run (warm-up too) on a fresh matrix, its output checked on the device. */
        timed_work kernel = {problem_launch, p, {t->in}, {n}, 1, t->out, n, ref.ref, make_ref, &ref,
                             NULL};
        timed_work copy = {launch_copy, t, {t->in}, {n}, 1, NULL, 0, NULL, NULL, NULL, NULL};
        speed_words w = {NULL, "the grader's copyRow", "the copy", "GB/s",
                         2.0 * n * sizeof(float) / 1e6, /* read in, write out */
                         "A transpose through a tile moves each element once each way, "
                         "coalesced: it can run near copy speed. Conflict-free tile reads (the "
                         "pad), every element's load issued before the barrier and enough "
                         "blocks in flight bring it there."};
        time_against(p, &kernel, &copy, &w, c);
    }
    tr_release(p);
    problem_free(p, ref.ref);
}

/* The tile's bytes: BDIMY rows of the step's elements a thread times BDIMX, padded. */
static uint32_t tr_tile_bytes(const problem *p)
{
    const tr *t = p->state;
    return (uint32_t)(t->bdimy * (t->k->transpose.unroll * t->bdimx + t->pad) *
                      (int)sizeof(float));
}

static void tr_dynamic_hint(const problem *p, uint32_t need, check_result *c)
{
    (void)p;
    check_field(c->hint, sizeof c->hint, "This step's tile is `extern __shared__ float tile[];`, "
                "no size and no static __shared__ array beside it; its BDIMY * (2 * BDIMX + "
                "IPAD) floats, %u bytes, are the launch's third argument.", need);
}

static void tr_setup(problem *p)
{
    tr *t = p->state;
    t->p = p;
    t->k = p->k;
    t->bdimx = p->env->lab->bdimx, t->bdimy = p->env->lab->bdimy;
    t->pad = lab_param_value(p->env->lab, "IPAD");
}

const kind_desc transpose_kind = {
    .name = "transpose", .state_bytes = sizeof(tr), .setup = tr_setup,
    .tile_bytes = tr_tile_bytes, .dynamic_hint = tr_dynamic_hint, .shapes = tr_shapes,
    .run = tr_run, .explain_wrong = written_elsewhere, .passed = tr_passed,
    .prepare = tr_prepare, .bind = tr_bind, .right = tr_right, .release = tr_release,
    .output = tr_output,
    .bounds = 1,
    .judge = {[CHK_LOAD_COALESCING] = judge_side, [CHK_STORE_COALESCING] = judge_side,
              [CHK_SMEM_CONFLICTS] = judge_smem},
    .speed = tr_speed,
};
