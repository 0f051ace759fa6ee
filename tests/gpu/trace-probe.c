/*
 * trace-probe.c - the trace backend on its own, on a GPU: opens it (before
 * any CUDA call), loads a tile lab's library, measures one launcher and
 * compares the requests and wavefronts with the numbers given, worked out by
 * hand from the bank arithmetic (and equal to Nsight Compute's). It also
 * prints the per-line report, the races and the worst load's bank map, so
 * that the capture can be checked before the measurer (issue 7) uses it.
 *
 *   trace-probe LIB LAUNCHER ST_REQ ST_WAVES LD_REQ LD_WAVES race|norace [LD_IDEAL]
 *
 * Exit 0 when every number agrees, 1 when one does not, 3 when the backend
 * or the library cannot be used. `make check-trace-gpu` runs it over the
 * lab 1-4 solutions and the planted variants whose numbers are known.
 */
#define _POSIX_C_SOURCE 200809L
#include "compare/compare.h"
#include "measure/trace/measure_trace.h"
#include "measure/access/bankmap.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*tile_launcher)(int *out);

typedef struct probe {
    tile_launcher launcher;
    int *out;
} probe;

static void launch(void *arg)
{
    probe *p = arg;
    p->launcher(p->out);
}

static int expect(const char *what, double got, long want)
{
    if ((long)got == want)
        return 0;
    printf("  MISMATCH %s: trace %.0f, expected %ld\n", what, got, want);
    return 1;
}

int main(int argc, char **argv)
{
    char why[512] = "", text[256];
    if (argc < 8) {
        fprintf(stderr, "usage: trace-probe LIB LAUNCHER ST_REQ ST_WAVES LD_REQ LD_WAVES "
                        "race|norace [LD_IDEAL]\n");
        return 2;
    }
    measure_backend *b = measure_trace_backend(why, sizeof why);
    if (!b || b->open(b, why, sizeof why) != MEASURE_OK) {
        fprintf(stderr, "trace-probe: %s\n", why);
        return 3;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    probe p = {0};
    if (!lib || !(*(void **)&p.launcher = dlsym(lib, argv[2]))) {
        fprintf(stderr, "trace-probe: %s: %s\n", argv[1], lib ? "no such launcher" : dlerror());
        return 3;
    }
    if (cudaMalloc((void **)&p.out, 64 * 64 * sizeof(int)) != cudaSuccess) {
        fprintf(stderr, "trace-probe: cudaMalloc failed: is there a GPU?\n");
        return 3;
    }
    measurement m;
    measure_status st = b->measure(b, launch, &p, &m, why, sizeof why);
    if (st != MEASURE_OK) {
        fprintf(stderr, "trace-probe: %s %s: %s\n", argv[1], argv[2], why);
        return 3;
    }
    const char *function = NULL;
    const trace_summary *s = measure_trace_last(b, &function);
    printf("%s %s (%s): stores %.0f/%.0f, loads %.0f/%.0f (ideal %.0f), %ld barriers, "
           "%d racing pairs\n", argv[1], argv[2], function ? function : "?",
           m.value[METRIC_SHARED_ST_WAVEFRONTS], m.value[METRIC_SHARED_ST_REQUESTS],
           m.value[METRIC_SHARED_LD_WAVEFRONTS], m.value[METRIC_SHARED_LD_REQUESTS], m.ideal_ld,
           s ? s->barriers : -1, s ? s->n_races : -1);
    for (int i = 0; s && i < s->n_sites; i++)
        printf("  at %s\n", trace_site_text(&s->sites[i], text, sizeof text));
    for (int i = 0; s && i < s->n_races; i++)
        printf("  %s\n", trace_race_text(&s->races[i], text, sizeof text));
    const trace_site *worst = s ? trace_worst_site(s, TRACE_OP_LOAD) : NULL;
    if (worst) {
        bank_geometry g;
        char map[1024];
        bank_geometry_for(9, 0, 32, 0, &g);
        printf("%s", bank_map_text(&g, &worst->worst, "worst load", "  ", map, sizeof map));
    }
    int bad = expect("store requests", m.value[METRIC_SHARED_ST_REQUESTS], atol(argv[3])) +
              expect("store wavefronts", m.value[METRIC_SHARED_ST_WAVEFRONTS], atol(argv[4])) +
              expect("load requests", m.value[METRIC_SHARED_LD_REQUESTS], atol(argv[5])) +
              expect("load wavefronts", m.value[METRIC_SHARED_LD_WAVEFRONTS], atol(argv[6])) +
              expect("racing pairs > 0", s && s->n_races > 0, strcmp(argv[7], "race") == 0);
    if (argc > 8)
        bad += expect("load ideal", m.ideal_ld, atol(argv[8]));
    int lines = 0;
    for (int i = 0; s && i < s->n_sites; i++)
        lines += s->sites[i].file != NULL;
    bad += expect("sites with a source line", lines, s ? s->n_sites : 0);
    b->close(b);
    cudaFree(p.out);
    printf("%s\n", bad ? "FAIL" : "ok");
    return bad ? 1 : 0;
}
