/* loader.c - dlopen the lab library and check its contract; see loader.h. */
#define _GNU_SOURCE
#include "loader.h"

#include "../common/smemlab.h"
#include "lab_table.h"

#include <limits.h>
#include <stdlib.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int lab_lib_open(const char *path, lab_lib *lib, char *why, size_t why_size)
{
    const int *version;

    memset(lib, 0, sizeof *lib);
    snprintf(lib->path, sizeof lib->path, "%s", path);
    if (access(path, R_OK) != 0) {
        snprintf(why, why_size, "%s does not exist: build the lab first (make labN)", path);
        return -1;
    }
    /* dlopen searches the library path for a bare name: give it the file. */
    char full[PATH_MAX];
    lib->handle = dlopen(realpath(path, full) ? full : path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        snprintf(why, why_size, "cannot load %s: %s (rebuild it: make clean && make labN)",
                 path, dlerror());
        return -1;
    }
    version = lab_lib_symbol(lib, "smemlab_contract_version");
    *(void **)&lib->scrub_shared = lab_lib_symbol(lib, "smemlab_scrub_shared");
    if (!version || !lib->scrub_shared) {
        snprintf(why, why_size, "%s was not built by the kit's Makefile "
                 "(common/support.cu is missing from it)", path);
        return -1;
    }
    if (*version != SMEMLAB_CONTRACT_VERSION) {
        snprintf(why, why_size, "%s follows contract version %d, this grader version %d: "
                 "rebuild with this kit", path, *version, SMEMLAB_CONTRACT_VERSION);
        return -1;
    }
    return 0;
}

void *lab_lib_symbol(const lab_lib *lib, const char *name)
{
    return lib->handle ? dlsym(lib->handle, name) : NULL;
}

int lab_lib_param(const lab_lib *lib, const char *symbol, int *value)
{
    const int *p = symbol ? lab_lib_symbol(lib, symbol) : NULL;
    if (!p)
        return -1;
    *value = *p;
    return 0;
}

int lab_lib_check_params(const lab_lib *lib, const lab_def *lab, char *why, size_t why_size)
{
    for (int i = 0; i < LAB_MAX_PARAMS && lab->params[i].name; i++) {
        const lab_param *p = &lab->params[i];
        char symbol[96];
        int value;
        snprintf(symbol, sizeof symbol, "smemlab_param_%s", p->name);
        if (lab_lib_param(lib, symbol, &value) != 0) {
            snprintf(why, why_size, "%s does not export %s: keep SMEMLAB_PARAM(%s, %s) from "
                     "the skeleton of %s", lib->path, p->name, p->name, p->name, lab->source);
            return -1;
        }
        if (value != p->value) {
            snprintf(why, why_size, "%s sets %s to %d, but the contract fixes it at %d (the "
                     "grader's sizes and limits depend on it): set it back in %s", lib->path,
                     p->name, value, p->value, lab->source);
            return -1;
        }
    }
    return 0;
}
