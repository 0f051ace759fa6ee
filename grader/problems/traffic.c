/* traffic.c - checks shared by labs 5 and 6; see traffic.h. */
#include "traffic.h"

#include "../compare/compare.h"
#include "../measure/access/trace.h"

#include <string.h>

void check_global_loads(check_result *c, const measurement *m, double limit,
                        const char *model, const char *hint)
{
    check_global_loads_from(c, m, limit, model, hint, 0);
}

void check_global_loads_from(check_result *c, const measurement *m, double limit,
                             const char *model, const char *hint, double uncut)
{
    double got = m->value[METRIC_GLOBAL_LD_REQUESTS];
    check_field(c->measured, sizeof c->measured, "%.0f global load instructions", got);
    check_field(c->expected, sizeof c->expected, "at most %.0f (%s)", limit, model);
    if (got > 0 && got <= limit) {
        check_set(c, CHECK_PASS, "global loads: %.0f warp instructions (limit %.0f)", got, limit);
        return;
    }
    if (got > 0 && uncut > 0 && got < uncut / 1.5) /* cut, not as far as the tile cuts them */
        check_set(c, CHECK_FAIL, "global loads cut %.1f-fold (%.0f to %.0f warp instructions), "
                  "not the %.0f-fold the lab's tile cuts them (at most %.0f)", uncut / got, uncut,
                  got, uncut / (limit / (1 + GLOBAL_LOAD_SLACK)), limit);
    else
        check_set(c, CHECK_FAIL, got > 0 ? "global loads not cut: %.0f warp instructions "
                  "(expected at most %.0f)" : "global loads: %.0f measured (expected up to %.0f)",
                  got, limit);
    check_field(c->hint, sizeof c->hint, "%s", hint);
}

void check_global_repeats(check_result *c, const trace_summary *s, const char *hint)
{
    char at[96] = "";
    if (!s || s->global_repeats == 0 || c->status != CHECK_PASS)
        return;
    if (s->repeat_file) {
        const char *slash = strrchr(s->repeat_file, '/');
        snprintf(at, sizeof at, " at %s:%d", slash ? slash + 1 : s->repeat_file, s->repeat_line);
    }
    check_set(c, CHECK_FAIL, "block %u reads %ld input element%s from global memory more than "
              "once%s", s->repeat_block, s->repeat_count, s->repeat_count == 1 ? "" : "s", at);
    check_field(c->hint, sizeof c->hint, "%s", hint);
}

void check_smem_near_free(check_result *c, const measurement *m, const char *hint)
{
    char ld_text[48], st_text[48];
    double ld = measured_degree(m, &SIDE_LOAD), st = measured_degree(m, &SIDE_STORE);
    double limit = 1.0 + MANY_BLOCK_DEGREE_SLACK;

    c->degree = ld > 0 ? ld : 0; /* the loads': what a PREDICT line of the kernel names */
    c->accept_lo = 1.0, c->accept_hi = limit;
    check_field(c->measured, sizeof c->measured, "loads %.3f-way over %.0f requests, stores "
                "%.3f-way over %.0f requests", ld, m->value[METRIC_SHARED_LD_REQUESTS], st,
                m->value[METRIC_SHARED_ST_REQUESTS]);
    /* the slack is the hardware counters' (many blocks' counts drift): the trace and
       the emulator count every access, and the expectation says only what it is */
    if (m->ideal_set == MEASURE_IDEAL_SET)
        check_field(c->expected, sizeof c->expected, "conflict-free (at most %.2f-way)", limit);
    else
        check_field(c->expected, sizeof c->expected, "at most %.2f-way (conflict-free, with "
                    "slack for the hardware counters' many-block noise)", limit);
    if (m->value[METRIC_SHARED_LD_REQUESTS] <= 0 || m->value[METRIC_SHARED_ST_REQUESTS] <= 0) {
        /* nothing to judge: the check that counts the loads says the tile is missing */
        if (m->value[METRIC_SHARED_ST_REQUESTS] > 0) /* written, never read */
            compare_tile_unread(c);
        else
            check_set(c, CHECK_FAIL, "waits for a shared tile: %.0f shared loads, %.0f shared "
                      "stores ran, no conflict to judge", m->value[METRIC_SHARED_LD_REQUESTS],
                      m->value[METRIC_SHARED_ST_REQUESTS]);
        check_field(c->hint, sizeof c->hint, "A tiled kernel stages its tiles in shared "
                    "memory and reads them from there. A tile that nothing reads is dropped "
                    "by the compiler, its stores with it: that is why none may have run.");
        return;
    }
    if (ld <= limit && st <= limit) {
        check_set(c, CHECK_PASS, "shared loads %.2f-way, stores %.2f-way: conflict-free "
                  "within the %.2f allowed for many blocks", ld, st, limit);
        return;
    }
    degree_text(ld, ld_text, sizeof ld_text);
    degree_text(st, st_text, sizeof st_text);
    check_set(c, CHECK_FAIL, "shared loads %s, stores %s (expected conflict-free)", ld_text,
              st_text);
    check_field(c->hint, sizeof c->hint, "%s", hint);
}

void check_speed(check_result *c, double kernel_ms, double ref_ms, double want,
                 const char *unit, double work_per_ms, const char *ref_name)
{
    double fraction = ref_ms / kernel_ms;
    check_field(c->measured, sizeof c->measured, "%.3f ms, %.1f %s (%.0f%% of %s)", kernel_ms,
                work_per_ms / kernel_ms, unit, 100.0 * fraction, ref_name);
    check_field(c->expected, sizeof c->expected, "at least %.0f%% of %s (%.3f ms, %.1f %s)",
                100.0 * want, ref_name, ref_ms, work_per_ms / ref_ms, unit);
    if (fraction >= want) {
        check_set(c, CHECK_PASS, "%.1f %s, %.0f%% of %s (needs %.0f%%)", work_per_ms / kernel_ms,
                  unit, 100.0 * fraction, ref_name, 100.0 * want);
        return;
    }
    check_set(c, CHECK_FAIL, "%.1f %s, %.0f%% of %s (needs %.0f%%)", work_per_ms / kernel_ms,
              unit, 100.0 * fraction, ref_name, 100.0 * want);
}
