/* meter_server.c - one measuring process per GPU for many graders; see meter_server.h. */
#define _GNU_SOURCE
#include "meter_server.h"

#include "../base/exit_codes.h"
#include "../run/gpu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define METER_MAX_BYTES (512ull << 20) /* a lab library or its .fatbin */
#define METER_IDLE_MS 300  /* no grader waiting this long: the GPU's turn goes back */
#define METER_QUIET_MS 500 /* the server silent this long: the grader is told it waits */
#define METER_READ_S 10    /* a job must arrive whole within this */

/* The proxy tells its grader once that the server is busy with another lab. */
typedef struct quiet_watch {
    int fd;             /* to the grader */
    const char *socket; /* named in the message */
    int said;
} quiet_watch;

static void say_waiting(quiet_watch *q);

/*
 * All n bytes of buf read from or written to fd. With q (the proxy sending
 * its job): a busy server takes nothing until it accepts the job, which is
 * larger than the socket's buffer, so each write waits for room, and past
 * METER_QUIET_MS without any the grader is told it waits.
 */
static int io_full(int fd, void *buf, size_t n, int writing, quiet_watch *q)
{
    char *p = buf;
    while (n > 0) {
        if (q) {
            struct pollfd w = {fd, POLLOUT, 0};
            int ready = poll(&w, 1, q->said ? -1 : METER_QUIET_MS);
            if (ready == 0)
                say_waiting(q);
            if (ready <= 0)
                continue; /* EINTR, or told: wait on */
        }
        ssize_t k = !writing ? read(fd, p, n)
                    : q      ? send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL)
                             : write(fd, p, n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int socket_address(const char *path, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a->sun_path, path, strlen(path) + 1);
    return 0;
}

static void send_msg(int fd, int type, int kernel, const char *text)
{
    static worker_msg m;
    worker_msg_text(&m, type, kernel, text);
    if (io_full(fd, &m, sizeof m, 1, NULL) != 0) {
        /* the grader is gone: its proxy's end closed */
    }
}

static void say_waiting(quiet_watch *q)
{
    if (!q->said)
        send_msg(q->fd, MSG_GPU_WAIT, -1, q->socket); /* the grader's deadline is its GPU wait */
    q->said = 1;
}

/* --- the server ---------------------------------------------------------------- */

static int listen_at(const char *path)
{
    struct sockaddr_un a;
    struct stat st;
    if (socket_address(path, &a) != 0)
        return -1;
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(path); /* an ended server's */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    mode_t old = umask(077); /* the socket is its user's alone */
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (rc != 0 || listen(fd, 64) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* The request, checked against what this server measures; 0 or -1 (declined). */
static int read_request(int c, const grade_options *server, meter_request *rq,
                        const lab_def **lab)
{
    if (io_full(c, rq, sizeof *rq, 0, NULL) != 0 || memcmp(rq->magic, METER_MAGIC, sizeof METER_MAGIC) ||
        rq->plan_bytes != sizeof(kernel_plan) || rq->msg_bytes != sizeof(worker_msg))
        return -1;
    rq->lab[sizeof rq->lab - 1] = rq->lib_path[sizeof rq->lib_path - 1] = '\0';
    *lab = lab_find(rq->lab);
    return *lab && rq->first >= 0 && rq->first < (*lab)->n_kernels &&
                   rq->device == server->device && rq->use_counters == server->use_counters &&
                   rq->measure == server->measure && rq->repeats >= 1 && rq->repeats <= 100 &&
                   rq->timeout_s >= 0.1 && rq->timeout_s <= 3600 && rq->kernel_budget_s >= 0 &&
                   rq->file_size > 0 && rq->file_size <= METER_MAX_BYTES &&
                   rq->device_size > 0 && rq->device_size <= METER_MAX_BYTES
               ? 0 : -1;
}

/* The job's bytes and plans; 0 with img open, or -1 (declined). */
static int read_job(int c, const meter_request *rq, const lab_def *lab, lab_image *img,
                    kernel_plan *plans)
{
    unsigned char *file = malloc(rq->file_size), *device = malloc(rq->device_size);
    char why[512];
    if (!file || !device || io_full(c, file, rq->file_size, 0, NULL) ||
        io_full(c, device, rq->device_size, 0, NULL) ||
        io_full(c, plans, (size_t)lab->n_kernels * sizeof *plans, 0, NULL)) {
        free(file);
        free(device);
        return -1;
    }
    return lab_image_from_bytes(rq->lib_path, file, rq->file_size, device, rq->device_size, img,
                                why, sizeof why);
}

/* Grade one grader's job on connection c. Returns worker_grade's code (the caller
   sends MSG_EXIT), or METER_DECLINED (the connection is closed without a word). */
#define METER_DECLINED 2
static int serve_one(int c, worker *w, const grade_options *server, const char *no_gpu)
{
    static meter_request rq;
    static lab_image img;
    static grade_options o;
    static worker_msg timed_out;
    const lab_def *lab = NULL;
    struct timeval tv = {METER_READ_S, 0};

    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    kernel_plan *plans = NULL;
    if (read_request(c, server, &rq, &lab) != 0 ||
        !(plans = calloc((size_t)lab->n_kernels, sizeof *plans)) ||
        read_job(c, &rq, lab, &img, plans) != 0) {
        fprintf(stderr, "smemlab-grade: declined a job (not whole, or it measures otherwise "
                "than this server); its grader measures by itself\n");
        free(plans);
        return METER_DECLINED; /* the proxy becomes a worker */
    }
    o = *server;
    o.repeats = rq.repeats;
    o.timeout_s = rq.timeout_s;
    o.kernel_budget_s = rq.kernel_budget_s;
    o.seed = rq.seed;
    o.lib_path = img.path;
    grade_job job = {lab, &o, &img, plans};
    int rc = -1;
    if (no_gpu[0]) {
        send_msg(c, MSG_ENVIRONMENT, -1, no_gpu);
    } else {
        worker_msg_text(&timed_out, MSG_EXIT, WORKER_EXIT_TIMEOUT, "");
        gpu_watchdog_set(o.timeout_s, WORKER_EXIT_TIMEOUT);
        gpu_watchdog_last_words(c, &timed_out, sizeof timed_out);
        rc = worker_grade(w, &job, rq.first, c);
        gpu_watchdog_last_words(-1, NULL, 0);
    }
    fprintf(stderr, "smemlab-grade: measured %s (%s) from kernel %d: %s\n", lab->id, img.path,
            rq.first + 1, rc == 0 ? "done" : rc < 0 ? "could not run it" : "context lost");
    lab_image_close(&img);
    free(plans);
    return rc;
}

static int someone_waits(int listen_fd, int ms)
{
    struct pollfd p = {listen_fd, POLLIN, 0};
    return poll(&p, 1, ms) > 0;
}

int meter_serve(const char *socket_path, const grade_options *opt)
{
    worker *w = calloc(1, sizeof *w); /* the server's one: it measures until it ends */
    char no_gpu[512] = "";

    signal(SIGPIPE, SIG_IGN); /* a grader that went away is a failed write */
    int lfd = listen_at(socket_path);
    if (lfd < 0) {
        fprintf(stderr, "smemlab-grade: cannot serve on %s: %s\n", socket_path, strerror(errno));
        return EXIT_USAGE;
    }
    /* What kernels print (device printf) would mix classmates in one log, unbounded:
       in a batch it is dropped (make grade shows it). */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null > STDOUT_FILENO && dup2(null, STDOUT_FILENO) >= 0)
        close(null); /* (null is stdout already when stdout was closed) */
    if (!w)
        snprintf(no_gpu, sizeof no_gpu, "no memory for the meter server's worker");
    else if (worker_open(w, opt, no_gpu, sizeof no_gpu) != 0 && !no_gpu[0])
        snprintf(no_gpu, sizeof no_gpu, "the GPU could not be opened");
    fprintf(stderr, "smemlab-grade: measuring for graders on %s%s%s\n", socket_path,
            no_gpu[0] ? ": " : "", no_gpu);
    for (;;) {
        if (w && worker_has_turn(w) && !someone_waits(lfd, METER_IDLE_MS))
            worker_pause(w);
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            fprintf(stderr, "smemlab-grade: accept on %s: %s\n", socket_path, strerror(errno));
            return EXIT_ENVIRONMENT;
        }
        int rc = serve_one(c, w, opt, no_gpu);
        int ending = rc == KERNEL_CONTEXT_LOST || (no_gpu[0] && rc != METER_DECLINED);
        if (ending)
            close(lfd); /* no grader may connect to a server that ends */
        if (rc != METER_DECLINED)
            send_msg(c, MSG_EXIT, rc < 0 ? EXIT_ENVIRONMENT : 0, "");
        close(c);
        /* Nothing more runs in a lost context; without a GPU, one answer says why and the
           batch starts another server, or lets its graders measure by themselves. */
        if (ending)
            _exit(rc == KERNEL_CONTEXT_LOST ? 0 : EXIT_ENVIRONMENT);
    }
}

/* --- the grader's side: a proxy in the worker's place -------------------------------- */

static int connect_to(const char *path)
{
    struct sockaddr_un a;
    if (socket_address(path, &a) != 0)
        return -1;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        close(s);
        s = -1;
    }
    return s;
}

static int send_job(int s, const grade_job *job, int first, quiet_watch *q)
{
    static meter_request rq;
    const grade_options *o = job->opt;
    memset(&rq, 0, sizeof rq);
    memcpy(rq.magic, METER_MAGIC, sizeof METER_MAGIC);
    rq.plan_bytes = sizeof(kernel_plan);
    rq.msg_bytes = sizeof(worker_msg);
    snprintf(rq.lab, sizeof rq.lab, "%s", job->lab->id);
    rq.first = first;
    rq.device = o->device;
    rq.repeats = o->repeats;
    rq.use_counters = o->use_counters;
    rq.measure = o->measure;
    rq.timeout_s = o->timeout_s;
    rq.kernel_budget_s = o->kernel_budget_s;
    rq.seed = o->seed;
    snprintf(rq.lib_path, sizeof rq.lib_path, "%s", job->img->path);
    rq.file_size = job->img->file_size;
    rq.device_size = job->img->device_size;
    return io_full(s, &rq, sizeof rq, 1, q) || io_full(s, job->img->file, rq.file_size, 1, q) ||
                   io_full(s, job->img->device, rq.device_size, 1, q) ||
                   io_full(s, (void *)job->plans, (size_t)job->lab->n_kernels * sizeof *job->plans,
                           1, q)
               ? -1 : 0;
}

void meter_proxy_main(const grade_job *job, int first, int fd)
{
    static worker_msg m;
    quiet_watch q = {fd, job->opt->meter_socket, 0};
    int heard = 0;

    signal(SIGPIPE, SIG_IGN);
    int s = connect_to(job->opt->meter_socket);
    if (s < 0 || send_job(s, job, first, &q) != 0) {
        if (s >= 0)
            close(s);
        worker_main(job, first, fd); /* no server: measure here */
    }
    for (;;) {
        struct pollfd p = {s, POLLIN, 0};
        if (!heard && !q.said && poll(&p, 1, METER_QUIET_MS) == 0) {
            say_waiting(&q); /* it grades another lab */
            continue;
        }
        if (io_full(s, &m, sizeof m, 0, NULL) != 0) {
            close(s);
            if (!heard)
                worker_main(job, first, fd); /* declined: measure here */
            _exit(EXIT_ENVIRONMENT);         /* the server ended in the middle */
        }
        heard = 1;
        if (m.type == MSG_EXIT)
            _exit(m.kernel);
        if (m.type == MSG_GPU_WAIT && q.said)
            continue;
        if (io_full(fd, &m, sizeof m, 1, NULL) != 0)
            _exit(EXIT_ENVIRONMENT); /* the grader is gone */
    }
}
