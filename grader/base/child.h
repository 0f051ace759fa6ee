/*
 * child.h - the grader's children: started isolated, heard through bounded
 * pipes, stopped with everything they started.
 *
 * Every child runs in its own process group with the grader as its
 * subreaper, so killing it leaves nothing behind: the group is killed, and
 * any descendant that left the group is adopted by the grader and killed
 * too. A child dies with the grader (PR_SET_PDEATHSIG). Its stdout and
 * stderr go to one pipe whose text is kept up to a cap (the head and the
 * tail; the size of what was dropped is counted), never to the grader's own
 * output. It inherits no descriptor of the grader but its own pipes.
 */
#ifndef SMEMLAB_CHILD_H
#define SMEMLAB_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#define CAPTURE_HEAD 4096
#define CAPTURE_TAIL 4096

/* What children printed: the first and the last bytes, and how much was dropped. */
typedef struct capture {
    char head[CAPTURE_HEAD];
    size_t head_len;
    char tail[CAPTURE_TAIL]; /* a ring: the last CAPTURE_TAIL bytes after the head */
    size_t tail_len, tail_at;
    unsigned long long total;
} capture;

void capture_add(capture *c, const char *buf, size_t n);
/* The kept text, with a line saying how many bytes were dropped; returns its length. */
size_t capture_text(const capture *c, char *out, size_t size);

typedef struct child {
    pid_t pid;
    int msg_fd; /* what the child sends (its fd 3) */
    int out_fd; /* its stdout and stderr */
    capture *printed;
    int exited, status; /* set once child_read saw it end (a descendant may hold its pipes) */
} child;

/* The fd a child writes its messages to. */
#define CHILD_MSG_FD 3

/*
 * Start fn(arg) in a child (it must not return; see child_exec for a
 * program). printed collects what the child prints. Returns 0, or -1 with
 * why filled.
 */
int child_start(child *ch, void (*fn)(void *arg), void *arg, capture *printed, char *why,
                size_t why_size);

/* In a child: replace it with a program, an exact environment, and nothing inherited. */
void child_exec(const char *path, char *const argv[], char *const envp[]) __attribute__((noreturn));

/*
 * Read exactly size bytes of message, draining the child's output meanwhile.
 * Returns 1 when read, 0 at end of file (the child is gone or closed its
 * end), -1 when the deadline (CLOCK_MONOTONIC seconds) passed.
 */
int child_read(child *ch, void *buf, size_t size, double deadline);

/* Kill the child's group and every descendant, reap it, keep its last output. */
void child_stop(child *ch, int *status);

/* The grader adopts orphaned descendants (call once, before the first child). */
void child_become_subreaper(void);

double child_now(void);

/* Kill every live child's group (async-signal-safe: for the grader's signal handler). */
void child_kill_all(void);

#endif
