/*
 * truth-run.c - launches every kernel of a generated corpus (gen-corpus.py)
 * once, for Nsight Compute to profile (make check-truth-gpu), or measures
 * each with the trace backend and prints what it saw per site.
 *
 *   truth-run run LIB TSV      launch_<name>(out) for every row, in order
 *   truth-run trace LIB TSV    the same under the trace backend: one line a
 *                              kernel, then its sites (width, requests,
 *                              wavefronts, ideal)
 *
 * It dlopens the corpus library, whose host code is the generator's own:
 * this is a test tool, never used on a student's file.
 */
#define _POSIX_C_SOURCE 200809L
#include "measure/trace/measure_trace.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*launcher_fn)(int *out);

typedef struct probe {
    launcher_fn launch;
    int *out;
} probe;

static void launch(void *arg)
{
    probe *p = arg;
    p->launch(p->out);
}

int main(int argc, char **argv)
{
    char why[512] = "", line[512], sym[128], text[256];
    measure_backend *b = NULL;
    if (argc != 4 || (strcmp(argv[1], "run") && strcmp(argv[1], "trace"))) {
        fprintf(stderr, "usage: truth-run run|trace LIB TSV\n");
        return 2;
    }
    if (strcmp(argv[1], "trace") == 0) {
        b = measure_trace_backend(why, sizeof why);
        if (!b || b->open(b, why, sizeof why) != MEASURE_OK) {
            fprintf(stderr, "truth-run: %s\n", why);
            return 3;
        }
    }
    void *lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    FILE *tsv = fopen(argv[3], "r");
    probe p = {0};
    if (!lib || !tsv || cudaMalloc((void **)&p.out, 4096 * sizeof(int)) != cudaSuccess) {
        fprintf(stderr, "truth-run: %s\n", !lib ? dlerror() : !tsv ? "cannot read the TSV"
                                                                   : "cudaMalloc failed");
        return 3;
    }
    int bad = 0;
    while (fgets(line, sizeof line, tsv)) {
        char name[64];
        if (line[0] == '#' || strncmp(line, "name\t", 5) == 0 || sscanf(line, "%63s", name) != 1)
            continue;
        snprintf(sym, sizeof sym, "launch_%s", name);
        if (!(*(void **)&p.launch = dlsym(lib, sym))) {
            fprintf(stderr, "truth-run: no %s\n", sym);
            return 3;
        }
        if (!b) {
            p.launch(p.out);
            cudaError_t err = cudaDeviceSynchronize();
            if (err != cudaSuccess) {
                printf("%s error %s\n", name, cudaGetErrorString(err));
                bad = 1;
            }
            continue;
        }
        measurement m;
        if (b->measure(b, launch, &p, &m, why, sizeof why) != MEASURE_OK) {
            printf("%s error %s\n", name, why);
            bad = 1;
            continue;
        }
        const trace_summary *s = measure_trace_last(b, NULL);
        printf("%s ld %.0f %.0f %.0f st %.0f %.0f %.0f\n", name,
               m.value[METRIC_SHARED_LD_REQUESTS], m.value[METRIC_SHARED_LD_WAVEFRONTS], m.ideal_ld,
               m.value[METRIC_SHARED_ST_REQUESTS], m.value[METRIC_SHARED_ST_WAVEFRONTS], m.ideal_st);
        for (int i = 0; s && i < s->n_sites; i++)
            printf("  site %s width %d: %s\n", trace_op_name(s->sites[i].op), s->sites[i].width,
                   trace_site_text(&s->sites[i], text, sizeof text));
    }
    if (b)
        b->close(b);
    return bad;
}
