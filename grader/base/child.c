/* child.c - starting, hearing and stopping child processes; see child.h. */
#define _GNU_SOURCE
#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double child_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void capture_add(capture *c, const char *buf, size_t n)
{
    c->total += n;
    size_t to_head = CAPTURE_HEAD - c->head_len < n ? CAPTURE_HEAD - c->head_len : n;
    memcpy(c->head + c->head_len, buf, to_head);
    c->head_len += to_head;
    for (size_t i = to_head; i < n; i++) {
        c->tail[c->tail_at] = buf[i];
        c->tail_at = (c->tail_at + 1) % CAPTURE_TAIL;
        if (c->tail_len < CAPTURE_TAIL)
            c->tail_len++;
    }
}

size_t capture_text(const capture *c, char *out, size_t size)
{
    size_t at = 0;
    if (size == 0)
        return 0;
#define PUT(ch) do { if (at + 1 < size) out[at++] = (ch); } while (0)
    for (size_t i = 0; i < c->head_len; i++)
        PUT(c->head[i]);
    unsigned long long dropped = c->total - c->head_len - c->tail_len;
    if (dropped > 0) {
        char line[96];
        int len = snprintf(line, sizeof line, "%s[... %llu bytes not shown ...]\n",
                           at > 0 && out[at - 1] != '\n' ? "\n" : "", dropped);
        for (int i = 0; i < len; i++)
            PUT(line[i]);
    }
    size_t start = (c->tail_at + CAPTURE_TAIL - c->tail_len) % CAPTURE_TAIL;
    for (size_t i = 0; i < c->tail_len; i++)
        PUT(c->tail[(start + i) % CAPTURE_TAIL]);
#undef PUT
    out[at] = '\0';
    return at;
}

/* The children alive now, for child_kill_all. */
#define MAX_LIVE 8
static volatile pid_t g_live[MAX_LIVE];

static void remember(pid_t pid, pid_t forget)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (g_live[i] == forget) {
            g_live[i] = pid;
            return;
        }
}

void child_kill_all(void)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (g_live[i] > 0) {
            kill(-g_live[i], SIGKILL);
            kill(g_live[i], SIGKILL);
        }
}

void child_become_subreaper(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* Close every descriptor from `from` on (close_range where the kernel has it). */
static void close_from(int from)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)from, ~0u, 0) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = from; fd < (max > 0 ? max : 1024); fd++)
        close((int)fd);
}

int child_start(child *ch, void (*fn)(void *arg), void *arg, capture *printed, char *why,
                size_t why_size)
{
    int msg[2], out[2];
    pid_t parent = getpid();
    memset(ch, 0, sizeof *ch);
    ch->pid = -1;
    ch->msg_fd = ch->out_fd = -1;
    if (pipe2(msg, O_CLOEXEC) != 0) {
        snprintf(why, why_size, "cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(why, why_size, "cannot create a pipe: %s", strerror(errno));
        close(msg[0]), close(msg[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, why_size, "cannot start a process: %s", strerror(errno));
        close(msg[0]), close(msg[1]), close(out[0]), close(out[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127); /* the grader died before we got here */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0 ||
            dup2(msg[1], CHILD_MSG_FD) < 0)
            _exit(127);
        close_from(CHILD_MSG_FD + 1);
        fn(arg);
        _exit(127); /* fn must not return */
    }
    setpgid(pid, pid); /* also here: whichever runs first, the group exists before a kill */
    remember(pid, 0);
    close(msg[1]);
    close(out[1]);
    ch->pid = pid;
    ch->msg_fd = msg[0];
    ch->out_fd = out[0];
    ch->printed = printed;
    return 0;
}

void child_exec(const char *path, char *const argv[], char *const envp[])
{
    execve(path, argv, envp);
    fprintf(stderr, "smemlab: cannot run %s: %s\n", path, strerror(errno));
    _exit(127);
}

/* Read what the child printed and is there now; 0 at its end of file. */
static int drain(child *ch)
{
    char buf[65536];
    ssize_t n = read(ch->out_fd, buf, sizeof buf);
    if (n > 0 && ch->printed)
        capture_add(ch->printed, buf, (size_t)n);
    return n < 0 && errno == EINTR ? 1 : n > 0;
}

int child_read(child *ch, void *buf, size_t size, double deadline)
{
    char *p = buf;
    size_t got = 0;
    while (got < size) {
        int wait_ms = (int)((deadline - child_now()) * 1000.0);
        if (wait_ms <= 0)
            return -1;
        struct pollfd pfd[2] = {{ch->msg_fd, POLLIN, 0}, {ch->out_fd, POLLIN, 0}};
        /* Wake up now and then to see whether the child ended while something it
           started still holds the pipe open. */
        int ready = poll(pfd, ch->out_fd >= 0 ? 2 : 1, wait_ms < 100 ? wait_ms : 100);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return 0;
        if (ready == 0) {
            if (!ch->exited && waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid)
                ch->exited = 1;
            if (!ch->exited)
                continue;
            /* It is gone: what it wrote before it ended is all in the pipe by now. */
            pfd[0].revents = 0;
            if (poll(pfd, 1, 0) <= 0 || !(pfd[0].revents & POLLIN))
                return 0;
        }
        if (ch->out_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP)) && !drain(ch)) {
            close(ch->out_fd);
            ch->out_fd = -1;
        }
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = read(ch->msg_fd, p + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

/* Kill and reap every process the grader adopted (descendants that left their group). */
static void sweep_orphans(void)
{
    for (int round = 0; round < 8; round++) {
        int found = 0;
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char path[64], stat[512];
            pid_t pid = (pid_t)atoi(e->d_name), ppid = 0;
            if (pid <= 0)
                continue;
            snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
            FILE *f = fopen(path, "re");
            if (!f)
                continue;
            size_t n = fread(stat, 1, sizeof stat - 1, f);
            fclose(f);
            stat[n] = '\0';
            char *close_paren = strrchr(stat, ')'); /* the name may hold spaces */
            if (close_paren && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 &&
                ppid == getpid()) {
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
                found = 1;
            }
        }
        if (d)
            closedir(d);
        if (!found)
            return;
    }
}

void child_stop(child *ch, int *status)
{
    int st = ch->status;
    if (ch->pid > 0) {
        remember(0, ch->pid);
        kill(-ch->pid, SIGKILL);
        if (!ch->exited) {
            kill(ch->pid, SIGKILL);
            waitpid(ch->pid, &st, 0);
        }
        sweep_orphans();
    }
    /* Everything that could write is dead: take what is left in the pipe. */
    if (ch->out_fd >= 0) {
        fcntl(ch->out_fd, F_SETFL, O_NONBLOCK);
        while (drain(ch))
            ;
        close(ch->out_fd);
    }
    if (ch->msg_fd >= 0)
        close(ch->msg_fd);
    ch->pid = -1;
    ch->msg_fd = ch->out_fd = -1;
    if (status)
        *status = st;
}
