/*
 * truth-run.c - launches every kernel of truth-corpus parts once, for Nsight
 * Compute to profile (make check-truth-gpu):
 *
 *   truth-run LIB TSV [LIB TSV ...]    launch_<name>(out) for every row (idiom
 *                                      parts: idiom NAME CLASS); a row "call
 *                                      NAME ARG" calls a lab's launcher as
 *                                      labs 7 and 8 declare theirs,
 *                                      launch_NAME(in, out, ARG), on buffers
 *                                      of max(ARG, 4096) ints
 *
 * It dlopens the parts, whose host code is the generator's own
 * (tests/truth/gen-corpus.py): a test tool, never used on a student's file.
 * Exit 0, 1 when a launch failed, 2 on bad usage, 3 when nothing can run.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef void (*launcher_fn)(int *out);
typedef void (*call_fn)(int *in, int *out, int arg);

/* launch_NAME(in, out, arg) of a lab (tests/truth/check-labs.sh): 0, or 1 when it failed. */
static int call_lab(void *lib, const char *name, int arg)
{
    char sym[96];
    size_t n = arg > 4096 ? (size_t)arg : 4096;
    int *in = NULL, *out = NULL, bad = 0;
    call_fn call;
    snprintf(sym, sizeof sym, "launch_%s", name);
    *(void **)&call = dlsym(lib, sym);
    if (!call || cudaMalloc((void **)&in, n * sizeof(int)) != cudaSuccess ||
        cudaMalloc((void **)&out, n * sizeof(int)) != cudaSuccess) {
        fprintf(stderr, "truth-run: no %s, or no memory for it\n", sym);
        cudaFree(in);
        return 1;
    }
    cudaMemset(in, 1, n * sizeof(int)); /* the counts depend on no value */
    call(in, out, arg);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("%s: %s\n", name, cudaGetErrorString(err));
        bad = 1;
    }
    cudaFree(in);
    cudaFree(out);
    return bad;
}

/* Every row of one part; returns how many launches failed, or -1. */
static int run_part(const char *lib_path, const char *tsv_path, int *out)
{
    char line[1024], name[64], sym[96];
    /* lazily: a planted variant may call what no library defines (lab7-undefined-call's
       log_launch) in a launcher no grade measured, and so none of its rows calls */
    void *lib = dlopen(lib_path, RTLD_LAZY | RTLD_LOCAL);
    FILE *tsv = fopen(tsv_path, "r");
    int bad = 0;
    if (!lib || !tsv) {
        fprintf(stderr, "truth-run: %s\n", !lib ? dlerror() : "cannot read a part's TSV");
        if (tsv)
            fclose(tsv);
        return -1;
    }
    while (fgets(line, sizeof line, tsv)) {
        if (line[0] == '#' || strncmp(line, "name\t", 5) == 0 || sscanf(line, "%63s", name) != 1)
            continue;
        int arg;
        if (strcmp(name, "call") == 0) {
            if (sscanf(line, "call %63s %d", name, &arg) == 2)
                bad += call_lab(lib, name, arg);
            continue;
        }
        if (strcmp(name, "idiom") == 0 && sscanf(line, "idiom %63s", name) != 1)
            continue; /* an idiom part's row: idiom NAME CLASS */
        snprintf(sym, sizeof sym, "launch_%s", name);
        launcher_fn launch;
        *(void **)&launch = dlsym(lib, sym);
        if (!launch) {
            fprintf(stderr, "truth-run: %s has no %s\n", lib_path, sym);
            bad++;
            continue;
        }
        launch(out);
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
            printf("%s: %s\n", name, cudaGetErrorString(err));
            bad++;
        }
    }
    fclose(tsv);
    return bad;
}

int main(int argc, char **argv)
{
    int *out = NULL, bad = 0;
    if (argc < 3 || argc % 2 == 0) {
        fprintf(stderr, "usage: truth-run LIB TSV [LIB TSV ...]\n");
        return 2;
    }
    if (cudaMalloc((void **)&out, 4096 * sizeof(int)) != cudaSuccess) {
        fprintf(stderr, "truth-run: cudaMalloc failed: is there a GPU?\n");
        return 3;
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        int n = run_part(argv[i], argv[i + 1], out);
        if (n < 0)
            return 3;
        bad += n;
    }
    cudaFree(out);
    return bad ? 1 : 0;
}
