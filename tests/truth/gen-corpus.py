#!/usr/bin/env python3
"""gen-corpus.py --seed N --count N OUT_DIR - a corpus of small shared-memory
kernels, one access pattern each, for checking the grader's numbers against
the hardware's (make check-truth-gpu) and the emulator's (make check-truth).

Every kernel runs one block of BX x BY threads over a __shared__ array of one
element type T (1, 2, 4, 8 or 16 bytes; scalar or vector):

    buf[S(t)] = value<T>(S(t));   __syncthreads();   out[t] = fold(buf[L(t)]);

S and L are index patterns of the linear thread id t (corpus.tsv names them
in the grammar grader/model/pattern.h parses). A value depends only on the
element's index, so a store pattern that sends several lanes to one element
(a broadcast, a multicast) still writes one well-defined value, and every L
reads only elements S wrote: the output is the same on every run and device.

--types T,...: only the kernels of these element types.
--kepler-four-byte: every launcher first asks for Kepler's 4-byte banks
(cudaDeviceSetSharedMemConfig; a no-op on today's GPUs): the corpus the emulator
grades as the course's K40 in that mode (tests/truth/compare-kepler.py).

Writes OUT_DIR/part-NN.cu (kernels and launchers launch_<name>(int *out), 56
a file: the grader reads at most 64 kernels from one library), part-NN.tsv
(name, type, width, store pattern, load pattern, elements) for each, and
corpus.tsv with every row. The same seed gives the same files byte for byte.
"""
import argparse, random, sys, zlib

BX, BY = 32, 4
THREADS = BX * BY
MAX_BYTES = 32 * 1024

# C type, bytes, vector components, component C type
TYPES = {
    "char": (1, 1, "unsigned char"), "short": (2, 1, "unsigned short"),
    "int": (4, 1, "int"), "float": (4, 1, "float"),
    "longlong": (8, 1, "long long"), "double": (8, 1, "double"),
    "int2": (8, 2, "int"), "float2": (8, 2, "float"),
    "int4": (16, 4, "int"), "float4": (16, 4, "float"), "longlong2": (16, 2, "long long"),
}
CTYPE = {"char": "unsigned char", "short": "unsigned short", "longlong": "long long"}

def lane_active(pattern, t):
    """PATTERN@MASK: only the lanes whose bit is set in MASK (hex) take part."""
    return "@" not in pattern or int(pattern.split("@")[1], 16) >> (t % 32) & 1

def index_of(pattern, t):
    """Element index of thread t under a pattern (the grammar of pattern.h)."""
    pattern = pattern.split("@")[0]
    kind, *a = pattern.split(":")
    a = list(map(int, a[0].split(","))) if kind == "tab" else list(map(int, a))
    tx, ty = t % BX, t // BX
    if kind == "lin":           # lin:OFFSET:STRIDE:GROUP -> OFFSET + STRIDE * (t / GROUP)
        return a[0] + a[1] * (t // a[2])
    if kind == "row":           # row:PITCH -> ty * PITCH + tx
        return ty * a[0] + tx
    if kind == "col":           # col:PITCH -> tx * PITCH + ty
        return tx * a[0] + ty
    if kind == "xor":           # xor:MASK -> (t ^ MASK)  (a permutation of the block)
        return t ^ a[0]
    if kind == "swz":           # swz:PITCH -> tx * PITCH + (ty ^ tx)  (a column read, swizzled)
        return tx * a[0] + (ty ^ (tx % BY))
    if kind == "aff":           # aff:A:B:M -> (A * t + B) % M  (A odd, M = threads: a permutation)
        return (a[0] * t + a[1]) % a[2]
    if kind == "hsh":           # hsh:SALT:M -> a scrambled gather with repeats, below M
        return ((t * 2654435761 + a[0]) % (1 << 32) >> 7) % a[1]
    if kind == "tab":           # tab:E0,...,E31 -> lane t % 32 takes element E[lane] (every warp)
        return a[t % 32]
    raise ValueError(pattern)

def c_active(pattern):
    return "(0x%su >> (t %% 32u) & 1u)" % pattern.split("@")[1] if "@" in pattern else None

def c_index(pattern):
    pattern = pattern.split("@")[0]
    kind, *a = pattern.split(":")
    if kind == "lin":
        return "%su * (t / %su) + %su" % (a[1], a[2], a[0])
    if kind == "row":
        return "threadIdx.y * %su + threadIdx.x" % a[0]
    if kind == "col":
        return "threadIdx.x * %su + threadIdx.y" % a[0]
    if kind == "xor":
        return "t ^ %su" % a[0]
    if kind == "swz":
        return "threadIdx.x * %su + (threadIdx.y ^ (threadIdx.x %% %du))" % (a[0], BY)
    if kind == "aff":
        return "(%su * t + %su) %% %su" % (a[0], a[1], a[2])
    if kind == "hsh":
        return "((t * 2654435761u + %su) >> 7) %% %su" % (a[0], a[1])
    if kind == "tab":  # a table in constant memory: its reads are not shared accesses
        return "lanes_%s[t %% 32u]" % table_name(pattern)
    raise ValueError(pattern)

def table_name(pattern):
    return "%08x" % (zlib.crc32(pattern.encode()) & 0xffffffff)

def elements(store, load):
    return 1 + max(index_of(p, t) for t in range(THREADS) for p in (store, load))

def fits(ty, store, load):
    return elements(store, load) * TYPES[ty][0] <= MAX_BYTES

def covered(store, load):
    written = {index_of(store, t) for t in range(THREADS) if lane_active(store, t)}
    return all(index_of(load, t) in written for t in range(THREADS) if lane_active(load, t))

def core_patterns():
    """Every width meets these: the labs' shapes and the classic cases."""
    pats = ["lin:0:1:1", "lin:0:0:1", "lin:3:0:1", "lin:0:2:1", "lin:1:2:1", "lin:0:3:1",
            "lin:0:4:1", "lin:0:8:1", "lin:0:16:1", "lin:0:32:1", "lin:0:33:1", "lin:0:1:2",
            "lin:0:1:4", "lin:0:1:8", "lin:0:1:16", "lin:5:1:1", "xor:1", "xor:31"]
    pats += ["row:%d" % (BX + p) for p in range(4)] + ["col:%d" % (BX + p) for p in range(4)]
    pats += ["swz:%d" % BX]
    return pats

def lane_tables():
    """Lanes chosen to tell apart how the hardware splits wide loads into
    phases and when it serves two phases in one wavefront: equal, disjoint,
    overlapping and nested address sets in the two halves (8-byte lanes) or
    the quarters (16-byte lanes) of a warp, uniform and not."""
    half = lambda a, b: "tab:" + ",".join(map(str, list(a) + list(b)))
    q = lambda *qs: "tab:" + ",".join(str(e) for part in qs for e in part)
    pairs = [k // 2 for k in range(16)]                # 8 elements, each twice
    tabs8 = [half(pairs, pairs), half(pairs, pairs[::-1]), half(pairs, [8 + e for e in pairs]),
             half(pairs, [4 + e for e in pairs]), half([k // 4 for k in range(16)], pairs),
             half([0] * 16, range(1, 17)), half([0] * 16, [1] * 16), half([0] * 16, [0, 1] * 8),
             half([0, 1] * 8, [1, 0] * 8), half(range(16), [16] * 16), half(range(16), [0] * 16),
             half(range(16), range(16)), half(range(16), range(15, -1, -1)),
             half([3] * 15 + [4], [3] * 16), half(range(0, 32, 2), range(1, 32, 2))]
    four = [k // 2 for k in range(8)]                  # 4 elements, each twice
    tabs16 = [q(four, four, four, four), q(four, [4 + e for e in four], four, [4 + e for e in four]),
              q([0] * 8, [0] * 8, [1] * 8, [1] * 8), q([0, 1] * 4, [1, 2] * 4, [5] * 8, [6] * 8),
              q(range(8), range(8), range(8), range(8)), q(four, four, [4 + e for e in four], [4 + e for e in four]),
              q([0] * 8, [1] * 8, [0] * 8, [1] * 8), q(range(8), [8] * 8, range(9, 17), [0] * 8),
              q([k % 4 for k in range(8)], [4 + k % 4 for k in range(8)], [8 + k % 2 for k in range(8)], [10] * 8)]
    # Quads of lanes sharing addresses in every arrangement: lane l with l^1,
    # l^2, l^3, or not at all in one quad; and pairs whose conflicts fall in
    # one half of the warp only (one phase of 32 lanes, or two of 16?).
    quad = lambda *shape: [2 * (l // 4) + shape[l % 4] for l in range(32)]
    odd_quad = quad(0, 0, 1, 1)[:20] + [10, 11, 12, 13] + quad(0, 0, 1, 1)[24:]
    lopsided = [k // 2 for k in range(16)] + [16 * (k // 2) for k in range(16)]
    tabs = [quad(0, 1, 1, 0), quad(0, 0, 1, 1), quad(0, 1, 0, 1), quad(0, 0, 0, 1), quad(1, 0, 0, 0),
            odd_quad, lopsided]
    tabs8 += ["tab:" + ",".join(map(str, t)) for t in tabs]
    tabs16 += ["tab:" + ",".join(map(str, t)) for t in tabs]
    return tabs8, tabs16

def random_pattern(rng):
    k = rng.choice(["lin", "lin", "row", "col", "xor", "aff", "aff", "hsh", "hsh"])
    if k == "aff":
        return "aff:%d:%d:%d" % (rng.randrange(1, 256, 2), rng.randrange(THREADS),
                                 rng.choice([THREADS, THREADS, 64, 48, 32, 16]))
    if k == "hsh":
        return "hsh:%d:%d" % (rng.randrange(1 << 32), rng.choice([THREADS, 96, 64, 40, 32, 16, 8]))
    if k == "lin":
        return "lin:%d:%d:%d" % (rng.choice([0, 1, 2, 3, 5, 7, 8, 13]),
                                rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 64, 65]),
                                rng.choice([1, 1, 1, 2, 3, 4, 8, 16, 32]))
    if k in ("row", "col"):
        return "%s:%d" % (k, BX + rng.choice([0, 1, 2, 3, 4, 8, 16]))
    return "xor:%d" % rng.randrange(1, THREADS)

def corpus(seed, count):
    rng = random.Random(seed)
    rows, seen = [], set()
    def add(ty, store, load):
        if (ty, store, load) in seen or not fits(ty, store, load) or not covered(store, load):
            return
        seen.add((ty, store, load))
        rows.append((ty, store, load))
    for ty in TYPES:                      # same pattern both ways: verdicts must agree
        for p in core_patterns():
            add(ty, p, p)
    tabs8, tabs16 = lane_tables()         # wide loads: which phases share a wavefront
    for ty in TYPES:
        for p in tabs8 + tabs16:
            add(ty, "lin:0:1:1", p)
    masks = ["0000ffff", "ffff0000", "55555555", "0000000f", "80000001", "00ff00ff", "0f0f0f0f"]
    for ty in TYPES:                      # warps with lanes that sit out
        for m in masks:
            for p in ("lin:0:1:1", "lin:0:0:1", "lin:0:1:2", "col:33", "lin:0:2:1"):
                add(ty, "%s@%s" % (p, m), "%s@%s" % (p, m))
    for ty in TYPES:                      # the labs' transposes: row store, column load
        for pad in range(4):
            add(ty, "row:%d" % (BX + pad), "col:%d" % (BX + pad))
    while len(rows) < count:
        ty = rng.choice(sorted(TYPES))
        p = random_pattern(rng)
        if rng.random() < 0.7:
            add(ty, p, p)
        else:
            add(ty, "lin:0:1:1", p)  # a bijective store, then any gather of it
    return rows

def value_fn(ty):
    width, comps, ct = TYPES[ty]
    base = CTYPE.get(ty, ty)
    parts = ["(%s)((e * %du + %du) & 0x%x)" % (ct, 2654435761 % (1 << 31) + 2 * i, 17 + i,
                                                (1 << min(8 * width // comps, 23)) - 1)
             for i in range(comps)]
    if comps == 1:
        return "__device__ %s value_%s(unsigned e) { return %s; }\n" % (base, ty, parts[0])
    return "__device__ %s value_%s(unsigned e) { return make_%s(%s); }\n" % (
        base, ty, ty, ", ".join(parts))

def fold_fn(ty):
    width, comps, ct = TYPES[ty]
    base = CTYPE.get(ty, ty)
    # Every byte loaded is used, so that the compiler cannot narrow the load.
    whole = "(int)(%s ^ (%s >> 32))" if ct == "long long" else "(int)%s%.0s"
    if comps == 1:
        return "__device__ int fold_%s(%s v) { return %s; }\n" % (ty, base, whole % ("v", "v"))
    names = "xyzw"[:comps]
    return "__device__ int fold_%s(%s v) { return %s; }\n" % (
        ty, base, " + ".join((whole % ("v." + c, "v." + c)) + " * %d" % (i + 1)
                             for i, c in enumerate(names)))

PART = 56  # kernels per library: the grader reads at most 64 kernels from one

def write_part(path, rows, first, seed, total, four_byte=False):
    with open(path, "w") as f:
        f.write("// Generated by tests/truth/gen-corpus.py --seed %d (%d kernels in all): do not edit.\n"
                % (seed, total))
        f.write('#include "smemlab.h"\n\n')
        if four_byte:  # Kepler's setting, deprecated since CUDA 12
            f.write('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n\n')
        for ty in sorted({ty for ty, _, _ in rows}):
            f.write(value_fn(ty))
            f.write(fold_fn(ty))
        f.write("\n")
        tables = sorted({p for _, s, l in rows for p in (s, l) if p.startswith("tab:")})
        for p in tables:
            f.write("__constant__ unsigned lanes_%s[32] = {%s};\n" % (table_name(p), p[4:]))
        f.write("\n")
        for i, (ty, store, load) in enumerate(rows, first):
            name = "k%03d" % i
            n = elements(store, load)
            base = CTYPE.get(ty, ty)
            f.write("// %s: %s, store %s, load %s\n" % (name, ty, store, load))
            f.write("__global__ void %s(int *out)\n{\n" % name)
            f.write("    __shared__ __align__(16) %s buf[%d];\n" % (base, n))
            f.write("    unsigned t = threadIdx.y * %du + threadIdx.x;\n" % BX)
            f.write("    unsigned s = %s;\n" % c_index(store))
            if c_active(store):
                f.write("    if %s\n    " % c_active(store))
            f.write("    buf[s] = value_%s(s);\n" % ty)
            f.write("    __syncthreads();\n")
            if c_active(load):
                f.write("    out[t] = %s ? fold_%s(buf[%s]) : -1;\n}\n" % (c_active(load), ty, c_index(load)))
            else:
                f.write("    out[t] = fold_%s(buf[%s]);\n}\n" % (ty, c_index(load)))
            ask = "cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeFourByte); " if four_byte else ""
            f.write("SMEMLAB_LAUNCHER void launch_%s(int *out) { %s%s<<<1, dim3(%d, %d)>>>(out); }\n\n"
                    % (name, ask, name, BX, BY))

def write_tsv(path, rows, first, seed, total):
    with open(path, "w") as f:
        f.write("# gen-corpus.py --seed %d (%d kernels in all); block %dx%d\n" % (seed, total, BX, BY))
        f.write("name\ttype\twidth\tstore\tload\telements\n")
        for i, (ty, store, load) in enumerate(rows, first):
            f.write("k%03d\t%s\t%d\t%s\t%s\t%d\n" % (i, ty, TYPES[ty][0], store, load,
                                                         elements(store, load)))

def write(out_dir, rows, seed, four_byte=False):
    """OUT_DIR/corpus.tsv (every kernel), and part-NN.cu / part-NN.tsv of PART kernels each."""
    write_tsv(out_dir + "/corpus.tsv", rows, 0, seed, len(rows))
    for part, first in enumerate(range(0, len(rows), PART)):
        chunk = rows[first:first + PART]
        write_part("%s/part-%02d.cu" % (out_dir, part), chunk, first, seed, len(rows), four_byte)
        write_tsv("%s/part-%02d.tsv" % (out_dir, part), chunk, first, seed, len(rows))

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--kepler-four-byte", action="store_true")
    ap.add_argument("--types", help="only these element types (comma-separated)")
    ap.add_argument("out_dir")
    a = ap.parse_args()
    rows = corpus(a.seed, a.count)
    if a.types:
        unknown = set(a.types.split(",")) - set(TYPES)
        if unknown:
            ap.error("--types: no type %s (the types: %s)" % (", ".join(sorted(unknown)), ", ".join(TYPES)))
        rows = [r for r in rows if r[0] in a.types.split(",")]
    write(a.out_dir, rows, a.seed, a.kepler_four_byte)
    print("gen-corpus: %d kernels (seed %d) in %s" % (len(rows), a.seed, a.out_dir))

if __name__ == "__main__":
    sys.exit(main())
