#!/usr/bin/env python3
"""check-hints.py BUILD - every data-driven hint says what the planted kernel
that triggers it did, as its source shows: run by make check-emulated after
check-labs.sh graded the planted variants into BUILD/emulated/NAME.json.

Each expectation reads the numbers and lines it needs from the planted source
(build/planted/src/NAME.cu), so a hint that stopped looking at the kernel, or
a planted file that changed, fails here. CHECK_ONLY="NAME ..." (as
check-labs.sh takes it): the hints of those variants only."""
import json
import os
import re
import sys

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ONLY = os.environ.get("CHECK_ONLY", "").split()
passed = failed = 0


def source(name):
    with open(f"{BUILD}/planted/src/{name}.cu") as f:
        return f.read()


def define(name, macro):
    """The value of #define MACRO in the planted file."""
    m = re.search(r"^#define\s+%s\s+(\d+)" % macro, source(name), re.M)
    return int(m.group(1))


def line_of(name, text):
    """The line number of the one line of the planted file that holds text."""
    hits = [i + 1 for i, l in enumerate(source(name).splitlines()) if text in l]
    assert len(hits) == 1, f"{name}.cu: {len(hits)} lines hold {text!r}"
    return hits[0]


def check(name, kernel, check_id):
    with open(f"{BUILD}/emulated/{name}.json") as f:
        report = json.load(f)
    for c in report["labs"][0]["checks"]:
        if c["kernel"] == kernel and c["check"] == check_id:
            return c
    raise AssertionError(f"{name}: no {kernel} {check_id} in the report")


def expect(name, kernel, check_id, field, *, has=(), lacks=()):
    global passed, failed
    if ONLY and name not in ONLY:
        return
    try:
        text = check(name, kernel, check_id).get(field, "")  # an empty field is left out
        missing = [h for h in has if h not in text]
        present = [h for h in lacks if h in text]
        assert not missing and not present, (
            f"{field} {text!r}: " + (f"lacks {missing}" if missing else f"has {present}"))
        passed += 1
        print(f"ok    hint {name}: {kernel} {check_id} says {' / '.join(has)}")
    except (AssertionError, OSError, KeyError) as e:
        failed += 1
        print(f"FAIL  hint {name}: {kernel} {check_id}: {e}")


# Padding: the measured row length against the declared IPAD.
for name in ("lab3-pad-wrong-dim", "lab3-missing-pad"):
    bdimx, ipad = define(name, "BDIMX"), define(name, "IPAD")
    expect(name, "setRowReadColPad", "load-conflicts", "hint",
           has=(f"rows are {bdimx} words long", f"IPAD = {ipad}", "not in the row length"))
bdimx, ipad = define("lab4-one-pad", "BDIMX"), define("lab4-one-pad", "IPAD")
expect("lab4-one-pad", "setRowReadColPad", "load-conflicts", "hint",
       has=(f"rows are {bdimx + ipad} words long (BDIMX + IPAD, IPAD = {ipad})",),
       lacks=("not in the row length",))

# The dynamic tile: what the declarations and the launch were.
bdimx, bdimy = define("lab2-static-tile", "BDIMX"), define("lab2-static-tile", "BDIMY")
expect("lab2-static-tile", "setRowReadColDyn", "dynamic-tile", "hint",
       has=(f"declares {bdimx * bdimy * 4} bytes of shared memory with a fixed size",))
expect("lab2-no-dynamic-size", "setRowReadColDyn", "dynamic-tile", "hint",
       has=("already declared `extern __shared__`", "gives 0 bytes (no third launch argument)"),
       lacks=("declare it",))
bdimx, bdimy = define("lab3-dyn-size-unpadded", "BDIMX"), define("lab3-dyn-size-unpadded", "BDIMY")
expect("lab3-dyn-size-unpadded", "setRowReadColDynPad", "dynamic-tile", "hint",
       has=("already declared `extern __shared__`", f"gives {bdimx * bdimy * 4} bytes;"),
       lacks=("declare it",))

# A wrong result: where the wrong elements are and what they hold.
expect("lab1-transposed-read", "setRowReadRow", "correct", "hint", has=("transposed",))
bdimx, bdimy = define("lab1-half-store", "BDIMX"), define("lab1-half-store", "BDIMY")
expect("lab1-half-store", "setRowReadCol", "correct", "hint",
       has=(f"{bdimx * bdimy // 2} wrong elements hold the junk",))
expect("lab5-wrong-a-index", "matmulTiled", "correct", "hint",
       has=("wrong at 128x128x128 too", "not an edge case"), lacks=("bounds",))
expect("lab5-multiple-only", "matmulTiled", "correct", "hint",
       has=("right at 128x128x128", "bounds checks"))

# Races: one across two passes of a loop, named so, its lines those of the source.
load = line_of("lab5-no-second-sync", "acc += As[ty][k] * Bs[k][tx]")
store = line_of("lab5-no-second-sync", "Bs[ty][tx] =")
bar = line_of("lab5-no-second-sync", "__syncthreads(); /* the tile is complete")
assert store < bar < load
expect("lab5-no-second-sync", "matmulTiled", "race", "message",
       has=(f"lab5-no-second-sync.cu:{load} (load) in one pass of a loop and "
            f"lab5-no-second-sync.cu:{store} (store) in the next",),
       lacks=("no barrier between;",))
expect("lab5-no-second-sync", "matmulTiled", "race", "hint",
       has=(f"A fast warp finishes its pass at line {load}",
            f"after the last access of the tile (line {load})"))
expect("lab1-no-sync", "setRowReadCol", "race", "message", has=("(store) and",),
       lacks=("in one pass",))

# Labs 7 and 8: the hint says what the reduction or the shuffle did.
# The last lane-race: the volatile warp's store and the next level's load, by their lines.
st = line_of("lab7-volatile-warp", "vsmem[tid] += vsmem[tid + 2];")
ld = line_of("lab7-volatile-warp", "vsmem[tid] += vsmem[tid + 1];")
expect("lab7-volatile-warp", "reduceSmemUnroll", "race", "message",
       has=(f"lab7-volatile-warp.cu:{st} (store) and lab7-volatile-warp.cu:{ld} (load)",
            "no __syncwarp() between"))
expect("lab7-volatile-warp", "reduceSmemUnroll", "race", "hint",
       has=(f"(line {ld}) after lane", f"(line {st})", "A volatile pointer does not order them"))
# A wrong sum, classified from what the kernel did with each element (the grader runs
# it again on inputs 0 but for one element): none of the stock words where they do not
# describe the mistake.
STOCK = ("loses elements at the levels that halve an odd count",)
# A tree right only for powers of two: n = 33 loses its 33rd element, in[32].
expect("lab7-pow2-only", "reduceSmem", "correct", "hint",
       has=("Your sum misses in[32] of block 0", "holds 33 elements", "adds its first 32 only"))
# The last warp adds smem[tid + 32] twice: at n = 33, in[32] is counted twice.
src = source("lab7-last-warp-twice")
assert "smem[tid + 32] + smem[tid + 32]" in src
expect("lab7-last-warp-twice", "reduceSmemUnroll", "correct", "hint",
       has=("Your sum counts in[32] of block 0 twice, every other element once",
            "smem[tid + 32] added once too often"), lacks=STOCK + ("missing", "misses"))
# Step 1 without its barrier: elements missing, the cause in its own terms (no tile).
expect("lab7-gmem-no-sync", "reduceGmem", "correct", "hint",
       has=("Your sum misses in[", "no __syncthreads() between the levels"),
       lacks=STOCK + ("tile",))
# warp_sum with __shfl_up_sync: lane 0 adds its own value at every level, twice over
# (the warps' sums, then warp 0's): in[0] counted 32 x 32 times, the shuffle named.
up = line_of("lab8-up-in-reduce", "v += __shfl_up_sync(FULL_MASK, v, mask, WARP);")
expect("lab8-up-in-reduce", "reduceShfl", "correct", "hint",
       has=("counts in[0] 1024 times", f"__shfl_up_sync (lab8-up-in-reduce.cu:{up})",
            "1024 = 2^10"), lacks=STOCK + ("width narrower",))
# Warp 0 reads warp_sums[lane] for every lane: past the array's DIM / WARP words, named
# with its line and how far (one fault wording, compare/fault.h).
ld = line_of("lab8-warp-sums-past", "v = warp_sums[lane];")
words = define("lab8-warp-sums-past", "DIM") // define("lab8-warp-sums-past", "WARP")
expect("lab8-warp-sums-past", "reduceShfl", "correct", "message",
       has=(f"lab8-warp-sums-past.cu:{ld}: a load reaches byte {4 * 32} of warp_sums "
            f"(a shared array of {4 * words} bytes), {4 * (32 - words)} bytes past its end",))
expect("lab8-warp-sums-past", "reduceShfl", "correct", "hint",
       has=("past the end of warp_sums",), lacks=STOCK)
# A global overrun by emulation: the faulting line first, its call after it, the
# argument and how far past its end, and the error named once.
ld = line_of("lab9-unroll-overread", "tile[row + BDIMX] = in[(size_t)iy * nx + ix + BDIMX];")
call = line_of("lab9-unroll-overread", "    transpose_unrolled(tile, in, out, nx, ny);")
bdimx = define("lab9-unroll-overread", "BDIMX")
expect("lab9-unroll-overread", "transposeSmemUnrollPad", "correct", "message",
       has=(f"an illegal memory access at lab9-unroll-overread.cu:{ld} (called from "
            f"lab9-unroll-overread.cu:{call}): a load by lane 0 of warp 0 of block 0 reaches "
            f"byte {4 * bdimx + 4} of in (an argument of 4 bytes), {4 * bdimx} bytes past its end",),
       lacks=("encountered: an illegal", "cudaErrorIllegalAddress"))
expect("lab9-unroll-overread", "transposeSmemUnrollPad", "correct", "hint",
       has=("past the end of in, which holds 4 bytes",), lacks=("matrix or image",))
# The width of the planted shuffle, read from its source.
width = int(re.search(r"__shfl_sync\(FULL_MASK, value, srcLane, (\d+)\)",
                      source("lab8-width16")).group(1))
expect("lab8-width16", "shflBroadcast", "correct", "hint",
       has=(f"segments of {width} lanes", f"as with a width of {width}"))
# A shuffle exercise gone the wrong way: the shuffle that gives what the lanes got, named,
# and the exercise's; an exchange that never reached out, said so.
expect("lab8-up-as-down", "shflUp", "correct", "hint",
       has=("(at delta = 1; 32 values wrong): that is what __shfl_down_sync gives",
            "This exercise is __shfl_up_sync"), lacks=("__shfl_xor_sync", "(with 1;"))
expect("lab8-xor-to-partner", "shflXor", "correct", "hint",
       has=("holds that lane's own value", "no exchange shows in out"),
       lacks=("__shfl_up_sync", "__shfl_down_sync"))
# A divergent tree fails for its requests: its busiest line first, no bank drawing.
level = line_of("lab7-divergent-tree", "if (tid % (2 * stride) == 0)") + 1
expect("lab7-divergent-tree", "reduceSmem", "smem-conflicts", "bank_map", lacks=("bank",))
if not ONLY or "lab7-divergent-tree" in ONLY:
    try:
        lines = check("lab7-divergent-tree", "reduceSmem", "smem-conflicts")["lines"]
        assert lines and lines[0]["line"] == level, f"first line {lines[0] if lines else None}, not {level}"
        passed += 1
        print(f"ok    hint lab7-divergent-tree: the busiest line ({level}) first")
    except (AssertionError, OSError, KeyError) as e:
        failed += 1
        print(f"FAIL  hint lab7-divergent-tree: {e}")
# Half-warp shuffles in the reduction: every element counted more than once.
expect("lab8-half-warp", "reduceShfl", "correct", "hint", has=("counts every element",))
# A warp's tree in shared memory: the requests a block, and its lines.
expect("lab8-smem-warp", "reduceShfl", "shuffle", "message",
       has=("shared requests a block where one word a warp needs at most 17",))
expect("lab8-smem-warp", "reduceShfl", "shuffle", "hint", has=("a tree in the tile",))
# Partial sums written back into the input: the stores a block.
expect("lab7-partials-global", "reduceSmemUnroll", "global-traffic", "hint",
       has=("Your blocks store", "back into the input"))

# Lab 9: the strided store named by its line, and its warp drawn over the sectors.
st = line_of("lab9-store-strided", "out[(size_t)ix * ny + iy] = tile[threadIdx.y][threadIdx.x];")
expect("lab9-store-strided", "transposeSmem", "store-coalescing", "bank_map",
       has=(f"your worst global store (lab9-store-strided.cu:{st})", "32 sectors, ideal 4",
            "sector  1  2  3  4  5"))
expect("lab9-store-strided", "transposeSmem", "store-coalescing", "hint",
       has=("4.00 sectors a request for yours. They took 8.0 times that",))

# Lab 10: lanes that each start at their own tap read every coefficient at once: the
# serialization measured is the stencil's taps (2 RADIUS + 1, from the planted file).
taps = 2 * define("lab10-rotated-taps", "RADIUS") + 1
if not ONLY or "lab10-rotated-taps" in ONLY:
    try:
        msg = check("lab10-rotated-taps", "stencil1DConst", "const-serialization")["message"]
        got = float(re.search(r"serialized: ([\d.]+) distinct addresses", msg).group(1))
        assert abs(got - taps) <= 0.05 * taps, f"{got} distinct addresses, the file has {taps} taps"
        passed += 1
        print(f"ok    hint lab10-rotated-taps: {got} distinct addresses a request for {taps} taps")
    except (AssertionError, AttributeError, OSError, KeyError) as e:
        failed += 1
        print(f"FAIL  hint lab10-rotated-taps: {e}")
# Blocks whose threads do not divide TILE: the outputs left to no thread, from the launch.
threads = define("lab10-threads-768", "CONST_THREADS")
tile = define("lab10-threads-768", "TILE")
expect("lab10-threads-768", "stencil1DConst", "correct", "hint",
       has=(f"Your blocks have {threads} threads", f"does not divide TILE = {tile}",
            f"the last TILE % THREADS = {tile % threads} of every block's {tile}"),
       lacks=("the tile starts RADIUS",))
# One key broadcast to the warp at a time: one address a request, against the keys' model.
expect("lab10-lookup-by-lane", "lookupConst", "const-serialization", "message",
       has=("1.0 distinct constant addresses a warp request (the keys make 3",))
# Plain loads of the coefficients where the read-only path was asked: every one counted.
expect("lab10-ro-plain-load", "stencil1DReadOnly", "memory-path", "hint",
       has=("__ldg(&p[i])", "const float *__restrict__"))

print(f"hints: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
