/* emu_testlib.c - helpers of the emulator's unit tests (emu_testlib.h). */
#include "emu_testlib.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *et_ptx_dir(void)
{
    return getenv("SMEMLAB_EMU_PTX");
}

char *et_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
            if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
            } else {
                buf[n] = '\0';
                *len = (size_t)n;
            }
        }
    }
    fclose(f);
    return buf;
}

unsigned char *et_slurp(const char *path, size_t *len)
{
    char *d = et_read_file(path, len);
    ck_assert_msg(d != NULL, "cannot read %s (make check-unit builds it)", path);
    return (unsigned char *)d;
}

static void on_shared(void *ctx, const emu_shared_record *r)
{
    et_records *rec = ctx;
    if (rec->n_shared == rec->cap_shared) {
        rec->cap_shared = rec->cap_shared ? rec->cap_shared * 2 : 256;
        rec->shared = realloc(rec->shared, rec->cap_shared * sizeof *rec->shared);
        ck_assert_ptr_nonnull(rec->shared);
    }
    rec->shared[rec->n_shared++] = *r;
}

static void on_global(void *ctx, const emu_global_record *g)
{
    et_records *rec = ctx;
    if (rec->n_global == rec->cap_global) {
        rec->cap_global = rec->cap_global ? rec->cap_global * 2 : 256;
        rec->global = realloc(rec->global, rec->cap_global * sizeof *rec->global);
        ck_assert_ptr_nonnull(rec->global);
    }
    rec->global[rec->n_global++] = *g;
}

static void on_sync(void *ctx, const emu_sync_error *e)
{
    et_records *rec = ctx;
    if (rec->n_sync < ET_MAX_SYNC)
        rec->sync[rec->n_sync++] = *e;
}

et *et_load_text(const char *ptx)
{
    et *e = calloc(1, sizeof *e);
    ck_assert_ptr_nonnull(e);
    e->d = emu_device_create(UINT64_C(1) << 30);
    ck_assert_ptr_nonnull(e->d);
    int rc = emu_module_load(e->d, ptx, strlen(ptx), &e->m, e->why, sizeof e->why);
    ck_assert_msg(rc == 0, "the PTX does not load: %s", e->why);
    return e;
}

et *et_load(const char *name)
{
    const char *dir = et_ptx_dir();
    ck_assert_msg(dir != NULL, "SMEMLAB_EMU_PTX is not set (make check-unit sets it)");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.ptx", dir, name);
    size_t len;
    char *text = et_read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    et *e = et_load_text(text);
    free(text);
    return e;
}

void et_clear_records(et *e)
{
    e->rec.n_shared = e->rec.n_global = 0;
}

void et_free(et *e)
{
    if (!e)
        return;
    emu_module_unload(e->m);
    emu_device_destroy(e->d);
    free(e->rec.shared);
    free(e->rec.global);
    free(e);
}

uint64_t et_buf(et *e, const void *data, size_t n)
{
    uint64_t a;
    ck_assert_int_eq(emu_alloc(e->d, n, &a), 0);
    if (data)
        ck_assert_int_eq(emu_write(e->d, a, data, n), 0);
    return a;
}

void et_get(et *e, void *dst, uint64_t addr, size_t n)
{
    ck_assert_int_eq(emu_read(e->d, dst, addr, n), 0);
}

/* Device printf's output, kept (capped) for the test to read. */
static void et_print(void *ctx, const char *text, size_t len)
{
    et *e = ctx;
    size_t room = sizeof e->printed - 1 - e->n_printed;
    if (len > room)
        len = room;
    memcpy(e->printed + e->n_printed, text, len);
    e->n_printed += len;
    e->printed[e->n_printed] = '\0';
}

emu_status et_run3(et *e, const char *kernel, const unsigned grid[3], const unsigned block[3],
                   uint32_t dynamic_shared, const uint64_t *params, int n_params,
                   uint64_t budget)
{
    int k = emu_kernel_find(e->m, kernel);
    ck_assert_msg(k >= 0, "no kernel %s", kernel);
    emu_kernel_info ki;
    ck_assert_int_eq(emu_kernel_describe(e->m, k, &ki), 0);
    ck_assert_int_eq(ki.n_params, n_params);
    unsigned char buf[4096];
    memset(buf, 0, sizeof buf);
    ck_assert_uint_le(ki.param_bytes, sizeof buf);
    for (int i = 0; i < n_params; i++)
        memcpy(buf + ki.param_offset[i], &params[i],
               ki.param_size[i] < 8 ? ki.param_size[i] : 8);
    emu_launch l = {.kernel = k, .grid = {grid[0], grid[1], grid[2]},
                    .block = {block[0], block[1], block[2]}, .dynamic_shared = dynamic_shared,
                    .params = buf, .param_bytes = ki.param_bytes, .shared_fill = 0xdeadbeefu,
                    .print = et_print, .print_ctx = e, .reverse = (uint8_t)e->reverse,
                    .sm_count = e->machine.sm_count, .grid_id = e->machine.grid_id,
                    .time_base = e->machine.time_base, .perturb = e->perturb,
                    .perturb_lo = e->perturb_lo, .perturb_hi = e->perturb_hi,
                    .perturb_at = e->perturb_at};
    e->n_printed = 0;
    e->printed[0] = '\0';
    emu_sink sink = {&e->rec, on_shared, on_global, on_sync, NULL};
    e->rec.n_sync = 0;
    return emu_run(e->m, &l, &sink, budget, &e->res);
}

emu_status et_run(et *e, const char *kernel, unsigned gx, unsigned bx, unsigned by,
                  uint32_t dynamic_shared, const uint64_t *params, int n_params)
{
    unsigned grid[3] = {gx, 1, 1}, block[3] = {bx, by, 1};
    return et_run3(e, kernel, grid, block, dynamic_shared, params, n_params,
                   EMU_DEFAULT_BUDGET);
}

uint32_t et_f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
float et_u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
uint64_t et_d2u(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
double et_u2d(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}
