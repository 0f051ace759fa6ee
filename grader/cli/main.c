/*
 * main.c - smemlab-grade: load lab -> run -> measure -> compare with model
 * -> score -> report. Each stage lives in its own file; this one only
 * strings them together.
 */
#define _GNU_SOURCE
#include "../../common/smemlab.h"
#include "cli.h"
#include "../base/exit_codes.h"
#include "../base/provenance.h"
#include "../labs/course.h"
#include "../grade/launches.h"
#include "../grade/meter_server.h"
#include "../report/report.h"
#include "../base/child.h"
#include "../grade/runner.h"
#include "../score/score.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The lab `make labN` built last, recorded in BUILD/last-lab. */
static const lab_def *last_built(const char *build_dir)
{
    char path[512], id[32] = "";
    snprintf(path, sizeof path, "%s/last-lab", build_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    if (fscanf(f, "%31s", id) != 1)
        id[0] = '\0';
    fclose(f);
    return lab_find(id);
}

/* --kernel names a kernel of every lab graded; else say which there are. */
static int kernel_known(const cli_options *o)
{
    for (int i = 0; o->kernel && i < o->n_labs; i++) {
        const lab_def *l = o->labs[i];
        int k = 0;
        while (k < l->n_kernels && strcmp(l->kernels[k].name, o->kernel) != 0)
            k++;
        if (k < l->n_kernels)
            continue;
        fprintf(stderr, "smemlab-grade: %s has no kernel '%s'; its kernels:", l->id, o->kernel);
        for (k = 0; k < l->n_kernels; k++)
            fprintf(stderr, " %s", l->kernels[k].name);
        fprintf(stderr, "\n");
        for (int j = 0; j < lab_registry_count; j++) /* another lab's: say how to grade it */
            for (k = 0; k < lab_registry[j]->n_kernels; k++)
                if (strcmp(lab_registry[j]->kernels[k].name, o->kernel) == 0)
                    fprintf(stderr, "%s is %s's: make %s && make grade LAB=%s KERNEL=%s\n",
                            o->kernel, lab_registry[j]->id, lab_registry[j]->id,
                            lab_registry[j]->id, o->kernel);
        return 0;
    }
    return 1;
}

static void list_labs(void)
{
    for (int i = 0; i < lab_registry_count; i++) {
        const lab_def *l = lab_registry[i];
        printf("%s  %-40s %s\n", l->id, l->title, l->source);
        for (int k = 0; k < l->n_kernels; k++)
            printf("      %s%s\n", l->kernels[k].name, l->kernels[k].optional ? " (optional)" : "");
    }
}

/*
 * JSON goes to a file without a name in the target's folder (O_TMPFILE),
 * opened before any grading (a bad path is reported at once, not after
 * minutes of work), and gets its name only at the end, when no code of the
 * student's runs any more: while the launchers run there is no file to swap.
 * A crash never leaves half a file. Where the file system has no O_TMPFILE,
 * a named temporary file is used.
 */
typedef struct json_out {
    const char *path;
    char tmp[1024];
    FILE *f;
    int unnamed;
} json_out;

static int json_open(json_out *j, const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    j->path = path;
    snprintf(j->tmp, sizeof j->tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
        fd = open(j->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    else
        j->unnamed = fd >= 0;
    j->f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!j->f)
        fprintf(stderr, "smemlab-grade: cannot write %s: %s\n", path, strerror(errno));
    return j->f ? 0 : -1;
}

static int json_finish(json_out *j, const lab_result *r, int n, const score *s, int code,
                       const run_provenance *p)
{
    int ok = report_json_with(j->f, r, n, s, code, p) == 0 && fflush(j->f) == 0;
    if (ok && j->unnamed) { /* give the unnamed file a name, then move it into place */
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", fileno(j->f));
        ok = linkat(AT_FDCWD, self, AT_FDCWD, j->tmp, AT_SYMLINK_FOLLOW) == 0;
    }
    ok = fclose(j->f) == 0 && ok && rename(j->tmp, j->path) == 0;
    if (!ok) {
        fprintf(stderr, "smemlab-grade: cannot write %s: %s\n", j->path, strerror(errno));
        remove(j->tmp);
        return -1;
    }
    return 0;
}

/*
 * The report page of r (--html): PATH/LAB.html, or PATH where it names the page.
 * Written to a temporary name and moved into place: a reader never meets half a
 * page. A page that cannot be written is said (the results stand: the text report
 * and the JSON hold them) and leaves r->page empty.
 */
static void write_page(const char *html, lab_result *r, const char *source)
{
    char path[512], tmp[600];
    if (html_is_file(html)) {
        snprintf(path, sizeof path, "%s", html);
    } else {
        if (mkdir(html, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "smemlab-grade: cannot make the folder %s for the report page: %s "
                    "(the results above stand)\n", html, strerror(errno));
            return;
        }
        snprintf(path, sizeof path, "%s/%s.html", html, r->lab->id);
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    int ok = f && report_html(f, r, source) == 0;
    ok = f && fclose(f) == 0 && ok && rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "smemlab-grade: cannot write the report page %s: %s (the results above "
                "stand)\n", path, strerror(errno));
        remove(tmp);
        return;
    }
    snprintf(r->page, sizeof r->page, "%s", path);
}

/* The file a lab's page shows: the one graded (--source, or labs/ for the lab make
   built), or the solution's for --solutions; NULL where none is known. */
static const char *page_source(const cli_options *o, const lab_def *lab, const char *source,
                               char *buf, size_t size)
{
    if (source || !o->solutions || o->lib || strncmp(lab->source, "labs/", 5) != 0)
        return source;
    snprintf(buf, size, "solutions/%s", lab->source + 5);
    return access(buf, R_OK) == 0 ? buf : NULL;
}

/* SIGTERM, SIGINT, SIGHUP: take every child along, then die of the same signal. */
static void on_signal(int sig)
{
    child_kill_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void harden(void)
{
    /* No process of the same user (a recorder) may read or write the grader's memory. */
    prctl(PR_SET_DUMPABLE, 0);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGHUP, on_signal);
}

/* What grades with these options (provenance.h): the record of every run. */
static void fill_provenance(const cli_options *o, run_provenance *p)
{
    memset(p, 0, sizeof *p);
    const course *c = course_current();
    snprintf(p->version, sizeof p->version, "%s", grader_version());
    program_digest(p->grader_sha256);
    snprintf(p->course, sizeof p->course, "%s", c->path);
    snprintf(p->course_sha256, sizeof p->course_sha256, "%s", c->sha256);
    p->seed = o->grade.seed;
    p->repeats = o->grade.repeats;
    p->counters = o->grade.use_counters;
    p->timeout_s = o->grade.timeout_s;
    p->measure = measure_mode_name(o->measure);
    p->kernel = o->kernel;
    provenance_stamp(p);
}

/* --version: the grader, what it grades with, its default options. */
static void print_version(const run_provenance *p)
{
    printf("smemlab-grade %s (lab contract version %d)\n", p->version, SMEMLAB_CONTRACT_VERSION);
    printf("grader sha256  %s\n", p->grader_sha256[0] ? p->grader_sha256 : "(unreadable)");
    if (p->course[0])
        printf("course         %s (sha256 %s)\n", p->course, p->course_sha256);
    else
        printf("course         none: the kit's own lab tables\n");
    for (int i = 0; i < lab_registry_count; i++) {
        char d[65];
        lab_table_digest(lab_registry[i], d);
        printf("%-6s table   %s  %g points\n", lab_registry[i]->id, d,
               lab_total_points(lab_registry[i]));
    }
    printf("options        --seed %llu --repeats %d --timeout %g --measure %s%s\n", p->seed,
           p->repeats, p->timeout_s, p->measure, p->counters ? "" : " --no-counters");
    printf("host           %s, %s\n", p->host, p->time);
}

/* --describe LAB: what would grade it, for smemlab-batch (one JSON object). */
static int print_description(const run_provenance *p, const lab_def *lab)
{
    char d[65], table[16384];
    lab_table_digest(lab, d);
    lab_table_text(lab, table, sizeof table);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "grader", p->version);
    cJSON_AddStringToObject(o, "grader_sha256", p->grader_sha256);
    cJSON_AddStringToObject(o, "course", p->course);
    cJSON_AddStringToObject(o, "course_sha256", p->course_sha256);
    cJSON_AddStringToObject(o, "lab", lab->id);
    cJSON_AddStringToObject(o, "table_sha256", d);
    cJSON_AddStringToObject(o, "table", table);
    cJSON_AddNumberToObject(o, "max_points", lab_total_points(lab));
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    int ok = text && puts(text) >= 0;
    free(text);
    return ok ? EXIT_ALL_PASSED : EXIT_ENVIRONMENT;
}

/* Grade one lab: a library that is not there needs no worker to say so. */
static void grade_lab(const cli_options *o, const lab_def *lab, lab_result *r)
{
    char lib[512];
    grade_options g = o->grade;
    g.lib_path = cli_lib_path(o, lab, lib, sizeof lib);
    if (access(lib, R_OK) != 0) {
        memset(r, 0, sizeof *r);
        r->lab = lab;
        r->env_code = EXIT_ENVIRONMENT;
        snprintf(r->env_text, sizeof r->env_text, "%s does not exist: build the lab first "
                 "(make %s%s)", lib, lab->id, o->solutions ? " SOLUTIONS=1" : "");
        return;
    }
    run_lab(lab, &g, r);
    /* Predictions and the TODOs: in the file given, or in labs/ when this is
       the lab make built. */
    const char *source = o->source ? o->source
                         : !o->lib && !o->solutions && access(lab->source, R_OK) == 0 ? lab->source
                                                                                   : NULL;
    report_judge_predictions(r, source);
    report_find_places(r, source);
    char solution[512];
    if (o->html)
        write_page(o->html, r, page_source(o, lab, source, solution, sizeof solution));
}

int main(int argc, char **argv)
{
    cli_options o;
    json_out json = {0};
    harden();
    int rc = cli_parse(argc, argv, &o, stderr);
    if (rc)
        return rc;
    if (o.help) {
        cli_usage(stdout);
        return EXIT_ALL_PASSED;
    }
    /* The course file before any lab is looked at: the labs given are its copies. */
    course crs;
    char why[1024];
    if (course_load(o.course, "/proc/self/exe", &crs, why, sizeof why) != 0) {
        fprintf(stderr, "smemlab-grade: %s\nFix the course file (docs/instructors.md#course), "
                "or grade with the kit's tables: --course none.\n", why);
        return EXIT_USAGE;
    }
    for (int i = 0; i < o.n_labs; i++)
        o.labs[i] = lab_find(o.labs[i]->id);
    run_provenance prov;
    fill_provenance(&o, &prov);
    if (o.version) {
        print_version(&prov);
        return EXIT_ALL_PASSED;
    }
    if (o.describe) {
        const lab_def *lab = lab_find(o.describe);
        if (!lab) {
            fprintf(stderr, "smemlab-grade: --describe: unknown lab '%s'\n", o.describe);
            return EXIT_USAGE;
        }
        return print_description(&prov, lab);
    }
    if (o.serve_meter)
        return meter_serve(o.serve_meter, &o.grade);
    if (o.list) {
        list_labs();
        return EXIT_ALL_PASSED;
    }
    if (o.n_labs == 0 && !(o.labs[o.n_labs++] = last_built(o.build_dir))) {
        fprintf(stderr, "smemlab-grade: no lab given and none built yet in %s/.\n"
                "Build one first, e.g. `make lab1 && make grade`, or name it: "
                "`make grade LAB=lab1`.\n", o.build_dir);
        return EXIT_USAGE;
    }
    if (!kernel_known(&o))
        return EXIT_USAGE;
    if (o.check_launches) {
        int worst = EXIT_ALL_PASSED;
        for (int i = 0; i < o.n_labs; i++) {
            char lib[512];
            grade_options g = o.grade;
            g.lib_path = cli_lib_path(&o, o.labs[i], lib, sizeof lib);
            int code = check_launches(o.labs[i], &g, stdout);
            worst = code > worst ? code : worst;
        }
        return worst;
    }
    if (o.json && json_open(&json, o.json) != 0)
        return EXIT_ENVIRONMENT;

    lab_result results[CLI_MAX_LABS];
    const char *no_color = getenv("NO_COLOR");
    report_style style = {.color = isatty(STDOUT_FILENO) && !(no_color && *no_color),
                          .verbose = o.verbose, .build_dir = o.build_dir,
                          .handin = o.handin};
    score total = {0};
    for (int i = 0; i < o.n_labs; i++) {
        grade_lab(&o, o.labs[i], &results[i]);
        report_text_lab(stdout, &results[i], &style);
        score_add(&total, &results[i]);
    }
    int code = score_exit_code(&total);
    report_text_total(stdout, &total);
    report_text_next(stdout, results, o.n_labs, &style);
    /* Results that cannot be saved are lost work: that outranks any grade. */
    provenance_stamp(&prov); /* when the grades were known */
    if (o.json && json_finish(&json, results, o.n_labs, &total, code, &prov) != 0)
        code = EXIT_ENVIRONMENT;
    for (int i = 0; i < o.n_labs; i++)
        lab_result_free(&results[i]);
    return code;
}
