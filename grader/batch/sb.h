/* sb.h - a growing string and the escapes the reports need (reports.c). */
#ifndef SMEMLAB_BATCH_SB_H
#define SMEMLAB_BATCH_SB_H

#include <stddef.h>

typedef struct sb { char *s; size_t n, cap; } sb;

void sb_add(sb *b, const char *t, size_t len);
void sb_puts(sb *b, const char *t);
void sb_printf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* XML and HTML text: markup escaped, control bytes XML cannot hold as U+FFFD. */
void sb_xml(sb *b, const char *t);
/* A CSV field (RFC 4180), safe in a spreadsheet: a formula-looking text gets a leading '. */
void sb_csv(sb *b, const char *t);

#endif
