/* compare.c - counters against the bank model; see compare.h. */
#include "compare.h"

#include <math.h>
#include <stdio.h>

const smem_side SIDE_STORE = {"stores", METRIC_SHARED_ST_REQUESTS, METRIC_SHARED_ST_WAVEFRONTS,
                              METRIC_SHARED_ST_CONFLICTS, NULL};
const smem_side SIDE_LOAD = {"loads", METRIC_SHARED_LD_REQUESTS, METRIC_SHARED_LD_WAVEFRONTS,
                             METRIC_SHARED_LD_CONFLICTS, NULL};

const char *degree_text(double degree, char *buf, size_t size)
{
    if (degree < 1.005)
        snprintf(buf, size, "conflict-free");
    else if (round(degree) >= 2 && fabs(degree - round(degree)) < 0.05)
        snprintf(buf, size, "%.0f-way conflict", round(degree));
    else
        snprintf(buf, size, "%.2f-way conflict", degree);
    return buf;
}

double measured_degree(const measurement *m, const smem_side *side)
{
    double waves = m->value[side->wavefronts];
    double ideal = waves - m->value[side->conflicts];
    return ideal > 0 ? waves / ideal : 0.0;
}

void compare_requests(check_result *c, const smem_side *side, const measurement *m,
                      long expected)
{
    double got = m->value[side->requests];

    check_field(c->measured, sizeof c->measured, "%.0f shared %s", got, side->op);
    check_field(c->expected, sizeof c->expected, "%ld (one per warp)", expected);
    if (llround(got) == expected) {
        check_set(c, CHECK_PASS, "%s: %.0f shared requests", side->op, got);
        return;
    }
    check_set(c, CHECK_FAIL, "%s: %.0f shared requests (expected %ld)", side->op, got, expected);
    if (got == 0)
        check_field(c->hint, sizeof c->hint,
                    "The kernel executed no shared %s. It must go through the tile "
                    "(`%s`), even where writing out directly gives the same output: "
                    "the exercise is about how the tile is accessed.", side->op, side->code);
    else
        check_field(c->hint, sizeof c->hint,
                    "Each warp should execute exactly one shared %s instruction for `%s`. "
                    "Extra copies, loops or a different element type change what is "
                    "measured; a missing one means part of the tile is never used.",
                    side->op[0] == 's' ? "store" : "load", side->code);
}

static void conflict_hint(check_result *c, const smem_side *side, double got, double want,
                          const char *pad_note)
{
    if (want < 1.005)
        check_field(c->hint, sizeof c->hint,
                    "Lanes of one warp fall into the same bank (bank = word index %% 32, "
                    "words of 4 bytes). The exercise asks for `%s`, which the model says "
                    "is conflict-free here.%s%s", side->code, pad_note ? " " : "",
                    pad_note ? pad_note : "");
    else if (got < 1.005)
        check_field(c->hint, sizeof c->hint,
                    "This kernel shows a bank conflict on purpose, so that you can measure "
                    "it: the exercise asks for `%s`. Your %s are conflict-free, so the "
                    "kernel does not access the tile the way the exercise asks (the output "
                    "can be right either way: only the counters tell).", side->code, side->op);
    else
        check_field(c->hint, sizeof c->hint,
                    "The model gives %.0f-way for `%s` on this GPU; yours measures "
                    "%.2f-way. Compare your index with the exercise's, lane by lane: "
                    "which bank does lane 0, 1, 2 ... of warp 0 hit?", want, side->code, got);
}

void compare_conflicts(check_result *c, const smem_side *side, const measurement *m,
                       const smem_cost *model, double tolerance, const char *pad_note)
{
    char got_text[48], want_text[48];
    double waves = m->value[side->wavefronts];
    double got = measured_degree(m, side);
    double want = smem_degree(model);

    check_field(c->measured, sizeof c->measured, "%.0f wavefronts / %.0f requests", waves,
                m->value[side->requests]);
    check_field(c->expected, sizeof c->expected, "%ld wavefronts / %ld requests (%s)",
                model->wavefronts, model->requests, degree_text(want, want_text, sizeof want_text));
    if (waves <= 0) {
        check_set(c, CHECK_FAIL, "%s: no shared %s measured (expected %s)", side->op, side->op,
                  want_text);
        check_field(c->hint, sizeof c->hint, "The kernel must %s the tile: `%s`.",
                    side->op[0] == 's' ? "write" : "read", side->code);
        return;
    }
    degree_text(got, got_text, sizeof got_text);
    if (fabs(got - want) <= tolerance * want) {
        check_set(c, CHECK_PASS, "%s %s (expected %s)", side->op, got_text, want_text);
        return;
    }
    check_set(c, CHECK_FAIL, "%s %s (expected %s)", side->op, got_text, want_text);
    conflict_hint(c, side, got, want, pad_note);
}

void compare_not_measured(check_result *c, measure_status st, const char *why)
{
    if (st == MEASURE_NO_KERNEL) { /* the student's launcher, not the environment */
        check_set(c, CHECK_FAIL, "no kernel was launched: %s", why);
        check_field(c->hint, sizeof c->hint, "%s", measure_status_advice(st));
        return;
    }
    if (st == MEASURE_WRONG_RESULT) { /* the counts of a wrong kernel prove nothing */
        check_set(c, CHECK_FAIL, "not counted: %s", why);
        check_field(c->hint, sizeof c->hint, "%s", measure_status_advice(st));
        return;
    }
    check_field(c->measured, sizeof c->measured, "not measured");
    check_set(c, CHECK_NOT_MEASURED, "not measured: %s", why);
    check_field(c->hint, sizeof c->hint, "%s", measure_status_advice(st));
}
