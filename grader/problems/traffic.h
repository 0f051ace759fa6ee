/*
 * traffic.h - checks shared by labs 5 and 6: global-load instructions against
 * a model, shared-memory conflicts near 1, and speed against a reference.
 */
#ifndef SMEMLAB_TRAFFIC_H
#define SMEMLAB_TRAFFIC_H

#include "../base/check.h"
#include "../measure/measure.h"

/*
 * Many-block kernels show noise in the conflict counters: on an H100, a
 * conflict-free 1024^3 tiled matmul reads 1.07-way on its stores and a
 * conflict-free tiled 1-D convolution up to 1.17-way. So "conflict-free"
 * here means a degree of at most 1 + this. A real mistake (a tile read down
 * a column) costs 2-way or far more on every access, well above it.
 */
#define MANY_BLOCK_DEGREE_SLACK 0.25

/* Slack on a global-load limit derived from the model. */
#define GLOBAL_LOAD_SLACK 0.10

/*
 * Measured global load instructions against `limit` (already the most the
 * exercise allows); `model` names what the limit derives from, for messages.
 */
void check_global_loads(check_result *c, const measurement *m, double limit,
                        const char *model, const char *hint);

/* The same where the loads the lesson starts from are known (uncut: the naive kernel's,
   at this size): a kernel that cut them, not far enough, is told by how much. */
void check_global_loads_from(check_result *c, const measurement *m, double limit,
                             const char *model, const char *hint, double uncut);

/* Shared loads and stores both within MANY_BLOCK_DEGREE_SLACK of conflict-free. */
/*
 * The tiling rule of lab 6, where the trace or the emulator saw the global
 * loads of the first blocks: no block reads an input element from global
 * memory twice (a halo read at every tap, say). Fails c (global-loads, when
 * it passed) naming the block and the line. s NULL: nothing to say.
 */
struct trace_summary;
void check_global_repeats(check_result *c, const struct trace_summary *s, const char *hint);

void check_smem_near_free(check_result *c, const measurement *m, const char *hint);

/* Speed: fraction = reference time / kernel time, pass at >= want. */
void check_speed(check_result *c, double kernel_ms, double ref_ms, double want,
                 const char *unit, double work_per_ms, const char *ref_name);

#endif
