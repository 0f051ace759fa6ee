/*
 * leftovers.c - what a run killed with -9 left behind, ended by the next run.
 *
 * A run notes its scratch folder in RESULTS/.smemlab-batch.run while it
 * works. SIGKILL gives it no chance to stop its children: the meter server
 * and make die with it (PR_SET_PDEATHSIG), but a build's jail and compiler
 * and a grader's workers run on, and the scratch folder (sources, libraries,
 * the meter's socket) stays. The next run on the same results folder holds
 * the folder's lock, so the noted run is over: every process still working
 * in its scratch folder (its command line names it) is ended with its
 * process group, and the folder is removed.
 */
#define _GNU_SOURCE
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RUN_FILE ".smemlab-batch.run"

static void leftovers_note(const char *results, const char *scratch)
{
    char err[512];
    if (write_file_atomic(results, RUN_FILE, scratch, strlen(scratch), err, sizeof err))
        fprintf(stderr, "smemlab-batch: %s (a run killed now would leave its scratch folder)\n",
                err);
}

/*
 * The scratch folder, TMPDIR/smemlab-batch.XXXXXX: its name is noted before the
 * folder is made, so that a run killed at any moment leaves nothing the next one
 * does not know of (noted and never made is nothing to remove). A Slurm task's is
 * Slurm's, and not noted.
 */
int leftovers_make_scratch(const batch_opts *o, char *root, size_t size)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const char *tmp = getenv("TMPDIR");
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char r[6];
        char name[7];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            return -1;
        for (int i = 0; i < 6; i++)
            name[i] = chars[r[i] % (sizeof chars - 1)];
        name[6] = 0;
        snprintf(root, size, "%s/smemlab-batch.%s", tmp && *tmp ? tmp : "/tmp", name);
        if (o->task < 0)
            leftovers_note(o->results, root);
        if (mkdir(root, 0700) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

void leftovers_forget(const char *results)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", results, RUN_FILE);
    unlink(path);
}

/* Does process pid's command line name `dir`? */
static int works_in(pid_t pid, const char *dir)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    size_t len;
    char *cmd = read_file_all(path, &len, 1 << 20);
    if (!cmd)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!cmd[i])
            cmd[i] = ' ';
    int found = strstr(cmd, dir) != NULL;
    free(cmd);
    return found;
}

/* Running, not a zombie (a reaper-less container keeps a dead leader as one). */
static int alive(pid_t pid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = 0;
    const char *state = strrchr(stat, ')');
    return state && state[1] == ' ' && state[2] != 'Z';
}

/* End every process working in dir, with its process group where the group's
 * leader works there too (or is gone); returns how many were found. */
static int end_processes(const char *dir)
{
    int found = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 1 || pid == getpid() || !works_in(pid, dir))
            continue;
        pid_t group = getpgid(pid);
        found++;
        if (group > 1 && group != getpgrp() && (group == pid || works_in(group, dir) ||
                                                 !alive(group)))
            kill(-group, SIGKILL);
        kill(pid, SIGKILL);
    }
    if (d)
        closedir(d);
    return found;
}

/* Only a folder this program makes: TMPDIR/smemlab-batch.XXXXXX, ours. */
static int our_scratch(const char *dir)
{
    const char *base = strrchr(dir, '/');
    struct stat st;
    return base && !strncmp(base + 1, "smemlab-batch.", 14) && strlen(base + 1) == 20 &&
           lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

void leftovers_clean(const batch_opts *o)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", o->results, RUN_FILE);
    char *dir = read_file_all(path, NULL, 4096);
    if (!dir)
        return;
    dir[strcspn(dir, "\n")] = 0;
    if (our_scratch(dir)) {
        int ended = end_processes(dir);
        for (int i = 0; i < 100 && ended && end_processes(dir); i++) {
            struct timespec ts = {0, 20 * 1000 * 1000}; /* until they are gone */
            nanosleep(&ts, NULL);
        }
        rm_rf(dir);
        if (o->progress >= 0)
            printf("An earlier run was killed: ended %d of its processes and removed its "
                   "scratch folder %s\n", ended, dir);
    }
    unlink(path);
    free(dir);
}
