/* worker.c - the process that runs the student's kernels; see worker.h. */
#include "worker.h"

#include "exit_codes.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <string.h>
#include <unistd.h>

typedef int (*grade_fn)(worker_env *env, const lab_kernel *k);

static const grade_fn grade_by_kind[] = {
    [PROBLEM_TILE] = tile_grade_kernel,
    [PROBLEM_MATMUL] = matmul_grade_kernel,
    [PROBLEM_CONV] = conv_grade_kernel,
};

static void send(int fd, const worker_msg *m)
{
    const char *p = (const char *)m;
    size_t left = sizeof *m;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(EXIT_ENVIRONMENT); /* the grader is gone */
        p += w;
        left -= (size_t)w;
    }
}

static void send_text(int fd, worker_msg_type type, int kernel, int code, const char *text)
{
    worker_msg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.kernel = kernel;
    m.env_code = code;
    snprintf(m.text, sizeof m.text, "%s", text);
    send(fd, &m);
}

void worker_emit(worker_env *env, const check_result *c)
{
    worker_msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_CHECK;
    m.check = *c;
    send(env->fd, &m);
}

void worker_progress(worker_env *env)
{
    send_text(env->fd, MSG_PROGRESS, -1, 0, "");
}

static void open_meter(worker_env *env)
{
    env->meter = env->opt->use_counters
                     ? measure_cupti_backend()
                     : measure_none_backend("--no-counters was given");
    env->meter_status = env->meter->open(env->meter, env->meter_why, sizeof env->meter_why);
}

static void describe_device(worker_env *env)
{
    char text[1024];
    const gpu_info *g = &env->gpu;
    if (env->meter_status == MEASURE_OK)
        snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %d banks x %d bytes); counters: %s",
                 g->name, g->major, g->minor, g->sm_count, g->banks.banks, g->banks.bank_bytes,
                 env->meter->name);
    else
        snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %d banks x %d bytes); counters NOT "
                 "measured: %s", g->name, g->major, g->minor, g->sm_count, g->banks.banks,
                 g->banks.bank_bytes, env->meter_why);
    send_text(env->fd, MSG_DEVICE, -1, 0, text);
}

void worker_main(const lab_def *lab, const grade_options *opt, int first, int fd)
{
    worker_env env;
    char why[512];

    /* A hung kernel must not outlive a grader that was killed or interrupted. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        _exit(EXIT_ENVIRONMENT);
    memset(&env, 0, sizeof env);
    env.lab = lab;
    env.opt = opt;
    env.fd = fd;
    gpu_status gs = gpu_open(opt->device, &env.gpu, why, sizeof why);
    if (gs != GPU_OK) {
        send_text(fd, MSG_ENVIRONMENT, -1, EXIT_ENVIRONMENT, why);
        _exit(EXIT_ENVIRONMENT);
    }
    if (lab_lib_open(opt->lib_path, &env.lib, why, sizeof why) != 0 ||
        lab_lib_check_params(&env.lib, lab, why, sizeof why) != 0) {
        send_text(fd, MSG_ENVIRONMENT, -1, EXIT_ENVIRONMENT, why);
        _exit(EXIT_ENVIRONMENT);
    }
    open_meter(&env);
    describe_device(&env);

    grade_fn grade = grade_by_kind[lab->kind];
    for (int k = first; k < lab->n_kernels; k++) {
        send_text(fd, MSG_BEGIN, k, 0, lab->kernels[k].name);
        int lost = grade(&env, &lab->kernels[k]);
        send_text(fd, MSG_END, k, 0, "");
        if (lost == KERNEL_CONTEXT_LOST)
            _exit(0); /* the grader starts a fresh worker at the next kernel */
    }
    env.meter->close(env.meter);
    _exit(0);
}
