/* layout.h - export naming (layouts.c), for discover.c. */
#ifndef SMEMLAB_BATCH_LAYOUT_H
#define SMEMLAB_BATCH_LAYOUT_H

#include "batch.h"

typedef struct export_name {
    const char *layout;          /* "moodle", "canvas", "blackboard"; NULL: none of them */
    char person[NAME_MAX_B + 16];/* what groups one person's entries */
    char name[NAME_MAX_B];       /* the name as exported */
    char ext_id[NAME_MAX_B];     /* participant id, user id or username */
    char file[NAME_MAX_B * 2];   /* the uploaded file's own name ("" for a folder) */
    char attempt[24];            /* Blackboard: the attempt's date */
    long long order;             /* Canvas: the attachment id, larger for a later upload; 0 */
    int late;                    /* Canvas: LATE */
    int metadata;                /* Blackboard: the attempt's .txt */
} export_name;

/* Does the class folder's entry `item` follow an export's naming? 1 and e filled, or 0. */
int export_parse(const char *item, int is_dir, export_name *e);
/* Is base the lab's file `want` ("lab3.cu")? LAB_EXACT, LAB_RENAMED (as browsers
 * and learning systems rename it: "Lab3.cu", "lab3 (1).cu", "lab3-1.cu", an
 * export's prefix), or 0. */
enum { LAB_EXACT = 1, LAB_RENAMED = 2 };
int lab_file_kind(const char *base, const char *want);
/* Blackboard's attempt .txt: "Name: Ada Lovelace (alovelace)" -> "Ada Lovelace". */
void blackboard_name(const char *text, char *name, size_t size);

#define GS_MAX_SUBMITTERS 16
typedef struct gs_person {
    char name[NAME_MAX_B], sid[NAME_MAX_B], email[NAME_MAX_B];
} gs_person;
typedef struct gs_submission {
    char folder[NAME_MAX_B];
    gs_person people[GS_MAX_SUBMITTERS];
    int n;
} gs_submission;
/* Gradescope's submission_metadata.yml: the count, *out (free it). */
int gradescope_parse(const char *yml, gs_submission **out);

#endif
