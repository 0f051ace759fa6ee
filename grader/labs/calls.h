/*
 * calls.h - the calls the grader makes to a lab's launchers, as data.
 *
 * Each graded kernel is exercised through a fixed list of launcher calls (a
 * size, a mask width, ...). The recorder makes exactly these calls to learn
 * what the launcher launches; the measuring process replays call i when it
 * runs size i. Both sides build the list from the lab table with the same
 * function, so call i means the same thing to both.
 */
#ifndef SMEMLAB_CALLS_H
#define SMEMLAB_CALLS_H

#include "lab_table.h"

#include <stddef.h>

#define CALL_MAX_ARGS 6
#define CALL_MAX_BUFFERS 4
#define CALL_MAX 128 /* calls per kernel (lab 6 1-D: 15 lengths x 6 masks + 1) */

typedef struct call_arg {
    int buffer; /* >= 0: this argument is buffer `buffer`; -1: the integer `value` */
    int value;
} call_arg;

/* What a call is for (a bit each: lab 6's large input is for traffic and speed). */
#define CALL_CORRECT 1
#define CALL_TRAFFIC 2
#define CALL_SPEED 4
/* A call with nothing to do (a reduction of n = 0): its launcher may launch
   nothing, and a launch of 0 blocks is kept for the problem to fail by name. */
#define CALL_EMPTY 8
/* A correctness call whose grid has partial (edge) blocks and, where the kernel's
   blocks allow, more of them than the race window of a GPU's trace
   (TRACE_RACE_BLOCKS): the emulator measures it again, its races and bounds judged
   on every block (problems/problem.c, the edge run). One a kernel: the entry of
   its size list marked SIZE_EDGE (labs/sizes.h). */
#define CALL_EDGE 16

typedef struct call_spec {
    int n_args;
    call_arg args[CALL_MAX_ARGS];
    int n_buffers;
    size_t buffer_bytes[CALL_MAX_BUFFERS];
    /* each buffer as the launcher's contract names its argument ("in", "partial"): the
       allocation a fault message names. Held in the spec, not pointed to: a plan travels
       to a meter server as bytes. */
    char buffer_name[CALL_MAX_BUFFERS][16];
    /* bit b: buffer b is an input the kernel only reads (the contract gives it as const:
       the caller's data): a store or an atomic into it fails correct, whatever the output
       (problems/problem.c). Lab 7's step 1, whose tree runs in place, writes its in. */
    unsigned inputs;
    char label[128]; /* "M=67 N=53 K=97 (...)": for messages */
    int width, height, depth; /* the problem's sizes: M N K, or width height mask */
    int role;        /* CALL_* */
    int devices;     /* SIZE_GPU, SIZE_EMULATOR (labs/sizes.h): where it runs */
} call_spec;

/*
 * The calls of kernel k, in the order the measuring process uses them:
 * PROBLEM_REDUCE: reduce_calls (reduce_calls.c).
 * PROBLEM_TILE: one call (out). PROBLEM_MATMUL: every size of the list, then
 * the traffic size, the speed size and the emulator's traffic size.
 * PROBLEM_CONV: every size with every mask width the kernel takes, then the
 * large traffic-and-speed input and the emulator's traffic input. The
 * recorder records them all; a device runs those marked for it.
 * Returns how many (at most CALL_MAX).
 */
int lab_calls(const lab_def *lab, const lab_kernel *k, call_spec *out);

/* Labs 7 and 8's calls (reduce_calls.c): every size of the list, the traffic
   inputs and the speed input; a shuffle exercise's, one a value it takes. */
int reduce_calls(const lab_def *lab, const lab_kernel *k, call_spec *out);

/* Lab 9's calls (transpose_calls.c): every matrix of the list, the measured
   matrices (GPU, emulator) and the timed one. */
int transpose_calls(const lab_def *lab, const lab_kernel *k, call_spec *out);
/* Lab 10's calls (stencil_calls.c): every length of lab 6's 1-D list, the speed
   input and the traffic inputs. */
int stencil_calls(const lab_def *lab, const lab_kernel *k, call_spec *out);

/* Index of the first of n calls with a role in `role` that runs on the
   emulator (emulated) or the GPU, or -1. */
int calls_find(const call_spec *specs, int n, int role, int emulated);

/* Whether call c runs on the emulator (emulated) or the GPU. */
int call_runs_on(const call_spec *c, int emulated);

/* Buffer i of c is the launcher's argument `name` (at most 15 characters); call_name_input
   names it and marks it an input the kernel only reads (call_spec.inputs). */
void call_name_buffer(call_spec *c, int i, const char *name);
void call_name_input(call_spec *c, int i, const char *name);

#endif
