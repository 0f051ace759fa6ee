/* provenance.c - what graded a submission, in a few words; see provenance.h. */
#define _GNU_SOURCE
#include "provenance.h"
#include "sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* make bakes the kit's version in (Makefile: KIT_VERSION). */
#ifndef SMEMLAB_VERSION
#define SMEMLAB_VERSION "unknown"
#endif

const char *grader_version(void)
{
    return SMEMLAB_VERSION;
}

int program_digest(char out[65])
{
    return sha256_file_hex("/proc/self/exe", out);
}

void provenance_stamp(run_provenance *p)
{
    if (gethostname(p->host, sizeof p->host) != 0)
        snprintf(p->host, sizeof p->host, "unknown");
    p->host[sizeof p->host - 1] = '\0';
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(p->time, sizeof p->time, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *device_backend(const char *device)
{
    const char *by = strstr(device, "; measured by ");
    if (!strncmp(device, "emulated on the CPU", 19))
        return "emulator";
    if (by && !strncmp(by + 14, "trace", 5))
        return "trace";
    if (by && !strncmp(by + 14, "counters", 8))
        return "counters";
    return "none";
}

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
