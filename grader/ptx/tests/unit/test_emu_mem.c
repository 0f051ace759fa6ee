/*
 * test_emu_mem.c - the emulator's memory (tests/kernels/mem_ops.cu):
 * device allocations, shared accesses of every width and their records,
 * generic addressing, local arrays, module variables with initialisers,
 * atomics, and the faults of bad addresses.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "emu_testlib.h"

START_TEST(test_device_memory)
{
    emu_device *d = emu_device_create(1u << 20);
    uint64_t a, b, c;
    ck_assert_int_eq(emu_alloc(d, 1000, &a), 0);
    ck_assert_int_eq(emu_alloc(d, 24, &b), 0);
    ck_assert_uint_eq(a % 256, 0);
    ck_assert_uint_eq(b % 256, 0);
    ck_assert_uint_gt(b, a + 1000); /* a gap: running off a faults */
    ck_assert_int_ne(emu_alloc(d, 1u << 20, &c), 0); /* past the limit */
    unsigned char buf[1000], back[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = (unsigned char)i;
    ck_assert_int_eq(emu_write(d, a, buf, 1000), 0);
    ck_assert_int_eq(emu_read(d, back, a, 1000), 0);
    ck_assert_int_eq(memcmp(buf, back, 1000), 0);
    ck_assert_int_ne(emu_write(d, a + 1, buf, 1000), 0); /* one byte past the end */
    ck_assert_int_ne(emu_read(d, back, a - 1, 2), 0);
    ck_assert_int_eq(emu_memset(d, b, 0x5a, 24), 0);
    ck_assert_int_eq(emu_copy(d, a, b, 24), 0);
    ck_assert_uint_eq(((unsigned char *)emu_host_view(d, a, 24))[23], 0x5a);
    ck_assert_ptr_null(emu_host_view(d, a, 1001));
    ck_assert_int_eq(emu_free(d, a), 0);
    ck_assert_ptr_null(emu_host_view(d, a, 1)); /* freed: never mapped again */
    ck_assert_int_ne(emu_free(d, a), 0);
    ck_assert_int_eq(emu_free(d, 0), 0);
    ck_assert_int_eq(emu_alloc(d, 1u << 19, &c), 0); /* the freed bytes count again */
    ck_assert_uint_gt(c, b);
    emu_device_destroy(d);
}
END_TEST

static const emu_shared_record *nth_shared(const et *e, size_t i)
{
    ck_assert_uint_gt(e->rec.n_shared, i);
    return &e->rec.shared[i];
}

START_TEST(test_shared_widths_and_records)
{
    et *e = et_load("mem_ops");
    unsigned out[6 * 32];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "shared_widths", 1, 32, 1, 0, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (unsigned t = 0; t < 32; t++) {
        ck_assert_uint_eq(out[t], t + 1);
        ck_assert_uint_eq(out[32 + t], t + 3);
        ck_assert_uint_eq(out[64 + t], (t + 4) + ((t + 5) << 16));
        ck_assert_uint_eq(out[96 + t], t + 6000);
        ck_assert_uint_eq(out[128 + t], t + 5);
        ck_assert_uint_eq(out[160 + t], 0x40); /* a byte of lane 31's 3.0f, sign-extended */
    }
    /* 5 stores, the barrier, 7 loads; offsets as the kernel computes them */
    static const struct {
        unsigned width, flags, base, step;
    } want[] = {{1, EMU_REC_WRITE, 0, 1},   {2, EMU_REC_WRITE, 32, 2},   {4, EMU_REC_WRITE, 96, 4},
                {8, EMU_REC_WRITE, 224, 8}, {16, EMU_REC_WRITE, 480, 16}, {0, EMU_REC_BARRIER, 0, 0},
                {1, EMU_REC_READ, 0, 1},    {2, EMU_REC_READ, 32, 2},    {4, EMU_REC_READ, 96, 4},
                {8, EMU_REC_READ, 224, 8},  {16, EMU_REC_READ, 480, 16}, {8, EMU_REC_READ, 224, 8},
                {1, EMU_REC_READ, 991, 0}};
    ck_assert_uint_eq(e->rec.n_shared, 13);
    uint64_t last_pc = 0;
    for (size_t i = 0; i < 13; i++) {
        const emu_shared_record *r = nth_shared(e, i);
        ck_assert_uint_eq(r->flags, want[i].flags);
        ck_assert_uint_eq(r->width, want[i].width);
        ck_assert_uint_eq(r->active, 0xffffffffu);
        ck_assert_uint_eq(r->block, 0);
        ck_assert_uint_eq(r->warp, 0);
        ck_assert_uint_eq(r->pc % 16, 0);
        ck_assert(i == 0 || r->pc > last_pc);
        last_pc = r->pc;
        if (!(r->flags & EMU_REC_BARRIER))
            for (unsigned l = 0; l < 32; l++)
                ck_assert_uint_eq(r->addr[l], want[i].base + want[i].step * l);
        const char *file;
        int line;
        int k = emu_kernel_find(e->m, "shared_widths");
        ck_assert_int_eq(emu_line(e->m, k, r->pc, &file, &line), 0);
        ck_assert_ptr_nonnull(strstr(file, "mem_ops.cu"));
        ck_assert_int_gt(line, 10);
    }
    et_free(e);
}
END_TEST

START_TEST(test_generic_addressing)
{
    et *e = et_load("mem_ops");
    int g[64], out[192];
    memset(g, 0, sizeof g);
    uint64_t params[2] = {et_buf(e, g, sizeof g), et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "generic_access", 1, 64, 1, 0, params, 2), EMU_OK);
    et_get(e, out, params[1], sizeof out);
    for (int t = 0; t < 64; t++) {
        int want = t % 3 == 0 ? 63 - t + 100 : t % 3 == 1 ? t * 10 + t % 8 : t + 200;
        ck_assert_int_eq(out[t], want);
        ck_assert_int_eq(out[64 + t], t % 3 == 0 ? 1 : t % 3 == 1 ? 2 : 4);
        ck_assert_int_eq(out[128 + t], 4 * t);
    }
    /* the generic load: a shared record for the shared lanes, a global one for the others */
    uint32_t shared_lanes = 0, global_lanes = 0;
    for (int l = 0; l < 32; l++) {
        shared_lanes |= (uint32_t)(l % 3 == 0) << l;
        global_lanes |= (uint32_t)(l % 3 == 2) << l;
    }
    int found = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++) {
        const emu_shared_record *r = &e->rec.shared[i];
        if (r->warp != 0 || r->active != shared_lanes)
            continue;
        for (size_t j = 0; j < e->rec.n_global; j++) {
            const emu_global_record *gr = &e->rec.global[j];
            if (gr->pc == r->pc && gr->warp == 0 && gr->active == global_lanes) {
                ck_assert_uint_eq(gr->addr[2], params[0] + 8);
                found = 1;
            }
        }
        ck_assert_uint_eq(r->addr[3], 4 * (63 - 3));
    }
    ck_assert(found);
    et_free(e);
}
END_TEST

START_TEST(test_local_array)
{
    et *e = et_load("mem_ops");
    int in[64], out[64];
    for (int t = 0; t < 64; t++)
        in[t] = (t * 37 + 11) & 255;
    uint64_t params[2] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "local_array", 1, 64, 1, 0, params, 2), EMU_OK);
    et_get(e, out, params[1], sizeof out);
    for (int t = 0; t < 64; t++) {
        int buf[16];
        for (int i = 0; i < 16; i++)
            buf[(i * 7 + t) % 16] = in[t] * 16 + i;
        ck_assert_int_eq(out[t], buf[in[t] & 15] + buf[(in[t] >> 4) & 15]);
    }
    et_free(e);
}
END_TEST

START_TEST(test_module_variables)
{
    et *e = et_load("mem_ops");
    uint64_t addr, size, gv_addr;
    emu_space space;
    ck_assert_int_eq(emu_module_symbol(e->m, "ctab", &addr, &size, &space), 0);
    ck_assert_uint_eq(size, 16);
    ck_assert_int_eq(space, EMU_SPACE_CONST);
    ck_assert_int_eq(emu_module_symbol(e->m, "gv", &gv_addr, &size, &space), 0);
    ck_assert_int_eq(space, EMU_SPACE_GLOBAL);
    ck_assert_int_eq(emu_module_symbol(e->m, "gp", &addr, &size, &space), 0);
    uint64_t gp;
    et_get(e, &gp, addr, 8);
    ck_assert_uint_eq(gp, gv_addr); /* generic(gv) */
    ck_assert_int_ne(emu_module_symbol(e->m, "nosuch", &addr, &size, &space), 0);
    float mask[8];
    for (int i = 0; i < 8; i++)
        mask[i] = (float)(i * 100);
    ck_assert_int_eq(emu_module_symbol(e->m, "cmask", &addr, &size, &space), 0);
    ck_assert_int_eq(emu_write(e->d, addr, mask, sizeof mask), 0);
    int out[32];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "module_vars", 1, 32, 1, 0, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    static const int ctab[4] = {10, 20, 30, 40}, gtab2[3] = {3, 5, 7}, gv[2] = {7, 8};
    for (int t = 0; t < 32; t++)
        ck_assert_int_eq(out[t], ctab[t % 4] + gtab2[t % 3] + gv[t % 2] + (t % 8) * 100);
    int gv_after[2];
    et_get(e, gv_after, gv_addr, sizeof gv_after);
    ck_assert_int_eq(gv_after[0], 7);
    ck_assert_int_eq(gv_after[1], 80);
    et_free(e);
}
END_TEST

/* ld.const is recorded as EMU_REC_CONST with every lane's address (never a global load);
   ld.global.nc as a global load marked EMU_REC_NC; a plain load and a store unmarked. */
START_TEST(test_const_and_nc_records)
{
    et *e = et_load("const_ops");
    float t[32], p[32], out[32];
    for (int i = 0; i < 32; i++)
        t[i] = (float)i, p[i] = 1000.0f;
    uint64_t cm, size;
    emu_space space;
    ck_assert_int_eq(emu_module_symbol(e->m, "cmask", &cm, &size, &space), 0);
    uint64_t params[3] = {et_buf(e, t, sizeof t), et_buf(e, p, sizeof p),
                          et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "const_and_nc", 1, 32, 1, 0, params, 3), EMU_OK);
    int per_lane = 0, broadcast = 0, nc = 0, plain = 0, stores = 0;
    for (size_t j = 0; j < e->rec.n_global; j++) {
        const emu_global_record *g = &e->rec.global[j];
        ck_assert_uint_eq(g->active, 0xffffffffu);
        if (g->flags & EMU_REC_CONST) {
            ck_assert(!(g->flags & (EMU_REC_WRITE | EMU_REC_NC)));
            int lane7 = g->addr[7] == cm + 28, all0 = g->addr[7] == cm;
            per_lane += lane7 && g->addr[8] == cm;
            broadcast += all0 && g->addr[31] == cm;
        } else if (g->flags & EMU_REC_WRITE) {
            stores += !(g->flags & EMU_REC_NC);
        } else if (g->flags & EMU_REC_NC) {
            nc += g->addr[5] == params[0] + 20;
        } else {
            plain += g->addr[5] == params[1] + 20;
        }
    }
    ck_assert_int_eq(per_lane, 1);
    ck_assert_int_eq(broadcast, 1);
    ck_assert_int_eq(nc, 1);
    ck_assert_int_eq(plain, 1);
    ck_assert_int_eq(stores, 1);
    et_free(e);
}
END_TEST

START_TEST(test_atomics)
{
    et *e = et_load("mem_ops");
    int gi[5] = {0, -1000, 1000, -1, 0};
    unsigned gu[5] = {0xffffffffu, 0, 0, 0, 0};
    float gf[1] = {0};
    unsigned long long g64[1] = {0};
    int out[132];
    uint64_t params[5] = {et_buf(e, gi, sizeof gi), et_buf(e, gu, sizeof gu),
                          et_buf(e, gf, sizeof gf), et_buf(e, g64, sizeof g64),
                          et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "atomics", 1, 32, 1, 0, params, 5), EMU_OK);
    et_get(e, gi, params[0], sizeof gi);
    et_get(e, gu, params[1], sizeof gu);
    et_get(e, gf, params[2], sizeof gf);
    et_get(e, g64, params[3], sizeof g64);
    et_get(e, out, params[4], sizeof out);
    ck_assert_int_eq(gi[0], 496);
    ck_assert_int_eq(gi[1], 43);
    ck_assert_int_eq(gi[2], 69);
    ck_assert_int_eq(gi[3], 31);
    ck_assert_int_eq(gi[4], 31);
    ck_assert_uint_eq(gu[0], 0);
    ck_assert_uint_eq(gu[1], 0xffffffffu);
    ck_assert_uint_eq(gu[2], 0);
    ck_assert_uint_eq(gu[3], 2); /* 32 increments wrapping after 9 */
    ck_assert_uint_eq(gu[4], 4); /* 32 decrements from 0 wrapping to 5 */
    ck_assert(gf[0] == 16.0f);
    ck_assert_uint_eq(g64[0], 496ull << 33);
    for (int t = 0; t < 32; t++) {
        ck_assert_int_eq(out[t], t - 1);      /* compare-and-swap, lane after lane */
        ck_assert_int_eq(out[64 + t], t ? t - 1 : 0); /* exchange */
    }
    ck_assert_int_eq(out[128], 112);
    ck_assert_int_eq(out[129], 120);
    ck_assert_int_eq(out[130], 128);
    ck_assert_int_eq(out[131], 136);
    int atomic_records = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++)
        atomic_records += e->rec.shared[i].flags == (EMU_REC_READ | EMU_REC_WRITE);
    ck_assert_int_eq(atomic_records, 2);
    int global_atomics = 0;
    for (size_t i = 0; i < e->rec.n_global; i++)
        global_atomics += e->rec.global[i].flags == (EMU_REC_READ | EMU_REC_WRITE);
    ck_assert_int_eq(global_atomics, 12);
    et_free(e);
}
END_TEST

START_TEST(test_faults)
{
    et *e = et_load("mem_ops");
    uint64_t p = et_buf(e, NULL, 32 * 4);
    uint64_t params[2] = {p, 32};
    ck_assert_int_eq(et_run(e, "oob", 1, 32, 1, 0, params, 2), EMU_FAULT);
    ck_assert_ptr_nonnull(strstr(e->res.why, "illegal memory access"));
    ck_assert_ptr_nonnull(e->res.file);
    ck_assert_int_gt(e->res.line, 0);
    params[1] = 0; /* in bounds */
    ck_assert_int_eq(et_run(e, "oob", 1, 32, 1, 0, params, 2), EMU_OK);

    uint64_t q[2] = {et_buf(e, NULL, 256), et_buf(e, NULL, 128)};
    ck_assert_int_eq(et_run(e, "misaligned", 1, 32, 1, 0, q, 2), EMU_FAULT);
    ck_assert_ptr_nonnull(strstr(e->res.why, "misaligned"));
    ck_assert_int_eq(e->res.fault_misaligned, 1); /* a GPU's cudaErrorMisalignedAddress */
    params[1] = 32; /* an illegal address is no misaligned one */
    ck_assert_int_eq(et_run(e, "oob", 1, 32, 1, 0, params, 2), EMU_FAULT);
    ck_assert_int_eq(e->res.fault_misaligned, 0);

    /* 32 static bytes: reads past them are recorded at their offsets (the grader names
       them) and fault only past the most shared memory a block can have */
    uint64_t r[2] = {et_buf(e, NULL, 128), 0};
    et_clear_records(e);
    ck_assert_int_eq(et_run(e, "shared_past", 1, 32, 1, 0, r, 2), EMU_OK);
    int past = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++)
        if (e->rec.shared[i].flags == EMU_REC_READ && e->rec.shared[i].addr[31] == 124)
            past = 1;
    ck_assert(past);
    r[1] = 1;
    et_clear_records(e);
    ck_assert_int_eq(et_run(e, "shared_past", 1, 32, 1, 0, r, 2), EMU_OK);
    past = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++)
        if (e->rec.shared[i].flags == EMU_REC_READ && e->rec.shared[i].addr[31] == 128)
            past = 1;
    ck_assert(past);
    r[1] = 227 * 1024 / 4; /* lane 0 at the end of what an SM grants: a fault */
    ck_assert_int_eq(et_run(e, "shared_past", 1, 32, 1, 0, r, 2), EMU_FAULT);
    ck_assert_ptr_nonnull(strstr(e->res.why, "shared memory"));
    et_free(e);
}
END_TEST

/*
 * Guard zones (emu_guard, docs/emulator.md#bounds): an access into the bytes before or
 * after an array is no fault, reads what the owner put there, and is reported (the
 * lane, the address, the array); past the zones it faults as before.
 */
START_TEST(test_guard_zones)
{
    enum { GUARD = 256, ARRAY = 32 * 4 };
    et *e = et_load("bounds_ops");
    unsigned char fill[GUARD];
    memset(fill, 0xEE, sizeof fill);
    uint64_t raw = et_buf(e, NULL, GUARD + ARRAY + GUARD), p = raw + GUARD;
    ck_assert_int_eq(emu_write(e->d, raw, fill, GUARD), 0);
    ck_assert_int_eq(emu_write(e->d, p + ARRAY, fill, GUARD), 0);
    ck_assert_int_ne(emu_guard(e->d, raw + 4, 0, 0), 0); /* no allocation starts there */
    ck_assert_int_ne(emu_guard(e->d, raw, GUARD + ARRAY, GUARD + 1), 0); /* more than it has */
    ck_assert_int_eq(emu_guard(e->d, raw, GUARD, GUARD), 0);
    uint64_t out = et_buf(e, NULL, ARRAY);
    uint64_t params[3] = {p, 0, out};
    int got[32];

    ck_assert_int_eq(et_run(e, "oob_read", 1, 32, 1, 0, params, 3), EMU_OK);
    ck_assert_uint_eq(e->res.oob_errors, 0);

    params[1] = 4; /* lanes 28-31 read the 4 words past the array */
    ck_assert_int_eq(et_run(e, "oob_read", 1, 32, 1, 0, params, 3), EMU_OK);
    ck_assert_uint_eq(e->res.oob_errors, 4);
    const emu_oob *o = &e->res.first_oob;
    ck_assert_uint_eq(o->lane, 28);
    ck_assert_uint_eq(o->addr, p + ARRAY);
    ck_assert_uint_eq(o->width, 4);
    ck_assert_uint_eq(o->flags, EMU_REC_READ);
    ck_assert_uint_eq(o->base, p);
    ck_assert_uint_eq(o->size, ARRAY);
    ck_assert_ptr_nonnull(o->file);
    ck_assert_int_gt(o->line, 0);
    et_get(e, got, out, sizeof got);
    ck_assert_uint_eq((uint32_t)got[31], 0xEEEEEEEEu); /* the guard's bytes, as on a GPU */

    params[1] = 32; /* the whole warp past it: the lane-by-lane path */
    ck_assert_int_eq(et_run(e, "oob_read", 1, 32, 1, 0, params, 3), EMU_OK);
    ck_assert_uint_eq(e->res.oob_errors, 32);
    ck_assert_uint_eq(e->res.first_oob.lane, 0);

    params[1] = (uint64_t)(int64_t)-1; /* lane 0 reads the word before it */
    ck_assert_int_eq(et_run(e, "oob_read", 1, 32, 1, 0, params, 3), EMU_OK);
    ck_assert_uint_eq(e->res.oob_errors, 1);
    ck_assert_uint_eq(e->res.first_oob.addr, p - 4);

    params[1] = (ARRAY + GUARD) / 4; /* past the zone: unmapped, a fault */
    ck_assert_int_eq(et_run(e, "oob_read", 1, 32, 1, 0, params, 3), EMU_FAULT);

    params[0] = out, params[1] = 1; /* an array with no zones: its neighbour's gap faults */
    ck_assert_int_eq(et_run(e, "oob_read", 1, 32, 1, 0, params, 3), EMU_FAULT);
    ck_assert_uint_eq(e->res.oob_errors, 0);
    et_free(e);
}
END_TEST

START_TEST(test_dynamic_after_static)
{
    et *e = et_load("mem_ops");
    int k = emu_kernel_find(e->m, "dynamic_after_static");
    emu_kernel_info ki;
    ck_assert_int_eq(emu_kernel_describe(e->m, k, &ki), 0);
    ck_assert_uint_eq(ki.static_shared, 5);
    ck_assert_int_eq(ki.dynamic_shared, 1);
    int out[32];
    uint64_t params[1] = {et_buf(e, NULL, sizeof out)};
    ck_assert_int_eq(et_run(e, "dynamic_after_static", 1, 32, 1, 128, params, 1), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    for (int t = 0; t < 32; t++)
        ck_assert_int_eq(out[t], 31 - t + 1);
    int found = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++) {
        const emu_shared_record *rec = &e->rec.shared[i];
        if (rec->flags == EMU_REC_WRITE && rec->width == 4) {
            ck_assert_uint_eq(rec->addr[0], 16);
            ck_assert_uint_eq(rec->addr[31], 16 + 124);
            found = 1;
        }
    }
    ck_assert(found);
    et_free(e);
}
END_TEST

/* The block's reserved shared region (docs/emulator.md#reserved): %reserved_smem_offset_*
   name a region of its own, apart from the kernel's bytes, which starts as the rest of
   shared memory does (a GPU leaves old contents) and holds what one warp writes for
   another; its accesses are not recorded as accesses (a tile barrier's, as the order it
   gives: release and acquire records), the kernel's keep their offsets. */
START_TEST(test_reserved_region)
{
    et *e = et_load("reserved_ops");
    unsigned out[6], seen[65];
    uint64_t params[2] = {et_buf(e, NULL, sizeof out), et_buf(e, NULL, sizeof seen)};
    ck_assert_int_eq(et_run(e, "reserved_regs", 1, 64, 1, 0, params, 2), EMU_OK);
    et_get(e, out, params[0], sizeof out);
    et_get(e, seen, params[1], sizeof seen);
    ck_assert_uint_eq(out[0], EMU_RESERVED_OFFSET);
    ck_assert_uint_eq(out[1], EMU_RESERVED_OFFSET + EMU_RESERVED_USED);
    ck_assert_uint_eq(out[2], EMU_RESERVED_OFFSET + EMU_RESERVED_BYTES);
    ck_assert_uint_eq(out[3], EMU_RESERVED_OFFSET);
    ck_assert_uint_eq(out[4], EMU_RESERVED_OFFSET);
    ck_assert_uint_eq(out[5], 0xdeadbeefu); /* the launch's fill, as the kernel's bytes */
    ck_assert_uint_eq(seen[0], 0x600dcafeu); /* warp 0's store, read by warp 1 */
    for (unsigned t = 0; t < 64; t++)
        ck_assert_uint_eq(seen[1 + t], 63 - t);
    size_t mine = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++) {
        const emu_shared_record *r = &e->rec.shared[i];
        if (r->flags & EMU_REC_BARRIER)
            continue;
        for (int l = 0; l < 32; l++)
            if (r->active >> l & 1u)
                ck_assert_uint_lt(r->addr[l], 256); /* mine[]: never the toolkit's */
        mine++;
    }
    ck_assert_uint_eq(mine, 4); /* mine[t] = t and mine[63 - t], two warps each */

    /* cooperative groups' tile of two warps: tile.sync() and cg::reduce through the
       reserved region, 4 blocks of 256 threads */
    enum { N = 1024 };
    int in[N], got[N], sums[N / 64];
    for (int i = 0; i < N; i++)
        in[i] = i * 7 % 101;
    uint64_t p3[3] = {et_buf(e, in, sizeof in), et_buf(e, NULL, sizeof got),
                      et_buf(e, NULL, sizeof sums)};
    ck_assert_int_eq(et_run(e, "cg_tile64", N / 256, 256, 1, 0, p3, 3), EMU_OK);
    et_get(e, got, p3[1], sizeof got);
    et_get(e, sums, p3[2], sizeof sums);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(got[i], in[i / 64 * 64 + (i % 64 + 32) % 64]);
    for (int g = 0; g < N / 64; g++) {
        int want = 0;
        for (int i = 0; i < 64; i++)
            want += in[g * 64 + i];
        ck_assert_int_eq(sums[g], want);
    }
    /* the kernel's accesses alone are recorded as accesses (slot[]); the tile barrier's
       are recorded as the order it gives (release at arrival, acquire at the wait), on keys
       past every shared offset, with no READ or WRITE */
    size_t releases = 0, acquires = 0;
    for (size_t i = 0; i < e->rec.n_shared; i++) {
        const emu_shared_record *r = &e->rec.shared[i];
        int order = (r->flags & (EMU_REC_ACQUIRE | EMU_REC_RELEASE)) != 0;
        if (order) {
            ck_assert_uint_eq(r->flags & (EMU_REC_READ | EMU_REC_WRITE), 0);
            releases += (r->flags & EMU_REC_RELEASE) != 0;
            acquires += (r->flags & EMU_REC_ACQUIRE) != 0;
        }
        for (int l = 0; l < 32 && !(r->flags & EMU_REC_BARRIER); l++)
            if (r->active >> l & 1u) {
                if (order)
                    ck_assert_uint_ge(r->addr[l], EMU_RESERVED_OFFSET);
                else
                    ck_assert_uint_lt(r->addr[l], 1024);
            }
    }
    ck_assert_uint_gt(releases, 0);
    ck_assert_uint_gt(acquires, 0);
    et_free(e);
}
END_TEST

/* A launch that times out after a shared access past the block's bytes names that access
   too: what it moved was no array's (emu_result.first_shared_past). */
START_TEST(test_past_shared_named_when_stopped)
{
    et *e = et_load("reserved_ops");
    uint64_t params[2] = {et_buf(e, NULL, 32 * 4), 40};
    unsigned grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
    ck_assert_int_eq(et_run3(e, "past_then_spin", grid, block, 0, params, 2, 100000),
                     EMU_TIMEOUT);
    ck_assert_uint_eq(e->res.shared_past, 1);
    ck_assert_uint_eq(e->res.first_shared_past.addr, 160);
    ck_assert_uint_eq(e->res.first_shared_past.flags, EMU_REC_WRITE);
    ck_assert_uint_eq(e->res.first_shared_past.size, 128);
    ck_assert_ptr_nonnull(strstr(e->res.why, "an endless loop?; before it, a store of 4 bytes "
                                             "at shared offset 160 ("));
    ck_assert_ptr_nonnull(strstr(e->res.why, "past the block's 128 bytes of shared memory"));
    params[1] = 0; /* inside s, the word waited on: it ends, and says nothing of it */
    ck_assert_int_eq(et_run3(e, "past_then_spin", grid, block, 0, params, 2, 100000), EMU_OK);
    ck_assert_uint_eq(e->res.shared_past, 0);
    et_free(e);
}
END_TEST

Suite *emu_mem_suite(void)
{
    Suite *s = suite_create("emu_mem");
    TCase *tc = tcase_create("emu_mem");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_device_memory);
    tcase_add_test(tc, test_reserved_region);
    tcase_add_test(tc, test_past_shared_named_when_stopped);
    tcase_add_test(tc, test_shared_widths_and_records);
    tcase_add_test(tc, test_generic_addressing);
    tcase_add_test(tc, test_const_and_nc_records);
    tcase_add_test(tc, test_local_array);
    tcase_add_test(tc, test_module_variables);
    tcase_add_test(tc, test_atomics);
    tcase_add_test(tc, test_faults);
    tcase_add_test(tc, test_guard_zones);
    tcase_add_test(tc, test_dynamic_after_static);
    suite_add_tcase(s, tc);
    return s;
}
