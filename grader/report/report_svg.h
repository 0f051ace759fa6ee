/*
 * report_svg.h - one warp access drawn as the course's figures draw it
 * (docs/tools/bankmap.c), as SVG to put inside a report page: lanes over the
 * 32 banks, each lane coloured by the wavefront that serves it; or lanes over
 * the 32-byte sectors of a global access, each lane numbered and coloured by
 * its sector. The numbers come from the grader's models (model/bank.h,
 * model/sector.h) applied to the addresses the grader recorded, so a drawing
 * cannot disagree with the check it illustrates.
 *
 * id makes the figure's ids unique in the page (title, desc); title and the
 * caption lines are plain text (escaped here).
 */
#ifndef SMEMLAB_REPORT_SVG_H
#define SMEMLAB_REPORT_SVG_H

#include "../model/bank.h"
#include "../model/sector.h"

#include <stdio.h>

/* Lanes over banks. Returns the wavefronts the model gives the access. */
int svg_bank_warp(FILE *f, const bank_geometry *g, const warp_access *a, const char *id,
                  const char *title);

/* Lanes over sectors. Returns the sectors the model gives the access. */
int svg_sector_warp(FILE *f, const global_access *a, const char *id, const char *title);

/* Text for XML and HTML alike: & < > " ' escaped, control characters (but tab
   and newline) shown as U+FFFD, so that no byte of a student's file makes markup. */
void svg_escape(FILE *f, const char *s);

#endif /* SMEMLAB_REPORT_SVG_H */
