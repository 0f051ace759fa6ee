/*
 * sandbox.h - what the recorder may do once the student's code runs in it.
 *
 * The recorder runs the student's host code with the rights of the user
 * that runs the grader (unless --run-as): without limits that code could
 * start processes that outlive it, signal or trace the grader, and, in a
 * batch, rewrite a classmate's library or a recorded result, or read a
 * classmate's source. Two layers close that:
 *  - seccomp (always): no processes, signals to others, tracing, sockets,
 *    io_uring, and no writing to the file system (no open for writing, no
 *    creating, removing, renaming, changing modes, owners or times, no locks);
 *  - Landlock (Linux 5.13 and later, unprivileged): no file may be opened
 *    but the lab library itself, so nothing else can be read either.
 */
#ifndef SMEMLAB_SANDBOX_H
#define SMEMLAB_SANDBOX_H

#include <stddef.h>

/* Load what nvcc-built host code links (libstdc++, libm, ...), while files can still be opened. */
void sandbox_preload(void);

/*
 * Enter the sandbox: from now on only lib_path can be opened (where the
 * kernel has Landlock), read-only, and the syscalls above are refused.
 * Returns 0, or -1 with why filled (the recorder must then not go on).
 */
int sandbox_enter(const char *lib_path, char *why, size_t why_size);

#endif
