/*
 * sync-emulate.c - the emulator's verdicts on the synchronisation corpus
 * (tests/truth/gen-sync.py; make check-truth):
 *
 *   sync-emulate SYNC.ptx SYNC.tsv     one line a kernel on stdout:
 *                                      name sync race bounds detail
 *
 * Each kernel runs once on the PTX machine with its row's grid, block, n and
 * buffers (in filled as sync-run fills it on a GPU), its records going to the
 * same analysis as the grader's (measure/access/). sync: barrier or mask (the
 * machine's synchronisation errors, docs/emulator.md#sync), or -; race: error
 * (between warps), warning (between the lanes of one warp only), or -;
 * bounds: error where the launch faulted on an address outside every
 * allocation, or -. detail: the first error's kind and line, for reading.
 * Exit 0, or 1 when the files cannot be read or a kernel cannot run.
 */
#include "measure/access/trace.h"
#include "model/bank.h"
#include "ptx/emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
    trace_analyzer *a;
    int failed;
    emu_sync_error first;
    int n_sync;
} run;

static void on_shared(void *ctx, const emu_shared_record *r)
{
    run *x = ctx;
    trace_record t;
    char why[160];
    if (r->flags & EMU_REC_SHFL)
        return;
    memcpy(&t, r, sizeof t);
    if (!x->failed && trace_analyzer_add(x->a, &t, why, sizeof why) != 0) {
        fprintf(stderr, "sync-emulate: %s\n", why);
        x->failed = 1;
    }
}

static void on_sync(void *ctx, const emu_sync_error *e)
{
    run *x = ctx;
    if (x->n_sync++ == 0)
        x->first = *e;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text) {
        text[n] = '\0';
        *len = (size_t)n;
    }
    return text;
}

static const char *kind_name(int kind)
{
    static const char *const names[] = {"barrier-warp", "barrier-block", "barrier-split",
                                        "mask-absent", "mask-self", "mask-read"};
    return kind >= 0 && kind < EMU_SYNC_KINDS ? names[kind] : "?";
}

/* One kernel: its verdicts on stdout. 0, or -1 when it could not run at all. */
static int emulate(emu_device *d, emu_module *m, const char *name, unsigned gx, unsigned gy,
                   unsigned bx, unsigned by, int n, int ints)
{
    int k = emu_kernel_find(m, name);
    emu_kernel_info info;
    if (k < 0 || emu_kernel_describe(m, k, &info) != 0 || info.n_params != 3) {
        fprintf(stderr, "sync-emulate: no kernel %s(in, out, n) in the PTX\n", name);
        return -1;
    }
    if (ints <= 0)
        ints = (int)(gx * gy * bx * by);
    int *host = malloc((size_t)ints * sizeof *host);
    uint64_t in = 0, out = 0;
    if (!host || emu_alloc(d, (uint64_t)ints * 4, &in) || emu_alloc(d, (uint64_t)ints * 4, &out)) {
        free(host);
        return -1;
    }
    for (int i = 0; i < ints; i++) /* sync-run's values */
        host[i] = (int)((unsigned)i * 2654435761u >> 9) - (1 << 22);
    emu_write(d, in, host, (uint64_t)ints * 4);
    free(host);
    unsigned char params[64] = {0};
    memcpy(params + info.param_offset[0], &in, 8);
    memcpy(params + info.param_offset[1], &out, 8);
    memcpy(params + info.param_offset[2], &n, 4);
    bank_geometry g;
    bank_geometry_for(9, 0, 32, 0, &g);
    run x = {.a = trace_analyzer_new(&g)};
    emu_sink sink = {&x, on_shared, NULL, on_sync, NULL};
    emu_launch l = {.kernel = k, .grid = {gx, gy, 1}, .block = {bx, by, 1},
                    .params = params, .param_bytes = info.param_bytes,
                    .shared_fill = 0xdeadbeefu};
    emu_result r;
    emu_status st = emu_run(m, &l, &sink, EMU_DEFAULT_BUDGET, &r);
    trace_summary s;
    char why[160];
    memset(&s, 0, sizeof s);
    if (!x.a || x.failed || trace_analyzer_finish(x.a, &s, why, sizeof why) != 0) {
        fprintf(stderr, "sync-emulate: %s: the analysis failed\n", name);
        return -1;
    }
    int between = 0, within = 0;
    for (int i = 0; i < s.n_races; i++)
        *(s.races[i].in_warp ? &within : &between) = 1;
    const char *sync = x.n_sync == 0 ? "-" : x.first.kind <= EMU_SYNC_BARRIER_SPLIT ? "barrier"
                                                                                      : "mask";
    printf("%s\t%s\t%s\t%s\t", name, sync, between ? "error" : within ? "warning" : "-",
           st == EMU_FAULT ? "error" : "-");
    if (x.n_sync)
        printf("%s at line %d", kind_name(x.first.kind), x.first.line);
    if (st != EMU_OK)
        printf("%s%s: %s", x.n_sync ? "; " : "", emu_status_name(st), r.why);
    printf("\n");
    trace_summary_free(&s);
    emu_free(d, in);
    emu_free(d, out);
    return st == EMU_OK || st == EMU_FAULT ? 0 : -1;
}

int main(int argc, char **argv)
{
    size_t len;
    char why[512], line[512];
    if (argc != 3) {
        fprintf(stderr, "usage: sync-emulate SYNC.ptx SYNC.tsv\n");
        return 2;
    }
    char *ptx = slurp(argv[1], &len);
    FILE *tsv = fopen(argv[2], "r");
    emu_device *d = emu_device_create(UINT64_C(1) << 30);
    emu_module *m = NULL;
    if (!ptx || !tsv || !d || emu_module_load(d, ptx, len, &m, why, sizeof why) != 0) {
        fprintf(stderr, "sync-emulate: %s\n", !ptx || !tsv ? "cannot read the corpus" : why);
        return 1;
    }
    int bad = 0;
    printf("name\tsync\trace\tbounds\tdetail\n");
    while (fgets(line, sizeof line, tsv)) {
        char name[96];
        unsigned gx, gy, bx, by;
        int n, ints;
        if (strncmp(line, "name\t", 5) == 0 ||
            sscanf(line, "%95s %u %u %u %u %d %d", name, &gx, &gy, &bx, &by, &n, &ints) != 7)
            continue;
        bad |= emulate(d, m, name, gx, gy, bx, by, n, ints) != 0;
    }
    fclose(tsv);
    emu_module_unload(m);
    emu_device_destroy(d);
    free(ptx);
    return bad;
}
