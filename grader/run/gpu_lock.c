/* gpu_lock.c - one measuring process per GPU at a time; see gpu_lock.h. */
#define _GNU_SOURCE
#include "gpu_lock.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void gpu_lock_path(const char *pci, char *path, size_t size)
{
    const char *dir = getenv("SMEMLAB_LOCK_DIR");
    char name[64];
    size_t n = 0;
    for (const char *p = pci; *p && n + 1 < sizeof name; p++) /* 0000:1B:00.0 */
        name[n++] = isalnum((unsigned char)*p) || *p == ':' || *p == '.' ? (char)tolower(*p) : '_';
    name[n] = '\0';
    snprintf(path, size, "%s/smemlab-gpu-%s.lock", dir && *dir ? dir : "/tmp", n ? name : "unknown");
}

/*
 * Open the lock file, creating it readable and writable by all so that
 * another user's grader can lock it too. An existing file is opened without
 * O_CREAT: in a sticky /tmp (fs.protected_regular) O_CREAT on another
 * user's file is refused even where its mode allows the open. Never through
 * a symbolic link, never blocking on a FIFO put there. Read-only is enough
 * for flock.
 */
static int open_lock_file(const char *path)
{
    for (int tries = 0; tries < 3; tries++) {
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT)
            return fd;
        fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
        if (fd >= 0) {
            fchmod(fd, 0644); /* whatever the umask: others only need to read it */
            return fd;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

int gpu_lock_take(const char *pci, void (*waiting)(void *arg, const char *lock_path), void *arg,
                  char *why, size_t why_size)
{
    char path[4096];
    gpu_lock_path(pci, path, sizeof path);
    int fd = open_lock_file(path);
    if (fd < 0) {
        snprintf(why, why_size, "cannot open the GPU's lock file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "the GPU's lock file %s is not a plain file", path);
        close(fd);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    if (errno != EWOULDBLOCK) {
        snprintf(why, why_size, "cannot lock %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (waiting)
        waiting(arg, path);
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            snprintf(why, why_size, "cannot lock %s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
    return fd;
}
