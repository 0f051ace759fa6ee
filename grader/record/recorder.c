/*
 * recorder.c - smemlab-record LIB LAB FIRST FAKE_CUDART: call a lab's
 * launchers and record what they launch.
 *
 * This process runs the student's host code (its constructors and
 * launchers), so it is the one the grader does not trust: it has no GPU (the
 * runtime it loads is the fake in fake_cudart.c), may not start processes,
 * signal others, write files or read any but its own library (sandbox.h),
 * and can say nothing but records on fd 3, which the grader validates. Each launcher is called twice per call of
 * calls.h, with the same fake buffers, so a launcher that remembers earlier
 * calls shows itself.
 */
#define _GNU_SOURCE
#include "../labs/calls.h"
#include "../image/lab_image.h"
#include "../labs/lab_table.h"
#include "fake_cudart.h"
#include "record.h"
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECORD_FD 3

static void send_record(const rec_call *r)
{
    const char *p = (const char *)r;
    size_t left = sizeof *r;
    while (left > 0) {
        ssize_t w = write(RECORD_FD, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(3); /* the grader is gone */
        p += w;
        left -= (size_t)w;
    }
}

static void send_status(int kernel, rec_status status, const char *text)
{
    static rec_call r; /* large: keep it off the stack */
    memset(&r, 0, sizeof r);
    r.magic = REC_MAGIC;
    r.kernel = kernel;
    r.call = -1;
    r.status = status;
    snprintf(r.text, sizeof r.text, "%s", text);
    send_record(&r);
}

typedef void (*fn_p)(void *);
typedef void (*fn_pppiii)(void *, void *, void *, int, int, int);
typedef void (*fn_pppii)(void *, void *, void *, int, int);
typedef void (*fn_ppii)(void *, void *, int, int);
typedef void (*fn_ppiii)(void *, void *, int, int, int);
typedef void (*fn_ppi)(void *, void *, int); /* labs 7, 8 and 10 */
typedef void (*fn_pppi)(void *, void *, void *, int); /* lab 10 */

/* Call the launcher with the call's arguments: the shapes of the labs' launchers. */
static int invoke(void *sym, const call_spec *c)
{
    char shape[CALL_MAX_ARGS + 1];
    void *p[CALL_MAX_ARGS];
    int v[CALL_MAX_ARGS], np = 0, nv = 0;
    for (int i = 0; i < c->n_args; i++) {
        shape[i] = c->args[i].buffer >= 0 ? 'p' : 'i';
        if (c->args[i].buffer >= 0)
            p[np++] = (void *)(uintptr_t)FAKE_BUFFER(c->args[i].buffer);
        else
            v[nv++] = c->args[i].value;
    }
    shape[c->n_args] = '\0';
    if (!strcmp(shape, "p"))
        ((fn_p)sym)(p[0]);
    else if (!strcmp(shape, "pppiii"))
        ((fn_pppiii)sym)(p[0], p[1], p[2], v[0], v[1], v[2]);
    else if (!strcmp(shape, "pppii"))
        ((fn_pppii)sym)(p[0], p[1], p[2], v[0], v[1]);
    else if (!strcmp(shape, "ppii"))
        ((fn_ppii)sym)(p[0], p[1], v[0], v[1]);
    else if (!strcmp(shape, "ppiii"))
        ((fn_ppiii)sym)(p[0], p[1], v[0], v[1], v[2]);
    else if (!strcmp(shape, "ppi"))
        ((fn_ppi)sym)(p[0], p[1], v[0]);
    else if (!strcmp(shape, "pppi"))
        ((fn_pppi)sym)(p[0], p[1], p[2], v[0]);
    else
        return -1;
    return 0;
}

static fake_layout *layouts_of(const lab_image *img)
{
    fake_layout *l = calloc((size_t)img->n_kernels + 1, sizeof *l);
    for (int i = 0; l && i < img->n_kernels; i++) {
        snprintf(l[i].name, sizeof l[i].name, "%s", img->kernels[i].name);
        l[i].n_params = img->kernels[i].n_params;
        for (int j = 0; j < l[i].n_params && j < FAKE_MAX_PARAMS; j++) {
            l[i].params[j].offset = img->kernels[i].params[j].offset;
            l[i].params[j].size = img->kernels[i].params[j].size;
        }
    }
    return l;
}

static void record_kernel(const lab_def *lab, int k, void *lib, fake_begin_fn begin,
                          fake_end_fn end)
{
    static call_spec calls[CALL_MAX];
    static rec_call r;
    const lab_kernel *kern = &lab->kernels[k];
    void *sym = dlsym(lib, kern->launcher);
    if (!sym) {
        send_status(k, REC_NO_LAUNCHER, kern->launcher);
        return;
    }
    int n = lab_calls(lab, kern, calls);
    for (int c = 0; c < n; c++)
        for (int rep = 0; rep < 2; rep++) {
            memset(&r, 0, sizeof r);
            r.magic = REC_MAGIC;
            r.kernel = k;
            r.call = c;
            r.repeat = rep;
            begin(&r);
            int bad = invoke(sym, &calls[c]);
            end();
            r.status = REC_RETURNED;
            if (bad)
                snprintf(r.text, sizeof r.text, "internal: no launcher shape for this call");
            send_record(&r);
        }
}

int main(int argc, char **argv)
{
    static lab_image img;
    char why[512];
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: smemlab-record LIB LAB FIRST_KERNEL FAKE_CUDART [CORPUS] (run "
                        "by smemlab-grade, not by hand)\n");
        return 2;
    }
    /* the truth corpus's table is a file, read before the sandbox closes */
    if (argc == 6 && corpus_load(argv[5], why, sizeof why) != 0) {
        send_status(-1, REC_NOT_LOADED, why);
        return 2;
    }
    const lab_def *lab = lab_find(argv[2]);
    int first = atoi(argv[3]);
    if (!lab || first < 0 || first > lab->n_kernels) {
        send_status(-1, REC_NOT_LOADED, "internal: bad recorder arguments");
        return 2;
    }
    /* Another recorder (a classmate's, under a shared --run-as user) may not read or
       write this one's memory through /proc. */
    prctl(PR_SET_DUMPABLE, 0);
    if (lab_image_open(argv[1], &img, why, sizeof why) != 0) {
        send_status(-1, REC_NOT_LOADED, why);
        return 3;
    }
    /* Our own code first: the fake runtime, and what nvcc's host code links. */
    void *fake = dlopen(argv[4], RTLD_NOW | RTLD_GLOBAL);
    fake_setup_fn setup = fake ? (fake_setup_fn)dlsym(fake, "smemlab_fake_setup") : NULL;
    fake_begin_fn begin = fake ? (fake_begin_fn)dlsym(fake, "smemlab_fake_begin") : NULL;
    fake_end_fn end = fake ? (fake_end_fn)dlsym(fake, "smemlab_fake_end") : NULL;
    if (!setup || !begin || !end) {
        snprintf(why, sizeof why, "internal: cannot load the recorder's runtime %s: %s", argv[4],
                 dlerror());
        send_status(-1, REC_NOT_LOADED, why);
        return 3;
    }
    sandbox_preload();
    if (sandbox_enter(argv[1], why, sizeof why) != 0) {
        send_status(-1, REC_NOT_LOADED, why);
        return 3;
    }
    setup(layouts_of(&img), img.n_kernels);
    /* From here on the student's code runs: its constructors, then its launchers. A
       function no library here defines (every CUDA one has its stand-in in the fake)
       is bound when a launcher first calls it, and ends only that launcher's recorder
       (exit 127, the dynamic loader's: record_run.c names it), not the whole lab. */
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, sizeof why, "%s", dlerror());
        if (strstr(why, "undefined symbol"))
            lib = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
    }
    if (!lib) {
        send_status(-1, REC_NOT_LOADED, why);
        return 3;
    }
    send_status(-1, REC_LOADED, "");
    for (int k = first; k < lab->n_kernels; k++)
        record_kernel(lab, k, lib, begin, end);
    fflush(NULL);
    _exit(0); /* the student's destructors have nothing to say */
}
