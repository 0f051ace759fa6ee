/*
 * slurm.c - --slurm: the pending submissions as a Slurm job array.
 *
 * RESULTS_DIR/.slurm/ gets chunk-I.txt (the student ids of task I, one a
 * line), job.sh (the array script: each task runs `smemlab-batch --task I
 * --chunk-file chunk-I.txt ...` with the same limits, which it enforces
 * itself: Slurm's --time counts in minutes) and task-I.log. A task asks for
 * CPUs only, and grades by emulation on a node without a GPU, unless
 * --slurm-gpu asks for one (--gres=gpu:1): most clusters have far more CPU
 * nodes than GPUs, and only the speed checks need a GPU.
 * `sbatch --wait` returns when every task has ended; then the records the
 * tasks wrote are gathered, and a submission whose record did not come back
 * is "not graded" with the task and its log named.
 */
#define _GNU_SOURCE
#include "batch.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A word for bash, single-quoted. */
static void shq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (const char *p = s; *p; p++)
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    fputc('\'', f);
}

static void not_back(const batch_opts *o, result *r, const submission *s, const char *why)
{
    result_init_from_sub(r, s, o->lab);
    r->status = ST_NOT_GRADED;
    snprintf(r->reason, sizeof r->reason, "not graded: %s", why);
    char err[512];
    if (record_write(o->results, r, err, sizeof err))
        fprintf(stderr, "smemlab-batch: %s\n", err);
}

/* The chunk files, DIR/chunk-T.txt: the ids of each task's submissions, one a
 * line (the task reads the class as the submitter did); task_of[i] is the task
 * of submission i, or -1. A pending submission's old record goes, so that only
 * what a task writes now can come back. The number of tasks, or -1. */
static int write_chunks(const batch_opts *o, const char *dir, submission *subs, int n, int *task_of)
{
    char path[4400];
    int tasks = 0, in_chunk = 0;
    FILE *chunk = NULL;
    for (int i = 0; i < n; i++) {
        task_of[i] = -1;
        if (subs[i].status != ST_PENDING)
            continue;
        if (!chunk || in_chunk == o->chunk_size) {
            if (chunk)
                fclose(chunk);
            snprintf(path, sizeof path, "%s/chunk-%d.txt", dir, tasks++);
            chunk = fopen(path, "w");
            if (!chunk) {
                fprintf(stderr, "smemlab-batch: cannot write %s: %s\n", path, strerror(errno));
                return -1;
            }
            in_chunk = 0;
        }
        fprintf(chunk, "%s\n", subs[i].student);
        in_chunk++;
        task_of[i] = tasks - 1;
        snprintf(path, sizeof path, "%s/%s.json", o->results, subs[i].student);
        unlink(path);
    }
    if (chunk)
        fclose(chunk);
    return tasks;
}

/* The command a task runs: this program with --task, the run's options passed on. */
static void write_task_command(FILE *f, const batch_opts *o, const char *dir)
{
    fprintf(f, "exec ");
    shq(f, o->self);
    fprintf(f, " --task \"$SLURM_ARRAY_TASK_ID\" --chunk-file ");
    shq(f, dir);
    fprintf(f, "/chunk-\"$SLURM_ARRAY_TASK_ID\".txt");
    if (o->jobs_set)
        fprintf(f, " -j %d", o->jobs);
    fprintf(f, " --graders-per-gpu %d%s", o->per_gpu,
            o->no_meter_server ? " --no-meter-server" : "");
    fprintf(f, " --plain --time-limit %g --max-source %lld --max-archive %lld --max-entries %lld",
            o->time_limit, o->limits.max_source, o->limits.max_archive, o->limits.max_entries);
    fprintf(f, " --build-timeout %g --build-memory %lld --build-output %lld --build-log %lld "
               "--build-sandbox %s", o->build_timeout, o->build_memory, o->build_output,
            o->build_log, o->build_sandbox);
    if (o->roster_path) {
        fprintf(f, " --roster ");
        shq(f, o->roster_path);
    }
    fprintf(f, " --course ");
    shq(f, o->course_path ? o->course_path : "none");
    fprintf(f, " --kit ");
    shq(f, o->kit);
    fprintf(f, " --grader ");
    shq(f, o->grader);
    if (o->nvcc) {
        fprintf(f, " --nvcc ");
        shq(f, o->nvcc);
    }
    if (o->nvcc_arch) {
        fprintf(f, " --nvcc-arch ");
        shq(f, o->nvcc_arch);
    }
    for (int i = 0; i < o->n_grader_args; i++) {
        fprintf(f, " --grader-arg ");
        shq(f, o->grader_args[i]);
    }
    fprintf(f, " -o ");
    shq(f, o->results);
    fprintf(f, " %s ", o->lab->id);
    shq(f, o->submissions);
    fprintf(f, "\n");
}

/* The array script, DIR/job.sh, into path: its #SBATCH lines, then the task's
 * command. 0, else -1 (said). */
static int write_job_script(const batch_opts *o, const char *dir, int tasks, char *path, size_t size)
{
    int minutes = slurm_minutes(o);
    snprintf(path, size, "%s/job.sh", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "smemlab-batch: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "#!/bin/bash\n#SBATCH --job-name=smemlab-%s\n#SBATCH --array=0-%d\n"
               "#SBATCH --ntasks=1\n#SBATCH --time=%d\n#SBATCH --output=%s/task-%%a.log\n",
            o->lab->id, tasks - 1, minutes, dir);
    if (o->slurm_gpu)
        fprintf(f, "#SBATCH --gres=gpu:1\n");
    fprintf(f, "# --time: %d submissions a task x (--time-limit %g s + a build's %g s) = %g "
               "s, in minutes rounded up, + 5\n# %s\n", o->chunk_size, o->time_limit,
            batch_build_wall_s(o), o->chunk_size * (o->time_limit + batch_build_wall_s(o)),
            o->slurm_gpu ? "each task has a GPU (--slurm-gpu)"
                         : "no GPU asked for: on a node without one the grader emulates "
                           "(speed not measured)");
    if (o->jobs_set) /* -j N: N cores per task, N builds at a time there */
        fprintf(f, "#SBATCH --cpus-per-task=%d\n", o->jobs);
    write_task_command(f, o, dir);
    fclose(f);
    return 0;
}

/* sbatch --wait --parsable [extra] job.sh, waited for: its exit status (127: it
 * could not be run). */
static int run_sbatch(const batch_opts *o, const char *script)
{
    char **argv = calloc((size_t)o->n_sbatch_args + 5, sizeof *argv);
    int a = 0;
    argv[a++] = (char *)o->sbatch;
    argv[a++] = "--wait";
    argv[a++] = "--parsable";
    for (int i = 0; i < o->n_sbatch_args; i++)
        argv[a++] = o->sbatch_args[i];
    argv[a++] = (char *)script;
    argv[a] = NULL;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "smemlab-batch: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    free(argv);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* What the tasks wrote, for each submission sent; one that did not come back is
 * not graded, and says which task lost it. */
static void gather(const batch_opts *o, submission *subs, int n, result *results,
                   const int *task_of, int code)
{
    char path[4400];
    int lost = 0;
    for (int i = 0; i < n; i++) {
        if (task_of[i] < 0)
            continue;
        snprintf(path, sizeof path, "%s/%s.json", o->results, subs[i].student);
        result r;
        if (record_read(path, &r) == 0 && !strcmp(r.sha256, subs[i].sha256)) {
            results[i] = r;
            continue;
        }
        char why[600];
        if (code == 127)
            snprintf(why, sizeof why, "%s could not be run: is Slurm installed here?", o->sbatch);
        else
            snprintf(why, sizeof why, "Slurm array task %d returned no result (sbatch status %d; "
                     "see .slurm/task-%d.log)", task_of[i], code, task_of[i]);
        not_back(o, &results[i], &subs[i], why);
        lost++;
    }
    if (lost && o->progress >= 0)
        printf("%d submission%s did not come back from the array\n", lost, lost > 1 ? "s" : "");
}

int slurm_run(const batch_opts *o, submission *subs, int n, result *results)
{
    char dir[4200], path[4400];
    snprintf(dir, sizeof dir, "%s/.slurm", o->results);
    rm_rf(dir);
    if (mkdir_p(dir, 0755)) {
        fprintf(stderr, "smemlab-batch: cannot make %s: %s\n", dir, strerror(errno));
        return -1;
    }
    int *task_of = calloc((size_t)(n ? n : 1), sizeof(int));
    int tasks = write_chunks(o, dir, subs, n, task_of);
    if (tasks < 0 || write_job_script(o, dir, tasks, path, sizeof path)) {
        free(task_of);
        return -1;
    }
    if (o->progress >= 0)
        printf("Submitting %d array task%s of up to %d submission%s (sbatch --wait); "
               "logs in %s\n", tasks, tasks > 1 ? "s" : "", o->chunk_size,
               o->chunk_size > 1 ? "s" : "", dir);
    int code = run_sbatch(o, path);
    if (code && o->progress >= 0)
        printf("sbatch --wait ended with status %d (a task failed or the job was cancelled)\n",
               code);
    gather(o, subs, n, results, task_of, code);
    free(task_of);
    return 0;
}

int slurm_minutes(const batch_opts *o)
{
    double seconds = o->chunk_size * (o->time_limit + batch_build_wall_s(o));
    return (int)ceil(seconds / 60.0) + 5;
}
