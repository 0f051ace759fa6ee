/*
 * idiom.c - grading one kernel of the idiom corpus (tests/truth/gen-idioms.py):
 * no exercise and no model, only what happened. `correct` says whether the
 * kernel ran and the hash of its output (the GPU's and the emulator's must be
 * the same); `counts` what the measurement saw, every side, in words a script
 * reads ("ld R/W/I st R/W/I atom R/W gl G gst S shfl H"), which make check-truth
 * holds to Nsight Compute's. A backend that cannot count shuffles (the
 * counters) says "shfl -": not counted, never 0.
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

/* One run into a poisoned buffer: 0 with the output's fingerprint, or -1 with c failed. */
static int run_once(worker_env *env, replay *r, guarded *buf, uint64_t *hash, check_result *c)
{
    char why[256];
    int out[IDIOM_OUT_INTS], broken = 0;
    long guard = 0;
    if (guarded_poison(buf, why, sizeof why) != 0 || module_scrub(&env->mod, GPU_SCRUB_INT)) {
        check_set(c, CHECK_FAIL, "CUDA error while preparing the run: %s", why);
        return -1;
    }
    if (gpu_run(replay_launch, r, &broken, why, sizeof why) != 0) {
        check_fail_launch(c, NULL, why, "The idiom kernel faulted or could not launch.");
        return -1;
    }
    if (guarded_read(buf, out, &guard, why, sizeof why) != 0) {
        check_set(c, CHECK_FAIL, "CUDA error: %s", why);
        return -1;
    }
    *hash = fingerprint(out, IDIOM_OUT_INTS);
    if (guard > 0) {
        check_set(c, CHECK_FAIL, "wrote outside out: %ld guard bytes changed", guard);
        return -1;
    }
    return 0;
}

static void say_counts(const measurement *m, check_result *c)
{
    const double *v = m->value;
    char shfl[32] = "-";
    if (v[METRIC_SHUFFLES] >= 0)
        snprintf(shfl, sizeof shfl, "%.0f", v[METRIC_SHUFFLES]);
    check_field(c->measured, sizeof c->measured,
                "ld %.0f/%.0f/%.0f st %.0f/%.0f/%.0f atom %.0f/%.0f gl %.0f gst %.0f shfl %s",
                v[METRIC_SHARED_LD_REQUESTS], v[METRIC_SHARED_LD_WAVEFRONTS], m->ideal_ld,
                v[METRIC_SHARED_ST_REQUESTS], v[METRIC_SHARED_ST_WAVEFRONTS], m->ideal_st,
                v[METRIC_SHARED_ATOM_REQUESTS], v[METRIC_SHARED_ATOM_WAVEFRONTS],
                v[METRIC_GLOBAL_LD_REQUESTS], v[METRIC_GLOBAL_ST_REQUESTS], shfl);
    check_set(c, CHECK_PASS, "%s", c->measured);
}

int idiom_grade_kernel(worker_env *env, const lab_kernel *k)
{
    check_result correct, counts;
    char why[256];
    guarded buf;
    replay r = {&env->mod, &env->plan->calls[0], {0}};
    uint64_t hash = 0;
    int lost = 0;

    check_init(&correct, env->lab->id, k->name, "correct", k->points.correct);
    check_init(&counts, env->lab->id, k->name, "counts", k->points.requests);
    if (guarded_alloc(&buf, IDIOM_OUT_INTS * sizeof(int), why, sizeof why) != 0) {
        check_set(&correct, CHECK_FAIL, "CUDA error: %s", why);
        check_set(&counts, CHECK_FAIL, "not run: %s", why);
    } else {
        r.bufs[0] = buf.data;
        if (run_once(env, &r, &buf, &hash, &correct) == 0)
            check_set(&correct, CHECK_PASS, "ran; output fingerprint %016llx",
                      (unsigned long long)hash);
        if (correct.status == CHECK_PASS && env->meter_status == MEASURE_OK) {
            measurement m;
            measure_status st = worker_measure(env, replay_launch, &r, &m, why, sizeof why);
            if (st == MEASURE_OK)
                say_counts(&m, &counts);
            else
                compare_not_measured(&counts, st, why);
        } else if (correct.status != CHECK_PASS) {
            check_set(&counts, correct.status == CHECK_NOT_GRADED ? CHECK_NOT_GRADED : CHECK_FAIL,
                      "not run: the kernel did not run");
        } else {
            compare_not_measured(&counts, env->meter_status, env->meter_why);
        }
        lost = dev_context_lost();
        if (!lost)
            guarded_free(&buf);
    }
    worker_emit(env, &correct);
    worker_emit(env, &counts);
    return lost ? KERNEL_CONTEXT_LOST : 0;
}
