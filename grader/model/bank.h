/*
 * bank.h - a model of how shared memory serves one warp-wide request.
 *
 * Shared memory is split into banks; each bank returns one word per cycle.
 * A request is served in wavefronts: lanes that hit different words of the
 * same bank must wait for separate wavefronts, lanes that read the same word
 * share one (broadcast). Accesses wider than a bank word are split into
 * phases of (banks * bank_bytes) / width lanes, each served on its own.
 *
 * Everything here is pure C: the grader evaluates it for the GPU it runs on,
 * the unit tests check it without a GPU, and the docs draw figures with it.
 */
#ifndef SMEMLAB_BANK_H
#define SMEMLAB_BANK_H

#include <stdint.h>

#define BANK_MAX_LANES 32

/* Shape of shared memory on one device. */
typedef struct bank_geometry {
    int banks;      /* number of banks (32 on every GPU since Fermi) */
    int bank_bytes; /* width of one bank word in bytes */
    int warp_size;  /* lanes per warp */
} bank_geometry;

/* One warp-wide shared-memory instruction. */
typedef struct warp_access {
    uint32_t addr[BANK_MAX_LANES]; /* byte address each lane touches */
    uint32_t active;               /* bit i set: lane i takes part */
    int width;                     /* bytes per lane: 1, 2, 4, 8 or 16 */
} warp_access;

/*
 * Geometry for a device of compute capability major.minor with the given warp
 * size. Kepler (3.x) could run its banks 8 bytes wide; every later
 * architecture has 32 banks of 4 bytes. Returns 0, or -1 for an unknown
 * architecture (major < 3).
 */
int bank_geometry_for(int major, int minor, int warp_size, int kepler_eight_byte,
                      bank_geometry *out);

/* Bank that holds byte address addr. */
int bank_of(const bank_geometry *g, uint32_t addr);

/* Wavefronts needed to serve the request (0 when no lane is active). */
int bank_wavefronts(const bank_geometry *g, const warp_access *a);

/* Wavefronts the request would need with no bank conflicts at all. */
int bank_ideal_wavefronts(const bank_geometry *g, const warp_access *a);

/*
 * Per lane, the wavefront (0-based) in which the lane is served: the figure
 * generator colours lanes with it. Inactive lanes get -1. Returns the total,
 * as bank_wavefronts does.
 */
int bank_lane_wavefronts(const bank_geometry *g, const warp_access *a,
                         int wavefront_of_lane[BANK_MAX_LANES]);

#endif /* SMEMLAB_BANK_H */
