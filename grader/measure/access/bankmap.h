/*
 * bankmap.h - the student's own warp access drawn as text: which bank each
 * lane hits and in which wavefront it is served. The hint of a failing
 * conflict check shows it for the worst execution the trace saw; the docs'
 * figures show the intended pattern, this shows theirs.
 *
 *       lane   0  1  2  3  4 ...
 *       bank   0  0  0  0  0 ...
 *       wave   1  2  3  4  5 ...
 */
#ifndef SMEMLAB_BANKMAP_H
#define SMEMLAB_BANKMAP_H

#include "../../model/bank.h"

#include <stddef.h>

/*
 * Draw access a: a title line, then the lane, bank and wavefront rows, each
 * line starting with indent. A lane wider than a bank word shows its first
 * bank; inactive lanes show '-'. Returns buf (truncated to size, always
 * terminated).
 */
const char *bank_map_text(const bank_geometry *g, const warp_access *a, const char *title,
                          const char *indent, char *buf, size_t size);

#endif /* SMEMLAB_BANKMAP_H */
