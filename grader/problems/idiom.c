/*
 * idiom.c - grading one kernel of the idiom corpus (tests/truth/gen-idioms.py):
 * no exercise and no model, only what happened. `correct` says whether the
 * kernel ran and the hash of its output (the GPU's and the emulator's must be
 * the same); `counts` what the measurement saw, every side, in words a script
 * reads ("ld R/W/I st R/W/I atom R/W gl G gst S shfl H gls S/I gss S/I": shared
 * requests, wavefronts and ideal; global load and store requests; shuffles; the
 * global loads' and stores' 32-byte sectors and their ideal), which make
 * check-truth holds to Nsight Compute's. A backend that cannot count shuffles
 * (the counters) says "shfl -": not counted, never 0.
 */
#include "../compare/compare.h"
#include "../run/device.h"
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDIOM_OUT_INTS 512

/* FNV-1a over the output's bytes: a fingerprint to compare devices by. */
static uint64_t fingerprint(const int *v, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *b = (const unsigned char *)v;
    for (size_t i = 0; i < n * sizeof *v; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* The kernel's one output buffer, kept from its run for the measured run. */
typedef struct idiom_state {
    guarded buf;
    int have_buf;
} idiom_state;

/* A run that did not come out right: failed (the counts then are not measured), or
   lost where the context is gone. */
static run_outcome failed(void)
{
    return dev_context_lost() ? RUN_LOST : RUN_FAILED;
}

/* One run into a poisoned buffer: RUN_RIGHT with the output's fingerprint in c, or
   not right with c failed. */
static run_outcome idiom_run(problem *p, check_result *c)
{
    idiom_state *t = p->state;
    char why[256];
    int out[IDIOM_OUT_INTS], broken = 0;
    long guard = 0;
    if (!t->have_buf) {
        if (guarded_alloc(&t->buf, IDIOM_OUT_INTS * sizeof(int), why, sizeof why) != 0) {
            check_set(c, CHECK_FAIL, "CUDA error: %s", why);
            return failed();
        }
        t->have_buf = 1;
    }
    if (guarded_poison(&t->buf, why, sizeof why) != 0 || module_scrub(p->mod, GPU_SCRUB_INT)) {
        check_set(c, CHECK_FAIL, "CUDA error while preparing the run: %s", why);
        return failed();
    }
    if (gpu_run(problem_launch, p, &broken, why, sizeof why) != 0) {
        check_fail_launch(c, NULL, why, "The idiom kernel faulted or could not launch.");
        return failed();
    }
    if (guarded_read(&t->buf, out, &guard, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "CUDA error: %s", why);
        return failed();
    }
    if (guard > 0) {
        check_set(c, CHECK_FAIL, "wrote outside out: %ld guard bytes changed", guard);
        return failed();
    }
    check_set(c, CHECK_PASS, "ran; output fingerprint %016llx",
              (unsigned long long)fingerprint(out, IDIOM_OUT_INTS));
    return RUN_RIGHT;
}

static void idiom_bind(const problem *p, void *bufs[])
{
    bufs[0] = ((const idiom_state *)p->state)->buf.data;
}

static void idiom_release(problem *p)
{
    idiom_state *t = p->state;
    if (t->have_buf && !p->lost && !dev_context_lost())
        guarded_free(&t->buf);
    t->have_buf = 0;
}

/* counts: every side the measurement saw, in words a script reads. */
static void say_counts(problem *p, check_id id, const measurement *m, const trace_summary *s,
                       check_result *c)
{
    const double *v = m->value;
    char shfl[32] = "-";
    (void)p, (void)id, (void)s;
    if (v[METRIC_SHUFFLES] >= 0)
        snprintf(shfl, sizeof shfl, "%.0f", v[METRIC_SHUFFLES]);
    check_field(c->measured, sizeof c->measured,
                "ld %.0f/%.0f/%.0f st %.0f/%.0f/%.0f atom %.0f/%.0f gl %.0f gst %.0f shfl %s "
                "gls %.0f/%.0f gss %.0f/%.0f",
                v[METRIC_SHARED_LD_REQUESTS], v[METRIC_SHARED_LD_WAVEFRONTS], m->ideal_ld,
                v[METRIC_SHARED_ST_REQUESTS], v[METRIC_SHARED_ST_WAVEFRONTS], m->ideal_st,
                v[METRIC_SHARED_ATOM_REQUESTS], v[METRIC_SHARED_ATOM_WAVEFRONTS],
                v[METRIC_GLOBAL_LD_REQUESTS], v[METRIC_GLOBAL_ST_REQUESTS], shfl,
                v[METRIC_GLOBAL_LD_SECTORS], v[METRIC_GLOBAL_LD_IDEAL],
                v[METRIC_GLOBAL_ST_SECTORS], v[METRIC_GLOBAL_ST_IDEAL]);
    check_set(c, CHECK_PASS, "%s", c->measured);
}

/* The idiom's one call, run once and measured on the buffer of that run. */
const kind_desc idiom_kind = {
    .name = "idiom", .state_bytes = sizeof(idiom_state), .no_inputs = 1,
    .run = idiom_run, /* its pass names the output's fingerprint */
    .bind = idiom_bind, .release = idiom_release,
    .judge = {[CHK_COUNTS] = say_counts},
};
