/*
 * sum_explain.h - what a wrong reduction did with its input, in words (labs 7
 * and 8): each element counted k times, elements missing or counted twice (which
 * ones, in which block), one lane's value taken for the warp's, a value that is no
 * element at all. problems/reduce.c finds the facts by running the kernel again on
 * inputs that are 0 but for one element (a probe), and on all zeros; this file
 * only words them, so that every class is unit-tested from its counts
 * (tests/unit/test_reduce.c) and held to a planted kernel that makes it
 * (tests/emulator/check-hints.py).
 *
 * May include: base/.
 */
#ifndef SMEMLAB_SUM_EXPLAIN_H
#define SMEMLAB_SUM_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

typedef struct sum_counts {
    long n;      /* the call's elements, in[0 .. n) */
    long per;    /* elements a block of the exercise's partition covers (DIM x per thread) */
    long probed; /* in[0 .. probed) have counts (probed == n: all of them) */
    const int32_t *count; /* probed of them: times the element is in the partial sums' total */
    const unsigned char *adders; /* and how many blocks' partial sums it changed (NULL: not
                                    known) */
    int32_t junk;     /* the partial sums' total with every element 0 */
    long junk_block;  /* a block whose partial sum was not 0 then, or -1 */
    int32_t junk_value; /* and that partial sum */
    /* the counts and the junk give back the wrong run's total: what the kernel adds is a
       fixed count of each element (else it depends on the values, or on the run: a race) */
    int consistent;
    int in_place; /* the tree runs in the input itself (lab 7's step 1: there is no tile) */
    int no_shared; /* the kernel declares no shared memory: no level of a tile to blame */
    /* the kernel's shuffles in a direction a sum over a warp has no use for: up (a lane
       below delta gets its own value back) and idx (one lane's value to every lane),
       each with the student's line ("lab8.cu:121"), NULL where it has none */
    const char *shfl_up, *shfl_idx;
    const char *at; /* the size probed where it is not the one that failed ("n = 256, a
                       whole block"), said first; NULL: the failing size */
} sum_counts;

/* The hint for the wrong sum into hint (size bytes): 1, or 0 where nothing was probed
   (the caller keeps its own words on the partial sums). */
int sum_explain(const sum_counts *s, char *hint, size_t size);

/* The elements of in[0 .. m) whose flag is set, in the array's words: "in[32]",
   "in[32 .. 63]", "in[64k + 32 .. 64k + 63] (32 of every 64)", up to three ranges
   then ", ..."; with the block of the partition (per elements a block) where they
   all lie in one ("of block 0"). Returns how many are set. */
long sum_elements_text(const unsigned char *flag, long m, long per, char *buf, size_t size);

#endif /* SMEMLAB_SUM_EXPLAIN_H */
