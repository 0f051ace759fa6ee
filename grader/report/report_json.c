/* report_json.c - results for machines (instructors' scripts, LMS import). */
#include "report.h"
#include "../base/provenance.h"
#include "../measure/emulator/emu_gpu.h"
#include "../run/module.h" /* REC_ATTR_UNSET (record.h, through plan.h) */

#include "../../common/smemlab.h"

#include <cJSON.h>
#include <errno.h>
#include <stdlib.h>

/* A line's worst warp: which it was and where each lane went (0 for an idle lane). */
static cJSON *warp_json(const check_warp *w)
{
    cJSON *o = cJSON_CreateObject(), *addr = cJSON_CreateArray();
    cJSON_AddNumberToObject(o, "block", w->block);
    cJSON_AddNumberToObject(o, "warp", w->warp);
    cJSON_AddNumberToObject(o, "width", w->width);
    cJSON_AddNumberToObject(o, "active", w->active);
    if (w->banks) { /* shared: the geometry it was judged in */
        cJSON_AddNumberToObject(o, "banks", w->banks);
        cJSON_AddNumberToObject(o, "bank_bytes", w->bank_bytes);
        if (w->row_bytes && w->row_bytes != w->bank_bytes) /* Kepler's 4-byte mode */
            cJSON_AddNumberToObject(o, "row_bytes", w->row_bytes);
    }
    for (int lane = 0; lane < CHECK_WARP_LANES; lane++)
        cJSON_AddItemToArray(addr, cJSON_CreateNumber(w->addr[lane]));
    cJSON_AddItemToObject(o, "addresses", addr);
    return o;
}

static cJSON *check_json(const check_result *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kernel", c->kernel);
    cJSON_AddStringToObject(o, "check", c->check);
    /* a check that waits for another (check_waits: "waits for correct", "not run: ...")
       failed nothing yet: "waiting", its reason the message, so that no reader of the
       JSON (the batch, Gradescope, a script) counts it among the failures */
    cJSON_AddStringToObject(o, "status", check_waits(c) ? "waiting" : check_status_name(c->status));
    cJSON_AddNumberToObject(o, "points", c->points);
    cJSON_AddNumberToObject(o, "max_points", c->max_points);
    cJSON_AddStringToObject(o, "message", c->message);
    cJSON_AddStringToObject(o, "measured", c->measured);
    cJSON_AddStringToObject(o, "expected", c->expected);
    cJSON_AddStringToObject(o, "hint", c->hint);
    if (c->wavefronts > 0 || c->requests > 0) { /* conflict checks: the numbers themselves */
        cJSON *n = cJSON_AddObjectToObject(o, "counts");
        cJSON_AddNumberToObject(n, "requests", c->requests);
        cJSON_AddNumberToObject(n, "wavefronts", c->wavefronts);
        cJSON_AddNumberToObject(n, "ideal", c->ideal);
        cJSON_AddNumberToObject(n, "width", c->width);
    }
    if (c->n_lines > 0) { /* trace backend: the source lines behind the verdict */
        cJSON *lines = cJSON_AddArrayToObject(o, "lines");
        for (int i = 0; i < c->n_lines && i < CHECK_MAX_LINES; i++) {
            const check_line *l = &c->lines[i];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "file", l->file);
            cJSON_AddNumberToObject(x, "line", l->line);
            cJSON_AddStringToObject(x, "op", l->op);
            cJSON_AddNumberToObject(x, "requests", (double)l->requests);
            cJSON_AddNumberToObject(x, "wavefronts", (double)l->wavefronts);
            cJSON_AddNumberToObject(x, "ideal", (double)l->ideal);
            if (l->worst.active)
                cJSON_AddItemToObject(x, "warp", warp_json(&l->worst));
            cJSON_AddItemToArray(lines, x);
        }
    }
    if (c->bank_map[0])
        cJSON_AddStringToObject(o, "bank_map", c->bank_map);
    return o;
}

/* The GPU the emulator graded as (--gpu), or null: the GPU at hand (device says which). */
static cJSON *graded_as_json(const char *id)
{
    const emu_gpu *g = emu_gpu_find(id);
    bank_geometry banks;
    if (!g)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    char sm[16];
    snprintf(sm, sizeof sm, "sm_%d%d", g->major, g->minor);
    emu_gpu_banks(g, REC_ATTR_UNSET, &banks);
    cJSON_AddStringToObject(o, "gpu", g->id);
    cJSON_AddStringToObject(o, "name", g->name);
    cJSON_AddStringToObject(o, "sm", sm);
    cJSON_AddBoolToObject(o, "emulated", 1);
    cJSON_AddNumberToObject(o, "banks", banks.banks);
    cJSON_AddNumberToObject(o, "bank_bytes", banks.bank_bytes);
    cJSON_AddStringToObject(o, "bank_bytes_4_where", "a launcher calls cudaDeviceSetSharedMemConfig"
                            "(cudaSharedMemBankSizeFourByte) (a conflict check's warp says "
                            "which mode it was judged in)");
    return o;
}

static cJSON *lab_json(const lab_result *r)
{
    cJSON *o = cJSON_CreateObject(), *checks = cJSON_CreateArray();

    cJSON_AddStringToObject(o, "id", r->lab->id);
    cJSON_AddStringToObject(o, "title", r->lab->title);
    cJSON_AddStringToObject(o, "source", r->source[0] ? r->source : r->lab->source);
    cJSON_AddStringToObject(o, "device", r->device);
    char prov[256];
    device_provenance(r->device, prov, sizeof prov);
    cJSON_AddStringToObject(o, "provenance", prov);
    cJSON_AddItemToObject(o, "graded_as", graded_as_json(r->graded_as));
    if (r->env_code)
        cJSON_AddStringToObject(o, "not_graded", r->env_text);
    else
        cJSON_AddNullToObject(o, "not_graded");
    /* whose it is to fix: the library's own contract, or the machine that ran it */
    cJSON_AddStringToObject(o, "not_graded_cause", !r->env_code ? "" : r->refused ? "contract"
                                                                                  : "environment");
    for (int i = 0; i < r->n_checks; i++)
        cJSON_AddItemToArray(checks, check_json(&r->checks[i]));
    cJSON_AddNumberToObject(o, "points", r->points);
    cJSON_AddNumberToObject(o, "max_points", r->max_points);
    if (r->host_printed)
        cJSON_AddStringToObject(o, "host_printed", r->host_printed);
    if (r->predictions)
        cJSON_AddStringToObject(o, "predictions", r->predictions);
    if (r->device_printed)
        cJSON_AddStringToObject(o, "device_printed", r->device_printed);
    cJSON_AddNumberToObject(o, "seconds", r->seconds);
    char digest[65];
    lab_table_digest(r->lab, digest);
    cJSON_AddStringToObject(o, "table_sha256", digest);
    cJSON_AddStringToObject(o, "toolchain", r->toolchain);
    cJSON_AddStringToObject(o, "backend", device_backend(r->device));
    cJSON_AddItemToObject(o, "checks", checks);
    return o;
}

static cJSON *provenance_json(const run_provenance *p)
{
    cJSON *o = cJSON_CreateObject(), *opt = cJSON_CreateObject();
    char seed[32];
    cJSON_AddStringToObject(o, "grader", p->version);
    cJSON_AddStringToObject(o, "grader_sha256", p->grader_sha256);
    cJSON_AddStringToObject(o, "course", p->course);
    cJSON_AddStringToObject(o, "course_sha256", p->course_sha256);
    snprintf(seed, sizeof seed, "%llu", p->seed); /* a 64-bit seed: exact as text */
    cJSON_AddStringToObject(opt, "seed", seed);
    cJSON_AddNumberToObject(opt, "repeats", p->repeats);
    cJSON_AddNumberToObject(opt, "timeout", p->timeout_s);
    cJSON_AddStringToObject(opt, "measure", p->measure ? p->measure : "auto");
    cJSON_AddBoolToObject(opt, "counters", p->counters);
    if (p->kernel)
        cJSON_AddStringToObject(opt, "kernel", p->kernel);
    else
        cJSON_AddNullToObject(opt, "kernel");
    cJSON_AddItemToObject(o, "options", opt);
    cJSON_AddStringToObject(o, "host", p->host);
    cJSON_AddStringToObject(o, "time", p->time);
    return o;
}

int report_json(FILE *f, const lab_result *results, int n, const score *s, int exit_code)
{
    return report_json_with(f, results, n, s, exit_code, NULL);
}

int report_json_with(FILE *f, const lab_result *results, int n, const score *s, int exit_code,
                     const run_provenance *p)
{
    cJSON *root = cJSON_CreateObject(), *labs = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "tool", "smemlab-grade");
    cJSON_AddNumberToObject(root, "contract_version", SMEMLAB_CONTRACT_VERSION);
    if (p)
        cJSON_AddItemToObject(root, "provenance", provenance_json(p));
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(labs, lab_json(&results[i]));
    cJSON_AddItemToObject(root, "labs", labs);
    cJSON_AddNumberToObject(root, "points", s->points);
    cJSON_AddNumberToObject(root, "max_points", s->max_points);
    cJSON_AddNumberToObject(root, "failed", s->failed - s->waiting);
    cJSON_AddNumberToObject(root, "waiting", s->waiting);
    cJSON_AddNumberToObject(root, "not_measured", s->not_measured);
    cJSON_AddNumberToObject(root, "not_graded_checks", s->not_graded);
    cJSON_AddNumberToObject(root, "exit_code", exit_code);

    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        errno = ENOMEM;
        return -1;
    }
    int ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    free(text);
    return ok ? 0 : -1;
}
