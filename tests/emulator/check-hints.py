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
# A first launch given too few bytes beside a right second one: its own memory, named.
expect("lab2-first-launch-unsized", "setRowReadColDyn", "correct", "hint",
       has=("Each launch has only its own shared memory (launch 1 gives 0 bytes)",))
bdimx, bdimy = define("lab4-first-launch-short", "BDIMX"), define("lab4-first-launch-short", "BDIMY")
expect("lab4-first-launch-short", "setRowReadColDynPad", "correct", "hint",
       has=(f"Each launch has only its own shared memory (launch 1 gives {bdimx * bdimy * 4} bytes)",))
expect("lab2-no-dynamic-size", "setRowReadColDyn", "correct", "hint",
       lacks=("Each launch has only its own",))
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
# The flow run (problems/flow.c): a tree for show beside a sum made in other shared words
# names the tree's line, whose values reach nothing, and the line whose values do.
name = "lab7-tree-for-show-shfl"
tree = line_of(name, "smem[tid] += smem[tid + stride]; /* PLANTED")
sums = line_of(name, "x = tid < DIM / 32 ? warp_sums[tid] : 0;")
expect(name, "reduceSmem", "smem-conflicts", "message",
       has=(f"the values {name}.cu:{tree} reads from shared memory never reach partial",
            f"({name}.cu:{sums}'s do)"))
expect(name, "reduceSmem", "smem-conflicts", "hint",
       has=(f"every value read from shared memory at {name}.cu:{tree} changed",
            "that line's work is thrown away", "Store the tree's last sum"))
# A tile tested, not read: the elements that changed are those whose value came out below 0.
expect("lab2-tile-for-show", "setRowReadColDyn", "load-requests", "hint",
       has=("compared out with the plain run's bit for bit", "of the 1024 elements of out "
            "came out the same", "Write out[idx] with the value your load reads back"))

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
# Probed on a whole block (UNROLL x DIM elements; n = 33 says too little): the elements
# that reach tile words 32 .. 63 after the barriers' levels, 32 of every 64.
per = define("lab7-last-warp-twice", "UNROLL") * define("lab7-last-warp-twice", "DIM")
expect("lab7-last-warp-twice", "reduceSmemUnroll", "correct", "hint",
       has=(f"At n = {per}, a whole block", "Your sum counts in[64k + 32 .. 64k + 63] for every "
            "k (32 of every 64 elements) twice, every other element once",
            "smem[tid + 32] added once too often"), lacks=STOCK + ("missing", "misses"))
# Only block 0 writes its partial sum: the first block that wrote nothing is named.
expect("lab7-first-block-only", "reduceSmem", "correct", "hint",
       has=("1 of your 2 blocks wrote no partial sum (partial[1] still holds",), lacks=STOCK)
# Step 3's blocks start DIM apart where each covers UNROLL x DIM: at n = UNROLL x DIM + 1
# (two blocks) block 1 reads in[DIM .. UNROLL x DIM) again, each also in block 0's sum.
dim = define("lab7-unroll-block-offset", "DIM")
per = dim * define("lab7-unroll-block-offset", "UNROLL")
expect("lab7-unroll-block-offset", "reduceSmemUnroll", "correct", "hint",
       has=(f"Your sum counts in[{dim} .. {per - 1}] of block 0 twice, each in the partial "
            "sums of two blocks or more", f"start at in[b * {per}]"),
       lacks=STOCK + ("smem[tid + 32]",))
# Each level adds lane 0's value (a broadcast): one lane's value everywhere, the shuffle
# named with its line, probed on a whole block.
# Half the warp skips the exchange (a branch): the lanes that kept their values, and why.
expect("lab8-xor-half-branch", "shflXor", "correct", "hint",
       has=("Lanes 16 to 31 kept their own values", "did not take part in the __shfl_xor_sync",
            "Does a branch leave them out?"), lacks=("no exchange shows",))
idx = line_of("lab8-lane0-everywhere", "v += __shfl_sync(FULL_MASK, v, 0, WARP);")
expect("lab8-lane0-everywhere", "reduceShfl", "correct", "hint",
       has=(f"At n = {define('lab8-lane0-everywhere', 'DIM')}, a whole block",
            "is in your sum, 1024 times, and no other element",
            "one lane's value reaches every lane",
            f"your __shfl_sync at lab8-lane0-everywhere.cu:{idx}"),
       lacks=STOCK + ("counts every element",))
# Step 1 without its barrier: elements missing, the cause in its own terms (no tile).
expect("lab7-gmem-no-sync", "reduceGmem", "correct", "hint",
       has=("Your sum misses in[", "no __syncthreads() between the levels"),
       lacks=STOCK + ("tile",))
# No tile: the zeroing store races the warps' atomicAdds; in order the zeroing lands
# last (wrong), last to first first (right): a race in global memory, no tile blamed.
expect("lab8-atomic-zero-late", "reduceShfl", "correct", "hint",
       has=("several threads write one word of global memory in an order nothing fixes",
            "atomicAdd", "Last to first it came out right", "troubleshooting.md#order"),
       lacks=STOCK + ("tile",))
# __half tiles: every element within its limit, the whole not: the arithmetic, no index.
expect("lab5-half-tiles", "matmulTiled", "correct", "hint",
       has=("Every element is within its own limit", "narrower than float's", "__half"),
       lacks=("The tiles hold the wrong elements",))
# A column-major tile: the write is what conflicts; said as the step's write, not the kernel's.
expect("lab9-colmajor-tile", "transposeSmem", "smem-conflicts", "message",
       has=("where this step's warp writes along a row of the tile",),
       lacks=(": a warp writes a row of the tile",))
expect("lab9-colmajor-tile", "transposeSmem", "smem-conflicts", "hint",
       has=("down a column, or with a stride", "column-major"))
# The flow run judges a call's launches together: a do-nothing second launch neither hides
# the first's reads ("(it read none)") nor sets the perturbed runs' budget.
expect("lab1-for-show-two-launches", "setRowReadCol", "store-requests", "message",
       has=("for show: the values read back from the tile never reach out",),
       lacks=("(it read none)",))
# The flow run on another input: it names that input and the measured one, and a kernel
# that read none of the lesson's values there is told so in its own terms.
expect("lab5-tile-at-measured", "matmulTiled", "global-loads", "message",
       has=("for show at M=257 N=129 K=145", "your kernel read nothing from shared memory there"),
       lacks=("(it read none)",))
expect("lab5-tile-at-measured", "matmulTiled", "global-loads", "hint",
       has=("an input other than the measured one (M=128 N=128 K=128",))
expect("lab8-xor-self", "shflXor", "shuffle", "message",
       has=("moved no value from one lane to another", "shuffles from itself"))
# A partial output for show names where to look: a reduction's last, short block.
expect("lab7-last-block-loop", "reduceSmem", "smem-conflicts", "message",
       has=("(the first: partial[32])",))
# A wait on the tile's value that an honest run never enters: the run with the values
# changed cannot finish, and the tile's checks are not graded (never passed by default).
for check_id in ("store-requests", "load-requests", "store-conflicts", "load-conflicts"):
    expect("lab1-spin-for-show", "setRowReadCol", check_id, "message",
           has=("not graded: with every value read from shared memory changed, the run did "
                "not finish",))
# warp_sum with __shfl_up_sync: lane 0 adds its own value at every level, twice over
# (the warps' sums, then warp 0's): in[0] counted 32 x 32 times, the shuffle named.
up = line_of("lab8-up-in-reduce", "v += __shfl_up_sync(FULL_MASK, v, mask, WARP);")
dim8 = define("lab8-up-in-reduce", "DIM")
expect("lab8-up-in-reduce", "reduceShfl", "correct", "hint",
       has=(f"At n = {dim8}, a whole block", "counts in[0] 1024 times",
            f"and {dim8 - 1} of the others not at all",
            f"__shfl_up_sync (lab8-up-in-reduce.cu:{up})", "1024 = 2^10"),
       lacks=STOCK + ("width narrower",))
# Warp 0 reads warp_sums[lane] for every lane: past the array's DIM / WARP words, named
# with its line and how far (one fault wording, compare/fault.h).
ld = line_of("lab8-warp-sums-past", "v = warp_sums[lane];")
words = define("lab8-warp-sums-past", "DIM") // define("lab8-warp-sums-past", "WARP")
expect("lab8-warp-sums-past", "reduceShfl", "correct", "message",
       has=(f"lab8-warp-sums-past.cu:{ld}: a load reaches byte {4 * 32 - 1} of warp_sums "
            f"(a shared array of {4 * words} bytes), {4 * (32 - words)} bytes past its end",))
expect("lab8-warp-sums-past", "reduceShfl", "correct", "hint",
       has=("past the end of warp_sums",), lacks=STOCK)
# A global overrun into the guard zone (every backend): the faulting line first, its call after it, the
# argument and how far past its end, and the error named once.
ld = line_of("lab9-unroll-overread", "tile[row + BDIMX] = in[(size_t)iy * nx + ix + BDIMX];")
call = line_of("lab9-unroll-overread", "    transpose_unrolled(tile, in, out, nx, ny);")
bdimx = define("lab9-unroll-overread", "BDIMX")
expect("lab9-unroll-overread", "transposeSmemUnrollPad", "correct", "message",
       has=(f"out of bounds: lab9-unroll-overread.cu:{ld} (called from "
            f"lab9-unroll-overread.cu:{call}): a load by lane 0 of warp 0 of block 0 reaches "
            f"bytes {4 * bdimx} to {4 * bdimx + 3} of in (an argument of 4 bytes), {4 * bdimx} bytes "
            f"past its end",),
       lacks=("encountered: an illegal", "cudaErrorIllegalAddress"))
expect("lab9-unroll-overread", "transposeSmemUnrollPad", "correct", "hint",
       has=("past the end of in, which holds 4 bytes",), lacks=("matrix or image",))
# Lab 9's pad: the rows the kernel used against the file's IPAD, in the student's numbers.
expect("lab9-one-pad", "transposeSmemPad", "smem-conflicts", "hint",
       has=("Your kernel's tile rows are 33 words apart (BDIMX + 1), not BDIMX + IPAD = 34 "
            "(your file's IPAD = 2)", "bank (33 * icol + irow) % 32", "bank 2 * icol + irow"))
# A block narrower than a warp: its warps span tile rows (not "tx varying fastest").
expect("lab6-block-16x16", "conv2dTiled", "smem-conflicts", "hint",
       has=("A warp of your 16x16 block spans 2 rows of its threads", "Make the block 32 threads wide"),
       lacks=("tx varying fastest",))
# A misaligned wide access: the error a GPU gives, and the hint on alignment.
expect("lab5-float4-unaligned-rows", "matmulCoarse", "correct", "message",
       has=("misaligned address", "cudaErrorMisalignedAddress"), lacks=("cudaErrorIllegalAddress",))
expect("lab5-float4-unaligned-rows", "matmulCoarse", "correct", "hint",
       has=("needs an address that is a multiple of its size",))
# Outputs all 0 name the array the grader fills, not the halo (a mask of the kernel's own).
expect("lab6-mask-own-array", "conv1dTiled", "correct", "hint",
       has=(" 0, as a sum of products comes out whose factor is 0 everywhere",
            "multiply by c_mask1d, the __constant__ array"),
       lacks=("halo",))
# A tile written down its columns is named so, not as rows a word apart ("BDIMX + -31").
expect("lab9-pad-down-columns", "transposeSmemPad", "smem-conflicts", "hint",
       has=("Your kernel writes the tile down its columns (tile[threadIdx.x][threadIdx.y], "
            "rows of 17 words)", "reads the column at tile[icol][irow]"),
       lacks=("words apart", "+ -"))
# const-serialization names the line that reads constant memory (no trace shows one: the
# compiled code says where), so the text and the page point at it; so does memory-path
# where the read-only step read the __constant__ array instead (not the global loads).
# ... and memory-path's plain loads name the lines that read the coefficients, those alone,
# not the worst-coalesced load of the input (the walkthrough's Next: pointed at in[g]).
for name, kernel, check_id, text, want_op, alone in (
    ("lab10-rotated-taps", "stencil1DConst", "const-serialization", "* c_coef[j];", "cload", 0),
    ("lab10-table-to-smem", "lookupConst", "const-serialization", "s_table[k] = c_table[k];",
     "cload", 0),
    ("lab10-ro-from-const", "stencil1DReadOnly", "memory-path", "c[j] = c_coef[j];", "cload", 0),
    ("lab10-table-const", "lookupReadOnly", "memory-path", "return CONST ? c_table[k]", "cload", 0),
    ("lab10-ro-plain-load", "stencil1DReadOnly", "memory-path", "c[j] = coef[j];", "gload", 1),
):
    if ONLY and name not in ONLY:
        continue
    try:
        want = line_of(name, text)
        got = [(l["file"], l["line"], l["op"]) for l in check(name, kernel, check_id).get("lines", [])]
        assert got and all(op == want_op for _, _, op in got), f"lines {got}: not {want_op} alone"
        assert (f"{name}.cu", want, want_op) in got, f"lines {got}, not {name}.cu:{want}"
        assert not alone or len(got) == 1, f"lines {got}, not {name}.cu:{want} alone"
        passed += 1
        print(f"ok    hint {name}: {kernel} {check_id} names {name}.cu:{want}{' alone' if alone else ''}")
    except (AssertionError, OSError, KeyError) as e:
        failed += 1
        print(f"FAIL  hint {name}: {kernel} {check_id}: {e}")
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
# Half-warp shuffles in the reduction, probed on a whole block (n = 1 says too little):
# the lower half of each warp counted, the upper half not at all, from the planted width.
w = int(re.search(r"__shfl_xor_sync\(FULL_MASK, v, mask, (\d+)\)",
                  source("lab8-half-warp")).group(1))
expect("lab8-half-warp", "reduceShfl", "correct", "hint",
       has=(f"At n = {define('lab8-half-warp', 'DIM')}, a whole block",
            f"Only lanes 0 .. {w - 1} of each warp reach your sum", f"segments of {w} lanes"),
       lacks=("counts every element",) + STOCK)
# A warp's tree in shared memory: the requests a block, and its lines.
expect("lab8-smem-warp", "reduceShfl", "shuffle", "message",
       has=("shared requests a block where one word a warp needs at most 17",))
expect("lab8-smem-warp", "reduceShfl", "shuffle", "hint", has=("a tree in the tile",))
# A library that does the lesson: the message says what its code does, at the student's
# line; the hint what this lab lets the student write (lab 7's tree is not lab 8's shuffles).
at = line_of("lab7-cg-reduce", "int v = cg::reduce(warp")
expect("lab7-cg-reduce", "reduceSmem", "smem-conflicts", "message",
       has=("cooperative_groups::reduce (cooperative groups) adds a warp's values in registers",
            f"for your kernel (lab7-cg-reduce.cu:{at})"), lacks=("shared tile",))
expect("lab7-cg-reduce", "reduceSmem", "smem-conflicts", "hint",
       has=("Write the levels yourself in the tile",
            "a cooperative group's sync(): a helper, yours to use",
            "A tree shuffled in registers (lab 8's lesson) fails this check too",
            "your own shuffles for the last warp alone keep the points"),
       lacks=("shfl_xor and shfl_down",))
# A tile's sync() orders its own warps only: the race between two tiles says so.
expect("lab7-cg-tile-across", "reduceSmem", "race", "hint",
       has=("a tile's sync() waits for the warps of its own tile only",
            "the whole block must wait (__syncthreads()"))
# The hint's claim, held to a kernel: a tree whose levels a warp tile's shfl_xor adds.
expect("lab7-tile-shfl-levels", "reduceSmem", "smem-conflicts", "message",
       has=("the tree's levels did not run in shared memory",))
expect("lab8-cg-warp-reduce", "reduceShfl", "shuffle", "hint",
       has=("a warp tile's shfl_xor and shfl_down (cg::tiled_partition<32>): helpers, yours to use",),
       lacks=("fails this check",))
# Global atomics: the hint fits how many a block. Eight a block (a warp's lane 0 each,
# its words added in a loop): served one after another, and the expectation's last words
# within the field (it was cut at "an atomic cou"); the tree's floor names the side short.
expect("lab7-warp-loop-atomic", "reduceSmem", "global-traffic", "hint",
       has=("8.0 global atomics each beside their stores", "lane by lane and warp by warp",
            "Add the block's values in the tile"), lacks=("one warp's lanes serialised",))
expect("lab7-warp-loop-atomic", "reduceSmem", "global-traffic", "expected",
       has=("33 writes (a store or an atomic a block)",))
expect("lab7-warp-loop-atomic", "reduceSmem", "smem-conflicts", "hint",
       has=("Your blocks make fewer stores,", "a loop in one thread"),
       lacks=("make fewer loads",))
expect("lab7-tree-in-registers", "reduceSmem", "smem-conflicts", "hint",
       has=("Your blocks make fewer loads and stores,",))
# One atomic a block beside a store: the second write, not a sum to move into the tile.
expect("lab7-order-partial0", "reduceSmemUnroll", "global-traffic", "hint",
       has=("1.0 global atomics and 1.0 stores each", "with a store or with an atomic, not both"),
       lacks=("Add the block's values in the tile",))
# A warm-up launch doubles the counts, which no line shows: the hint says so.
expect("lab2-warm-up-launch", "setRowReadColDyn", "store-requests", "hint",
       has=("Your launcher makes 2 launches in one call", "Launch the kernel once"))
expect("lab1-hardcoded", "setRowReadRow", "store-requests", "hint",
       lacks=("launches in one call",))
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

# Every other hint of labs 7-10, held to the planted variant that triggers it: what it
# says, and (lacks) what it must not say there. Numbers come from the planted file.
RACE_SAID_ONCE = ("The race check below names the two lines and what to put between them",)
dim7 = define("lab7-block-128", "DIM")
for name, kernel, check_id, has, lacks in (
    ("lab7-block-128", "reduceSmem", "correct",
     ("The contract fixes DIM threads a block",), ()),
    ("lab7-empty-grid", "reduceGmem", "correct", ("With n = 0 there is nothing to add",), ()),
    ("lab7-gmem-tiled", "reduceGmem", "global-traffic", ("Yours makes fewer round trips",),
     ("Yours makes more",)),
    ("lab7-interleaved-tree", "reduceSmem", "smem-conflicts",
     ("With index = 2 * stride * tid", "Sequential addressing"), ()),
    ("lab7-memo", "reduceSmem", "correct", ("wrong on run 2, whose inputs were new",), ()),
    ("lab7-no-sync", "reduceSmem", "correct", RACE_SAID_ONCE, ("__syncthreads()",)),
    ("lab7-no-sync", "reduceSmem", "race",
     ("Another warp reads this word between the same two barriers",), ("__syncwarp",)),
    ("lab7-volatile-warp", "reduceSmemUnroll", "correct", RACE_SAID_ONCE, ("__syncwarp()",)),
    ("lab7-past-partial", "reduceSmemUnroll", "correct",
     ("Block b writes its sum to partial[blockIdx.x]",), ()),
    ("lab7-read-twice", "reduceSmem", "global-traffic",
     ("Your kernel reads its input", "times over"), ()),
    ("lab7-static-dyn", "reduceSmemUnrollDyn", "dynamic-tile",
     ("Step 4's tile is `extern __shared__ int smem[];`", f"{dim7 * 4} bytes"), ()),
    ("lab8-no-sync", "reduceShfl", "correct", RACE_SAID_ONCE, ("__syncthreads()",)),
    ("lab8-no-sync", "reduceShfl", "race",
     ("Another warp reads this word between the same two barriers",), ()),
    ("lab8-past-partial", "reduceShfl", "correct",
     ("Block b writes its sum to partial[blockIdx.x]",), ()),
    ("lab8-xor-via-smem", "shflXor", "shuffle",
     ("The lanes exchange values through their registers",), ()),
    ("lab9-chapter-guard", "transposeSmemUnrollPad", "correct",
     ("Guard each element's load and store on its own",), ()),
    ("lab9-load-global", "transposeSmem", "load-coalescing",
     ("its lanes should read neighbouring elements", "They took 4.0 times that"), ()),
    ("lab9-no-pad", "transposeSmemPad", "smem-conflicts",
     (f"Pad each tile row by IPAD = {define('lab9-no-pad', 'IPAD')} words",), ()),
    ("lab9-no-sync", "transposeSmem", "correct", RACE_SAID_ONCE, ("__syncthreads()",)),
    ("lab9-no-sync", "transposeSmem", "race",
     ("Another warp reads this word between the same two barriers",), ()),
    ("lab9-square-block", "transposeSmem", "correct",
     ("The contract fixes blocks of BDIMX x BDIMY = 32 x 16",), ()),
    ("lab9-static-dyn", "transposeSmemUnrollPadDyn", "dynamic-tile",
     ("This step's tile is `extern __shared__ float tile[];`",), ()),
    ("lab9-store-strided", "transposeSmem", "smem-conflicts",
     ("This step's tile is unpadded: tile[BDIMY][BDIMX]",), ("two elements",)),
    ("lab9-tile-row-read", "transposeSmem", "correct",
     ("wrong elements hold values no input makes", "no thread of the block wrote"),
     ("zeros stored",)),
    ("lab9-unroll-edge", "transposeSmemUnrollPad", "correct",
     ("Your one wrong element holds a value no input makes",), ("zeros stored",)),
    ("lab10-coef-global", "stencil1DConst", "global-loads", ("c_coef is not __constant__",), ()),
    ("lab10-coef-global", "stencil1DConst", "memory-path",
     ("Declare it `__constant__ float c_coef[...]`",), ()),
    ("lab10-coef-global", "stencil1DConst", "const-serialization",
     ("Read the coefficients from c_coef",), ()),
    ("lab10-halo-twice", "stencil1DConst", "global-loads",
     ("A tiled stencil reads each input element from global memory once per block",), ()),
    ("lab10-no-halo", "stencil1DConst", "correct",
     ("Your one wrong element holds a value no input makes", "the halo"), ("zeros stored",)),
    ("lab10-no-sync", "stencil1DConst", "race",
     ("Another warp reads this word between the same two barriers",), ()),
    ("lab10-no-tile", "stencil1DConst", "global-loads", ("load the tile and its halo",), ()),
    ("lab10-ro-from-const", "stencil1DReadOnly", "memory-path",
     ("This step reads the coefficients from the pointer",), ()),
    ("lab10-rotated-taps", "stencil1DConst", "smem-conflicts",
     ("Neighbouring threads should read neighbouring tile elements",), ()),
    ("lab10-table-const", "lookupReadOnly", "memory-path",
     ("This step reads the table from the pointer",), ()),
    ("lab10-table-const", "lookupReadOnly", "const-serialization",
     ("goes through the read-only cache (__ldg)",), ()),
):
    expect(name, kernel, check_id, "hint", has=has, lacks=lacks)

print(f"hints: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
