/*
 * contract.h - what a lab library promises before anything of it is run or
 * recorded: it was built by the kit (the contract version of
 * common/smemlab.h) and keeps the parameters its lab fixes (TILE,
 * MAX_MASK2D, ...), as the lab table (labs/) lists them.
 */
#ifndef SMEMLAB_CONTRACT_H
#define SMEMLAB_CONTRACT_H

#include "../image/lab_image.h"
#include "../labs/lab_table.h"

#include <stddef.h>

/* 0, or -1 with what to change. */
int contract_check(const lab_image *img, const lab_def *lab, char *why, size_t why_size);

#endif /* SMEMLAB_CONTRACT_H */
