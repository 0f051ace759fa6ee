/*
 * emu_device.h - the emulator as a device and as a measuring backend
 * (docs/emulator.md): device_emulator runs the student's kernels on the CPU
 * (run/device.h); measure_emulator_backend records every access of the
 * launches a measurement makes, in the trace backend's format, for the one
 * analysis in grader/measure/access/.
 */
#ifndef SMEMLAB_EMU_DEVICE_H
#define SMEMLAB_EMU_DEVICE_H

#include "../../run/device.h"
#include "../../run/module.h"
#include "../measure.h"
#include "../../ptx/emu.h"
#include "emu_gpu.h"

extern const device_ops device_emulator;

/* The meter of an emulated worker. */
measure_backend *measure_emulator_backend(void);

/* While sink is set (NULL: none), every launch sends its records there. */
void emu_device_record(const emu_sink *sink);
/* Launches made since emu_device_record set a sink. */
int emu_device_launches(void);
/* The synchronisation errors (emu.h) of the launches of kernel `kernel` of module m made
   with no sink set (the correctness runs) since the last call: up to max into out, how
   many met in all into *count; every kept error is forgotten. Returns how many. */
int emu_device_take_sync(const emu_module *m, int kernel, emu_sync_error *out, int max,
                         long *count);
/* The first access out of bounds (emu.h, emu_oob) of those launches, the name of its
   array (run/device.h: "" where it had none) and how many lanes made one: 1 and *out,
   or 0; forgotten either way. */
int emu_device_take_oob(const emu_module *m, int kernel, emu_oob *out, char array[16],
                        long *count);
/* From now on the device is g (emu_gpu.h; NULL: the kit's own sm_90 with 4-byte banks):
   each launch runs on g's banks in the mode its launcher asked for, and a kernel that
   reaches an instruction g lacks is not run ("not graded: ..."). */
void emu_device_as(const emu_gpu *g);
/* The SMs the kernels' %nsmid and %smid say (the GPU's a twin grades beside; else the
   GPU graded as, or EMU_DEFAULT_SM_COUNT): a kernel sees a GPU's machine, never one SM. */
#define EMU_DEFAULT_SM_COUNT 132 /* an H100's or H200's (SXM): the GPUs the kit is proven on */
void emu_device_sm_count(int sm_count);
const emu_gpu *emu_device_gpu(void);
/* Each launch from now on may run timeout_s / GRADE_DEFAULT_TIMEOUT_S times
   EMU_DEFAULT_BUDGET warp instructions (base/grade_options.h, ptx/emu.h: about as many
   as a host core runs in --timeout's default 10 s): the budget follows --timeout, so that
   a shorter limit ends an endless kernel sooner, in the same words. */
void emu_device_time_limit(double timeout_s);
uint64_t emu_device_budget(void);
/* The banks the last launch ran on (what the meter counts its accesses by). */
void emu_device_banks(bank_geometry *out);

/*
 * The flow run (problems/flow.c, docs/emulator.md#flow): the launches from now on change
 * every value they read from the sources `perturb` names (ptx/emu.h's EMU_PERTURB_*; the
 * read-only one only from [lo, hi) where hi is not 0; at a line of the student's only,
 * where `at` is not NULL; 0: none, a plain run to compare with), each under a budget of
 * `budget` warp instructions (0: the device's own), print nothing, and keep nothing for
 * the meter: a synchronisation error or an access out of bounds there is the change's
 * doing, not the kernel's. emu_device_flow_end: launches as before.
 */
void emu_device_flow(uint32_t perturb, uint64_t lo, uint64_t hi, const emu_src_line *at,
                     uint64_t budget);
void emu_device_flow_end(void);
/* What the last launch did (emu_result): its warp instructions, the values it changed and
   the lines where it read them (up to EMU_PERTURB_LINES into lines: how many). */
int emu_device_last_run(uint64_t *instructions, uint64_t *perturbed,
                        emu_src_line lines[EMU_PERTURB_LINES]);

/* The module and kernel of the last launch (for source lines); 0, or -1 when none. */
int emu_device_last_launch(const emu_module **m, int *kernel, const char **name);

#endif /* SMEMLAB_EMU_DEVICE_H */
