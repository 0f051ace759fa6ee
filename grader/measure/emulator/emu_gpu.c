/* emu_gpu.c - the GPUs the emulator grades as; see emu_gpu.h. */
#include "emu_gpu.h"

#include "../../run/module.h" /* record.h's REC_ATTR_UNSET, through plan.h */

#include <string.h>

/* Kepler: the course notes' figures were measured on a Tesla K40 (compute capability
   3.5) in its 8-byte bank mode (/shared/course-material's README; the book's chapter 5
   programs print the mode beside them). */
static const emu_gpu gpus[] = {
    {"kepler", "Tesla K40", "the course's", 3, 5, 1, 15},
};

const emu_gpu *emu_gpu_find(const char *id)
{
    for (size_t i = 0; id && i < sizeof gpus / sizeof gpus[0]; i++)
        if (strcmp(gpus[i].id, id) == 0)
            return &gpus[i];
    return NULL;
}

const char *emu_gpu_ids(void)
{
    return "kepler";
}

/* Whether a launch with this recorded config runs on 8-byte banks. */
static int eight_byte(const emu_gpu *g, int smem_config)
{
    if (smem_config == REC_ATTR_UNSET)
        return g->eight_byte;
    return smem_config == 2; /* cudaSharedMemBankSizeEightByte; Default and FourByte: 4 */
}

void emu_gpu_banks(const emu_gpu *g, int smem_config, bank_geometry *out)
{
    bank_geometry_for(g->major, g->minor, 32, eight_byte(g, smem_config), out);
}

const char *emu_gpu_bank_words(const emu_gpu *g, int smem_config)
{
    if (smem_config == REC_ATTR_UNSET)
        return g->eight_byte ? "8-byte banks" : "4-byte banks";
    return eight_byte(g, smem_config) ? "8-byte banks: your launcher's cudaDeviceSetSharedMemConfig"
                                      : "4-byte banks: your launcher's cudaDeviceSetSharedMemConfig";
}
