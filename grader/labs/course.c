/* course.c - the instructor's course file, applied to the lab tables; see course.h. */
#define _GNU_SOURCE
#include "course.h"

#include "lab_table.h"
#include "../base/sha256.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static course current;

const course *course_current(void)
{
    return &current;
}

/* The registry's lab with this id, made a copy the course may change (once). */
static lab_def *editable(const char *id, int *index)
{
    static lab_def *copies[64];
    for (int i = 0; i < lab_registry_count; i++) {
        if (strcmp(lab_registry[i]->id, id) != 0)
            continue;
        *index = i;
        if (!copies[i]) {
            lab_def *l = malloc(sizeof *l);
            lab_kernel *ks = malloc(sizeof *ks * (size_t)lab_registry[i]->n_kernels);
            if (!l || !ks)
                return NULL;
            *l = *lab_registry[i];
            memcpy(ks, l->kernels, sizeof *ks * (size_t)l->n_kernels);
            l->kernels = ks;
            copies[i] = l;
        }
        return copies[i];
    }
    return NULL;
}

static int kernel_index(const lab_def *l, const char *name)
{
    for (int k = 0; k < l->n_kernels; k++)
        if (strcmp(l->kernels[k].name, name) == 0)
            return k;
    return -1;
}

static void kernel_names(const lab_def *l, char *out, size_t size)
{
    size_t o = 0;
    out[0] = '\0';
    for (int k = 0; k < l->n_kernels && o < size; k++)
        o += (size_t)snprintf(out + o, size - o, "%s%s", k ? ", " : "", l->kernels[k].name);
}

static check_id check_by_name(const char *name)
{
    for (int c = 0; c < CHECK_IDS; c++)
        if (strcmp(check_name((check_id)c), name) == 0)
            return (check_id)c;
    return CHECK_IDS;
}

static int number(const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return !errno && end != s && !*end && *v >= lo && *v <= hi;
}

/* One rule "LAB KERNEL ..." on a lab: 0, or -1 with why. */
static int lab_rule(char **w, int n, char *why, size_t size)
{
    int index;
    lab_def *l = editable(w[0], &index);
    if (!l)
        return snprintf(why, size, "unknown lab '%s' (the labs are lab1 ... lab10)", w[0]), -1;
    char names[1024];
    int k = n > 1 ? kernel_index(l, w[1]) : -1;
    if (k < 0) {
        kernel_names(l, names, sizeof names);
        return snprintf(why, size, "%s has no kernel '%s' (its kernels: %s)", l->id,
                        n > 1 ? w[1] : "", names), -1;
    }
    lab_kernel *kern = (lab_kernel *)&l->kernels[k];
    if (n == 3 && !strcmp(w[2], "omit")) {
        if (l->n_kernels == 1)
            return snprintf(why, size, "%s would have no kernel left to grade", l->id), -1;
        memmove(kern, kern + 1, sizeof *kern * (size_t)(l->n_kernels - k - 1));
        l->n_kernels--;
        lab_registry[index] = l;
        return 0;
    }
    check_id c = n == 5 ? check_by_name(w[2]) : CHECK_IDS;
    if (c == CHECK_IDS)
        return snprintf(why, size, "want 'LAB KERNEL CHECK points N', 'LAB KERNEL speed "
                        "fraction F' or 'LAB KERNEL omit'%s", n == 5 ? ": no check of that name"
                        : ""), -1;
    double v;
    if (!strcmp(w[3], "points")) {
        if (kern->points.of[c] <= 0)
            return snprintf(why, size, "%s %s has no %s check to give points to (a course "
                            "changes the points of a kernel's checks, it adds none)", l->id,
                            kern->name, w[2]), -1;
        if (!number(w[4], 0, 1000, &v))
            return snprintf(why, size, "points are a number in 0..1000, not '%s'", w[4]), -1;
        kern->points.of[c] = v;
    } else if (!strcmp(w[3], "fraction") && c == CHK_SPEED) {
        if (kern->speed_fraction <= 0)
            return snprintf(why, size, "%s %s has no speed check", l->id, kern->name), -1;
        if (!number(w[4], 0.01, 2, &v))
            return snprintf(why, size, "a speed fraction is a number in 0.01..2 (of the "
                            "reference's speed), not '%s'", w[4]), -1;
        kern->speed_fraction = v;
    } else {
        return snprintf(why, size, "'%s %s' is not a setting (points N; speed fraction F)",
                        w[2], w[3]), -1;
    }
    lab_registry[index] = l;
    return 0;
}

/* One line, split into words: 0, or -1 with why. */
static int course_line(char *line, course *c, char *why, size_t size)
{
    char *w[8];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t && n < 8;
         t = strtok_r(NULL, " \t\r", &save))
        w[n++] = t;
    if (n == 0)
        return 0;
    if (!strcmp(w[0], "late-penalty")) {
        double v;
        size_t len = n == 2 ? strlen(w[1]) : 0;
        if (len < 2 || w[1][len - 1] != '%' || (w[1][len - 1] = 0, !number(w[1], 0, 100, &v)))
            return snprintf(why, size, "late-penalty wants a percentage such as 10%%"), -1;
        c->late_penalty = v / 100;
        return 0;
    }
    if (!strcmp(w[0], "extra-points")) {
        if (n != 2)
            return snprintf(why, size, "extra-points wants one file (CSV: student,points,why)"), -1;
        snprintf(c->extra_points, sizeof c->extra_points, "%s", w[1]);
        return 0;
    }
    if (strncmp(w[0], "lab", 3) != 0)
        return snprintf(why, size, "'%s' is not a lab, late-penalty or extra-points", w[0]), -1;
    c->rules++;
    return lab_rule(w, n, why, size);
}

int course_load(const char *path, const char *exe, course *out, char *why, size_t why_size)
{
    char found[1024] = "";
    memset(out, 0, sizeof *out);
    if (path && !strcmp(path, COURSE_NONE)) {
        current = *out;
        return 0;
    }
    char *real = !path && exe ? realpath(exe, NULL) : NULL;
    if (real) { /* KIT/build/PROGRAM -> KIT/course.conf */
        snprintf(found, sizeof found, "%s", real);
        free(real);
        char *slash = strrchr(found, '/');
        if (slash)
            *slash = '\0';
        slash = strrchr(found, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(found, sizeof found, ".");
        strncat(found, "/course.conf", sizeof found - strlen(found) - 1);
        if (access(found, F_OK) != 0) {
            current = *out;
            return 0;
        }
        path = found;
    }
    if (!path) {
        current = *out;
        return 0;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return snprintf(why, why_size, "cannot read the course file %s: %s", path,
                        strerror(errno)), -1;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0 && len < (1 << 20))
        fwrite(buf, 1, got, mem);
    fclose(f);
    fclose(mem);
    snprintf(out->path, sizeof out->path, "%s", path);
    sha256_hex_of(text, len, out->sha256);
    int lineno = 0, rc = 0;
    for (char *line = text, *next; line && *line && !rc; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char said[512];
        if (course_line(line, out, said, sizeof said) != 0) {
            snprintf(why, why_size, "%s:%d: %s", path, lineno, said);
            rc = -1;
        }
    }
    free(text);
    current = *out;
    return rc;
}
