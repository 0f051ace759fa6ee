/* runner.c - record, then measure in worker processes; see runner.h. */
#define _GNU_SOURCE
#include "runner.h"

#include "../base/exit_codes.h"
#include "../compare/fault.h"
#include "../image/lab_image.h"
#include "meter_server.h"
#include "../record/contract.h"
#include "../record/record_run.h"
#include "../base/child.h"
#include "../run/gpu.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STARTUP_TIMEOUT_S 60.0 /* opening the GPU, loading the code, the profiler */
#define GPU_WAIT_S 1800.0      /* for another grader's measuring on the same GPU */

static double gpu_wait_s(const grade_options *opt)
{
    return opt->gpu_wait_s > 0 ? opt->gpu_wait_s : GPU_WAIT_S;
}

double kernel_budget_s(const grade_options *opt)
{
    return opt->kernel_budget_s > 0 ? opt->kernel_budget_s : 60.0 + 6.0 * opt->timeout_s;
}

/* Is there a kernel from `from` on that the worker is to grade? */
static int plans_left(const grade_job *job, int from)
{
    for (int k = from; k < job->lab->n_kernels; k++)
        if (job->plans[k].verdict == PLAN_OK)
            return 1;
    return 0;
}

/* The checks of one kernel: what the table expects, and what arrived. */
typedef struct kernel_slots {
    kernel_check expect[KERNEL_MAX_CHECKS];
    check_result got[KERNEL_MAX_CHECKS];
    int have[KERNEL_MAX_CHECKS];
    int n;
} kernel_slots;

static void slots_init(const lab_def *lab, kernel_slots *s)
{
    for (int k = 0; k < lab->n_kernels; k++) {
        memset(&s[k], 0, sizeof s[k]);
        s[k].n = kernel_checks(lab, &lab->kernels[k], s[k].expect);
    }
}

/* Decide check i of kernel k here: points from the table, never from a child. */
static void slot_set(const lab_def *lab, int k, kernel_slots *s, int i, const check_result *c)
{
    check_result *d = &s->got[i];
    *d = *c;
    snprintf(d->lab, sizeof d->lab, "%s", lab->id);
    snprintf(d->kernel, sizeof d->kernel, "%s", lab->kernels[k].name);
    snprintf(d->check, sizeof d->check, "%s", check_name(s->expect[i].id));
    d->max_points = s->expect[i].points;
    d->points = d->status == CHECK_PASS ? d->max_points : 0;
    s->have[i] = 1;
}

static void terminate(char *field, size_t size)
{
    field[size - 1] = '\0';
}

/*
 * A worker's check: for the kernel being graded, a check the table lists,
 * reported once, with a known status; its text is cut to size. Returns 0,
 * or -1 when the message is refused.
 */
static int accept_check(const lab_def *lab, int current, kernel_slots *slots, worker_msg *m)
{
    check_result *c = &m->check;
    if (current < 0 || m->kernel != current)
        return -1;
    terminate(c->check, sizeof c->check);
    terminate(c->measured, sizeof c->measured);
    terminate(c->expected, sizeof c->expected);
    terminate(c->message, sizeof c->message);
    terminate(c->hint, sizeof c->hint);
    terminate(c->bank_map, sizeof c->bank_map);
    if (c->n_lines < 0 || c->n_lines > CHECK_MAX_LINES)
        c->n_lines = 0;
    for (int i = 0; i < c->n_lines; i++) {
        terminate(c->lines[i].file, sizeof c->lines[i].file);
        terminate(c->lines[i].op, sizeof c->lines[i].op);
        check_warp_tidy(&c->lines[i].worst);
    }
    kernel_slots *s = &slots[current];
    int skipped_ok = lab->kernels[current].optional;
    if (!(c->status == CHECK_PASS || c->status == CHECK_FAIL ||
          c->status == CHECK_NOT_MEASURED || c->status == CHECK_NOT_GRADED ||
          (c->status == CHECK_SKIPPED && skipped_ok)))
        return -1;
    check_id id = check_id_of(c->check);
    for (int i = 0; i < s->n; i++)
        if (s->expect[i].id == id) {
            if (s->have[i])
                return -1; /* reported twice */
            slot_set(lab, current, s, i, c);
            return 0;
        }
    return -1;
}

/* Every check of kernel k not decided yet fails; the first says what happened. */
static void fail_rest(const lab_def *lab, int k, kernel_slots *s, const char *what,
                      const char *hint)
{
    int told = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->have[i])
            continue;
        check_result c;
        check_init(&c, lab->id, lab->kernels[k].name, check_name(s->expect[i].id), 0);
        if (told++) {
            check_set(&c, CHECK_FAIL, "not run: %s", what);
        } else {
            check_set(&c, CHECK_FAIL, "%s", what);
            if (hint)
                check_field(c.hint, sizeof c.hint, "%s", hint);
        }
        slot_set(lab, k, s, i, &c);
    }
}

/* Kernels the record decided: a missing launcher, or one that broke the contract. */
static void decide_from_plans(const grade_job *job, kernel_slots *slots)
{
    const lab_def *lab = job->lab;
    for (int k = 0; k < lab->n_kernels; k++) {
        const kernel_plan *p = &job->plans[k];
        const lab_kernel *kern = &lab->kernels[k];
        char what[700];
        if (p->verdict == PLAN_MISSING && kern->optional) {
            for (int i = 0; i < slots[k].n; i++) {
                check_result c;
                check_init(&c, lab->id, kern->name, check_name(slots[k].expect[i].id), 0);
                check_set(&c, CHECK_SKIPPED, "optional: %s is not in your file", kern->launcher);
                slot_set(lab, k, &slots[k], i, &c);
            }
        } else if (p->verdict == PLAN_MISSING) {
            snprintf(what, sizeof what, "%s not found in %s", kern->launcher, job->img->path);
            fail_rest(lab, k, &slots[k], what, "Keep the launcher names and signatures of the "
                      "skeleton (see the comment at the top of your lab file); the grader calls "
                      "them by name.");
        } else if (p->verdict == PLAN_REJECTED || p->verdict == PLAN_PENDING) {
            snprintf(what, sizeof what, "%s", p->verdict == PLAN_REJECTED ? p->why
                     : "the launcher was never recorded");
            fail_rest(lab, k, &slots[k], what, "A launcher only launches the lab's kernels "
                      "(kernel<<<grid, block, bytes>>>(args)) on the default stream and "
                      "returns: the grader allocates, copies, synchronises and times itself, "
                      "and replays exactly the launches it saw.");
        }
    }
}

static void describe_exit(int status, char *buf, size_t size, double timeout_s)
{
    if (WIFEXITED(status) && WEXITSTATUS(status) == WORKER_EXIT_TIMEOUT)
        snprintf(buf, size, "timed out after %.0f s: a launch never finished", timeout_s);
    else if (WIFSIGNALED(status))
        snprintf(buf, size, "the kernel's process died: signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, size, "the kernel's process exited with status %d before finishing",
                 WEXITSTATUS(status));
}

typedef struct worker_start {
    const grade_job *job;
    worker_entry entry;
    int first;
} worker_start;

static void worker_child(void *p)
{
    worker_start *w = p;
    w->entry(w->job, w->first, CHILD_MSG_FD);
}

/* Where a worker is: the kernel it grades, the next one, until when it may be silent. */
typedef struct worker_talk {
    int current, next;
    double deadline;
    int waiting;         /* for the GPU's lock, held by another grader */
    char lock_path[1024]; /* that lock's file */
} worker_talk;

/* The GPU is this worker's: the batch above (--status-fd) starts its clock. */
static void gpu_held(const grade_job *job, const char *no_lock_why)
{
    if (no_lock_why[0])
        fprintf(stderr, "smemlab-grade: note: %s; measuring without it\n", no_lock_why);
    if (job->opt->status_fd > 2 && write(job->opt->status_fd, "gpu\n", 4) < 0) {
        /* the reader is gone: nothing to tell */
    }
}

/* Handle one message, moving the worker's state on. */
static void on_message(const grade_job *job, kernel_slots *slots, worker_msg *m,
                       worker_talk *w, lab_result *r)
{
    const lab_def *lab = job->lab;
    terminate(m->text, sizeof m->text);
    switch (m->type) {
    case MSG_DEVICE:
        if (!r->device[0])
            snprintf(r->device, sizeof r->device, "%s", m->text);
        return;
    case MSG_GPU_WAIT:
        if (w->current >= 0)
            break;
        if (w->waiting)
            return; /* a meter proxy said so, then its worker: the first deadline stands */
        w->waiting = 1;
        snprintf(w->lock_path, sizeof w->lock_path, "%s", m->text);
        fprintf(stderr, "smemlab-grade: waiting for the GPU: another smemlab grader is "
                "measuring on it (%s)\n", w->lock_path);
        w->deadline = child_now() + gpu_wait_s(job->opt);
        return;
    case MSG_GPU_HELD:
        if (w->current >= 0)
            break;
        w->waiting = 0;
        gpu_held(job, m->text);
        w->deadline = child_now() + STARTUP_TIMEOUT_S;
        return;
    case MSG_BEGIN:
        if (w->current >= 0 || w->waiting || m->kernel < w->next || m->kernel >= lab->n_kernels ||
            job->plans[m->kernel].verdict != PLAN_OK)
            break;
        w->deadline = child_now() + kernel_budget_s(job->opt); /* no message extends it */
        w->current = m->kernel;
        return;
    case MSG_CHECK:
        if (accept_check(lab, w->current, slots, m) == 0)
            return;
        break;
    case MSG_END:
        if (w->current < 0 || m->kernel != w->current)
            break;
        fail_rest(lab, w->current, &slots[w->current], "the grader's worker did not report "
                  "this check", NULL);
        w->next = w->current + 1;
        w->current = -1;
        w->deadline = child_now() + STARTUP_TIMEOUT_S;
        return;
    case MSG_ENVIRONMENT:
        if (!r->env_code) {
            r->env_code = EXIT_ENVIRONMENT;
            snprintf(r->env_text, sizeof r->env_text, "%s", m->text);
        }
        return;
    }
    r->rejected_messages++;
}

/* A worker that ended or fell silent before grading anything: nothing to blame on a kernel. */
static void startup_failed(const worker_talk *w, int got, int status, const grade_options *opt,
                           lab_result *r)
{
    r->env_code = EXIT_ENVIRONMENT;
    if (got < 0 && w->waiting)
        snprintf(r->env_text, sizeof r->env_text, "the GPU was still held by another smemlab "
                 "grader after %.0f s (%.900s): grade again when it is done", gpu_wait_s(opt),
                 w->lock_path);
    else if (got < 0)
        snprintf(r->env_text, sizeof r->env_text, "the GPU did not answer within %.0f s "
                 "while starting", STARTUP_TIMEOUT_S);
    else
        describe_exit(status, r->env_text, sizeof r->env_text, opt->timeout_s);
}

/*
 * Run one worker from kernel `first`. Returns the index to continue from
 * (n_kernels when done), or -1 when the environment stops everything.
 */
static int run_worker(const grade_job *job, worker_entry entry, int first, kernel_slots *slots,
                      capture *printed, lab_result *r)
{
    const lab_def *lab = job->lab;
    worker_start ws = {job, entry, first};
    child ch;
    static worker_msg m;
    char why[256];
    int got = 0, status = 0;
    worker_talk w = {.current = -1, .next = first};

    if (child_start(&ch, worker_child, &ws, printed, why, sizeof why) != 0) {
        r->env_code = EXIT_ENVIRONMENT;
        snprintf(r->env_text, sizeof r->env_text, "%s", why);
        return -1;
    }
    w.deadline = child_now() + STARTUP_TIMEOUT_S;
    /* Done when the last kernel ended: whatever still holds the pipe is not waited for. */
    while (!r->env_code && (w.current >= 0 || plans_left(job, w.next)) &&
           (got = child_read(&ch, &m, sizeof m, w.deadline)) == 1)
        on_message(job, slots, &m, &w, r);
    child_stop(&ch, &status);

    if (r->env_code)
        return -1;
    if (w.current < 0 && w.next == first && got != 1) {
        startup_failed(&w, got, status, job->opt, r);
        return -1;
    }
    if (w.current >= 0) {
        int current = w.current;
        char what[256];
        if (got < 0)
            snprintf(what, sizeof what, "timed out: the kernel's checks took longer than "
                     "%.0f s", kernel_budget_s(job->opt));
        else
            describe_exit(status, what, sizeof what, job->opt->timeout_s);
        int timed_out = got < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == WORKER_EXIT_TIMEOUT);
        fail_rest(lab, current, &slots[current], what, timed_out
                  ? CHECK_HINT_HANG
                  : "The process running your kernel ended in the middle of it. Run the "
                    "lab under compute-sanitizer to find a faulting access.");
        return current + 1;
    }
    return w.next;
}

static char *printed_text(const capture *c)
{
    if (c->total == 0)
        return NULL;
    char *s = malloc(CAPTURE_HEAD + CAPTURE_TAIL + 128);
    if (s)
        capture_text(c, s, CAPTURE_HEAD + CAPTURE_TAIL + 128);
    return s;
}

/* The checks in table order, and the points added up once. */
static void collect(const lab_def *lab, kernel_slots *slots, lab_result *out)
{
    out->cap = lab->n_kernels * KERNEL_MAX_CHECKS;
    out->checks = calloc((size_t)out->cap, sizeof *out->checks);
    for (int k = 0; k < lab->n_kernels; k++)
        for (int i = 0; i < slots[k].n; i++)
            if (slots[k].have[i]) {
                out->checks[out->n_checks++] = slots[k].got[i];
                out->points += slots[k].got[i].points;
                out->max_points += slots[k].got[i].max_points;
            }
}

/*
 * A kernel whose correct run faulted on the GPU (an illegal or misaligned
 * address): the GPU says only that. The emulator, which records every access
 * and does not fault below what an SM grants, is asked to grade that kernel
 * alone; where it finds the access past the kernel's shared memory, the
 * student reads that line and offset, as without a GPU.
 */
static int faulted(const check_result *c)
{
    return check_id_of(c->check) == CHK_CORRECT && c->status == CHECK_FAIL &&
           (strstr(c->message, "illegal memory access") || strstr(c->message, "misaligned address")) &&
           !fault_worded(c->message); /* located already: the emulator graded it */
}

/*
 * The checks the fault left unrun on the GPU (the context was lost) take the emulated
 * grade's outcome, so that a kernel that overruns its shared memory gets the same checks,
 * messages and points whichever device ran it (the emulator does not fault there).
 */
static void adopt_emulated(kernel_slots *gpu, const kernel_slots *emu, int correct)
{
    for (int j = 0; j < gpu->n; j++) {
        check_result *c = &gpu->got[j];
        if (j == correct || !gpu->have[j] || !emu->have[j] || c->status != CHECK_FAIL ||
            strncmp(c->message, "not run: ", 9) != 0)
            continue;
        double max = c->max_points;
        *c = emu->got[j];
        c->max_points = max;
        c->points = c->status == CHECK_PASS ? max : 0;
    }
}

static void explain_faults(const grade_job *job, kernel_slots *slots, capture *printed)
{
    const lab_def *lab = job->lab;
    if (job->opt->measure == MEASURE_MODE_EMULATOR)
        return;
    for (int k = 0; k < lab->n_kernels; k++) {
        int i = 0;
        while (i < slots[k].n && !(slots[k].have[i] && faulted(&slots[k].got[i])))
            i++;
        if (i == slots[k].n)
            continue;
        kernel_plan *plans = malloc((size_t)lab->n_kernels * sizeof *plans);
        kernel_slots *again = calloc((size_t)lab->n_kernels, sizeof *again);
        lab_result *scratch = calloc(1, sizeof *scratch);
        if (!plans || !again || !scratch) {
            free(plans), free(again), free(scratch);
            return;
        }
        memcpy(plans, job->plans, (size_t)lab->n_kernels * sizeof *plans);
        for (int j = 0; j < lab->n_kernels; j++)
            if (j != k)
                plans[j].verdict = PLAN_PENDING; /* this kernel alone */
        grade_options opt = *job->opt;
        opt.measure = MEASURE_MODE_EMULATOR;
        opt.meter_socket = NULL;
        grade_job one = {lab, &opt, job->img, plans};
        slots_init(lab, again);
        run_worker(&one, worker_main, k, again, printed, scratch);
        const check_result *e = &again[k].got[i];
        if (again[k].have[i] && e->status == CHECK_FAIL && fault_worded(e->message)) {
            check_result *c = &slots[k].got[i];
            char text[2 * sizeof c->message + 64];
            snprintf(text, sizeof text, "%s (found by emulating the kernel; on the GPU: %s)",
                     e->message, c->message);
            memcpy(c->message, text, sizeof c->message - 1);
            c->message[sizeof c->message - 1] = 0;
            snprintf(c->hint, sizeof c->hint, "%s", e->hint);
            adopt_emulated(&slots[k], &again[k], i);
        }
        free(plans), free(again), free(scratch);
    }
}

void run_plans(const grade_job *job, worker_entry entry, lab_result *out)
{
    const lab_def *lab = job->lab;
    kernel_slots *slots = calloc((size_t)lab->n_kernels, sizeof *slots);
    capture *printed = calloc(1, sizeof *printed);
    int next = 0;

    child_become_subreaper();
    slots_init(lab, slots);
    decide_from_plans(job, slots);
    while (next >= 0 && next < lab->n_kernels && plans_left(job, next))
        next = run_worker(job, entry, next, slots, printed, out);
    /* a grade through a meter server too: the emulated grade needs no GPU, and a batch
       must give a faulting kernel what a student's make grade gives it */
    if (entry == worker_main || entry == meter_proxy_main)
        explain_faults(job, slots, printed);
    collect(lab, slots, out);
    out->device_printed = printed_text(printed);
    free(printed);
    free(slots);
}

void run_lab(const lab_def *lab, const grade_options *opt, lab_result *out)
{
    double start = child_now();
    static lab_image img;
    kernel_plan *plans = calloc((size_t)lab->n_kernels, sizeof *plans);
    capture *host = calloc(1, sizeof *host);

    memset(out, 0, sizeof *out);
    out->lab = lab;
    snprintf(out->graded_as, sizeof out->graded_as, "%s", opt->gpu ? opt->gpu : "");
    child_become_subreaper();
    int opened = lab_image_open(opt->lib_path, &img, out->env_text, sizeof out->env_text) == 0;
    if (opened)
        lab_image_toolchain(&img, out->toolchain, sizeof out->toolchain);
    out->refused = opened && contract_check(&img, lab, out->env_text, sizeof out->env_text) != 0;
    if (!opened || out->refused ||
        record_lab(lab, &img, opt, plans, host, out->env_text, sizeof out->env_text) != 0) {
        out->env_code = EXIT_ENVIRONMENT;
    } else {
        grade_job job = {lab, opt, &img, plans};
        for (int k = 0; opt->only_kernel && k < lab->n_kernels; k++)
            if (strcmp(lab->kernels[k].name, opt->only_kernel) != 0)
                plans[k].verdict = PLAN_NOT_ASKED;
        /* A meter server measures on a GPU; where there is none the worker emulates */
        int metered = opt->meter_socket && !opt->gpu &&
                      !(opt->measure == MEASURE_MODE_AUTO && gpu_absent());
        run_plans(&job, metered ? meter_proxy_main : worker_main, out);
        out->host_printed = printed_text(host);
    }
    lab_image_close(&img);
    free(plans);
    free(host);
    out->seconds = child_now() - start;
}
