/*
 * similar.c - RESULTS/similar.txt: submissions that look alike, for the
 * instructor to read; never a grade, and no student sees it.
 *
 *  identical    the same bytes (one SHA-256), whoever sent them
 *  near-copies  Debian's similarity-tester (sim_c, token runs of C) over the
 *               sources with the skeleton's own lines taken out first: what
 *               everyone was given makes no two students alike. Pairs at or
 *               above SIMILAR_PERCENT are listed, most similar first (sim_c's
 *               "A consists for N % of B material").
 */
#define _GNU_SOURCE
#include "batch.h"
#include "sb.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIMILAR_PERCENT 70
#define SIMILAR_MIN_RUN 20 /* tokens a common run needs (sim_c -r) */

/* text without the lines the skeleton holds too (spaces at either end ignored). */
static char *without_skeleton(const char *text, const char *skel)
{
    sb out = {0};
    char *copy = strdup(text);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *t = l + strspn(l, " \t");
        size_t n = strlen(t);
        while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\r'))
            t[--n] = 0;
        int given = 0;
        if (n && skel)
            for (const char *p = skel; !given && (p = strstr(p, t)); p += n) {
                const char *a = p, *z = p + n;
                while (a > skel && (a[-1] == ' ' || a[-1] == '\t'))
                    a--;
                while (*z == ' ' || *z == '\t' || *z == '\r')
                    z++;
                given = (a == skel || a[-1] == '\n') && (*z == '\n' || !*z);
            }
        if (n && !given)
            sb_printf(&out, "%s\n", t);
    }
    free(copy);
    return out.s ? out.s : strdup("");
}

/* Run sim_c on the files of dir; its output, or NULL where it cannot run. */
static char *run_sim(char *const *files, int n)
{
    int fd[2];
    if (pipe(fd))
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        char **argv = calloc((size_t)n + 8, sizeof *argv), r[16], t[16];
        int k = 0;
        snprintf(r, sizeof r, "-r%d", SIMILAR_MIN_RUN);
        snprintf(t, sizeof t, "-t%d", SIMILAR_PERCENT);
        argv[k++] = "sim_c";
        argv[k++] = "-p";
        argv[k++] = "-e";
        argv[k++] = "-s";
        argv[k++] = r;
        argv[k++] = t;
        for (int i = 0; i < n; i++)
            argv[k++] = files[i];
        dup2(fd[1], 1);
        close(fd[0]);
        execvp("sim_c", argv);
        _exit(127);
    }
    close(fd[1]);
    sb out = {0};
    char buf[4096];
    ssize_t got;
    while ((got = read(fd[0], buf, sizeof buf)) > 0)
        sb_add(&out, buf, (size_t)got);
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) == 127) {
        free(out.s);
        return NULL;
    }
    return out.s ? out.s : strdup("");
}

/* The students who sent source sha, "Ada (ada), Bob (bob)". */
static void who_sent(sb *b, const result *rs, int n, const char *sha)
{
    int first = 1;
    for (int i = 0; i < n; i++)
        if (!strcmp(rs[i].sha256, sha)) {
            sb_printf(b, "%s%s", first ? "" : ", ", rs[i].student);
            if (rs[i].name[0] && strcmp(rs[i].name, rs[i].student))
                sb_printf(b, " (%s)", rs[i].name);
            first = 0;
        }
}

static int sent(const result *r)
{
    return r->sha256[0] && (r->status == ST_GRADED || r->status == ST_NOT_COMPILED);
}

/* The identical groups into b: how many. */
static int identical(sb *b, const result *rs, int n)
{
    int groups = 0;
    for (int i = 0; i < n; i++) {
        int first = sent(&rs[i]), count = 0;
        for (int j = 0; j < i && first; j++)
            first = !(sent(&rs[j]) && !strcmp(rs[j].sha256, rs[i].sha256));
        for (int j = 0; j < n && first; j++)
            count += sent(&rs[j]) && !strcmp(rs[j].sha256, rs[i].sha256);
        if (!first || count < 2)
            continue;
        sb_printf(b, "%s  %.12s: ", groups++ ? "" : "Identical (the same bytes):\n", rs[i].sha256);
        who_sent(b, rs, n, rs[i].sha256);
        sb_puts(b, "\n");
    }
    return groups;
}

/* The near-copies into b, from sim_c's lines "DIR/SHA.cu consists for N % of DIR/SHA.cu
   material": how many pairs. */
static int near(sb *b, const char *out, const result *rs, int n)
{
    int pairs = 0;
    char *copy = strdup(out);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *mid = strstr(l, " consists for "), *of = mid ? strstr(mid, " % of ") : NULL;
        if (!of)
            continue;
        char a[65] = "", c[65] = "";
        const char *an = memrchr(l, '/', (size_t)(mid - l)), *cn = strrchr(of, '/');
        if (!an || !cn)
            continue;
        snprintf(a, sizeof a, "%.64s", an + 1);
        snprintf(c, sizeof c, "%.64s", cn + 1);
        sb_printf(b, "%s  %d%% of ", pairs++ ? "" : "\nNear-copies (sim_c, the skeleton's lines "
                  "taken out; the first consists for N% of the second's material):\n",
                  atoi(mid + 14));
        who_sent(b, rs, n, a);
        sb_puts(b, " is in ");
        who_sent(b, rs, n, c);
        sb_puts(b, "\n");
    }
    free(copy);
    return pairs;
}

int similar_write(const batch_opts *o, const result *rs, int n)
{
    sb b = {0};
    sb_printf(&b, "smemlab %s: submissions that look alike. Not a grade and no verdict: read "
              "them before you conclude anything.\n\n", o->lab->id);
    int groups = identical(&b, rs, n);
    char tmp[4300], skel_path[4300];
    snprintf(tmp, sizeof tmp, "%s/.similar.tmp", o->results);
    snprintf(skel_path, sizeof skel_path, "%s/%s", o->kit, o->lab->source);
    char *skel = read_file_all(skel_path, NULL, 1 << 20);
    rm_rf(tmp);
    mkdir_p(tmp, 0700);
    char **files = calloc(n > 0 ? (size_t)n : 1, sizeof *files);
    int nf = 0;
    for (int i = 0; i < n; i++) {
        int first = sent(&rs[i]);
        for (int j = 0; j < i && first; j++)
            first = !(sent(&rs[j]) && !strcmp(rs[j].sha256, rs[i].sha256));
        char src[4400];
        snprintf(src, sizeof src, "%s/sources/%s.cu", o->results, rs[i].sha256);
        char *text = first ? read_file_all(src, NULL, 1 << 20) : NULL;
        if (!text)
            continue;
        char *own = without_skeleton(text, skel);
        if (asprintf(&files[nf], "%s/%s.cu", tmp, rs[i].sha256) > 0 &&
            write_file(files[nf], own, strlen(own)) == 0)
            nf++;
        free(own);
        free(text);
    }
    char *out = nf > 1 ? run_sim(files, nf) : strdup("");
    int pairs = out ? near(&b, out, rs, n) : 0;
    if (!out)
        sb_puts(&b, "\nNear-copies: not looked for: sim_c is not installed (apt-get install "
                    "similarity-tester, or make deps-instructor).\n");
    else if (!pairs)
        sb_printf(&b, "%sNo near-copies at %d%% or more of their own text (sim_c).\n",
                  groups ? "\n" : "", SIMILAR_PERCENT);
    if (!groups)
        sb_puts(&b, "No two submissions are identical.\n");
    char err[512];
    int rc = write_file_atomic(o->results, "similar.txt", b.s, b.n, err, sizeof err);
    if (rc)
        fprintf(stderr, "smemlab-batch: %s\n", err);
    for (int i = 0; i < nf; i++)
        free(files[i]);
    free(files);
    free(out);
    free(skel);
    free(b.s);
    rm_rf(tmp);
    return rc;
}
