/*
 * test_flow.c - where a lesson's values must go (the lab tables' flow_spec, problems/flow.c;
 * docs/emulator.md#flow): every check that gives a lesson's points has its flow, in every
 * lab, naming checks the kernel has and an array its calls pass; and the rule that applies
 * a flow run's verdict fails the checks that passed, and no other.
 */
#include "labs/calls.h"
#include "labs/lab_table.h"
#include "problems/problem.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

/* The kernel's flow spec whose source is `source` and lists check id, or NULL. */
static const flow_spec *flow_of(const lab_kernel *k, flow_source source, check_id id)
{
    for (int i = 0; i < KERNEL_FLOWS; i++)
        for (int c = 0; k->flow[i].source == source && c < FLOW_MAX_CHECKS; c++)
            if (k->flow[i].checks[c] == id)
                return &k->flow[i];
    return NULL;
}

/* The source a check of kernel k of lab needs its lesson's values from (FLOW_NONE: the
   check gives no lesson's points): the tile's counts, the shuffle, the memory path. */
static flow_source source_wanted(const lab_def *lab, const lab_kernel *k, check_id id)
{
    if (k->points.of[id] <= 0)
        return FLOW_NONE;
    switch (id) {
    case CHK_STORE_REQUESTS: case CHK_LOAD_REQUESTS: case CHK_STORE_CONFLICTS:
    case CHK_LOAD_CONFLICTS:
        return lab->kind == PROBLEM_TILE ? FLOW_SHARED : FLOW_NONE;
    case CHK_SMEM_CONFLICTS: return FLOW_SHARED;
    case CHK_SHUFFLE: return FLOW_SHUFFLE;
    case CHK_MEMORY_PATH:
        return k->path == MEM_PATH_CONSTANT ? FLOW_CONSTANT : FLOW_READONLY;
    case CHK_CONST_SERIAL: /* a lookup's: its path's; the stencil's: the constant one */
        return k->path == MEM_PATH_READONLY ? FLOW_READONLY : FLOW_CONSTANT;
    default: return FLOW_NONE;
    }
}

/* Every lab's table: each check that gives a lesson's points has the flow of its source,
   and each flow names checks of its kernel, a share in (0, 1], its words, and (read-only)
   an array every call of the kernel passes. */
START_TEST(test_flows_are_checks)
{
    int flows = 0, needed = 0;
    for (int l = 0; l < lab_registry_count; l++) {
        const lab_def *lab = lab_registry[l];
        for (int i = 0; i < lab->n_kernels; i++) {
            const lab_kernel *k = &lab->kernels[i];
            for (int id = CHK_NONE + 1; id < CHECK_IDS; id++) {
                flow_source want = source_wanted(lab, k, (check_id)id);
                needed += want != FLOW_NONE;
                ck_assert_msg(want == FLOW_NONE || flow_of(k, want, (check_id)id),
                              "%s %s: %s gives a lesson's points and has no flow of its "
                              "source", lab->id, k->name, check_name((check_id)id));
            }
            for (int f = 0; f < KERNEL_FLOWS; f++) {
                const flow_spec *s = &k->flow[f];
                if (s->source == FLOW_NONE)
                    continue;
                flows++;
                ck_assert_msg(s->share > 0 && s->share <= 1 && s->values && s->values[0] &&
                                  s->fix && s->fix[0] && s->checks[0] != CHK_NONE,
                              "%s %s: flow %d lacks a share, words or a check", lab->id,
                              k->name, f);
                for (int c = 0; c < FLOW_MAX_CHECKS && s->checks[c] != CHK_NONE; c++)
                    ck_assert_msg(k->points.of[s->checks[c]] > 0, "%s %s: its flow lists %s, "
                                  "not one of its checks", lab->id, k->name,
                                  check_name(s->checks[c]));
                if (s->source != FLOW_READONLY)
                    continue;
                call_spec calls[CALL_MAX];
                int n = lab_calls(lab, k, calls), named = 0;
                for (int c = 0; c < n; c++)
                    for (int b = 0; b < calls[c].n_buffers; b++)
                        named += s->array && !strcmp(calls[c].buffer_name[b], s->array);
                ck_assert_msg(n > 0 && named == n, "%s %s: %d of its %d calls pass %s", lab->id,
                              k->name, named, n, s->array ? s->array : "(no array)");
            }
        }
    }
    /* labs 1-4's 13 tile kernels, 5's and 6's two, 7's four, 8's eight, 9's four, 10's six */
    ck_assert_int_eq(flows, 13 + 2 + 2 + 4 + 8 + 4 + 6);
    ck_assert_int_ge(needed, flows);
}
END_TEST

/* A kernel of lab's table by name. */
static const lab_kernel *kernel_named(const lab_def *lab, const char *name)
{
    for (int i = 0; i < lab->n_kernels; i++)
        if (!strcmp(lab->kernels[i].name, name))
            return &lab->kernels[i];
    ck_abort_msg("%s has no kernel %s", lab->id, name);
    return NULL;
}

/* A verdict that failed fails the checks of its spec that passed, in its words; a check
   that failed of its own, waits for another, or was not measured keeps what it says; a
   check of another spec, or of none, is left alone; a verdict that did not fail changes
   nothing. */
START_TEST(test_flow_rule)
{
    const lab_def *lab = lab_find("lab10");
    problem p;
    memset(&p, 0, sizeof p);
    p.k = kernel_named(lab, "stencil1DConst"); /* flow 0: the tile, 1: constant memory */
    const check_id ids[] = {CHK_CORRECT, CHK_SMEM_CONFLICTS, CHK_MEMORY_PATH, CHK_CONST_SERIAL,
                            CHK_GLOBAL_LOADS};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        check_init(&p.c[ids[i]], "lab10", "stencil1DConst", check_name(ids[i]), 1);
        check_set(&p.c[ids[i]], CHECK_PASS, "passed %d", (int)i);
        p.listed[ids[i]] = 1;
    }
    check_set(&p.c[CHK_CONST_SERIAL], CHECK_FAIL, "constant requests serialized");
    problem_flow_rule(&p); /* no verdict yet */
    ck_assert_int_eq(p.c[CHK_MEMORY_PATH].status, CHECK_PASS);
    p.flow[1].failed = 1;
    snprintf(p.flow[1].message, sizeof p.flow[1].message, "for show: the coefficients");
    snprintf(p.flow[1].hint, sizeof p.flow[1].hint, "made from them");
    snprintf(p.flow[1].measured, sizeof p.flow[1].measured, "0 of 9 changed");
    problem_flow_rule(&p);
    ck_assert_int_eq(p.c[CHK_MEMORY_PATH].status, CHECK_FAIL);
    ck_assert_str_eq(p.c[CHK_MEMORY_PATH].message, "for show: the coefficients");
    ck_assert_str_eq(p.c[CHK_MEMORY_PATH].hint, "made from them");
    ck_assert_str_eq(p.c[CHK_MEMORY_PATH].measured, "0 of 9 changed");
    ck_assert_double_eq(p.c[CHK_MEMORY_PATH].points, 0);
    ck_assert_str_eq(p.c[CHK_CONST_SERIAL].message, "constant requests serialized");
    ck_assert_int_eq(p.c[CHK_SMEM_CONFLICTS].status, CHECK_PASS); /* the tile's flow */
    ck_assert_int_eq(p.c[CHK_GLOBAL_LOADS].status, CHECK_PASS);   /* no flow */
    ck_assert_int_eq(p.c[CHK_CORRECT].status, CHECK_PASS);
    /* the tile's verdict: smem-conflicts, unless it waits or was not measured */
    p.flow[0] = p.flow[1];
    check_set(&p.c[CHK_SMEM_CONFLICTS], CHECK_NOT_MEASURED, "not measured: no trace");
    problem_flow_rule(&p);
    ck_assert_int_eq(p.c[CHK_SMEM_CONFLICTS].status, CHECK_NOT_MEASURED);
    check_set(&p.c[CHK_SMEM_CONFLICTS], CHECK_FAIL, "not counted: the measured run gave a "
              "wrong result");
    problem_flow_rule(&p);
    ck_assert_str_eq(p.c[CHK_SMEM_CONFLICTS].message, "not counted: the measured run gave a "
                     "wrong result");
}
END_TEST

Suite *flow_suite(void)
{
    Suite *s = suite_create("flow");
    TCase *tc = tcase_create("flow");
    tcase_add_test(tc, test_flows_are_checks);
    tcase_add_test(tc, test_flow_rule);
    suite_add_tcase(s, tc);
    return s;
}
