/* contract.c - a lab library against its lab's contract; see contract.h. */
#include "contract.h"

#include "../../common/smemlab.h"

#include <stdio.h>

int contract_check(const lab_image *img, const lab_def *lab, char *why, size_t n)
{
    int version;
    if (lab_image_int(img, "smemlab_contract_version", &version) != 0) {
        snprintf(why, n, "%s was not built by the kit's Makefile (common/support.cu "
                 "is missing from it)", img->path);
        return -1;
    }
    if (version != SMEMLAB_CONTRACT_VERSION) {
        snprintf(why, n, "%s follows contract version %d, this grader version %d: rebuild "
                 "with this kit", img->path, version, SMEMLAB_CONTRACT_VERSION);
        return -1;
    }
    for (int i = 0; i < LAB_MAX_PARAMS && lab->params[i].name; i++) {
        const lab_param *p = &lab->params[i];
        char symbol[96];
        int value;
        snprintf(symbol, sizeof symbol, "smemlab_param_%s", p->name);
        if (lab_image_int(img, symbol, &value) != 0) {
            snprintf(why, n, "%s does not export %s: keep SMEMLAB_PARAM(%s, %s) from the "
                     "skeleton of %s", img->path, p->name, p->name, p->name, lab->source);
            return -1;
        }
        if (value != p->value) {
            snprintf(why, n, "%s sets %s to %d, but the contract fixes it at %d (the grader's "
                     "sizes and limits depend on it): set it back in %s", img->path, p->name,
                     value, p->value, lab->source);
            return -1;
        }
    }
    return 0;
}
