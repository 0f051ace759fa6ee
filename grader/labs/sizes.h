/*
 * sizes.h - the problem sizes of labs 5 and 6, as data (pure C11).
 *
 * The correctness lists aim at the places where tiled kernels break: one
 * element, one row or column, primes (no tile and no float4 divides them),
 * sizes just past a multiple of 16 or 128, and one large size where a race
 * between warps has time to show. The grader runs every entry; the unit tests
 * check these properties so that an edit cannot drop them by accident.
 */
#ifndef SMEMLAB_SIZES_H
#define SMEMLAB_SIZES_H

/* Where an entry runs: the emulator affords sizes up to a few hundred per
   dimension (docs/emulator.md); the GPU runs every entry but the emulator's own. */
#define SIZE_GPU 1
#define SIZE_EMULATOR 2
#define SIZE_BOTH (SIZE_GPU | SIZE_EMULATOR)
/* Beside where it runs, one entry of a list: its launch is measured again on the
   emulator, races and bounds judged on every block (calls.h, CALL_EDGE): ragged
   edges, and more blocks than a GPU trace's race window. */
#define SIZE_EDGE 4

typedef struct matmul_size {
    int M, N, K;     /* A is M x K, B is K x N */
    const char *why; /* what the entry is there to catch */
    int devices;     /* SIZE_* */
} matmul_size;

typedef struct image_size {
    int width, height;
    const char *why;
    int devices;
} image_size;

typedef struct signal_size {
    int n;
    int devices;
} signal_size;

/* Lab 5, correctness: every launcher on every entry. */
extern const matmul_size sizes_matmul[];
extern const int sizes_matmul_count;

/* Lab 5, global-load count (step 1 vs step 2): the TILE-fold drop is measured
   here, on a GPU and emulated. */
extern const matmul_size sizes_matmul_traffic;

/* Lab 5, speed check of step 3 against cuBLAS SGEMM. */
extern const matmul_size sizes_matmul_speed;

/* Lab 5, sizes the benchmark sweeps. */
extern const matmul_size sizes_matmul_bench[];
extern const int sizes_matmul_bench_count;

/* Lab 6, 1-D: every length with every mask width (the grader skips widths over MAX_MASK1D). */
extern const signal_size sizes_conv1d_n[];
extern const int sizes_conv1d_n_count;
extern const int sizes_conv1d_mask[];
extern const int sizes_conv1d_mask_count;

/* Lab 6, 2-D: every image with every mask width (skipping widths over MAX_MASK2D). */
extern const image_size sizes_conv2d[];
extern const int sizes_conv2d_count;
extern const int sizes_conv2d_mask[];
extern const int sizes_conv2d_mask_count;

/* Lab 6, global loads on the emulator (the GPU measures them on the speed input). */
extern const int sizes_conv1d_traffic_n;
extern const image_size sizes_conv2d_traffic;
extern const int sizes_conv1d_traffic_emulated_n;
extern const image_size sizes_conv2d_traffic_emulated;

/* Lab 6, speed: large enough to stream from DRAM rather than L2 (50 MB on an H100). */
extern const int sizes_conv1d_speed_n;
extern const int sizes_conv1d_speed_mask;
extern const image_size sizes_conv2d_speed;
extern const int sizes_conv2d_speed_mask;

/* 1 if n is prime (used by the unit tests and to label sizes). */
int sizes_is_prime(long n);

#endif /* SMEMLAB_SIZES_H */
