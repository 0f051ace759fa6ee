/*
 * emu_sass.h - the access widths the GPU executes (from the lab's SASS), installed in
 * an emulator module so that its records carry them (emu_sass.c).
 */
#ifndef SMEMLAB_EMU_SASS_H
#define SMEMLAB_EMU_SASS_H

#include "../../image/lab_image.h"
#include "../../ptx/emu.h"

#include <stddef.h>

/* Read img's newest cubin and fix m's accesses where ptxas narrowed or merged them.
   0 (note: what could not be followed, or "" when everything was), -1 out of memory. */
int emu_sass_fix(emu_module *m, const lab_image *img, char *note, size_t note_size);

#endif /* SMEMLAB_EMU_SASS_H */
