/* compare.c - counters against the bank model; see compare.h. */
#include "compare.h"

#include "../measure/access/bankmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const smem_side SIDE_STORE = {"stores", METRIC_SHARED_ST_REQUESTS, METRIC_SHARED_ST_WAVEFRONTS,
                              METRIC_SHARED_ST_CONFLICTS, NULL, NULL};
const smem_side SIDE_LOAD = {"loads", METRIC_SHARED_LD_REQUESTS, METRIC_SHARED_LD_WAVEFRONTS,
                             METRIC_SHARED_LD_CONFLICTS, NULL, NULL};

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

/* The backend's ideal for the widths used (trace), or 0 when it has none. */
static double known_ideal(const measurement *m, const smem_side *side)
{
    if (m->ideal_set != MEASURE_IDEAL_SET)
        return 0.0;
    double ideal = side->requests == METRIC_SHARED_LD_REQUESTS ? m->ideal_ld : m->ideal_st;
    /* Below one per request, or above twice the wavefronts, it is not an
       ideal: a paired wide load takes at least half of what its bytes need
       (bank.h), nothing takes less. */
    if (!(ideal > 0) || ideal < m->value[side->requests] ||
        ideal > 2 * m->value[side->wavefronts])
        return 0.0;
    return ideal;
}

double measured_degree(const measurement *m, const smem_side *side)
{
    double waves = m->value[side->wavefronts];
    double ideal = known_ideal(m, side);
    if (ideal <= 0)
        ideal = waves - m->value[side->conflicts];
    if (!(ideal > 0))
        return 0.0;
    return waves < ideal ? 1.0 : waves / ideal; /* a paired wide load: conflict-free */
}

/*
 * Loads and stores judged alike: measured wavefronts against the ideal for
 * the access width, one wavefront per 128 bytes a warp touches. The trace
 * knows the width and gives that ideal; for the counters it is the model's
 * ideal per request times the requests measured (the counters' own conflict
 * count treats 64-bit loads and stores differently).
 */
static double judged_degree(const measurement *m, const smem_side *side, const smem_cost *model)
{
    double waves = m->value[side->wavefronts], got_req = m->value[side->requests];
    double ideal = known_ideal(m, side);
    if (ideal <= 0 && model->requests > 0 && got_req > 0)
        ideal = (double)model->ideal / (double)model->requests * got_req;
    if (ideal <= 0)
        return measured_degree(m, side);
    /* a paired wide load can beat its bytes' ideal (bank.h): that is conflict-free */
    return waves < ideal ? 1.0 : waves / ideal;
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
    double atomics = m->value[METRIC_SHARED_ATOM_REQUESTS];
    if (got == 0 && atomics > 0 && side->requests == METRIC_SHARED_ST_REQUESTS)
        check_field(c->hint, sizeof c->hint,
                    "The kernel wrote shared memory with %.0f atomic requests (atomicExch, "
                    "atomicAdd, ...) and no plain stores. An atomic is a shared access of its "
                    "own, served lane by lane where lanes share a word; the exercise asks for "
                    "the plain store `%s`.", atomics, side->code);
    else if (got == 0)
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

const char *compare_bank_rule(const bank_geometry *g)
{
    if (g && g->bank_bytes == 8)
        return "bank = (byte address / 8) % 32 on these 8-byte banks: two ints share a bank word";
    if (g && bank_row_bytes(g) != g->bank_bytes)
        return "bank = word index % 32, words of 4 bytes; words i and i + 32 of a 64-word "
               "segment share a bank's row, and so a wavefront";
    return "bank = word index % 32, words of 4 bytes";
}

static void conflict_hint(check_result *c, const smem_side *side, double got, double want,
                          const char *pad_note)
{
    if (want < 1.005)
        check_field(c->hint, sizeof c->hint,
                    "Lanes of one warp fall into the same bank (%s). The exercise asks for "
                    "`%s`, which the model says is conflict-free here.%s%s",
                    compare_bank_rule(side->banks), side->code, pad_note ? " " : "",
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

/* The check's expectation of the side's lines (check.h: expect_load, expect_store). */
static double *side_expect(check_result *c, const smem_side *side)
{
    return side->requests == METRIC_SHARED_LD_REQUESTS ? &c->expect_load : &c->expect_store;
}

void compare_conflicts(check_result *c, const smem_side *side, const measurement *m,
                       const smem_cost *model, double tolerance, const char *pad_note)
{
    char got_text[48], want_text[48];
    double waves = m->value[side->wavefronts];
    double got = judged_degree(m, side, model);
    double want = smem_degree(model);

    check_field(c->measured, sizeof c->measured, "%.0f wavefronts / %.0f requests", waves,
                m->value[side->requests]);
    degree_text(want, want_text, sizeof want_text);
    double runs = model->requests > 0 ? m->value[side->requests] / (double)model->requests : 0;
    if (runs >= 2 && runs == floor(runs)) /* a launcher's launches add up (a warm-up one) */
        check_field(c->expected, sizeof c->expected, "%.0f wavefronts / %.0f requests (%.0f "
                    "launches of %ld / %ld: %s)", runs * (double)model->wavefronts,
                    runs * (double)model->requests, runs, model->wavefronts, model->requests,
                    want_text);
    else
        check_field(c->expected, sizeof c->expected, "%ld wavefronts / %ld requests (%s)",
                    model->wavefronts, model->requests, want_text);
    c->requests = m->value[side->requests];
    c->wavefronts = waves;
    c->ideal = got > 0 ? waves / got : 0;
    *side_expect(c, side) = want;
    if (waves <= 0) {
        check_set(c, CHECK_FAIL, "%s: no shared %s measured (expected %s)", side->op, side->op,
                  want_text);
        check_field(c->hint, sizeof c->hint, "The kernel must %s the tile: `%s`.",
                    side->op[0] == 's' ? "write" : "read", side->code);
        return;
    }
    degree_text(got, got_text, sizeof got_text);
    c->degree = got;
    c->accept_lo = want * (1 - tolerance), c->accept_hi = want * (1 + tolerance);
    if (fabs(got - want) <= tolerance * want) {
        check_set(c, CHECK_PASS, "%s %s (expected %s)", side->op, got_text, want_text);
        return;
    }
    check_set(c, CHECK_FAIL, "%s %s (expected %s)", side->op, got_text, want_text);
    conflict_hint(c, side, got, want, pad_note);
}

/* What an element of `width` bytes is usually declared as, for the hint. */
static const char *types_of_width(int width)
{
    switch (width) {
    case 1: return "char";
    case 2: return "short";
    case 4: return "int or float";
    case 8: return "long long, double, int2 or float2";
    case 16: return "int4, float4 or double2";
    }
    return "an unusual type";
}

void compare_conflicts_width(check_result *c, const smem_side *side, int width,
                             int exercise_width, const smem_cost *at_width)
{
    char text[48], msg[sizeof c->message], was[sizeof c->expected];
    if (width <= 0 || width == exercise_width || c->wavefronts <= 0)
        return;
    c->width = width;
    *side_expect(c, side) = smem_degree(at_width);
    degree_text(smem_degree(at_width), text, sizeof text);
    /* the exercise's expectation, written over below: its degree, "(32-way conflict)" */
    const char *open = strrchr(c->expected, '(');
    snprintf(was, sizeof was, "%s", open ? open + 1 : c->expected);
    was[strcspn(was, ")")] = '\0';
    check_field(c->expected, sizeof c->expected, "%ld wavefronts / %ld requests (%s at %d bytes "
                "a lane; at the exercise's %d bytes: %.40s)", at_width->wavefronts,
                at_width->requests, text, width, exercise_width, was);
    snprintf(msg, sizeof msg, "%s", c->message);
    check_field(c->message, sizeof c->message, "%.160s: %d-byte lanes where the exercise's are "
                "%d bytes", msg, width, exercise_width);
    if (c->status != CHECK_FAIL)
        return;
    check_field(c->hint, sizeof c->hint,
                "Your %s move %d bytes a lane (%s) where the exercise's tile holds %d-byte "
                "elements (%s). At %d bytes a lane the same indexing is %s: the element type "
                "changed what the banks see, not your index arithmetic. Declare the tile with "
                "the exercise's element type and access it one element per thread.",
                side->op, width, types_of_width(width), exercise_width,
                types_of_width(exercise_width), width, text);
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
    if (check_why_not_graded(why)) { /* the instrument's limit, in its own words */
        check_set(c, CHECK_NOT_GRADED, "%s", why);
        check_field(c->hint, sizeof c->hint, "%s", CHECK_HINT_NOT_GRADED);
        return;
    }
    check_field(c->measured, sizeof c->measured, "not measured");
    check_set(c, CHECK_NOT_MEASURED, "not measured: %s", why);
    check_field(c->hint, sizeof c->hint, "%s", measure_status_advice(st));
}

static void set_line(check_line *l, const char *file, int line, uint64_t pc, const char *op)
{
    memset(l, 0, sizeof *l);
    if (file)
        check_field(l->file, sizeof l->file, "%s", check_file_base(file));
    else
        check_field(l->file, sizeof l->file, "pc 0x%llx", (unsigned long long)pc);
    l->line = line;
    check_field(l->op, sizeof l->op, "%s", op);
}

/* A shared site's worst warp, for the report page's drawing (check.h). */
static void keep_shared_warp(check_warp *w, const trace_site *x, const bank_geometry *g)
{
    for (int lane = 0; lane < CHECK_WARP_LANES && lane < BANK_MAX_LANES; lane++)
        w->addr[lane] = x->worst.active >> lane & 1u ? x->worst.addr[lane] : 0;
    w->active = x->worst.active;
    w->width = x->worst.width;
    w->kind = x->worst.kind;
    w->lines = x->worst.lines;
    w->skewed = x->worst.skewed;
    w->banks = g->banks;
    w->bank_bytes = g->bank_bytes;
    w->row_bytes = bank_row_bytes(g);
    w->block = x->worst_block;
    w->warp = x->worst_warp;
}

/* A global site's worst warp: its addresses' low 32 bits carry the sectors. */
static void keep_global_warp(check_warp *w, const coalesce_site *x)
{
    for (int lane = 0; lane < CHECK_WARP_LANES && lane < SECTOR_LANES; lane++)
        w->addr[lane] = x->worst.active >> lane & 1u ? (unsigned)x->worst.addr[lane] : 0;
    w->active = x->worst.active;
    w->width = x->worst.width;
    w->block = x->worst_block & 0xFFFFFFu;
    w->warp = x->worst_warp;
}

/* Sites of one source line (an unrolled loop gives a line several
   instructions; the student wrote one), summed; worst: the site to draw. */
typedef struct line_sum {
    const trace_site *first, *worst;
    long requests, wavefronts, ideal;
} line_sum;

static int same_line(const trace_site *a, const trace_site *b)
{
    return a->file && b->file && a->line == b->line && a->op == b->op &&
           strcmp(a->file, b->file) == 0;
}

static long excess(long wavefronts, long ideal)
{
    return wavefronts - ideal;
}

/* The sites of op (all but atomics when op < 0) folded into sums; returns how many. */
static int sum_lines(const trace_summary *s, int op, line_sum *sums)
{
    int n = 0;
    for (int i = 0; i < s->n_sites; i++) {
        const trace_site *x = &s->sites[i];
        if (x->op == TRACE_OP_ATOMIC || (op >= 0 && (int)x->op != op))
            continue;
        int k = 0;
        while (k < n && !same_line(sums[k].first, x))
            k++;
        if (k == n)
            sums[n++] = (line_sum){x, x, 0, 0, 0};
        sums[k].requests += x->requests;
        sums[k].wavefronts += x->wavefronts;
        sums[k].ideal += x->ideal;
        if (excess(x->wavefronts, x->ideal) > excess(sums[k].worst->wavefronts, sums[k].worst->ideal))
            sums[k].worst = x;
    }
    return n;
}

void compare_trace_lines(check_result *c, const trace_summary *s, int op, const bank_geometry *g)
{
    int used[CHECK_MAX_LINES], n = 0;
    line_sum *sums = s->n_sites > 0 ? calloc((size_t)s->n_sites, sizeof *sums) : NULL;
    int n_sums = sums ? sum_lines(s, op, sums) : 0;

    c->n_lines = 0;
    c->bank_map[0] = '\0';
    /* the lines with the most wavefronts beyond their ideal, worst first */
    while (n < CHECK_MAX_LINES) {
        int best = -1;
        for (int i = 0; i < n_sums; i++) {
            int taken = 0;
            for (int k = 0; k < n; k++)
                taken |= used[k] == i;
            if (!taken && (best < 0 || excess(sums[i].wavefronts, sums[i].ideal) >
                                           excess(sums[best].wavefronts, sums[best].ideal)))
                best = i;
        }
        if (best < 0)
            break;
        used[n++] = best;
    }
    for (int k = 0; k < n; k++) {
        const line_sum *x = &sums[used[k]];
        check_line *l = &c->lines[c->n_lines++];
        set_line(l, x->first->file, x->first->line, x->first->pc, trace_op_name(x->first->op));
        l->requests = x->requests;
        l->wavefronts = x->wavefronts;
        l->ideal = x->ideal;
        keep_shared_warp(&l->worst, x->worst, g);
    }
    if (c->status == CHECK_FAIL && n > 0) {
        const trace_site *w = sums[used[0]].worst;
        char title[160], at[64];
        if (w->file)
            snprintf(at, sizeof at, "%s:%d", check_file_base(w->file), w->line);
        else
            snprintf(at, sizeof at, "pc 0x%llx", (unsigned long long)w->pc);
        snprintf(title, sizeof title, "your worst %s (%s), warp %u of block %u, %d-byte lanes",
                 trace_op_name(w->op), at, w->worst_warp, w->worst_block, w->worst.width);
        bank_map_text(g, &w->worst, title, "        ", c->bank_map, sizeof c->bank_map);
    }
    free(sums);
}

/* The thread whose first store went to addr, or -1. */
static int stored_by(const trace_summary *s, int threads, uint32_t addr)
{
    for (int t = 0; t < threads; t++)
        if (s->threads[t].stores == 1 && s->threads[t].store_addr == addr)
            return t;
    return -1;
}

void compare_tile_flow(check_result *c, const trace_summary *s, const int *src, int threads,
                       int bdimx, const char *load_code)
{
    if (c->status != CHECK_PASS || !s || !s->threads || threads > TRACE_FLOW_THREADS)
        return;
    for (int t = 0; t < threads; t++)
        if (s->threads[t].loads != 1 || s->threads[t].stores != 1 || src[t] < 0 ||
            src[t] >= threads)
            return; /* not the one-store-one-load shape: the other checks judge it */
    for (int t = 0; t < threads; t++) {
        uint32_t got = s->threads[t].load_addr, want = s->threads[src[t]].store_addr;
        if (got == want)
            continue;
        int who = stored_by(s, threads, got);
        char whose[64];
        if (who >= 0)
            snprintf(whose, sizeof whose, "what thread (%d, %d) stored", who % bdimx, who / bdimx);
        else
            snprintf(whose, sizeof whose, "shared byte %u, which no thread stored", got);
        check_set(c, CHECK_FAIL, "loads read other words than the exercise's: thread (%d, %d) "
                  "read %s, not what thread (%d, %d) stored", t % bdimx, t / bdimx, whose,
                  src[t] % bdimx, src[t] / bdimx);
        check_field(c->hint, sizeof c->hint,
                    "Each thread must read, through the tile, the element the exercise names: "
                    "`%s`, the word another thread stored. Reading your own element and "
                    "computing the answer gives the right output but skips what the exercise "
                    "measures. (Threads are named (threadIdx.x, threadIdx.y).)", load_code);
        return;
    }
}

void compare_tile_unread(check_result *c)
{
    check_set(c, CHECK_FAIL, "waits for the tile to be read: shared stores ran, no shared load "
              "(your kernel writes its tile and never reads it back)");
}

/* The distinct pairs of source lines among s's races (one a pair of PCs: a line compiles
   to several instructions, and "45 racing pairs of lines" counted three lines' PCs). */
static int racing_line_pairs(const trace_summary *s)
{
    int n = 0;
    for (int i = 0; i < s->n_races; i++) {
        const trace_race *r = &s->races[i];
        int seen = 0;
        for (int k = 0; k < i && !seen; k++) {
            const trace_race *q = &s->races[k];
            seen = q->line_a == r->line_a && q->line_b == r->line_b &&
                   !strcmp(q->file_a ? q->file_a : "", r->file_a ? r->file_a : "") &&
                   !strcmp(q->file_b ? q->file_b : "", r->file_b ? r->file_b : "") &&
                   (r->line_a > 0 || q->pc_a == r->pc_a) && (r->line_b > 0 || q->pc_b == r->pc_b);
        }
        n += !seen;
    }
    return n;
}

/* The first race s can stand by: on a trace that saw warps touch the driver's reserved
   shared memory (cooperative groups' tile barrier, whose release and acquire it does not
   see), only one between the lanes of a warp; NULL: none. */
static const trace_race *judged_race(const trace_summary *s)
{
    for (int i = 0; i < s->n_races; i++)
        if (!s->toolkit_accesses || s->races[i].in_warp)
            return &s->races[i];
    return NULL;
}

void compare_race_spoils_correct(check_result *correct, const trace_summary *s)
{
    char text[400];
    const trace_race *r = s ? judged_race(s) : NULL;
    if (!r)
        return;
    /* the lines and who, whole: the race check below says the rest */
    char a[160], b[160];
    if (r->in_warp)
        snprintf(text, sizeof text, "lanes %u and %u of warp %u of block %u", r->lane_a,
                 r->lane_b, r->warp_a, r->block);
    else
        snprintf(text, sizeof text, "warps %u and %u of block %u", r->warp_a, r->warp_b,
                 r->block);
    check_set(correct, CHECK_FAIL, "unreliable: your kernel races, so its output depends on "
              "which %s runs first: %s (store) and %s (%s), %s; the race check names what to "
              "put between them", r->in_warp ? "lane" : "warp",
              trace_where(r->file_a, r->line_a, r->pc_a, a, sizeof a),
              trace_where(r->file_b, r->line_b, r->pc_b, b, sizeof b),
              r->b_writes ? "store" : "load", text);
    /* what to change is the race check's to say (its hint): said once, there */
    check_field(correct->hint, sizeof correct->hint,
                "A race makes a right answer luck: it can come out right on one run or GPU and "
                "wrong on the next, so the grader does not count it. The race check below "
                "names the two lines and what to put between them.");
}

void compare_races(check_result *c, const trace_summary *s, const char *why)
{
    char text[400];

    c->n_lines = 0;
    if (!s) {
        check_field(c->expected, sizeof c->expected, "no race between warps or lanes");
        check_set(c, CHECK_NOT_MEASURED, "not measured: the race check needs the trace "
                  "(Compute Sanitizer): %s", why && *why ? why : "no trace");
        check_field(c->hint, sizeof c->hint, "The race check runs the kernel under the "
                    "Compute Sanitizer, which comes with a full CUDA Toolkit (the folder "
                    "compute-sanitizer beside nvcc's bin). `make trace-backend` says whether "
                    "it was found; see docs/troubleshooting.md.");
        return;
    }
    int loads = 0, stores = 0;
    for (int i = 0; i < s->n_sites; i++) {
        loads += s->sites[i].op == TRACE_OP_LOAD;
        stores += s->sites[i].op == TRACE_OP_STORE;
    }
    if (loads == 0 || stores == 0) { /* no tile staged and read back: nothing learnt */
        check_field(c->expected, sizeof c->expected, "no race between warps or lanes");
        if (stores > 0) /* written, never read: not a missing tile */
            compare_tile_unread(c);
        else
            check_set(c, CHECK_FAIL, "waits for a shared tile: no shared %s ran, nothing to "
                      "judge", loads + stores == 0 ? "loads or stores" : "stores");
        check_field(c->hint, sizeof c->hint, "The race check passes a kernel that stages its "
                    "data in shared memory and puts a __syncthreads() between one warp's "
                    "write and another warp's read of the same word.");
        return;
    }
    if (s->n_races == 0) {
        check_field(c->measured, sizeof c->measured, "no race (%ld barrier%s seen)", s->barriers,
                    s->barriers == 1 ? "" : "s");
        check_field(c->expected, sizeof c->expected, "no race between warps or lanes");
        check_set(c, CHECK_PASS, "no two warps touch one shared word between barriers");
        return;
    }
    const trace_race *r = judged_race(s);
    if (!r) { /* between warps, which the toolkit's barrier may have ordered */
        r = &s->races[0];
        check_field(c->expected, sizeof c->expected, "no race between warps or lanes");
        check_set(c, CHECK_NOT_MEASURED, "not measured by the trace: warps %u and %u of block %u "
                  "touch shared byte 0x%x between block-wide barriers, and they may also wait "
                  "at a cooperative group's tile barrier, which the trace cannot see; the "
                  "emulator judges it", r->warp_a, r->warp_b, r->block, r->word_offset);
        return;
    }
    int pairs = racing_line_pairs(s);
    check_field(c->measured, sizeof c->measured, "%d racing pair%s of lines", pairs,
                pairs == 1 ? "" : "s");
    check_field(c->expected, sizeof c->expected, "no race between warps or lanes");
    set_line(&c->lines[c->n_lines++], r->file_a, r->line_a, r->pc_a, "store");
    set_line(&c->lines[c->n_lines++], r->file_b, r->line_b, r->pc_b, r->b_writes ? "store" : "load");
    check_set(c, CHECK_FAIL, "%s", trace_race_text(r, text, sizeof text));
    if (r->in_warp && r->read_first) {
        check_field(c->hint, sizeof c->hint,
                    "Lane %u stores this word (line %d) after lane %u read it (line %d), with no "
                    "__syncwarp() between: the lanes of a warp run independently (since Volta), "
                    "so the store may land before the read, whatever the code's order. A "
                    "volatile pointer does not order them. Put __syncwarp() between the read "
                    "and the store.", r->lane_a, r->line_a, r->lane_b, r->line_b);
        return;
    }
    if (r->in_warp) {
        check_field(c->hint, sizeof c->hint,
                    "Lane %u %s this word (line %d) after lane %u stored it (line %d), with no "
                    "__syncwarp() between: the lanes of a warp run independently (since Volta), "
                    "so lane %u may %s it before lane %u's store, whatever the code's order. A "
                    "volatile pointer does not order them. Put __syncwarp() between the store "
                    "and the other lane's access.", r->lane_b, r->b_writes ? "writes" : "reads",
                    r->line_b, r->lane_a, r->line_a, r->lane_b, r->b_writes ? "write" : "read",
                    r->lane_a);
        return;
    }
    if (r->across_passes) {
        int a_later = r->pc_a > r->pc_b; /* the later line ran in the earlier pass */
        check_line *later = &c->lines[a_later ? 0 : 1];
        check_field(c->hint, sizeof c->hint,
                    "The barrier between the two lines orders them within one pass of the loop "
                    "only. A fast warp finishes its pass at line %d, goes round and reaches line "
                    "%d of the next pass while a slower warp is still at line %d of this one: "
                    "nothing holds it back. Put a __syncthreads() at the end of the loop body, "
                    "after the last access of the tile (line %d), so that no warp overwrites "
                    "the tile while another still reads it.", later->line,
                    c->lines[a_later ? 1 : 0].line, later->line, later->line);
        return;
    }
    if (r->tile_synced) {
        check_field(c->hint, sizeof c->hint,
                    "Nothing orders warp %u's store before warp %u's %s: a tile's sync() waits "
                    "for the warps of its own tile only, and orders what they did before it "
                    "with what they do after it. Either the two warps are in different tiles, "
                    "and where a level reads what another tile wrote the whole block must "
                    "wait (__syncthreads(), the block's sync(), every thread still there "
                    "reaching it), or no sync() of their tile lies between the two lines.",
                    r->warp_a, r->warp_b, r->b_writes ? "store" : "load");
        return;
    }
    check_field(c->hint, sizeof c->hint,
                "Another warp %s this word between the same two barriers, so what it %s "
                "depends on which warp runs first; the output can come out right by luck. "
                "Put __syncthreads() between the write and the other warp's access (and "
                "before a tile is overwritten while others may still read it).",
                r->b_writes ? "writes" : "reads", r->b_writes ? "holds" : "reads");
}

/* --- global coalescing (lab 9) ------------------------------------------------------- */

static void draw_worst(check_result *c, const trace_summary *s, int store);

/* The lines of one side's global sites, most sectors beyond the ideal first; the worst
   drawn over its sectors where the check failed. */
/* The line of lines[from ..] that x's source line already made (an unrolled loop
   gives a line several instructions; the student wrote one), or NULL. */
static check_line *same_source_line(check_result *c, int from, const coalesce_site *x)
{
    if (!x->file || x->line <= 0)
        return NULL;
    for (int i = from; i < c->n_lines; i++)
        if (c->lines[i].line == x->line && strcmp(c->lines[i].file, check_file_base(x->file)) == 0)
            return &c->lines[i];
    return NULL;
}

/* Site x's counts onto its source line among c's lines from first (a new line where it has
   none: the first site of a line, taken worst first, gives the warp drawn). */
static void add_site_line(check_result *c, int first, const coalesce_site *x, const char *op)
{
    check_line *l = same_source_line(c, first, x);
    if (!l) {
        l = &c->lines[c->n_lines++];
        set_line(l, x->file, x->line, x->pc, op);
        keep_global_warp(&l->worst, x);
    }
    l->requests += x->requests;
    l->wavefronts += x->sectors;
    l->ideal += x->ideal;
}

static void coalesce_lines(check_result *c, const trace_summary *s, int side)
{
    static const char *const op[] = {[COALESCE_LOAD] = "gload", [COALESCE_STORE] = "gstore",
                                      [COALESCE_ATOMIC] = "gatomic"};
    int used[CHECK_MAX_LINES], n = 0;
    const coalesce_sites *g = &s->global;
    while (n < CHECK_MAX_LINES - c->n_lines) {
        int best = -1;
        for (int i = 0; i < g->n; i++) {
            int taken = g->v[i].side != side;
            for (int k = 0; k < n; k++)
                taken |= used[k] == i;
            if (!taken && (best < 0 || g->v[i].sectors - g->v[i].ideal >
                                           g->v[best].sectors - g->v[best].ideal))
                best = i;
        }
        if (best < 0)
            break;
        used[n++] = best;
    }
    int first = c->n_lines;
    for (int k = 0; k < n; k++)
        add_site_line(c, first, &g->v[used[k]], op[side]);
    if (c->status == CHECK_FAIL && n > 0 && side != COALESCE_ATOMIC)
        draw_worst(c, s, side);
}

void compare_global_side_lines(check_result *c, const trace_summary *s, int side)
{
    if (s)
        coalesce_lines(c, s, side);
}

/* A check of global traffic that names no line (labs 5 to 8 and 10 count a kernel's
   loads and stores whole) names its global sites, loads then stores and atomics
   (writes_too), so that the report page marks every line that touched global memory with
   its sectors. */
void compare_global_sites(check_result *c, const trace_summary *s, int writes_too)
{
    if (!s || c->n_lines > 0 || (c->status != CHECK_PASS && c->status != CHECK_FAIL))
        return;
    coalesce_lines(c, s, COALESCE_LOAD);
    if (writes_too) {
        coalesce_lines(c, s, COALESCE_STORE);
        coalesce_lines(c, s, COALESCE_ATOMIC);
    }
}

/* Whether every lane site x's worst warp took part in read inside [lo, lo + bytes), by the
   addresses' low 32 bits (all a record keeps). */
static int site_reads_within(const coalesce_site *x, uint64_t lo, uint64_t bytes)
{
    int any = 0;
    for (int l = 0; l < SECTOR_LANES; l++)
        if (x->worst.active >> l & 1u) {
            uint32_t off = (uint32_t)x->worst.addr[l] - (uint32_t)lo; /* wraps as the bits do */
            if (off >= bytes)
                return 0;
            any = 1;
        }
    return any;
}

void compare_global_loads_of(check_result *c, const trace_summary *s, uint64_t lo,
                             uint64_t bytes)
{
    const coalesce_sites *g = s ? &s->global : NULL;
    for (int i = 0; g && i < g->n && c->n_lines < CHECK_MAX_LINES; i++) {
        const coalesce_site *x = &g->v[i];
        if (x->side != COALESCE_LOAD || !site_reads_within(x, lo, bytes))
            continue;
        add_site_line(c, 0, x, "gload");
    }
}

/* The worst warp of the side's worst site over its sectors, into c->bank_map. */
static void draw_worst(check_result *c, const trace_summary *s, int store)
{
    const coalesce_site *w = coalesce_worst(&s->global, store);
    if (w) {
        char title[160], at[64];
        if (w->file)
            snprintf(at, sizeof at, "%s:%d", check_file_base(w->file), w->line);
        else
            snprintf(at, sizeof at, "pc 0x%llx", (unsigned long long)w->pc);
        snprintf(title, sizeof title, "your worst global %s (%s), warp %u of block %u, %d-byte lanes",
                 store ? "store" : "load", at, w->worst_warp, w->worst_block & 0xFFFFFFu,
                 w->worst.width);
        sector_map_text(&w->worst, title, "        ", c->bank_map, sizeof c->bank_map);
    }
}

void compare_coalescing(check_result *c, int store, const measurement *m, double model_ideal,
                        const trace_summary *s, const char *code, int expect_strided)
{
    const char *side = store ? "store" : "load";
    double req = m->value[store ? METRIC_GLOBAL_ST_REQUESTS : METRIC_GLOBAL_LD_REQUESTS];
    double sec = m->value[store ? METRIC_GLOBAL_ST_SECTORS : METRIC_GLOBAL_LD_SECTORS];
    double ideal = m->value[store ? METRIC_GLOBAL_ST_IDEAL : METRIC_GLOBAL_LD_IDEAL];
    if (ideal <= 0) /* the counters know no ideal: the exercise's */
        ideal = model_ideal;
    c->n_lines = 0;
    c->bank_map[0] = '\0';
    c->requests = req;
    c->wavefronts = sec;
    c->ideal = ideal;
    *(store ? &c->expect_store : &c->expect_load) = expect_strided ? CHECK_EXPECT_STRIDED : 1.0;
    check_field(c->measured, sizeof c->measured, "%.0f sectors / %.0f %s requests", sec, req, side);
    check_field(c->expected, sizeof c->expected, "at most %.2f x %.0f sectors (the ideal)",
                COALESCE_TOLERANCE, ideal);
    if (req <= 0 || ideal <= 0) {
        check_set(c, CHECK_FAIL, "the kernel made no global %s: it must %s the matrix", side,
                  store ? "write" : "read");
        return;
    }
    double per = sec / req, ideal_per = ideal / req;
    if (expect_strided) { /* a naive step: the side is meant to walk a column */
        int strided = sec > COALESCE_TOLERANCE * ideal;
        check_field(c->expected, sizeof c->expected, "strided: more than %.2f x %.0f sectors",
                    COALESCE_TOLERANCE, ideal);
        if (strided)
            check_set(c, CHECK_PASS, "%ss strided, as this step's are: %.2f sectors a request "
                      "where %.2f would do (%.1fx the ideal), what a tile saves", side, per,
                      ideal_per, sec / ideal);
        else
            check_set(c, CHECK_FAIL, "%ss coalesced (%.2f sectors a request): this step %ss "
                      "columns straight through global memory, no tile", side, per,
                      store ? "write" : "read");
        if (s)
            coalesce_lines(c, s, store);
        if (strided && s) /* the cost drawn, as a failure would be */
            draw_worst(c, s, store);
        return;
    }
    if (sec <= COALESCE_TOLERANCE * ideal) {
        check_set(c, CHECK_PASS, "%ss coalesced: %.2f sectors a request, ideal %.2f", side, per,
                  ideal_per);
    } else {
        check_set(c, CHECK_FAIL, "%ss not coalesced: %.2f sectors a request where %.2f would do "
                  "(%.1fx the ideal)", side, per, ideal_per, sec / ideal);
        check_field(c->hint, sizeof c->hint,
                    "A warp's %s is served a 32-byte sector at a time: its lanes should %s "
                    "neighbouring elements (threadIdx.x along a row), %.2f sectors a request "
                    "for yours. They took %.1f times that (the drawing: the sector each lane "
                    "touched, in address order). %s%sGo through a shared tile: both global "
                    "sides by rows, the transpose inside the tile.", side,
                    store ? "write" : "read", ideal_per, sec / ideal, code ? code : "",
                    code ? " walks a column. " : "");
    }
    if (s)
        coalesce_lines(c, s, store);
}
