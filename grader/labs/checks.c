/* checks.c - every check's name, once; see checks.h. */
#include "checks.h"

#include <string.h>

static const char *const names[CHECK_IDS] = {
    [CHK_NONE] = "",
    [CHK_CORRECT] = "correct",
    [CHK_STORE_REQUESTS] = "store-requests",
    [CHK_LOAD_REQUESTS] = "load-requests",
    [CHK_STORE_CONFLICTS] = "store-conflicts",
    [CHK_LOAD_CONFLICTS] = "load-conflicts",
    [CHK_COUNTS] = "counts",
    [CHK_GLOBAL_LOADS] = "global-loads",
    [CHK_GLOBAL_TRAFFIC] = "global-traffic",
    [CHK_LOAD_COALESCING] = "load-coalescing",
    [CHK_STORE_COALESCING] = "store-coalescing",
    [CHK_SMEM_CONFLICTS] = "smem-conflicts",
    [CHK_SHUFFLE] = "shuffle",
    [CHK_MEMORY_PATH] = "memory-path",
    [CHK_CONST_SERIAL] = "const-serialization",
    [CHK_DYNAMIC_TILE] = "dynamic-tile",
    [CHK_RACE] = "race",
    [CHK_SPEED] = "speed",
};

const char *check_name(check_id id)
{
    return id > CHK_NONE && id < CHECK_IDS && names[id] ? names[id] : "";
}

check_id check_id_of(const char *name)
{
    for (int i = CHK_NONE + 1; name && i < CHECK_IDS; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return (check_id)i;
    return CHK_NONE;
}
