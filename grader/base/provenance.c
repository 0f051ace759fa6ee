/* provenance.c - what graded a submission, in a few words; see provenance.h. */
#include "provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The grader words its device line (grader/grade/worker.c describe_device) as
 * "emulated on the CPU: WHY; speed not measured (the PTX emulator, ...)",
 * "NAME (sm_XY, ...); measured by BACKEND (...)..." or "NAME (sm_XY, ...);
 * counters NOT measured: WHY". Its own words, shortened.
 */
void device_provenance(const char *device, char *out, size_t size)
{
    const char *sm = strstr(device, " (sm_"), *by = strstr(device, "; measured by ");
    if (!strncmp(device, "emulated on the CPU", 19)) {
        const char *cut = strstr(device, "speed not measured");
        size_t n = cut ? (size_t)(cut - device) + 18 : strcspn(device, "(");
        while (n && device[n - 1] == ' ')
            n--;
        snprintf(out, size, "%.*s", (int)n, device);
    } else if (sm) {
        int arch = atoi(sm + 5);
        const char *backend = by ? by + 14 : "";
        size_t bl = strcspn(backend, " (:;");
        if (by && bl)
            snprintf(out, size, "%.*s on %.*s, sm_%d", (int)bl, backend, (int)(sm - device),
                     device, arch);
        else
            snprintf(out, size, "%.*s, sm_%d, counters not measured", (int)(sm - device), device,
                     arch);
    } else {
        snprintf(out, size, "%.*s", (int)strcspn(device, ";"), device);
    }
}
