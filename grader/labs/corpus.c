/*
 * corpus.c - the truth corpus as a lab: the kernels of one part-NN.tsv of
 * tests/truth/gen-corpus.py, graded as tile kernels so that make
 * check-truth-gpu holds the grader's own counts and verdicts, by every
 * backend, to Nsight Compute's (docs/instructors.md#truth).
 */
#include "lab_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS_MAX 64   /* a library holds at most 64 kernels (image/lab_image.h) */
#define CORPUS_BX 32
#define CORPUS_BY 4

/* Element types of the generator: bytes and vector components. */
static const struct {
    const char *name;
    int bytes, parts;
} types[] = {
    {"char", 1, 1}, {"short", 2, 1}, {"int", 4, 1}, {"float", 4, 1}, {"longlong", 8, 1},
    {"double", 8, 1}, {"int2", 8, 2}, {"float2", 8, 2}, {"int4", 16, 4}, {"float4", 16, 4},
    {"longlong2", 16, 2},
};

typedef struct corpus_kernel {
    char name[16], launcher[24], store[224], load[224], teaches[96];
} corpus_kernel;

static corpus_kernel texts[CORPUS_MAX];
static lab_kernel kernels[CORPUS_MAX];
static lab_def corpus_def;
static char source[512];
static int loaded;

const lab_def *corpus_lab(void)
{
    return loaded ? &corpus_def : NULL;
}

const char *corpus_source(void)
{
    return loaded ? source : NULL;
}

/* One row: name type width store load elements. 0, or -1 with why. */
static int add_row(const char *line, int n, char *why, size_t why_size)
{
    corpus_kernel *t = &texts[n];
    char type[16];
    int width, elements, ti = -1;
    if (sscanf(line, "%15s %15s %d %223s %223s %d", t->name, type, &width, t->store, t->load,
               &elements) != 6) {
        snprintf(why, why_size, "expected name, type, width, store, load, elements");
        return -1;
    }
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, type) == 0)
            ti = (int)i;
    if (ti < 0 || types[ti].bytes != width) {
        snprintf(why, why_size, "%s: type %s of %d bytes is not one the generator writes",
                 t->name, type, width);
        return -1;
    }
    lab_kernel *k = &kernels[n];
    memset(k, 0, sizeof *k);
    if (tile_access_parse(t->store, &k->tile.store, why, why_size) != 0 ||
        tile_access_parse(t->load, &k->tile.load, why, why_size) != 0)
        return -1;
    char text[sizeof t->teaches];
    snprintf(text, sizeof text, "%s: store %.30s, load %.30s", type, t->store, t->load);
    memcpy(t->teaches, text, sizeof text);
    snprintf(text, sizeof t->launcher, "launch_%s", t->name);
    memcpy(t->launcher, text, sizeof t->launcher);
    k->name = t->name;
    k->launcher = t->launcher;
    k->teaches = t->teaches;
    k->tile.store_code = t->store;
    k->tile.load_code = t->load;
    k->tile.elem_bytes = width;
    k->tile.elem_parts = types[ti].parts;
    /* The truth is in the counts; a broadcast store races harmlessly (one value). */
    k->points = (check_points){{[CHK_CORRECT] = 1, [CHK_STORE_REQUESTS] = 1,
                                [CHK_LOAD_REQUESTS] = 1, [CHK_STORE_CONFLICTS] = 1,
                                [CHK_LOAD_CONFLICTS] = 1}};
    return 0;
}

/* An idiom row (tests/truth/gen-idioms.py): idiom NAME CLASS. 0, or -1 with why. */
static int add_idiom(const char *line, int n, char *why, size_t why_size)
{
    corpus_kernel *t = &texts[n];
    char cls[32];
    if (sscanf(line, "idiom %15s %31s", t->name, cls) != 2) {
        snprintf(why, why_size, "expected: idiom NAME CLASS");
        return -1;
    }
    char text[sizeof t->launcher];
    snprintf(text, sizeof text, "launch_%.15s", t->name);
    memcpy(t->launcher, text, sizeof text);
    snprintf(t->teaches, sizeof t->teaches, "%s", cls);
    lab_kernel *k = &kernels[n];
    memset(k, 0, sizeof *k);
    k->name = t->name;
    k->launcher = t->launcher;
    k->teaches = t->teaches;
    k->points = (check_points){{[CHK_CORRECT] = 1, [CHK_COUNTS] = 1}};
    return 0;
}

int corpus_load(const char *tsv, char *why, size_t why_size)
{
    FILE *f = fopen(tsv, "r");
    char line[1024], row_why[256];
    int n = 0, line_no = 0, idioms = 0;
    if (!f) {
        snprintf(why, why_size, "cannot read the corpus %s", tsv);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        line_no++;
        if (line[0] == '#' || strncmp(line, "name\t", 5) == 0 || line[0] == '\n')
            continue;
        if (n == CORPUS_MAX) {
            snprintf(why, why_size, "%s: more than %d kernels (gen-corpus.py writes parts)", tsv,
                     CORPUS_MAX);
            fclose(f);
            return -1;
        }
        int idiom = strncmp(line, "idiom\t", 6) == 0;
        if (n > 0 && idiom != idioms) {
            snprintf(why, why_size, "%s:%d: idiom rows and pattern rows in one part", tsv, line_no);
            fclose(f);
            return -1;
        }
        idioms = idiom;
        if ((idiom ? add_idiom : add_row)(line, n, row_why, sizeof row_why) != 0) {
            snprintf(why, why_size, "%s:%d: %s", tsv, line_no, row_why);
            fclose(f);
            return -1;
        }
        n++;
    }
    fclose(f);
    if (n == 0) {
        snprintf(why, why_size, "%s: no kernels", tsv);
        return -1;
    }
    snprintf(source, sizeof source, "%s", tsv);
    corpus_def = (lab_def){
        .id = CORPUS_LAB_ID, .title = "Truth corpus", .source = source, .kind = PROBLEM_TILE,
        .bdimx = CORPUS_BX, .bdimy = CORPUS_BY,
        .limits = {.launches = 1, .blocks = 1, .shared_bytes = 48 * 1024},
        .kernels = kernels, .n_kernels = n};
    if (idioms) { /* one block of 128 threads writes 512 ints */
        corpus_def.title = "Idiom corpus";
        corpus_def.kind = PROBLEM_IDIOM;
        corpus_def.bdimy = 512 / CORPUS_BX;
    }
    loaded = 1;
    return 0;
}
