/* util.c - files, folders and time for smemlab-batch. */
#define _GNU_SOURCE
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int mkdir_p(const char *path, int mode)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, (mode_t)mode) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, (mode_t)mode) && errno != EEXIST)
        return -1;
    return 0;
}

int rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st))
        return errno == ENOENT ? 0 : -1;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return -1;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *sub;
            if (asprintf(&sub, "%s/%s", path, e->d_name) < 0)
                break;
            rm_rf(sub);
            free(sub);
        }
        closedir(d);
        return rmdir(path);
    }
    return unlink(path);
}

/* All of data to fd (through EINTR and short writes); 0 or -1. */
static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    if (write_all(fd, data, len) != 0) {
        close(fd);
        return -1;
    }
    return close(fd);
}

/* dir/name written as dir/.name.tmp.PID, fsync'd, renamed, and the folder
 * fsync'd: a reader (or a kill -9) sees the old file or the whole new one. */
int write_file_atomic(const char *dir, const char *name, const void *data, size_t len,
                      char *err, size_t errlen)
{
    char tmp[4096], dst[4096];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp.%ld", dir, name, (long)getpid());
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        goto fail;
    if (write_all(fd, data, len) != 0) {
        close(fd);
        goto fail;
    }
    if (fsync(fd) || close(fd) || rename(tmp, dst))
        goto fail;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
fail:
    snprintf(err, errlen, "cannot write %s: %s", dst, strerror(errno));
    unlink(tmp);
    return -1;
}

char *read_file_all(const char *path, size_t *len, long long cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t size = 0, alloc = 4096;
    char *buf = malloc(alloc + 1);
    for (;;) {
        if (size == alloc) {
            alloc *= 2;
            buf = realloc(buf, alloc + 1);
        }
        ssize_t r = read(fd, buf + size, alloc - size);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size += (size_t)r;
        if (cap > 0 && (long long)size > cap) {
            free(buf);
            close(fd);
            errno = EFBIG;
            return NULL;
        }
    }
    close(fd);
    buf[size] = 0;
    if (len)
        *len = size;
    return buf;
}

const char *status_name(sub_status s)
{
    switch (s) {
    case ST_GRADED: return "graded";
    case ST_NOT_COMPILED: return "not-compiled";
    case ST_NOT_GRADED: return "not-graded";
    case ST_REJECTED: return "rejected";
    default: return "pending";
    }
}

sub_status status_parse(const char *s)
{
    for (int i = ST_GRADED; i <= ST_REJECTED; i++)
        if (s && !strcmp(s, status_name((sub_status)i)))
            return (sub_status)i;
    return ST_PENDING;
}

void result_init_from_sub(result *r, const submission *s, const lab_def *lab)
{
    memset(r, 0, sizeof *r);
    snprintf(r->student, sizeof r->student, "%s", s->student);
    snprintf(r->name, sizeof r->name, "%s", s->name);
    snprintf(r->email, sizeof r->email, "%s", s->email);
    r->late = s->late;
    snprintf(r->entry, sizeof r->entry, "%s", s->entry);
    snprintf(r->source, sizeof r->source, "%s", s->source);
    snprintf(r->source_note, sizeof r->source_note, "%s", s->source_note);
    snprintf(r->sha256, sizeof r->sha256, "%s", s->sha256);
    snprintf(r->lab, sizeof r->lab, "%s", lab->id);
    r->status = s->status;
    snprintf(r->reason, sizeof r->reason, "%s", s->reason);
    r->grader_exit = -1;
    r->final = s->status == ST_REJECTED ? 0 : 0;
    for (int k = 0; k < lab->n_kernels; k++)
        r->max_points += kernel_max_points(lab, &lab->kernels[k]);
    r->max_here = r->max_points;
    /* the learning system's own id, for its import files (lms.c): not an anonymous
       export's, which names nobody the gradebook knows */
    static const char *const systems[] = {"moodle", "canvas", "blackboard", "gradescope"};
    for (int i = 0; i < 4; i++)
        if (s->layout && !strcmp(s->layout, systems[i]) && strncmp(s->ext_id, "anon_", 5)) {
            snprintf(r->lms, sizeof r->lms, "%s", systems[i]);
            snprintf(r->lms_id, sizeof r->lms_id, "%s", s->ext_id);
        }
}

const char *count_of(int n, const char *one, const char *many, char *buf, size_t size)
{
    snprintf(buf, size, "%d %s", n, n == 1 ? one : many);
    return buf;
}

/* s with every occurrence of cut removed, in place. */
static void cut_all(char *s, const char *cut)
{
    size_t n = strlen(cut);
    char *p;
    if (!s || !n)
        return;
    while ((p = strstr(s, cut)))
        memmove(p, p + n, strlen(p + n) + 1);
}

void result_scrub(result *r, const char *dir)
{
    char with_slash[4200];
    snprintf(with_slash, sizeof with_slash, "%s/", dir);
    char *fixed[] = {r->reason, r->compiler, r->device};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        cut_all(fixed[i], with_slash);
        cut_all(fixed[i], dir);
    }
    for (int c = 0; c < r->n_checks; c++) {
        check_rec *k = &r->checks[c];
        char *texts[] = {k->message, k->measured, k->expected, k->hint, k->bank_map};
        for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
            cut_all(texts[i], with_slash);
            cut_all(texts[i], dir);
        }
    }
}

int run_capture(char *const argv[], int plain_make, char *buf, size_t size)
{
    int fd[2];
    buf[0] = '\0';
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]), close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]), close(fd[1]);
        if (plain_make)
            unsetenv("MAKEFLAGS"), unsetenv("MAKELEVEL");
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    char drop[4096];
    ssize_t r;
    while ((r = got + 1 < size ? read(fd[0], buf + got, size - 1 - got)
                               : read(fd[0], drop, sizeof drop)) > 0)
        got += got + 1 < size ? (size_t)r : 0;
    close(fd[0]);
    buf[got] = '\0';
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}
