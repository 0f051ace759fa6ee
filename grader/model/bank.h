/*
 * bank.h - a model of how shared memory serves one warp-wide request.
 *
 * Shared memory is split into banks; each bank returns one word per cycle.
 * A warp's request is cut into phases of lanes, and each phase is served in
 * as many wavefronts as the most distinct words it needs from any one bank:
 * lanes that hit different words of the same bank wait for separate
 * wavefronts, lanes that read the same word share one (broadcast).
 *
 * A phase holds 128 bytes' worth of lanes (banks * row bytes / width): the
 * whole warp for 1-, 2- and 4-byte lanes, half of it for 8-byte lanes, a
 * quarter for 16-byte lanes (on Kepler's 8-byte rows, 256 bytes' worth). A load of 8 or 16 bytes a lane whose lanes pair
 * up is served in phases twice as wide: in every group of four lanes, lanes
 * 0 and 1 read one address and lanes 2 and 3 another, or lanes 0 and 2 one
 * and 1 and 3 another (a lane that sits out pairs with anything). Stores
 * never pair. That rule is what Nsight Compute measured on an H100 for the
 * 1093 kernels of tests/truth/h100-ncu.tsv; tests/unit/test_truth.c holds the
 * model to every one of them.
 *
 * Everything here is pure C: the grader evaluates it for the GPU it runs on,
 * the unit tests check it without a GPU, and the docs draw figures with it.
 */
#ifndef SMEMLAB_BANK_H
#define SMEMLAB_BANK_H

#include <stdint.h>

#define BANK_MAX_LANES 32

/*
 * Shape of shared memory on one device. Consecutive words of bank_bytes go to
 * consecutive banks; a bank gives one row of row_bytes a wavefront, and two
 * words of one bank conflict unless they lie in the same row. Since Maxwell a
 * row is one 4-byte word. Kepler's banks are 8 bytes wide in either of its
 * modes (the CUDA Programming Guide, compute capability 3.x): in the 8-byte
 * mode a row is one 8-byte word; in the 4-byte mode words i and i + 32 of a
 * 64-word (256-byte) segment share a row, and so a wavefront.
 */
typedef struct bank_geometry {
    int banks;      /* number of banks (32 on every GPU since Fermi) */
    int bank_bytes; /* width of one bank word in bytes */
    int warp_size;  /* lanes per warp */
    int row_bytes;  /* bytes a bank serves in one wavefront (0: bank_bytes) */
} bank_geometry;

/*
 * What kind of instruction the request is, where the hardware serves it other
 * than a plain load or store (Nsight Compute on an H100, tests/truth/idioms):
 *   BANK_ATOMIC   atomics that combine (add, min, max, and, or, xor):
 *                 as a store, lanes on one word share it
 *   BANK_EXCH     exch, inc and dec: lanes on one word take a wavefront each
 *   BANK_CAS      cas (and the compare-and-swap loops the compiler makes of
 *                 float and 64-bit atomics): as exch, twice over
 *   BANK_ASYNC    the shared side of cp.async (LDGSTS): the store's wavefronts,
 *                 at least one per 128-byte line its source touched; a 16-byte
 *                 copy whose lanes' shared and global layouts differ (skewed)
 *                 takes a wavefront per lane. Its ideal is the store's or the
 *                 source's lines, whichever is more: the lines of a source that
 *                 spans rows are no bank conflict of the tile.
 */
enum { BANK_PLAIN, BANK_ATOMIC, BANK_EXCH, BANK_CAS, BANK_ASYNC };

/* One warp-wide shared-memory instruction. */
typedef struct warp_access {
    uint32_t addr[BANK_MAX_LANES]; /* byte address each lane touches */
    uint32_t active;               /* bit i set: lane i takes part */
    int width;                     /* bytes per lane: 1, 2, 4, 8 or 16 */
    int load;                      /* 1: a load (its lanes may pair up), 0: a store */
    int kind;                      /* BANK_* (0: plain) */
    int lines;                     /* BANK_ASYNC: 128-byte lines of the global source */
    int skewed;                    /* BANK_ASYNC: shared and global layouts differ */
} warp_access;

/*
 * Geometry for a device of compute capability major.minor with the given warp
 * size. Kepler (3.x) has 8-byte rows and could run its banks 8 bytes wide
 * (kepler_eight_byte) or 4; every later architecture has 32 banks of 4
 * bytes. Returns 0, or -1 for an unknown architecture (major < 3).
 */
int bank_geometry_for(int major, int minor, int warp_size, int kepler_eight_byte,
                      bank_geometry *out);

/* Bank that holds byte address addr. */
int bank_of(const bank_geometry *g, uint32_t addr);

/* Bytes a bank serves in one wavefront (row_bytes, or bank_bytes where unset). */
int bank_row_bytes(const bank_geometry *g);

/* The row of its bank that byte address addr lies in, as one number for the whole
   shared memory: two accesses share a wavefront when their keys are equal. */
uint32_t bank_row_key(const bank_geometry *g, uint32_t addr);

/* Wavefronts needed to serve the request (0 when no lane is active). */
int bank_wavefronts(const bank_geometry *g, const warp_access *a);

/*
 * Wavefronts the request's bytes need with no bank conflict at all: one per
 * 128 bytes' worth of lanes (32, 16 or 8) with an active lane, loads and
 * stores alike. A paired load can take fewer (a broadcast: half), which the
 * grader reads as conflict-free; with this ideal, a load and a store of the
 * same pattern get the same verdict (all 756 such kernels of the corpus).
 */
int bank_ideal_wavefronts(const bank_geometry *g, const warp_access *a);

/* Lanes per phase of this request (32, 16 or 8 on 4-byte banks; see above). */
int bank_phase_lanes(const bank_geometry *g, const warp_access *a);

/*
 * Per lane, the wavefront (0-based) in which the lane is served: the figure
 * generator colours lanes with it. Inactive lanes get -1. Returns the total,
 * as bank_wavefronts does.
 */
int bank_lane_wavefronts(const bank_geometry *g, const warp_access *a,
                         int wavefront_of_lane[BANK_MAX_LANES]);

#endif /* SMEMLAB_BANK_H */
