/* sync.c - synchronisation errors as verdicts; see sync.h. */
#include "sync.h"

#include <stdio.h>
#include <string.h>

/* "lab9.cu:42", or the pc where no line is known. */
static const char *at(const char *file, int line, uint64_t pc, char *buf, size_t size)
{
    if (file && line > 0)
        snprintf(buf, size, "%s:%d", check_file_base(file), line);
    else
        snprintf(buf, size, "pc 0x%llx", (unsigned long long)pc);
    return buf;
}

/* The line a student reads: a CUDA header's instruction (a shuffle intrinsic) at the
   student's line it was inlined at, "lab8.cu:121 (in sm_30_intrinsics.hpp:409)"; in a
   function of their own, where that was called too, as an access out of bounds says it
   (compare/fault.c): "lab8.cu:97 (in sm_30_intrinsics.hpp:409; called from lab8.cu:121)",
   "lab7.cu:88 (called from lab7.cu:120)". */
static int header(const char *path);
static int in_header(const trace_sync *e);

static const char *student_at(const trace_sync *e, char *buf, size_t size)
{
    char own[96], from[120] = "";
    if (!in_header(e)) {
        if (e->file && e->line > 0 && e->call_file && e->call_line > 0 &&
            !header(e->call_file))
            snprintf(from, sizeof from, " (called from %s:%d)", check_file_base(e->call_file),
                     e->call_line);
        snprintf(buf, size, "%s%s", at(e->file, e->line, e->pc, own, sizeof own), from);
        return buf;
    }
    if (e->caller_line > 0)
        snprintf(from, sizeof from, "; called from %s:%d", check_file_base(e->call_file),
                 e->caller_line);
    snprintf(buf, size, "%s:%d (in %s%s)", check_file_base(e->call_file), e->call_line,
             at(e->file, e->line, e->pc, own, sizeof own), from);
    return buf;
}

static int has(const uint32_t *words, unsigned t)
{
    return (words[t / 32] >> (t % 32) & 1u) != 0;
}

/* Threads (bits of words, n bits) as ranges after what they are: "threads 0-511",
   "thread 7", "lanes 1, 3, 5 and 13 more". */
static const char *ranges_of(const char *what, const uint32_t *words, unsigned n, char *buf,
                             size_t size)
{
    size_t len = 0;
    unsigned shown = 0, total = 0;
    buf[0] = '\0';
    for (unsigned t = 0; t < n; t++)
        total += has(words, t);
    int w0 = snprintf(buf, size, "%s%s ", what, total == 1 ? "" : "s");
    if (w0 < 0 || (size_t)w0 >= size)
        return buf;
    len = (size_t)w0;
    for (unsigned t = 0; t < n && shown < 3; t++) {
        if (!has(words, t))
            continue;
        unsigned end = t;
        while (end + 1 < n && has(words, end + 1))
            end++;
        int w = end > t ? snprintf(buf + len, size - len, "%s%u-%u", shown ? ", " : "", t, end)
                        : snprintf(buf + len, size - len, "%s%u", shown ? ", " : "", t);
        if (w < 0 || (size_t)w >= size - len)
            return buf;
        len += (size_t)w;
        total -= end - t + 1;
        shown++;
        t = end;
    }
    if (total)
        snprintf(buf + len, size - len, " and %u more", total);
    return buf;
}

static const char *ranges(const uint32_t *words, unsigned n, char *buf, size_t size)
{
    return ranges_of("thread", words, n, buf, size);
}

/* Lanes of warp w as the block's thread numbers. */
static const char *lane_threads(uint32_t warp, uint32_t lanes, char *buf, size_t size)
{
    uint32_t words[TRACE_BLOCK_WORDS] = {0};
    if (warp < TRACE_BLOCK_WORDS)
        words[warp] = lanes;
    return ranges(words, 32 * TRACE_BLOCK_WORDS, buf, size);
}

static const char *lanes_text(uint32_t lanes, char *buf, size_t size)
{
    return ranges_of("lane", &lanes, 32, buf, size);
}

const char *compare_sync_name(const char *ptx, char *buf, size_t size)
{
    static const struct {
        const char *prefix, *name;
    } names[] = {
        {"shfl.sync.bfly", "__shfl_xor_sync"}, {"shfl.sync.up", "__shfl_up_sync"},
        {"shfl.sync.down", "__shfl_down_sync"}, {"shfl.sync.idx", "__shfl_sync"},
        {"vote.sync.ballot", "__ballot_sync"}, {"vote.sync.any", "__any_sync"},
        {"vote.sync.all", "__all_sync"}, {"vote.sync.uni", "__uni_sync"},
        {"vote.ballot.sync", "__ballot_sync"}, {"vote.any.sync", "__any_sync"},
        {"vote.all.sync", "__all_sync"}, {"vote.uni.sync", "__uni_sync"},
        {"match.any", "__match_any_sync"}, {"match.all", "__match_all_sync"},
        {"redux.sync.add", "__reduce_add_sync"}, {"redux.sync.min", "__reduce_min_sync"},
        {"redux.sync.max", "__reduce_max_sync"}, {"redux.sync.and", "__reduce_and_sync"},
        {"redux.sync.or", "__reduce_or_sync"}, {"redux.sync.xor", "__reduce_xor_sync"},
        {"bar.warp.sync", "__syncwarp"}, {"bar.red.popc", "__syncthreads_count()"},
        {"bar.red.and", "__syncthreads_and()"}, {"bar.red.or", "__syncthreads_or()"},
        {"barrier.red.popc", "__syncthreads_count()"}, {"barrier.red.and", "__syncthreads_and()"},
        {"barrier.red.or", "__syncthreads_or()"}, {"bar", "__syncthreads()"},
        {"barrier", "__syncthreads()"},
    };
    const char *text = ptx ? ptx : "?";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].prefix);
        if (strncmp(text, names[i].prefix, n) == 0 && (text[n] == '\0' || text[n] == '.')) {
            snprintf(buf, size, "%s", names[i].name);
            return buf;
        }
    }
    snprintf(buf, size, "%s", text);
    return buf;
}

/* Whether the other barrier (SPLIT: a student's place, emu_student_where) is at the line
   the student reads for e's own. */
static int same_place(const trace_sync *e)
{
    const char *file = in_header(e) ? e->call_file : e->file;
    int line = in_header(e) ? e->call_line : e->line;
    return e->other_file && file && e->other_line == line && strcmp(e->other_file, file) == 0;
}

static int barrier_kind(const trace_sync *e)
{
    return e->kind == TRACE_SYNC_BARRIER_WARP || e->kind == TRACE_SYNC_BARRIER_BLOCK ||
           e->kind == TRACE_SYNC_BARRIER_SPLIT;
}

const char *compare_sync_text(const trace_sync *e, char *buf, size_t size)
{
    char name[48], where[256], other[96], a[96], b[96];
    compare_sync_name(e->text, name, sizeof name);
    student_at(e, where, sizeof where);
    unsigned n = e->threads ? e->threads : 32 * TRACE_BLOCK_WORDS;
    switch (e->kind) {
    case TRACE_SYNC_BARRIER_WARP:
        snprintf(buf, size, "divergent barrier: the %s at %s was reached by %s of block "
                 "(%u,%u,%u) but not by %s, which had not exited", name, where,
                 lane_threads(e->warp, e->lanes, a, sizeof a), e->ctaid[0], e->ctaid[1],
                 e->ctaid[2], lane_threads(e->warp, e->missing, b, sizeof b));
        break;
    case TRACE_SYNC_BARRIER_BLOCK:
        snprintf(buf, size, "divergent barrier: the %s at %s was reached by %s of block "
                 "(%u,%u,%u) but not by %s, which had not exited: they went on past it",
                 name, where, ranges(e->reached, n, a, sizeof a), e->ctaid[0], e->ctaid[1],
                 e->ctaid[2], ranges(e->skipped, n, b, sizeof b));
        break;
    case TRACE_SYNC_BARRIER_SPLIT:
        at(e->other_file, e->other_line, e->other_pc, other, sizeof other);
        if (same_place(e) && header(e->call_file))
            /* a header's barrier both: which line of the student's called each is not known
               (a cooperative group's sync() called twice makes the same header line) */
            snprintf(buf, size, "divergent barrier: in block (%u,%u,%u) %s waited at "
                     "the %s at %s and %s at another barrier of that header line (another "
                     "sync() of yours, or nvcc's copy of a loop)", e->ctaid[0], e->ctaid[1],
                     e->ctaid[2], ranges(e->reached, n, a, sizeof a), name, where,
                     ranges(e->skipped, n, b, sizeof b));
        else if (same_place(e))
            snprintf(buf, size, "divergent barrier: in block (%u,%u,%u) %s waited at "
                     "the %s at %s and %s at another copy of it (nvcc's, of a loop "
                     "whose passes differ between them)", e->ctaid[0], e->ctaid[1],
                     e->ctaid[2], ranges(e->reached, n, a, sizeof a), name, where,
                     ranges(e->skipped, n, b, sizeof b));
        else
            snprintf(buf, size, "divergent barrier: in block (%u,%u,%u) %s waited at "
                     "the %s at %s and %s at the one at %s", e->ctaid[0], e->ctaid[1],
                     e->ctaid[2], ranges(e->reached, n, a, sizeof a), name, where,
                     ranges(e->skipped, n, b, sizeof b), other);
        break;
    case TRACE_SYNC_MASK_ABSENT:
        snprintf(buf, size, "warp mask: %s at %s with mask 0x%08x runs on %s of warp %u "
                 "(block (%u,%u,%u)); %s, which the mask names, %s not execute it", name,
                 where, e->mask, lanes_text(e->lanes, a, sizeof a), e->warp, e->ctaid[0],
                 e->ctaid[1], e->ctaid[2], lanes_text(e->missing, b, sizeof b),
                 __builtin_popcount(e->missing) == 1 ? "does" : "do");
        break;
    case TRACE_SYNC_MASK_SELF:
        snprintf(buf, size, "warp mask: %s of warp %u (block (%u,%u,%u)) execute %s at "
                 "%s with mask 0x%08x, which leaves them out",
                 lanes_text(e->missing, a, sizeof a), e->warp, e->ctaid[0], e->ctaid[1],
                 e->ctaid[2], name, where, e->mask);
        break;
    default:
        snprintf(buf, size, "warp mask: %s at %s reads %s of warp %u (block (%u,%u,%u)), "
                 "which %s not execute it", name, where, lanes_text(e->missing, a, sizeof a),
                 e->warp, e->ctaid[0], e->ctaid[1], e->ctaid[2],
                 __builtin_popcount(e->missing) == 1 ? "does" : "do");
    }
    return buf;
}

/* Where the threads that did not come are, and the rule: the hint. */
static void barrier_hint(check_result *c, const trace_sync *e)
{
    char wait[96], via[96], lead[320] = "";
    if (e->kind != TRACE_SYNC_BARRIER_SPLIT && e->other_line > 0 && e->branch_line > 0 &&
        e->other_line != e->branch_line)
        snprintf(lead, sizeof lead, "The threads that did not come take the other path, "
                 "from %s on, past the branch at %s. ",
                 at(e->other_file, e->other_line, e->other_pc, wait, sizeof wait),
                 at(e->branch_file, e->branch_line, e->branch_pc, via, sizeof via));
    else if (e->branch_line > 0 && e->kind != TRACE_SYNC_BARRIER_SPLIT)
        snprintf(lead, sizeof lead, "The threads that did not come left at the branch at %s. ",
                 at(e->branch_file, e->branch_line, e->branch_pc, via, sizeof via));
    check_field(c->hint, sizeof c->hint, "%sEvery thread of a block must reach each "
                "__syncthreads() the others wait at, the same one and as often, or return "
                "before it: a barrier under a condition that differs between the block's threads "
                "(if (tid < stride), a bounds check, a loop whose count differs) is undefined "
                "(CUDA Programming Guide), and on a GPU threads may go on before the tile is "
                "written. Keep the barrier outside the branch and only the work under it.", lead);
}

static void mask_hint(check_result *c, const trace_sync *e)
{
    char wait[96], via[96], lead[320] = "";
    if (e->kind == TRACE_SYNC_MASK_READ && e->gone == e->missing)
        snprintf(lead, sizeof lead, "The lanes it reads have returned, skipped it (an if "
                 "around the call), or do not exist: their registers hold no value of this "
                 "shuffle. ");
    else if (e->other_line > 0 && e->branch_line > 0 && e->other_line != e->branch_line)
        snprintf(lead, sizeof lead, "The lanes that do not execute it take the other path, "
                 "from %s on, past the branch at %s. ",
                 at(e->other_file, e->other_line, e->other_pc, wait, sizeof wait),
                 at(e->branch_file, e->branch_line, e->branch_pc, via, sizeof via));
    check_field(c->hint, sizeof c->hint, "%sEvery lane a mask names must execute the same "
                "warp primitive with the same mask, each lane must be in its own mask, and a "
                "shuffle may read only lanes that execute it (CUDA Programming Guide; "
                "docs/lab8.md#shuffle): otherwise the result is undefined, and a GPU may give "
                "the right one by chance. Let the whole warp run it (a lane with nothing to give "
                "runs it too, rather than returning or skipping it), or give the mask of the "
                "lanes that run it and read only those (a reduction over 8 lanes: xor 4, 2 "
                "and 1, not 16).",
                lead);
}

/* A CUDA header's instruction (a shuffle intrinsic): where the student called it. */
static int header(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    return dot && (strcmp(dot, ".h") == 0 || strcmp(dot, ".hpp") == 0);
}

static int in_header(const trace_sync *e)
{
    return header(e->file) && e->call_file && e->call_line > 0;
}

static void set_where(check_result *c, const trace_sync *e)
{
    check_line *l = &c->lines[0];
    const char *file = in_header(e) ? e->call_file : e->file;
    memset(l, 0, sizeof *l);
    if (file)
        check_field(l->file, sizeof l->file, "%s", check_file_base(file));
    else
        check_field(l->file, sizeof l->file, "pc 0x%llx", (unsigned long long)e->pc);
    l->line = in_header(e) ? e->call_line : e->line;
    check_field(l->op, sizeof l->op, "%s", barrier_kind(e) ? "barrier" : "mask");
    c->n_lines = 1;
}

int compare_sync(check_result *correct, check_result *race, const trace_summary *s)
{
    if (!s || s->n_sync == 0)
        return 0;
    const trace_sync *e = &s->sync[0];
    char text[400];
    compare_sync_text(e, text, sizeof text);
    check_set(correct, CHECK_FAIL, "%s", text);
    check_field(correct->measured, sizeof correct->measured, "%d synchronisation error%s, met "
                "%ld time%s", s->n_sync, s->n_sync == 1 ? "" : "s", s->sync_count,
                s->sync_count == 1 ? "" : "s");
    check_field(correct->expected, sizeof correct->expected, "every thread at each barrier, "
                "every lane a mask names at its primitive");
    set_where(correct, e);
    if (barrier_kind(e))
        barrier_hint(correct, e);
    else
        mask_hint(correct, e);
    if (!race || !barrier_kind(e))
        return 1;
    check_set(race, CHECK_FAIL, "%s", text);
    check_field(race->measured, sizeof race->measured, "a barrier not every thread reached");
    check_field(race->expected, sizeof race->expected, "no race between warps");
    set_where(race, e);
    barrier_hint(race, e);
    return 1;
}
