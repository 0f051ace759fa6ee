/* launches.c - the recorder's findings, for a person; see launches.h. */
#include "launches.h"

#include "../base/exit_codes.h"
#include "../record/contract.h"
#include "../record/record_run.h"

#include <stdlib.h>

static void print_launch(FILE *out, const lab_image *img, const plan_launch *l)
{
    fprintf(out, "      %s<<<(%u,%u,%u), (%u,%u,%u), %u>>>", img->kernels[l->kernel].name,
            l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
            l->shared_bytes);
    if (l->max_dynamic_shared != REC_ATTR_UNSET)
        fprintf(out, "  [max dynamic shared %d]", l->max_dynamic_shared);
    if (l->smem_config != REC_ATTR_UNSET) /* Kepler's bank mode: recorded, a no-op since */
        fprintf(out, "  [shared bank size: %s]", l->smem_config == 2 ? "8 bytes"
                                                 : l->smem_config == 1 ? "4 bytes" : "default");
    fprintf(out, "\n");
}

int check_launches(const lab_def *lab, const grade_options *opt, FILE *out)
{
    static lab_image img;
    char why[1024];
    kernel_plan *plans = calloc((size_t)lab->n_kernels, sizeof *plans);
    capture *printed = calloc(1, sizeof *printed);
    int code = EXIT_ALL_PASSED;

    fprintf(out, "== %s: launches (recorded without a GPU) ==\n", lab->id);
    if (lab_image_open(opt->lib_path, &img, why, sizeof why) != 0 ||
        contract_check(&img, lab, why, sizeof why) != 0 ||
        record_lab(lab, &img, opt, plans, printed, why, sizeof why) != 0) {
        fprintf(out, "  not checked: %s\n", why);
        code = EXIT_ENVIRONMENT;
    } else {
        for (int k = 0; k < lab->n_kernels; k++) {
            const kernel_plan *p = &plans[k];
            const lab_kernel *kern = &lab->kernels[k];
            if (p->verdict == PLAN_OK) {
                fprintf(out, "  ok    %s: %d call%s, e.g. %s:\n", kern->launcher, p->n_calls,
                        p->n_calls == 1 ? "" : "s", p->specs[0].label);
                for (int i = 0; i < p->calls[0].n_launches; i++)
                    print_launch(out, &img, &p->calls[0].launches[i]);
            } else if (p->verdict == PLAN_MISSING && kern->optional) {
                fprintf(out, "  skip  %s: optional, not in your file\n", kern->launcher);
            } else {
                fprintf(out, "  FAIL  %s: %s\n", kern->launcher,
                        p->verdict == PLAN_MISSING ? "not found in your file" : p->why);
                code = EXIT_CHECK_FAILED;
            }
        }
        if (printed->total) {
            char *text = malloc(CAPTURE_HEAD + CAPTURE_TAIL + 128);
            capture_text(printed, text, CAPTURE_HEAD + CAPTURE_TAIL + 128);
            fprintf(out, "  -- your launchers printed --\n%s\n", text);
            free(text);
        }
    }
    lab_image_close(&img);
    free(plans);
    free(printed);
    return code;
}
