/*
 * test_emu_labs.c - the emulator on the kit's own files: every lab file
 * (skeletons, solutions, milestones, planted variants) parses and loads,
 * and every instruction in them is one the emulator runs; the solutions'
 * kernels give the outputs their contracts say (lab headers), at small
 * sizes, launched as their launchers launch them.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, opendir */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu_testlib.h"
#include "../../emu_internal.h"

/* --- every lab file ------------------------------------------------------------------- */

typedef struct file_list {
    char **paths;
    int n, cap;
} file_list;

static void collect(const char *dir, file_list *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            collect(path, out);
        } else if (strstr(e->d_name, ".ptx")) {
            if (out->n == out->cap) {
                out->cap = out->cap ? out->cap * 2 : 64;
                out->paths = realloc(out->paths, (size_t)out->cap * sizeof *out->paths);
            }
            out->paths[out->n++] = strdup(path);
        }
    }
    closedir(d);
}

static void free_list(file_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
}

/* Every instruction of every kernel is bound to a handler or a control step. */
static int unsupported_in(const emu_module *m, char *what, size_t what_size)
{
    for (int k = 0; k < emu_kernel_count(m); k++) {
        const char *file;
        int line;
        emu_line(m, k, 0, &file, &line); /* links the kernel */
        const emu_program *p = m->progs[k];
        if (!p)
            return snprintf(what, what_size, "kernel %d does not link", k), 1;
        for (uint32_t i = 0; i < p->n_code; i++)
            if (p->steps[i].ctl == CTL_UNSUPPORTED) {
                snprintf(what, what_size, "%s (line %u)", ptx_instr_text(&p->code[i]),
                         p->code[i].line);
                return 1;
            }
    }
    return 0;
}

START_TEST(test_every_lab_file_loads)
{
    const char *dir = et_ptx_dir(), *count = getenv("SMEMLAB_EMU_LABS");
    ck_assert_ptr_nonnull(dir);
    char labs[2048];
    snprintf(labs, sizeof labs, "%s/labs", dir);
    file_list l = {0};
    collect(labs, &l);
    ck_assert_int_gt(l.n, 0);
    if (count)
        ck_assert_int_eq(l.n, atoi(count));
    int kernels = 0;
    for (int i = 0; i < l.n; i++) {
        size_t len;
        char *text = et_read_file(l.paths[i], &len);
        ck_assert_ptr_nonnull(text);
        emu_device *d = emu_device_create(UINT64_C(1) << 30);
        emu_module *m;
        char why[512], what[256];
        ck_assert_msg(emu_module_load(d, text, len, &m, why, sizeof why) == 0, "%s: %s",
                      l.paths[i], why);
        kernels += emu_kernel_count(m);
        /* lab1-unemulated and lab1-bulk-store hold an instruction beyond the emulator
           on purpose (tests/planted: their kernel is not graded, never failed) */
        int beyond = unsupported_in(m, what, sizeof what);
        if (strstr(l.paths[i], "-unemulated.ptx") || strstr(l.paths[i], "-bulk-store.ptx"))
            ck_assert_msg(beyond, "%s: every instruction is supported; the variant needs one "
                          "that is not", l.paths[i]);
        else
            ck_assert_msg(!beyond, "%s: %s is not supported", l.paths[i], what);
        emu_module_unload(m);
        emu_device_destroy(d);
        free(text);
    }
    ck_assert_int_gt(kernels, l.n);
    free_list(&l);
}
END_TEST

/* --- labs 1 to 4: the tile kernels --------------------------------------------------- */

enum { ID, TRANSPOSED, RECT };

typedef struct tile_case {
    const char *lab, *kernel;
    unsigned bx, by, dyn;
    int expect;
} tile_case;

static const tile_case tiles[] = {
    {"lab1-square/lab1", "_Z13setRowReadRowPi", 32, 32, 0, ID},
    {"lab1-square/lab1", "_Z13setColReadColPi", 32, 32, 0, ID},
    {"lab1-square/lab1", "_Z13setRowReadColPi", 32, 32, 0, TRANSPOSED},
    {"lab2-dynamic/lab2", "_Z16setRowReadColDynPi", 32, 32, 4096, TRANSPOSED},
    {"lab2-dynamic/lab2", "_Z16setColReadColDynPi", 32, 32, 4096, ID},
    {"lab3-padding/lab3", "_Z16setRowReadColPadPi", 32, 32, 0, TRANSPOSED},
    {"lab3-padding/lab3", "_Z19setRowReadColDynPadPi", 32, 32, 33 * 32 * 4, TRANSPOSED},
    {"lab4-rectangle/lab4", "_Z13setRowReadRowPi", 32, 16, 0, ID},
    {"lab4-rectangle/lab4", "_Z13setColReadColPi", 32, 16, 0, ID},
    {"lab4-rectangle/lab4", "_Z13setRowReadColPi", 32, 16, 0, RECT},
    {"lab4-rectangle/lab4", "_Z16setRowReadColDynPi", 32, 16, 2048, RECT},
    {"lab4-rectangle/lab4", "_Z16setRowReadColPadPi", 32, 16, 0, RECT},
    {"lab4-rectangle/lab4", "_Z19setRowReadColDynPadPi", 32, 16, 34 * 16 * 4, RECT},
};

static et *load_lab(const char *which)
{
    char name[256];
    snprintf(name, sizeof name, "labs/solutions/%s", which);
    return et_load(name);
}

START_TEST(test_tile_solutions)
{
    const tile_case *c = &tiles[_i];
    et *e = load_lab(c->lab);
    unsigned n = c->bx * c->by;
    int out[1024];
    uint64_t params[1] = {et_buf(e, NULL, n * 4)};
    ck_assert_int_eq(et_run(e, c->kernel, 1, c->bx, c->by, c->dyn, params, 1), EMU_OK);
    et_get(e, out, params[0], n * 4);
    for (unsigned idx = 0; idx < n; idx++) {
        unsigned tx = idx % c->bx, ty = idx / c->bx, want = idx;
        if (c->expect == TRANSPOSED)
            want = tx * c->bx + ty;
        else if (c->expect == RECT)
            want = (idx % c->by) * c->bx + idx / c->by;
        ck_assert_msg((unsigned)out[idx] == want, "%s %s: out[%u] = %d, want %u", c->lab,
                      c->kernel, idx, out[idx], want);
    }
    /* per warp: one store, one barrier, one load */
    ck_assert_uint_eq(e->rec.n_shared, 3 * n / 32);
    et_free(e);
}
END_TEST

/* --- lab 5: matrix products ------------------------------------------------------------ */

static float uniform(uint64_t *s)
{
    *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return (float)((*s >> 40) & 0xffffff) / 8388608.0f - 1.0f;
}

/* The contract's tolerance: 1e-3 of max(|ref|, sqrt(K) max|A| max|B|) per element. */
static void check_matmul(const float *C, const float *A, const float *B, int M, int N, int K,
                         const char *what)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int k = 0; k < K; k++)
                ref += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            double tol = 1e-3 * fmax(fabs(ref), sqrt((double)K));
            double got = C[(size_t)i * N + j];
            ck_assert_msg(fabs(got - ref) <= tol, "%s %dx%dx%d: C[%d][%d] = %g, want %g", what, M,
                          N, K, i, j, got, ref);
        }
}

typedef struct matmul_kernel {
    const char *file, *name;
    unsigned tile_m, tile_n, bx, by;
} matmul_kernel;

static const matmul_kernel matmuls[] = {
    {"lab5-matmul/lab5", "_Z11matmulNaivePKfS0_Pfiii", 16, 16, 16, 16},
    {"lab5-matmul/lab5", "_Z11matmulTiledPKfS0_Pfiii", 16, 16, 16, 16},
    {"lab5-matmul/lab5", "_Z12matmulCoarseILb0EEvPKfS1_Pfiii", 128, 128, 256, 1},
    {"lab5-matmul/lab5", "_Z12matmulCoarseILb1EEvPKfS1_Pfiii", 128, 128, 256, 1},
    {"lab5-matmul/milestones/milestones", "_Z11matmulReg1dPKfS0_Pfiii", 64, 64, 512, 1},
    {"lab5-matmul/milestones/milestones", "_Z11matmulReg2dPKfS0_Pfiii", 128, 128, 256, 1},
    {"lab5-matmul/milestones/milestones", "_Z14matmulReg2dVecPKfS0_Pfiii", 128, 128, 256, 1},
};

static void run_matmul(const matmul_kernel *mk, int M, int N, int K)
{
    et *e = load_lab(mk->file);
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = malloc(na * 4), *B = malloc(nb * 4), *C = malloc(nc * 4);
    uint64_t s = (uint64_t)M * 1000003 + (uint64_t)N * 1009 + (uint64_t)K;
    for (size_t i = 0; i < na; i++)
        A[i] = uniform(&s);
    for (size_t i = 0; i < nb; i++)
        B[i] = uniform(&s);
    uint64_t params[6] = {et_buf(e, A, na * 4), et_buf(e, B, nb * 4), et_buf(e, NULL, nc * 4),
                          (uint64_t)M, (uint64_t)N, (uint64_t)K};
    unsigned grid[3] = {(unsigned)(N + (int)mk->tile_n - 1) / mk->tile_n,
                        (unsigned)(M + (int)mk->tile_m - 1) / mk->tile_m, 1};
    unsigned block[3] = {mk->bx, mk->by, 1};
    emu_status st = et_run3(e, mk->name, grid, block, 0, params, 6, EMU_DEFAULT_BUDGET);
    ck_assert_msg(st == EMU_OK, "%s: %s (%s line %d)", mk->name, emu_status_name(st), e->res.why,
                  e->res.line);
    et_get(e, C, params[2], nc * 4);
    check_matmul(C, A, B, M, N, K, mk->name);
    free(A);
    free(B);
    free(C);
    et_free(e);
}

START_TEST(test_matmul_solutions)
{
    static const int sizes[][3] = {{1, 1, 1}, {67, 53, 97}, {31, 130, 20}, {40, 36, 36}};
    const matmul_kernel *mk = &matmuls[_i];
    int vec = strstr(mk->name, "ILb1") || strstr(mk->name, "Vec");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (vec && (sizes[i][1] % 4 || sizes[i][2] % 4))
            continue; /* the vector kernels' launchers need K and N multiples of 4 */
        run_matmul(mk, sizes[i][0], sizes[i][1], sizes[i][2]);
    }
}
END_TEST

/* --- lab 6: convolutions ----------------------------------------------------------------- */

static void set_symbol(et *e, const char *name, const float *v, size_t n)
{
    uint64_t addr, size;
    emu_space space;
    ck_assert_int_eq(emu_module_symbol(e->m, name, &addr, &size, &space), 0);
    ck_assert_int_eq(space, EMU_SPACE_CONST);
    ck_assert_uint_ge(size, n * 4);
    ck_assert_int_eq(emu_write(e->d, addr, v, n * 4), 0);
}

static void check_conv1d(const float *out, const float *in, const float *mask, int n, int mw,
                         const char *what)
{
    for (int i = 0; i < n; i++) {
        double ref = 0;
        for (int j = 0; j < mw; j++) {
            int src = i - mw / 2 + j;
            if (src >= 0 && src < n)
                ref += (double)in[src] * mask[j];
        }
        ck_assert_msg(fabs(out[i] - ref) <= 1e-3 * fmax(fabs(ref), sqrt((double)mw)),
                      "%s n=%d mw=%d: out[%d] = %g, want %g", what, n, mw, i, out[i], ref);
    }
}

START_TEST(test_conv1d_solutions)
{
    /* Every width the solution's conv1dTiled has a kernel of its own for (MW: the odd ones up
       to 15, in a window of registers), and 31, which only the loop of MW = 0 makes. */
    static const int ns[] = {1, 7, 1025, 4099}, mws[] = {1, 3, 5, 7, 9, 11, 13, 15, 31};
    et *e = load_lab("lab6-convolution/lab6");
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof mws / sizeof mws[0]; b++) {
            int n = ns[a], mw = mws[b];
            uint64_t s = (uint64_t)(n * 31 + mw);
            float *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4), mask[31];
            for (int i = 0; i < n; i++)
                in[i] = uniform(&s);
            for (int j = 0; j < mw; j++)
                mask[j] = uniform(&s);
            set_symbol(e, "c_mask1d", mask, (size_t)mw);
            uint64_t bin = et_buf(e, in, (size_t)n * 4), bmask = et_buf(e, mask, sizeof mask);
            uint64_t bout = et_buf(e, NULL, (size_t)n * 4);
            uint64_t basic[5] = {bin, bmask, bout, (uint64_t)n, (uint64_t)mw};
            ck_assert_int_eq(et_run(e, "_Z11conv1dBasicPKfS0_Pfii", (unsigned)(n + 255) / 256, 256,
                                    1, 0, basic, 5), EMU_OK);
            et_get(e, out, bout, (size_t)n * 4);
            check_conv1d(out, in, mask, n, mw, "conv1dBasic");
            uint64_t tiled[4] = {bin, bout, (uint64_t)n, (uint64_t)mw};
            for (int v = 0; v < 4; v++) { /* conv1dTiled<MW, VEC>: MW = mw, then 0; VEC 1, 0 */
                int MW = v < 2 ? mw : 0, vec = v % 2 == 0;
                if (MW > 15)
                    continue;
                char name[64];
                snprintf(name, sizeof name, "_Z11conv1dTiledILi%dELb%dEEvPKfPfii", MW, vec);
                ck_assert_int_eq(emu_memset(e->d, bout, 0, (size_t)n * 4), 0);
                ck_assert_int_eq(et_run(e, name, (unsigned)(n + 1023) / 1024, 256, 1, 0, tiled, 4),
                                 EMU_OK);
                et_get(e, out, bout, (size_t)n * 4);
                check_conv1d(out, in, mask, n, mw, name);
            }
            emu_free(e->d, bin);
            emu_free(e->d, bmask);
            emu_free(e->d, bout);
            free(in);
            free(out);
        }
    et_free(e);
}
END_TEST

START_TEST(test_conv2d_solutions)
{
    /* widths that are multiples of 4 run the float4 kernels (VEC), the others the scalar ones;
       132 x 100 and 68 x 67 hold blocks whose tile and halo lie wholly inside the image (the
       unchecked path of a compile-time mask: blocks (1..2, 1..2) and (1, 1) at r = 3) */
    static const int dims[][2] = {{7, 5},  {33, 31}, {61, 67},  {1, 129},
                                  {64, 36}, {4, 1},  {132, 100}, {68, 67}};
    static const int mws[] = {1, 3, 5, 7};
    et *e = load_lab("lab6-convolution/lab6");
    for (size_t a = 0; a < sizeof dims / sizeof dims[0]; a++)
        for (size_t b = 0; b < 4; b++) {
            int w = dims[a][0], h = dims[a][1], mw = mws[b], r = mw / 2, vec = w % 4 == 0;
            size_t n = (size_t)w * h;
            uint64_t s = (uint64_t)(w * 7 + h * 13 + mw);
            float *in = malloc(n * 4), *out = malloc(n * 4), mask[49];
            for (size_t i = 0; i < n; i++)
                in[i] = uniform(&s);
            for (int j = 0; j < mw * mw; j++)
                mask[j] = uniform(&s);
            set_symbol(e, "c_mask2d", mask, (size_t)(mw * mw));
            uint64_t params[5] = {et_buf(e, in, n * 4), et_buf(e, NULL, n * 4), (uint64_t)w,
                                  (uint64_t)h, (uint64_t)mw};
            char name[64];
            for (int generic = 0; generic < 2; generic++) {
                snprintf(name, sizeof name, "_Z11conv2dTiledILi%dELb%dEEvPKfPfiii",
                         generic ? 0 : mw, vec);
                /* 32 x 32 outputs a block, 4 columns x 4 rows a thread (TILE2D, ROWS2D) */
                unsigned grid[3] = {(unsigned)(w + 31) / 32, (unsigned)(h + 31) / 32, 1};
                unsigned block[3] = {8, 8, 1};
                ck_assert_int_eq(et_run3(e, name, grid, block, 0, params, 5, EMU_DEFAULT_BUDGET),
                                 EMU_OK);
                et_get(e, out, params[1], n * 4);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        double ref = 0;
                        for (int i = 0; i < mw; i++)
                            for (int j = 0; j < mw; j++) {
                                int sx = x - r + j, sy = y - r + i;
                                if (sx >= 0 && sx < w && sy >= 0 && sy < h)
                                    ref += (double)in[sy * w + sx] * mask[i * mw + j];
                            }
                        double got = out[y * w + x];
                        ck_assert_msg(fabs(got - ref) <= 1e-3 * fmax(fabs(ref), mw),
                                      "%s %dx%d mw=%d: out(%d, %d) = %g, want %g", name, w, h,
                                      mw, x, y, got, ref);
                    }
            }
            emu_free(e->d, params[0]);
            emu_free(e->d, params[1]);
            free(in);
            free(out);
        }
    et_free(e);
}
END_TEST

START_TEST(test_transpose_solutions)
{
    /* Step 5's kernels as their launchers launch them (blocks of 32 x 16 making 64 x 64:
       STACK = 4 padded tiles): sizes whose blocks lie wholly inside (the unguarded path),
       ragged ones, and ones smaller than a block, both paths in one launch where they mix. */
    static const int dims[][2] = {{256, 256}, {200, 136}, {161, 83}, {64, 128}, {65, 129},
                                  {128, 64}, {4, 8}, {1, 1}};
    static const char *const kernels[] = {"_Z22transposeSmemUnrollPadPKfPfii",
                                          "_Z25transposeSmemUnrollPadDynPKfPfii"};
    et *e = load_lab("lab9-transpose/lab9");
    for (size_t a = 0; a < sizeof dims / sizeof dims[0]; a++)
        for (int k = 0; k < 2; k++) {
            int nx = dims[a][0], ny = dims[a][1];
            size_t n = (size_t)nx * ny;
            uint64_t s = (uint64_t)(nx * 1000 + ny);
            float *in = malloc(n * 4), *out = malloc(n * 4);
            for (size_t i = 0; i < n; i++)
                in[i] = uniform(&s);
            uint64_t params[4] = {et_buf(e, in, n * 4), et_buf(e, NULL, n * 4), (uint64_t)nx,
                                  (uint64_t)ny};
            unsigned grid[3] = {(unsigned)(nx + 63) / 64, (unsigned)(ny + 63) / 64, 1};
            unsigned block[3] = {32, 16, 1}, dyn = k ? 4 * 16 * (2 * 32 + 2) * 4 : 0;
            ck_assert_int_eq(et_run3(e, kernels[k], grid, block, dyn, params, 4,
                                     EMU_DEFAULT_BUDGET), EMU_OK);
            et_get(e, out, params[1], n * 4);
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++)
                    ck_assert_msg(out[(size_t)x * ny + y] == in[(size_t)y * nx + x],
                                  "%s %d x %d: out[%d][%d] is not in[%d][%d]", kernels[k], nx,
                                  ny, x, y, y, x);
            emu_free(e->d, params[0]);
            emu_free(e->d, params[1]);
            free(in);
            free(out);
        }
    et_free(e);
}
END_TEST

Suite *emu_labs_suite(void)
{
    Suite *s = suite_create("emu_labs");
    TCase *tc = tcase_create("emu_labs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_lab_file_loads);
    struct stat st;
    if (stat("solutions", &st) == 0) { /* the student kit has none to run */
        tcase_add_loop_test(tc, test_tile_solutions, 0, (int)(sizeof tiles / sizeof tiles[0]));
        tcase_add_loop_test(tc, test_matmul_solutions, 0, (int)(sizeof matmuls / sizeof matmuls[0]));
        tcase_add_test(tc, test_conv1d_solutions);
        tcase_add_test(tc, test_conv2d_solutions);
        tcase_add_test(tc, test_transpose_solutions);
    }
    suite_add_tcase(s, tc);
    return s;
}
