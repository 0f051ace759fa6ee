#!/usr/bin/env python3
"""compare-kepler.py CORPUS_TSV JSON_DIR BANK_BYTES - the truth corpus graded as the course's
Tesla K40 (smemlab-grade --gpu kepler; docs/emulator.md#kepler) against Kepler's banks as
the CUDA Programming Guide defines them for compute capability 3.x, worked out here from
each kernel's patterns (gen-corpus.py's grammar) and nothing of the grader's.

Kepler's 32 banks serve a row of 8 bytes each a wavefront. In the 8-byte mode (BANK_BYTES
8, a launch's mode unless its launcher asks for another) successive 8-byte words go to
successive banks; in the 4-byte mode (BANK_BYTES 4, a launcher that calls
cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeFourByte)) successive 4-byte words do,
and words i and i + 32 of a 64-word segment share a bank's row. Lanes that touch one row
of a bank share its wavefront (a broadcast); different rows of one bank take one each. A
warp is served in phases of 256 bytes' worth of lanes, and a load of 8 or 16 bytes a
lane whose lanes pair up (lanes 0 and 1 on one address and 2 and 3 on another, or 0 and
2 and 1 and 3, in every group of four) in phases twice as wide: the rule Nsight Compute
showed on an H100 (tests/truth/h100-ncu.tsv), which the grader's model keeps for every GPU.

Fails unless every kernel is correct and its stores' and loads' requests and wavefronts
equal this model's.
"""
import collections, glob, importlib.util, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("gen_corpus", os.path.join(here, "gen-corpus.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

BANKS, ROW_BYTES, LANES = 32, 8, 32


def pairs_up(addr):
    """Every group of four lanes reads at most two addresses, paired (0,1)(2,3) or
    (0,2)(1,3); a lane that sits out (None) pairs with anything."""
    same = lambda x, y: addr[x] is None or addr[y] is None or addr[x] == addr[y]
    return all((same(q, q + 1) and same(q + 2, q + 3)) or (same(q, q + 2) and same(q + 1, q + 3))
               for q in range(0, LANES, 4))


def warp_cost(addr, width, load, bank_bytes):
    """(wavefronts, ideal) of one warp's request; addr[lane]: its byte address or None."""
    per_pass = max(1, min(LANES, BANKS * ROW_BYTES // width))
    phase = per_pass * 2 if load and width >= 8 and per_pass < LANES and pairs_up(addr) else per_pass
    phase = min(phase, LANES)
    waves = 0
    for first in range(0, LANES, phase):
        rows = collections.defaultdict(set)
        for lane in range(first, first + phase):
            if addr[lane] is None:
                continue
            word0 = addr[lane] // bank_bytes
            for s in range(max(1, width // bank_bytes)):
                byte = (word0 + s) * bank_bytes
                rows[(byte // bank_bytes) % BANKS].add(byte // (BANKS * ROW_BYTES))
        waves += max((len(r) for r in rows.values()), default=0)
    ideal = sum(1 for first in range(0, LANES, per_pass)
                if any(a is not None for a in addr[first:first + per_pass]))
    return waves, ideal


def side_cost(pattern, width, load, bank_bytes):
    """(requests, wavefronts) of the block's warps for one pattern."""
    requests = waves = 0
    for warp in range(gen.THREADS // LANES):
        addr = [gen.index_of(pattern, t) * width if gen.lane_active(pattern, t) else None
                for t in range(warp * LANES, (warp + 1) * LANES)]
        if all(a is None for a in addr):
            continue
        w, _ = warp_cost(addr, width, load, bank_bytes)
        requests += 1
        waves += w
    return requests, waves


def main():
    corpus, folder, bank_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rows = [l.rstrip("\n").split("\t") for l in open(corpus) if l.startswith("k")]
    checks = {}
    for path in sorted(glob.glob(os.path.join(folder, "part-*.json"))):
        lab = json.load(open(path))["labs"][0]
        if lab.get("not_graded"):
            sys.exit("compare-kepler: %s was not graded: %s" % (path, lab["not_graded"]))
        if (lab.get("graded_as") or {}).get("gpu") != "kepler":
            sys.exit("compare-kepler: %s was not graded as the K40 (--gpu kepler)" % path)
        for c in lab["checks"]:
            checks[(c["kernel"], c["check"])] = c
    problems, equal, conflicts = [], 0, 0
    for name, ty, width, store, load, _ in rows:
        width = int(width)
        want = side_cost(store, width, 0, bank_bytes) + side_cost(load, width, 1, bank_bytes)
        correct = checks.get((name, "correct"))
        got = [(checks.get((name, c)) or {}).get("counts") for c in ("store-conflicts", "load-conflicts")]
        if not correct or correct["status"] != "pass":
            problems.append("%s: correct %s" % (name, correct and correct["message"]))
            continue
        if not all(got):
            problems.append("%s: no counts" % name)
            continue
        have = (got[0]["requests"], got[0]["wavefronts"], got[1]["requests"], got[1]["wavefronts"])
        if have == want:
            equal += 1
            conflicts += have[1] > have[0] or have[3] > have[2]
        else:
            problems.append("%s (%s, store %s, load %s): grader st %d/%d ld %d/%d; Kepler's banks "
                            "st %d/%d ld %d/%d" % (name, ty, store, load, have[1], have[0], have[3],
                                                   have[2], want[1], want[0], want[3], want[2]))
    for p in problems[:30]:
        print("  FAIL  " + p)
    if len(problems) > 30:
        print("  ... and %d more" % (len(problems) - 30))
    print("kepler truth (%d-byte banks): requests and wavefronts equal to Kepler's banks in %d/%d "
          "kernels (%d with a conflict)" % (bank_bytes, equal, len(rows), conflicts))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
