/* check.c - building check records; see check.h. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void check_field(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, size, fmt, ap);
    va_end(ap);
}

void check_init(check_result *c, const char *lab, const char *kernel, const char *check,
                double max_points)
{
    memset(c, 0, sizeof *c);
    check_field(c->lab, sizeof c->lab, "%s", lab);
    check_field(c->kernel, sizeof c->kernel, "%s", kernel);
    check_field(c->check, sizeof c->check, "%s", check);
    c->status = CHECK_FAIL;
    c->max_points = max_points;
}

void check_set(check_result *c, check_status status, const char *fmt, ...)
{
    va_list ap;
    c->status = status;
    c->points = status == CHECK_PASS ? c->max_points : 0.0;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof c->message, fmt, ap);
    va_end(ap);
}

const char *check_status_name(check_status s)
{
    switch (s) {
    case CHECK_PASS: return "pass";
    case CHECK_FAIL: return "fail";
    case CHECK_NOT_MEASURED: return "not-measured";
    case CHECK_SKIPPED: return "skipped";
    }
    return "?";
}
