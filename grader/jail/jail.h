/*
 * jail.h - smemlab-build-jail: build one student's file confined and bounded.
 *
 * Every build of a student's lab file (make labN, make lab-lib, smemlab-batch,
 * the Gradescope and Autolab scripts) runs nvcc through this program. Layers:
 *
 *  portable (every machine)
 *    scan.c     the student's own files, as text: #include, __has_include,
 *               #line, #embed, #pragma GCC dependency naming an absolute or
 *               '..' path outside the allowed folders are refused before
 *               anything reads them
 *    deps.c     the dependency list nvcc reports (nvcc -M): every file the
 *               preprocessor read must be the student's own, common/'s or a
 *               system header
 *    asguard.c  the host assembler is run through a guard (gcc -B) that
 *               refuses .incbin, .include and the macro directives that could
 *               spell them: the dependency list cannot see assembly-time reads
 *    run.c      limits: CPU time of each process, wall time of the whole
 *               build (the whole process tree killed), address space of
 *               each process, size of each file written, no core files, the
 *               compiler's messages capped, and its address layout fixed (the
 *               same file builds to the same bytes)
 *  kernel (where present)
 *    landlock.c Landlock: the build may read only the student's folder,
 *               common/, the toolchain and system files it needs, and write
 *               only its build folder
 *
 * A build that is stopped or refused ends with one line on stderr,
 * "smemlab-build-jail: REASON", and the same REASON in --verdict FILE.
 * A compiler that fails leaves its verdict too (diag.c): "error: REASON"
 * when it named an error in the student's code, "setup: REASON" (and the
 * line on stderr) when it did not: the machine's, not the student's. The
 * compiler's messages are shown each once (nvcc says a warning again for every
 * architecture it builds).
 */
#ifndef SMEMLAB_JAIL_H
#define SMEMLAB_JAIL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "../base/build_limits.h"

#define JAIL_PREFIX "smemlab-build-jail: "
#define JAIL_MAX_ROOTS 64

/* Exit statuses of the jail (the compiler's own status when it ran to its end). */
#define JAIL_EXIT_REFUSED 65  /* a file outside the submission, a forbidden directive */
#define JAIL_EXIT_LIMIT 66    /* time, memory or output limit */
#define JAIL_EXIT_SETUP 67    /* the jail itself could not be set up: not the student's fault */
#define JAIL_EXIT_USAGE 2

typedef struct roots {
    char *path[JAIL_MAX_ROOTS]; /* real paths, no trailing '/' */
    int n;
} roots;

/* roots.c */
void roots_add(roots *r, const char *path); /* its real path; ignored when it does not exist */
int roots_contain(const roots *r, const char *real);
/* path with "." and ".." taken away by its letters alone (no symlink followed),
   malloc'd; NULL for a relative path. */
char *roots_lexical(const char *path);

typedef struct jail_opts {
    const char *source;        /* the student's file */
    char source_dir[4096];     /* its folder (real path) */
    const char *source_name;   /* its base name, for messages ("lab3.cu") */
    roots readable;            /* the student's folder, common/ (--read) */
    roots system;              /* system headers: the host compiler's and CUDA's include folders */
    roots toolchain;           /* what the compiler may read and run (Landlock) */
    const char *out;           /* the build folder: the only writable place */
    double timeout;            /* seconds of CPU time, each process of the build */
    double wall;               /* seconds of wall time, the whole build */
    long long memory;          /* bytes of address space, each process */
    long long max_output;      /* bytes, each file written */
    long long max_log;         /* bytes of compiler messages kept */
    int kernel;                /* 1: Landlock where the kernel has it; 0: portable layers only */
    int confined;              /* Landlock holds for the build */
    int verdict_fd;            /* -1 or where the reason goes */
    char self[4096];           /* this program (the assembler guard runs it as "as") */
    char guard_dir[4096];      /* a folder holding "as" -> this program */
    char real_as[4096];        /* the assembler the guard runs */
    char **argv;               /* the build command */
    int argc;
} jail_opts;

/* The outcome of one child run (run.c). */
typedef struct run_result {
    int status;        /* waitpid status of the child */
    int timed_out;     /* killed at the (wall-time) deadline */
    int cpu_exceeded;  /* a process used its CPU time (SIGXCPU) */
    int out_of_memory; /* its messages say an allocation failed */
    int too_large;     /* it hit the file size limit */
    char *out;         /* captured stdout (when asked), NUL-terminated */
    size_t out_len;
    int out_truncated; /* stdout was longer than its cap */
    char *err;         /* captured stderr, capped at max_log, NUL-terminated */
    size_t err_len;
    long long err_dropped; /* bytes of stderr beyond the cap */
} run_result;

/* Run argv with the limits until the deadline (a CLOCK_MONOTONIC time).
 * capture_out: 1 keeps stdout in res->out (capped at out_cap), 0 passes it to
 * our stderr with the messages. Returns 0, or -1 when it could not start. */
int run_limited(const jail_opts *o, char *const argv[], char *const envp[], double deadline,
                int capture_out, size_t out_cap, run_result *res);
void run_result_free(run_result *r);
double monotonic_now(void);
void run_forward_signals(void); /* a signal to the jail kills the build's processes too */

/* Landlock (landlock.c): 1 confined, 0 the kernel has no Landlock, -1 failed (why filled). */
int landlock_confine(const jail_opts *o, char *why, size_t n);
int landlock_abi_version(void);

/* The student's files as text (scan.c). NULL, or a reason (static buffer). */
const char *scan_file(const jail_opts *o, const char *path, const char *display);

/* nvcc -M's output and errors (deps.c). NULL, or a reason (static buffer). */
const char *deps_check(const jail_opts *o, const char *deps_text);
const char *deps_failure(const jail_opts *o, const char *stderr_text);
void deps_system_roots(jail_opts *o, char *const envp[]);
const char *outside_reason(const jail_opts *o, const char *written);

/* A compiler that ran to its end and failed (diag.c): 1 and the student's error as
 * the reason ("does not compile: lab3.cu:12: ..."), or 0 and why the machine failed. */
int diag_failure(const jail_opts *o, const char *messages, int status, char *reason,
                 size_t size);
/* The compiler's messages to out, each paragraph (lines up to a blank one) once:
 * nvcc's front end and cicc run once an architecture and say each warning again. */
void diag_print_once(FILE *out, const char *messages, size_t len);
/* The name of a dependency as the student wrote it: relative to their folder. */
const char *deps_display(const jail_opts *o, const char *dep, char *buf, size_t n);

/* The assembler guard (asguard.c): argv[0] is "as". */
int asguard_main(int argc, char **argv);

/* Sizes: "4G", "512M", "100000" -> bytes; -1 when not a size. */
long long parse_size(const char *s);
/* "4 GiB", "512 MiB", "1000 bytes" */
const char *size_text(long long bytes, char *buf, size_t n);

#endif
