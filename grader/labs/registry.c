/* registry.c - the list of labs the grader knows. */
#include "../lab_table.h"

#include <stdio.h>
#include <string.h>

extern const lab_def lab1_def, lab2_def, lab3_def, lab4_def, lab5_def, lab6_def;

const lab_def *const lab_registry[] = {&lab1_def, &lab2_def, &lab3_def, &lab4_def,
                                       &lab5_def, &lab6_def};
const int lab_registry_count = (int)(sizeof lab_registry / sizeof lab_registry[0]);

const lab_def *lab_find(const char *id)
{
    char full[16];
    if (id == NULL)
        return NULL;
    /* "3" is accepted as shorthand for "lab3". */
    snprintf(full, sizeof full, "%s%s", strncmp(id, "lab", 3) == 0 ? "" : "lab", id);
    for (int i = 0; i < lab_registry_count; i++)
        if (strcmp(lab_registry[i]->id, full) == 0)
            return lab_registry[i];
    return NULL;
}
