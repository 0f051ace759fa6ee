/* parallel.c - a loop shared among the machine's cores; see parallel.h. */
#include "parallel.h"

#include <pthread.h>
#include <unistd.h>

#define PAR_MAX_THREADS 16

typedef struct slice {
    par_slice_fn fn;
    void *ctx;
    long first, last;
} slice;

static void *run_slice(void *p)
{
    slice *s = p;
    s->fn(s->ctx, s->first, s->last);
    return NULL;
}

static int threads_for(long items, double work)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long n = work < (double)PAR_MIN_WORK || cores < 2 ? 1
             : cores > PAR_MAX_THREADS ? PAR_MAX_THREADS : cores;
    return (int)(n > items ? (items > 0 ? items : 1) : n);
}

void par_for(long items, double work, par_slice_fn fn, void *ctx)
{
    int n = threads_for(items, work);
    slice s[PAR_MAX_THREADS];
    pthread_t tid[PAR_MAX_THREADS];
    int started[PAR_MAX_THREADS] = {0};
    for (int t = 0; t < n; t++) {
        s[t] = (slice){fn, ctx, items * t / n, items * (t + 1) / n};
        if (t > 0)
            started[t] = pthread_create(&tid[t], NULL, run_slice, &s[t]) == 0;
    }
    if (items > 0)
        run_slice(&s[0]);
    for (int t = 1; t < n; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_slice(&s[t]); /* no thread to be had: this one does the slice */
    }
}
