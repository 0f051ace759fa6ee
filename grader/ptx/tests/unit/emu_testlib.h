/*
 * emu_testlib.h - what the emulator's unit tests share: PTX loaded from
 * build/tests/emulator (tests/kernels/ kernels compiled by nvcc -ptx at test
 * build time, and every lab file), buffers, launches with parameters laid
 * out as the kernel says, and the records a launch wrote.
 */
#ifndef SMEMLAB_EMU_TESTLIB_H
#define SMEMLAB_EMU_TESTLIB_H

#include "../../emu.h"

#include <stddef.h>
#include <stdint.h>

#define ET_MAX_SYNC 16

typedef struct et_records {
    emu_shared_record *shared;          /* shared accesses and barriers, in order */
    size_t n_shared, cap_shared;
    emu_global_record *global;
    size_t n_global, cap_global;
    emu_sync_error sync[ET_MAX_SYNC];   /* the last launch's synchronisation errors */
    size_t n_sync;
} et_records;

typedef struct et {
    emu_device *d;
    emu_module *m;
    et_records rec;
    emu_result res;
    char why[512];
    char printed[16384];   /* what device printf printed in the last launch */
    size_t n_printed;
    int reverse;           /* launch blocks and warps last to first (emu_launch.reverse) */
    emu_launch machine;    /* sm_count, grid_id, time_base: what the registers say */
    uint32_t perturb;      /* the flow run's sources, range and line (emu_launch.perturb*) */
    uint64_t perturb_lo, perturb_hi;
    emu_src_line perturb_at;
} et;

/* The folder of the compiled PTX (SMEMLAB_EMU_PTX), or NULL. */
const char *et_ptx_dir(void);
/* Read a whole file; NULL if it cannot. */
char *et_read_file(const char *path, size_t *len);
/* The same, failing the test when the file cannot be read. */
unsigned char *et_slurp(const char *path, size_t *len);

/* A device with module name (tests/kernels/NAME.cu) or PTX text loaded; the test fails if
   it does not load. */
et *et_load(const char *name);
et *et_load_text(const char *ptx);
void et_free(et *e);

/* A device buffer holding n bytes of data (zeros when data is NULL). */
uint64_t et_buf(et *e, const void *data, size_t n);
void et_get(et *e, void *dst, uint64_t addr, size_t n);

/* Launch kernel name with params (one 64-bit value per parameter, written in the
   parameter's size); records collected in e->rec, result in e->res. */
emu_status et_run(et *e, const char *kernel, unsigned gx, unsigned bx, unsigned by,
                  uint32_t dynamic_shared, const uint64_t *params, int n_params);
emu_status et_run3(et *e, const char *kernel, const unsigned grid[3], const unsigned block[3],
                   uint32_t dynamic_shared, const uint64_t *params, int n_params,
                   uint64_t budget);
void et_clear_records(et *e);

/* Bits of floats, for params and comparisons. */
uint32_t et_f2u(float f);
float et_u2f(uint32_t u);
uint64_t et_d2u(double d);
double et_u2d(uint64_t u);

#endif /* SMEMLAB_EMU_TESTLIB_H */
