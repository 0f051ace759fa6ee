/*
 * flow.c - a lesson's points only where the lesson's values reach the output (the lab
 * table's flow_spec; docs/emulator.md#flow). A tile whose tree's result is thrown away,
 * shuffles whose sums are dropped, a coefficient read from constant memory and not used:
 * each measures as the lesson asks, and the output is made another way. The emulator
 * runs the measured input plain, then again with every value read from the lesson's
 * source changed (ptx/emu.h, emu_launch.perturb: by an amount no arithmetic takes back),
 * and compares the two outputs bit for bit: an element that did not change was not made
 * from those values. Where fewer changed than the spec's share, the checks it lists fail.
 * A changed value that derails the run (an index that faults, a loop that does not end)
 * is a value the run depends on: no verdict. Runs on the emulator's device only: an
 * emulated grade's, or a GPU grade's emulated twin (problem.c), so that every backend
 * gives the same verdict. See problem.h.
 */
#include "../measure/emulator/emu_device.h"
#include "../run/device.h"
#include "../run/gpu.h"
#include "problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The perturbed run's budget: this many times the plain run's warp instructions, and at
   least FLOW_BUDGET_FLOOR more (a changed value that makes a loop endless ends there, a
   value the run depends on, in a fraction of the usual budget). */
#define FLOW_BUDGET_FACTOR 4
#define FLOW_BUDGET_FLOOR 65536

static uint32_t perturb_of(flow_source s)
{
    switch (s) {
    case FLOW_SHARED: return EMU_PERTURB_SHARED;
    case FLOW_SHUFFLE: return EMU_PERTURB_SHUFFLE;
    case FLOW_CONSTANT: return EMU_PERTURB_CONST;
    case FLOW_READONLY: return EMU_PERTURB_READONLY;
    default: return 0;
    }
}

/* The values a source gives, as a message names them: after "every value" ("read from
   shared memory"), and after a line that takes them ("reads from shared memory"). */
static void source_words(const flow_spec *f, int verb, char *out, size_t size)
{
    switch (f->source) {
    case FLOW_SHARED:
        snprintf(out, size, "%s from shared memory", verb ? "reads" : "read");
        break;
    case FLOW_SHUFFLE:
        snprintf(out, size, "%s", verb ? "takes from shuffles" : "a shuffle delivered");
        break;
    case FLOW_CONSTANT:
        snprintf(out, size, "%s from constant memory", verb ? "reads" : "read");
        break;
    default:
        snprintf(out, size, "%s through the read-only cache from %s", verb ? "reads" : "read",
                 f->array ? f->array : "");
        break;
    }
}

/* What a kernel did that read none of a source's values, after "your kernel". */
static void none_words(const flow_spec *f, char *out, size_t size)
{
    switch (f->source) {
    case FLOW_SHARED: snprintf(out, size, "read nothing from shared memory"); break;
    case FLOW_SHUFFLE:
        snprintf(out, size, "moved no value from one lane to another with a shuffle (a lane "
                 "that shuffles from itself moves none)");
        break;
    case FLOW_CONSTANT: snprintf(out, size, "read nothing from constant memory"); break;
    default:
        snprintf(out, size, "read nothing through the read-only cache from %s",
                 f->array ? f->array : "");
        break;
    }
}

/* The device range of the call's buffer named `name` (the array the kind bound): 0, or
   -1 where the call has none. */
static int array_range(problem *p, const char *name, uint64_t *lo, uint64_t *hi)
{
    const call_spec *spec = &p->env->plan->specs[p->call];
    void *bufs[CALL_MAX_BUFFERS] = {NULL};
    dev_array a;
    p->kind->bind(p, bufs);
    for (int b = 0; name && b < spec->n_buffers && b < CALL_MAX_BUFFERS; b++)
        if (bufs[b] && !strcmp(spec->buffer_name[b], name) &&
            dev_array_at((unsigned long long)(uintptr_t)bufs[b], &a)) {
            *lo = (uint64_t)(uintptr_t)bufs[b];
            *hi = a.base + a.bytes;
            return 0;
        }
    return -1;
}

/* The flow run of one kernel: its output, where it lies, and the plain run's. */
typedef struct flow_run {
    flow_output out;
    const void *dev;       /* the output on the device */
    const char *name;      /* its buffer's name ("partial") */
    uint32_t *plain, *got; /* the plain run's output, a perturbed run's */
    uint64_t instructions; /* the plain run's warp instructions */
    char input[64];        /* another input than the measured one: its size or argument,
                              as its call's label begins ("n=17409"); "": the measured */
    char measured[64];     /* the measured input's, where input is another */
} flow_run;

/* One launch of call p->call from the arrays as dev_keep found them, shared memory
   scrubbed; its output into host where it ran. 0, or -1. */
static int flow_launch(problem *p, const flow_run *r, uint32_t *host)
{
    char why[256];
    int broken = 0;
    if (dev_restore() != cudaSuccess || module_scrub(p->mod, GPU_SCRUB_INT) != cudaSuccess ||
        gpu_run(problem_launch, p, &broken, why, sizeof why) != 0)
        return -1;
    return dev_copy(host, r->dev, r->out.elems * sizeof *host, cudaMemcpyDeviceToHost) ==
                   cudaSuccess ? 0 : -1;
}

/* What one perturbed run showed: of the n output elements judged, `same` came out the
   same; `values` lane values were changed, at the line `at` alone where not NULL. */
typedef struct flow_seen {
    size_t n, same;
    long first_same; /* the first judged element that came out the same, or -1 */
    uint64_t values;
    const emu_src_line *at;
    const emu_src_line *reaches; /* a line whose values do reach the output, or NULL */
} flow_seen;

/* Of what seen saw, the elements judged and how many of them changed: an exercise's lanes
   a shuffle moves (flow_output.moved), else every element seen. */
static void judged_counts(const flow_run *r, const flow_seen *seen, size_t *n, size_t *changed)
{
    *n = r->out.moved && r->out.moved < seen->n ? r->out.moved : seen->n;
    *changed = seen->n - seen->same < *n ? seen->n - seen->same : *n;
}

/* "lab7.cu:89": a line of the student's file, its base name. */
static void line_words(const emu_src_line *at, char *out, size_t size)
{
    snprintf(out, size, "%s:%d", check_file_base(at->file), at->line);
}

/* The words of a failed verdict into v. */
static void verdict_words(const flow_spec *f, const flow_run *r, const flow_seen *seen,
                          double share, flow_verdict *v)
{
    char src[96], reads[96], what[96], all[256], aside[64] = "", where[128] = "", also[128] = "";
    char show[96] = "for show", at_input[96] = "";
    size_t n, changed, zeros = r->out.elems - seen->n;
    const char *lesson = f->values ? f->values : "the lesson's values";
    source_words(f, 0, src, sizeof src);
    source_words(f, 1, reads, sizeof reads);
    if (r->out.noun)
        snprintf(what, sizeof what, "%s", r->out.noun);
    else
        snprintf(what, sizeof what, "elements of %s", r->name);
    judged_counts(r, seen, &n, &changed);
    size_t same = n - changed;
    if (n < seen->n) /* judged: the elements the lesson moves */
        snprintf(what + strlen(what), sizeof what - strlen(what), " that take another lane's value");
    if (zeros)
        snprintf(aside, sizeof aside, " (the %zu that are 0 aside)", zeros);
    v->elsewhere = r->input[0] != 0;
    if (r->input[0]) {
        snprintf(show, sizeof show, "for show at %s", r->input);
        snprintf(at_input, sizeof at_input, " at %s", r->input);
    }
    if (same == n)
        snprintf(all, sizeof all, "all %zu %s%s came out the same", n, what, aside);
    else
        snprintf(all, sizeof all, "%zu of the %zu %s%s came out the same", same, n, what, aside);
    if (seen->at) {
        char line[96], other[96] = "";
        line_words(seen->at, line, sizeof line);
        snprintf(where, sizeof where, " at %s", line);
        if (seen->reaches) {
            line_words(seen->reaches, other, sizeof other);
            snprintf(also, sizeof also, " (%s's do)", other);
        }
        check_field(v->message, sizeof v->message, "%s: the values %s %s never reach "
                    "%s: with each of them changed, %s%s", show, line, reads, r->name, all,
                    also);
    } else if (same == n && !seen->values) {
        char none[160];
        none_words(f, none, sizeof none);
        check_field(v->message, sizeof v->message, "%s: %s never reach %s: your kernel %s%s "
                    "(%s)", show, lesson, r->name, none, r->input[0] ? " there" : "", all);
    } else if (same == n) {
        check_field(v->message, sizeof v->message, "%s: %s never reach %s: with every "
                    "value %s changed, %s", show, lesson, r->name, src, all);
    } else {
        char first[64] = ""; /* where to look: a reduction's last block, a tile's edge */
        if (!r->out.moved && seen->first_same >= 0)
            snprintf(first, sizeof first, " (the first: %s[%ld])", r->name, seen->first_same);
        check_field(v->message, sizeof v->message, "%s in part: %s reach only %zu of "
                    "the %zu %s%s: with every value %s changed, the other %zu came out the "
                    "same%s", show, lesson, n - same, n, what, aside, src, same, first);
    }
    check_field(v->measured, sizeof v->measured, "%zu of %zu %s changed%s, every value %s%s "
                "changed (emulated)", n - same, n, what, at_input, src, where);
    if (seen->at)
        check_field(v->expected, sizeof v->expected, "some changed: every line that %s makes "
                    "part of the output", reads);
    else if (share >= 1.0)
        check_field(v->expected, sizeof v->expected, "every one changed: the output made from "
                    "%s", lesson);
    else if (share > 0)
        check_field(v->expected, sizeof v->expected, "at least %.0f%% changed: the output made "
                    "from %s", 100.0 * share, lesson);
    else
        check_field(v->expected, sizeof v->expected, "some changed: the output made from %s",
                    lesson);
    char run[256] = "the measured run again";
    if (r->input[0])
        snprintf(run, sizeof run, "your kernel on %s, an input other than the measured one "
                 "(%s: a lesson done on the measured input alone earns nothing),", r->input,
                 r->measured);
    check_field(v->hint, sizeof v->hint, "This check's points are for %s: they must make "
                "your output. The grader ran %s with every value %s%s "
                "changed (docs/troubleshooting.md#for-show says how) and compared %s with the "
                "plain run's bit for bit: %s%s. %s", lesson, run, src, where, r->name, all,
                seen->at ? ": that line's work is thrown away" : "", f->fix ? f->fix : "");
}

/* The run with every value changed did not finish (it faulted, or ran past its budget):
   the kernel's control flow or its addresses hang on those values, and whether they
   reach the output cannot be told. Not graded, never a pass by default: a loop on a tile
   word that an honest run never enters would otherwise turn the check off. */
static void derailed_words(const flow_spec *f, const flow_run *r, flow_verdict *v)
{
    char src[96];
    const char *lesson = f->values ? f->values : "the lesson's values";
    source_words(f, 0, src, sizeof src);
    v->derailed = 1;
    v->elsewhere = r->input[0] != 0;
    check_field(v->message, sizeof v->message, "not graded: with every value %s changed%s%s, "
                "the run did not finish (a fault, or a loop past its budget), so whether %s "
                "reach %s cannot be told", src, r->input[0] ? " at " : "", r->input, lesson,
                r->name);
    check_field(v->measured, sizeof v->measured, "the run with every value %s changed%s%s did "
                "not finish (emulated)", src, r->input[0] ? " at " : "", r->input);
    check_field(v->expected, sizeof v->expected, "a run that finishes with the values "
                "changed, and %s made from them", r->name);
    check_field(v->hint, sizeof v->hint, "This check's points are for %s, and the grader "
                "tells whether they make your output by changing them and running %s%s "
                "again (docs/troubleshooting.md#for-show). Your kernel's "
                "branches or addresses depend on them: a loop that waits on a word of the "
                "tile, an index read from it. Compute the addresses and loop bounds from "
                "the thread's indices and the sizes, and let the tile hold the data.", lesson,
                r->input[0] ? "your kernel on " : "the measured input",
                r->input[0] ? r->input : "");
}

/*
 * The run with every value changed changed part of the output, and the kernel reads past
 * an array's end (correct names the access): an output made from the bytes there (the
 * grader's guard zone, 0xEE..., a float of 1e28) keeps its bits when the lesson's values
 * beside them change, so the rest cannot show whether they reach it. Not graded: a
 * kernel whose halo lacks its ghost cells was told its tile was for show.
 */
static void past_end_words(const flow_spec *f, const flow_run *r, const flow_seen *seen,
                           flow_verdict *v)
{
    char src[96];
    size_t n, changed;
    const char *lesson = f->values ? f->values : "the lesson's values";
    source_words(f, 0, src, sizeof src);
    judged_counts(r, seen, &n, &changed);
    v->derailed = 1;
    v->elsewhere = r->input[0] != 0;
    check_field(v->message, sizeof v->message, "not graded: your kernel reads past an "
                "array's end (correct says where); with every value %s changed%s%s, %zu of "
                "the %zu elements of %s changed, and the rest may be made from the bytes there",
                src, r->input[0] ? " at " : "", r->input, changed, n, r->name);
    check_field(v->measured, sizeof v->measured, "%zu of %zu elements of %s changed, every "
                "value %s changed, beside a read past an array's end (emulated)", changed, n,
                r->name, src);
    check_field(v->expected, sizeof v->expected, "every access inside its array, then %s "
                "made from %s", r->name, lesson);
    check_field(v->hint, sizeof v->hint, "Fix correct's out-of-bounds access first (a load "
                "with no bounds check: at the edges, a ghost cell reads 0 instead): this "
                "check is graded once every access stays inside its array. It holds %s to "
                "making your output, by changing them and running the kernel again "
                "(docs/troubleshooting.md#for-show).", lesson);
}

/* A perturbed run of spec f (only the values read at `at`, where not NULL) beside the
   plain run's output into seen; its lines where lines is not NULL. 0, or -1 where a
   changed value derailed it (an index that faults, a loop that does not end: the run
   depends on those values) or it could not run, -2 where the spec's array is not the
   call's. */
static int perturbed_run(problem *p, const flow_spec *f, const flow_run *r,
                         const emu_src_line *at, flow_seen *seen,
                         emu_src_line lines[EMU_PERTURB_LINES], int *n_lines)
{
    uint64_t lo = 0, hi = 0, executed;
    emu_src_line met[EMU_PERTURB_LINES];
    if (f->source == FLOW_READONLY && array_range(p, f->array, &lo, &hi) != 0)
        return -2; /* the call has no such array: the memory path says what it read */
    emu_device_flow(perturb_of(f->source), lo, hi, at,
                    FLOW_BUDGET_FACTOR * r->instructions + FLOW_BUDGET_FLOOR);
    int ran = flow_launch(p, r, r->got) == 0;
    int n_met = emu_device_last_run(&executed, &seen->values, met);
    emu_device_flow_end();
    if (!ran)
        return -1;
    if (lines)
        memcpy(lines, met, sizeof met), *n_lines = n_met;
    seen->n = seen->same = 0, seen->at = at, seen->reaches = NULL, seen->first_same = -1;
    for (size_t e = 0; e < r->out.elems; e++)
        if (!r->out.zero_free || r->plain[e] != 0) {
            seen->n++;
            seen->same += r->got[e] == r->plain[e];
            if (r->got[e] == r->plain[e] && seen->first_same < 0)
                seen->first_same = (long)e;
        }
    return 0;
}

/*
 * Spec i of p into p->flow[i]: the run with every value from its source changed, whose
 * output must change in its share of elements; then, where those values were read at
 * more than one line of the student's, each line's alone, whose output must change
 * somewhere: a tree run for show beside a sum the kernel makes in other shared words
 * changes the output as a whole, and not from the tree's line. On another input than the
 * measured one (r->input), the whole run alone, held to the spec's share elsewhere.
 */
static void flow_compare(problem *p, int i, const flow_run *r)
{
    const flow_spec *f = &p->k->flow[i];
    emu_src_line lines[EMU_PERTURB_LINES];
    int n_lines = 0, fails = -1;
    flow_seen whole, line[EMU_PERTURB_LINES];
    double share = r->input[0] ? f->elsewhere : f->share;
    size_t least, base, changed;
    int ran = perturbed_run(p, f, r, NULL, &whole, lines, &n_lines);
    if (ran == -1) {
        derailed_words(f, r, &p->flow[i]);
        return;
    }
    if (ran != 0 || whole.n == 0)
        return;
    judged_counts(r, &whole, &base, &changed);
    least = share > 0 ? (size_t)ceil(share * (double)base) : 1;
    if (changed < least && changed > 0 && p->oob_failed) {
        past_end_words(f, r, &whole, &p->flow[i]);
        return;
    }
    if (changed < least) {
        p->flow[i].failed = 1;
        verdict_words(f, r, &whole, share, &p->flow[i]);
        return;
    }
    for (int l = 0; n_lines > 1 && !r->input[0] && l < n_lines; l++) {
        int derailed = perturbed_run(p, f, r, &lines[l], &line[l], NULL, NULL) != 0;
        if (!derailed && line[l].same == line[l].n && fails < 0)
            fails = l;
        else if (derailed)
            line[l] = (flow_seen){.n = 1}; /* it depends on them */
    }
    if (fails < 0)
        return;
    for (int l = 0; l < n_lines && !line[fails].reaches; l++)
        if (line[l].same < line[l].n)
            line[fails].reaches = &lines[l];
    p->flow[i].failed = 1;
    verdict_words(f, r, &line[fails], share, &p->flow[i]);
}

/* Whether spec f is to be run: a check it lists is p's, and passed in judged (NULL: any). */
static int flow_due(const problem *p, const flow_spec *f, const problem *judged)
{
    for (int c = 0; f->source != FLOW_NONE && c < FLOW_MAX_CHECKS && f->checks[c] != CHK_NONE;
         c++)
        if (p->listed[f->checks[c]] &&
            (!judged || judged->c[f->checks[c]].status == CHECK_PASS))
            return 1;
    return 0;
}

/* The plain run, then each due spec's perturbed run, on the arrays prepare made for
   p->call; input: its words where it is not the measured call, else ""; measured: the
   measured call's. */
static void flow_runs(problem *p, const int due[KERNEL_FLOWS], const char *input,
                      const char *measured)
{
    flow_run r = {0};
    snprintf(r.input, sizeof r.input, "%s", input);
    snprintf(r.measured, sizeof r.measured, "%s", measured);
    void *bufs[CALL_MAX_BUFFERS] = {NULL};
    uint64_t values;
    p->kind->output(p, &r.out);
    p->kind->bind(p, bufs);
    if (r.out.buffer < 0 || r.out.buffer >= CALL_MAX_BUFFERS || !r.out.elems ||
        !(r.dev = bufs[r.out.buffer]))
        return;
    r.name = p->env->plan->specs[p->call].buffer_name[r.out.buffer];
    r.plain = malloc(r.out.elems * sizeof *r.plain);
    r.got = malloc(r.out.elems * sizeof *r.got);
    if (r.plain && r.got && dev_keep() == cudaSuccess) {
        emu_src_line none[EMU_PERTURB_LINES];
        emu_device_flow(0, 0, 0, NULL, 0);
        int ran = flow_launch(p, &r, r.plain) == 0;
        emu_device_last_run(&r.instructions, &values, none);
        emu_device_flow_end();
        for (int i = 0; ran && i < KERNEL_FLOWS; i++)
            if (due[i])
                flow_compare(p, i, &r);
        dev_restore(); /* what a perturbed run wrote astray, undone */
    }
    dev_forget();
    free(r.plain), free(r.got);
}

/* Call `call`'s flow runs of the specs due, prepared and released. */
static void flow_at(problem *p, int call, const int due[KERNEL_FLOWS], const char *input,
                    const char *measured)
{
    char why[256];
    p->call = call, p->run = 0;
    if (p->kind->prepare(p, why, sizeof why) == 0)
        flow_runs(p, due, input, measured);
    if (p->kind->release)
        p->kind->release(p);
}

/* "n=17409", "offset = 7": call i's label up to its reasons, the input as a message
   names it. */
static void input_words(const problem *p, int i, char *out, size_t size)
{
    const char *label = p->env->plan->specs[i].label, *paren = strstr(label, " (");
    int len = paren ? (int)(paren - label) : (int)strlen(label);
    snprintf(out, size, "%.*s", len, label);
    if (!out[0])
        snprintf(out, size, "input %d", i + 1);
}

/* The largest correctness input this device runs (the most bytes in its buffers, the first
   of equals): ragged, and large enough that a kernel's whole blocks make most of it, where
   the edge input may be smaller than one block of lab 5's step 3 (67 x 53 against 128 x
   128 outputs a block: every block a border block). -1: none. */
static int largest_correct_call(const problem *p)
{
    int best = -1;
    size_t most = 0;
    for (int i = 0; i < p->env->plan->n_calls; i++) {
        const call_spec *c = &p->env->plan->specs[i];
        size_t bytes = 0;
        for (int b = 0; b < c->n_buffers && b < CALL_MAX_BUFFERS; b++)
            bytes += c->buffer_bytes[b];
        if ((c->role & CALL_CORRECT) && !(c->role & CALL_EMPTY) && problem_runs(p, i) &&
            bytes > most)
            best = i, most = bytes;
    }
    return best;
}

/* Whether the kernel is judged at call i besides the measured one: another measured input
   this device runs (an exercise's other arguments), or its largest correctness input, where
   a kernel that tells the measured input apart would do the lesson there alone. */
static int elsewhere_call(const problem *p, int i, int measured, int largest)
{
    const call_spec *c = &p->env->plan->specs[i];
    return i != measured && ((c->role & CALL_TRAFFIC) || i == largest) &&
           !(c->role & CALL_EMPTY) && problem_runs(p, i);
}

void problem_flow_run(problem *p, const problem *judged)
{
    int any = 0, due[KERNEL_FLOWS];
    memset(p->flow, 0, sizeof p->flow);
    for (int i = 0; i < KERNEL_FLOWS; i++)
        any |= due[i] = flow_due(p, &p->k->flow[i], judged);
    int measured = problem_call(p, CALL_TRAFFIC);
    if (!any || !p->kind->output || !p->kind->prepare || !device_is_emulator() || p->lost ||
        measured < 0)
        return;
    char at_measured[64];
    input_words(p, measured, at_measured, sizeof at_measured);
    flow_at(p, measured, due, "", at_measured);
    /* elsewhere only where the output is right: a wrong kernel's failure is correct's */
    int right = p->runs_right && p->c[CHK_CORRECT].status == CHECK_PASS;
    int largest = largest_correct_call(p);
    for (int c = 0; right && c < p->env->plan->n_calls; c++) {
        char input[64];
        if (!elsewhere_call(p, c, measured, largest))
            continue;
        any = 0;
        for (int i = 0; i < KERNEL_FLOWS; i++) /* a verdict found stands: the first */
            any |= due[i] = due[i] && !p->flow[i].failed && !p->flow[i].derailed;
        if (!any)
            break;
        input_words(p, c, input, sizeof input);
        flow_at(p, c, due, input, at_measured);
    }
    p->call = measured;
}

void problem_flow_rule(problem *p)
{
    for (int i = 0; i < KERNEL_FLOWS; i++) {
        const flow_spec *f = &p->k->flow[i];
        const flow_verdict *v = &p->flow[i];
        if (!v->failed && !v->derailed)
            continue;
        for (int c = 0; c < FLOW_MAX_CHECKS && f->checks[c] != CHK_NONE; c++) {
            check_result *r = &p->c[f->checks[c]];
            if (!p->listed[f->checks[c]] || r->status != CHECK_PASS)
                continue;
            check_set(r, v->failed ? CHECK_FAIL : CHECK_NOT_GRADED, "%s", v->message);
            check_field(r->measured, sizeof r->measured, "%s", v->measured);
            check_field(r->expected, sizeof r->expected, "%s", v->expected);
            check_field(r->hint, sizeof r->hint, "%s", v->hint);
            if (v->elsewhere) /* the measured input's lines: Next: names the kernel */
                r->n_lines = 0;
        }
    }
}
