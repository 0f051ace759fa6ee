/*
 * fuzz_ptx.c - a libFuzzer target for the emulator (make emu-fuzz): each
 * input is PTX text; what loads has its kernels run with a tiny budget.
 * Nothing may crash or trip a sanitizer. The deterministic fuzz test of
 * make check is tests/unit/test_emu_fuzz.c; this one searches further.
 */
#include "../emu.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    emu_device *d = emu_device_create(UINT64_C(64) << 20);
    emu_module *m;
    char why[256];
    if (!d)
        return 0;
    if (emu_module_load(d, (const char *)data, size, &m, why, sizeof why) == 0) {
        uint64_t buf;
        if (emu_alloc(d, 65536, &buf) == 0)
            for (int k = 0; k < emu_kernel_count(m) && k < 4; k++) {
                emu_kernel_info ki;
                unsigned char params[4096];
                if (emu_kernel_describe(m, k, &ki) || ki.param_bytes > sizeof params)
                    continue;
                memset(params, 0, sizeof params);
                for (int i = 0; i < ki.n_params; i++) {
                    uint64_t v = ki.param_size[i] == 8 ? buf : 17;
                    if (ki.param_size[i] == 4 || ki.param_size[i] == 8)
                        memcpy(params + ki.param_offset[i], &v, ki.param_size[i]);
                }
                emu_launch l = {.kernel = k, .grid = {2, 1, 1}, .block = {32, 2, 1}, .dynamic_shared = 256,
                                .params = params, .param_bytes = ki.param_bytes};
                emu_result r;
                emu_run(m, &l, NULL, 2000, &r);
            }
        emu_module_unload(m);
    }
    emu_device_destroy(d);
    return 0;
}
