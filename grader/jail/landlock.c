/*
 * landlock.c - the kernel layer: what the build may open.
 *
 * Landlock (Linux 5.13 and later, no privilege needed, and it holds for root
 * too) confines the jail and everything it starts: the build reads only the
 * student's folder, common/, the toolchain (CUDA, the host compiler, system
 * libraries and headers) and a handful of files the compilers open
 * (/etc/ld.so.cache, /dev/null, ...), and writes only its build folder. So
 * what the portable checks cannot see is still refused: an include the
 * dependency list would only report after reading it, an .incbin of the
 * assembler, a device that never ends. Where the ABI knows them, network
 * connections and signals to processes outside the build are refused too.
 * Rights this kernel's ABI does not know are not asked for (as the recorder
 * does, grader/record/sandbox.c).
 */
#define _GNU_SOURCE
#include "jail.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(SYS_landlock_create_ruleset) && __has_include(<linux/landlock.h>)
#include "../base/landlock_rights.h"

int landlock_abi_version(void)
{
    return landlock_abi_now();
}

/* Rights that may be given on a file (not a folder). */
static uint64_t file_only(uint64_t r)
{
    uint64_t f = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                 LANDLOCK_ACCESS_FS_READ_FILE;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    f |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
    f |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
#endif
    return r & f;
}

/* Allow `rights` beneath path (or on it, a file); a path that does not exist needs no rule. */
static int allow(int ruleset, const char *path, uint64_t rights, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        rights = file_only(rights);
    struct landlock_path_beneath_attr rule = {.allowed_access = rights & handled,
                                              .parent_fd = fd};
    int rc = rule.allowed_access == 0
                 ? 0
                 : (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int landlock_confine(const jail_opts *o, char *why, size_t n)
{
    int abi = landlock_abi_version();
    if (abi == 0)
        return 0;
    uint64_t handled = landlock_fs_rights(abi);
    struct landlock_ruleset_attr attr = {.handled_access_fs = handled};
    size_t attr_size = offsetof(struct landlock_ruleset_attr, handled_access_fs) +
                       sizeof attr.handled_access_fs;
#ifdef LANDLOCK_ACCESS_NET_CONNECT_TCP
    if (abi >= 4) { /* no network: a compiler has nothing to fetch or send */
        attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
        attr_size = offsetof(struct landlock_ruleset_attr, handled_access_net) +
                    sizeof attr.handled_access_net;
    }
#endif
#ifdef LANDLOCK_SCOPE_SIGNAL
    if (abi >= 6) { /* no signals to processes outside the build, no abstract sockets */
        attr.scoped = LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
        attr_size = offsetof(struct landlock_ruleset_attr, scoped) + sizeof attr.scoped;
    }
#endif
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (rs < 0) {
        snprintf(why, n, "cannot make a Landlock ruleset (ABI %d): %s", abi, strerror(errno));
        return -1;
    }
    const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    const uint64_t run = read | LANDLOCK_ACCESS_FS_EXECUTE;
    const char *failed = NULL;
    for (int i = 0; !failed && i < o->toolchain.n; i++)
        if (allow(rs, o->toolchain.path[i], run, handled))
            failed = o->toolchain.path[i];
    for (int i = 0; !failed && i < o->readable.n; i++)
        if (allow(rs, o->readable.path[i], read, handled))
            failed = o->readable.path[i];
    for (int i = 0; !failed && i < o->system.n; i++) /* /usr/local/include, say */
        if (allow(rs, o->system.path[i], read, handled))
            failed = o->system.path[i];
    /* What the compilers open besides: the loader's cache, the time zone, a
       source of randomness (cicc), malloc's overcommit setting, the null device. */
    static const char *const files[] = {"/etc/ld.so.cache", "/etc/localtime",
                                        "/dev/urandom", "/proc/sys/vm/overcommit_memory"};
    for (size_t i = 0; !failed && i < sizeof files / sizeof *files; i++)
        if (allow(rs, files[i], LANDLOCK_ACCESS_FS_READ_FILE, handled))
            failed = files[i];
    if (!failed && allow(rs, "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE, handled))
        failed = "/dev/null";
    if (!failed && allow(rs, o->self, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE, handled))
        failed = o->self; /* the assembler guard */
    if (!failed && allow(rs, o->out, handled, handled))
        failed = o->out;
    int rc = -1;
    if (failed)
        snprintf(why, n, "cannot let the build use %s (Landlock): %s", failed, strerror(errno));
    else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        snprintf(why, n, "cannot set no_new_privs: %s", strerror(errno));
    else if (syscall(SYS_landlock_restrict_self, rs, 0))
        snprintf(why, n, "cannot confine the build (Landlock ABI %d): %s", abi, strerror(errno));
    else
        rc = 1;
    close(rs);
    return rc;
}

#else /* headers without Landlock: the portable layers only */
int landlock_abi_version(void)
{
    return 0;
}
int landlock_confine(const jail_opts *o, char *why, size_t n)
{
    (void)o, (void)why, (void)n;
    return 0;
}
#endif
