/* sandbox.c - the recorder's limits; see sandbox.h. */
#define _GNU_SOURCE
#include "sandbox.h"
#include "../base/landlock_rights.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

void sandbox_preload(void)
{
    /* What `nvcc -shared` links besides the CUDA runtime (the fake is loaded already).
       A library named here that is missing is not needed. */
    static const char *const libs[] = {"libstdc++.so.6", "libgcc_s.so.1", "libm.so.6",
                                       "libdl.so.2", "libpthread.so.0", "librt.so.1"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
}

/* --- Landlock: only the lab library can be opened ------------------------------- */
#ifdef SYS_landlock_create_ruleset

/* 0 when confined or when the kernel has no Landlock; -1 with why when it failed. */
static int confine_files(const char *lib_path, char *why, size_t n)
{
    int abi = landlock_abi_now();
    if (abi == 0)
        return 0; /* an older kernel: seccomp's rules still keep files unwritten */
    struct landlock_ruleset_attr attr = {.handled_access_fs = landlock_fs_rights(abi)};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    int lib = open(lib_path, O_PATH | O_CLOEXEC);
    int rc = -1;
    if (ruleset >= 0 && lib >= 0) {
        struct landlock_path_beneath_attr only = {
            .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE,
            .parent_fd = lib};
        if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &only, 0) == 0 &&
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
            syscall(SYS_landlock_restrict_self, ruleset, 0) == 0)
            rc = 0;
    }
    if (rc != 0)
        snprintf(why, n, "cannot confine the recorder to %s (Landlock): %s", lib_path,
                 strerror(errno));
    if (lib >= 0)
        close(lib);
    if (ruleset >= 0)
        close(ruleset);
    return rc;
}

#else /* headers without Landlock: seccomp's rules still keep files unwritten */
static int confine_files(const char *lib_path, char *why, size_t n)
{
    (void)lib_path, (void)why, (void)n;
    return 0;
}
#endif

/* --- seccomp ----------------------------------------------------------------------- */

/* Refuse a syscall by name; one this libseccomp or kernel does not know needs no rule. */
static int deny_named(scmp_filter_ctx ctx, const char *name, int err)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR)
        return 0;
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0);
}

/*
 * The file system read-only. A launcher has nothing to write, and without
 * --run-as it runs with the grader's own rights: in a batch it could
 * otherwise overwrite a classmate's library waiting in the scratch folder,
 * a result already recorded, or the GPU's lock file (run/gpu_lock.h), and
 * hold that lock. Opening for writing or creating, and every call that
 * changes a name, a mode, an owner, a time or an attribute, is refused.
 */
static int read_only_files(scmp_filter_ctx ctx)
{
    static const unsigned write_flags[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC};
    static const char *const changes[] = {
        "creat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir",
        "mkdirat", "rmdir", "link", "linkat", "symlink", "symlinkat", "mknod", "mknodat",
        "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown",
        "fchownat", "truncate", "ftruncate", "utime", "utimes", "utimensat", "futimesat",
        "setxattr", "lsetxattr", "fsetxattr", "setxattrat", "removexattr", "lremovexattr",
        "fremovexattr", "removexattrat", "flock", "open_by_handle_at"};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof write_flags / sizeof write_flags[0]; i++) {
        scmp_datum_t f = write_flags[i];
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(open), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, f, f));
        if (rc == 0)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat), 1,
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, f, f));
    }
    /* openat2's flags are behind a pointer, where a filter cannot look; glibc's
       open() does not use it, and ENOSYS makes a caller fall back to openat. */
    if (rc == 0)
        rc = deny_named(ctx, "openat2", ENOSYS);
    for (size_t i = 0; rc == 0 && i < sizeof changes / sizeof changes[0]; i++)
        rc = deny_named(ctx, changes[i], EPERM);
    return rc;
}

/*
 * No new processes, no signals to others, no tracing, no network, no
 * writing files: what a launcher needs is none of these, and without them
 * nothing the student's code starts can outlive the recorder or reach the
 * grader, another submission or a result.
 */
static int lock_down(char *why, size_t n)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    pid_t self = getpid();
    int rc = ctx ? 0 : -ENOMEM;
#define DENY(sys, ...) \
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sys), __VA_ARGS__)
    DENY(fork, 0);
    DENY(vfork, 0);
    DENY(execve, 0);
    DENY(execveat, 0);
    DENY(clone, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)); /* threads stay allowed */
    DENY(ptrace, 0);
    DENY(process_vm_writev, 0);
    DENY(process_vm_readv, 0);
    DENY(kill, 1, SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self));
    DENY(tgkill, 1, SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self));
    DENY(tkill, 0);
    DENY(socket, 0);
    DENY(unshare, 0);
    DENY(setns, 0);
    /* Reaching other processes by pid file descriptor, queued signals, or io_uring's
       own socket and file operations, around the rules above. */
    DENY(pidfd_open, 0);
    DENY(pidfd_getfd, 0);
    DENY(pidfd_send_signal, 0);
    DENY(rt_sigqueueinfo, 1, SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self));
    DENY(rt_tgsigqueueinfo, 1, SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self));
    DENY(io_uring_setup, 0);
    DENY(io_uring_enter, 0);
    DENY(io_uring_register, 0);
    /* Staying alive after the grader, and letting others read this process's memory. */
    DENY(prctl, 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_PDEATHSIG));
    DENY(prctl, 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_DUMPABLE));
    DENY(prctl, 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_PTRACER));
#undef DENY
    if (rc == 0)
        rc = read_only_files(ctx);
    /* glibc falls back to clone, which the rule above sees, when clone3 is missing. */
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (rc == 0)
        rc = seccomp_load(ctx);
    if (ctx)
        seccomp_release(ctx);
    if (rc != 0)
        snprintf(why, n, "cannot restrict the recorder (seccomp): %s", strerror(-rc));
    return rc == 0 ? 0 : -1;
}

int sandbox_enter(const char *lib_path, char *why, size_t why_size)
{
    if (confine_files(lib_path, why, why_size) != 0)
        return -1;
    return lock_down(why, why_size);
}
