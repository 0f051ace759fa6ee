/*
 * emu_gpu.h - the GPUs the emulator grades as (--gpu NAME, make grade GPU=NAME):
 * a GPU the kit cannot run on but its course speaks of, graded by the PTX
 * emulator with that GPU's shared-memory banks and against its instruction set.
 * One row a GPU (emu_gpu.c); docs/emulator.md#kepler says what it is for.
 */
#ifndef SMEMLAB_EMU_GPU_H
#define SMEMLAB_EMU_GPU_H

#include "../../model/bank.h"

typedef struct emu_gpu {
    const char *id;      /* --gpu ID */
    const char *name;    /* the GPU, as the course names it: "Tesla K40" */
    const char *whose;   /* why the kit knows it: "the course's" */
    int major, minor;    /* its compute capability: what it runs (ptx_instr_sm) */
    int eight_byte;      /* the bank mode a launch gets when its launcher sets none (Kepler) */
    int sm_count;        /* its SMs (%nsmid) */
} emu_gpu;

/* The GPU called id, or NULL. */
const emu_gpu *emu_gpu_find(const char *id);
/* Every id, comma-separated, for messages ("kepler"). */
const char *emu_gpu_ids(void);

/*
 * The banks a launch of g runs on: its launcher's cudaDeviceSetSharedMemConfig (or
 * cudaFuncSetSharedMemConfig) as recorded (record.h: REC_ATTR_UNSET where it made none,
 * else the runtime's cudaSharedMemConfig: 0 the device's default, which the runtime
 * documents as four bytes, 1 four, 2 eight).
 */
void emu_gpu_banks(const emu_gpu *g, int smem_config, bank_geometry *out);

/* The bank mode of a recorded config in words ("8-byte banks"), for the report. */
const char *emu_gpu_bank_words(const emu_gpu *g, int smem_config);

#endif /* SMEMLAB_EMU_GPU_H */
