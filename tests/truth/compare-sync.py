#!/usr/bin/env python3
"""compare-sync.py VERDICTS.tsv EMULATOR.tsv CORPUS.tsv DIFFERENCES.tsv [--expected OTHER.tsv]

The emulator's verdicts on the synchronisation corpus (tests/truth/sync-emulate.c)
against NVIDIA's checkers' (VERDICTS.tsv: tests/truth/sync-verdicts.tsv, or what
make check-truth-gpu measured), kernel by kernel (docs/emulator.md#sync):

  sync    the rule: synccheck's verdict where it reports one (barrier, or invalid-args,
          a mask's), else the CUDA Programming Guide's (the corpus's guide column): for a
          member mask (synccheck and racecheck are silent on a full mask run by 8 lanes:
          the Guide says every lane it names must execute the primitive), and for a
          barrier that whole warps skip (synccheck reports only threads of one warp that
          diverge at a barrier, measured on an H200; the Guide's rule is the block's:
          a __syncthreads() under a condition that is not the same for the whole block);
  race    a race where racecheck reports a hazard (error or warning);
  bounds  a fault where memcheck reports an error.

A difference listed in DIFFERENCES.tsv (name, column, why) is printed and allowed;
any other fails (exit 1), as does a listed difference that is no longer one, as does a corpus kernel with no verdict, or a corpus of
fewer than 60 kernels. --expected OTHER.tsv: also print where VERDICTS.tsv (what
was measured) differs from OTHER.tsv (what was expected), for the one who records it.
"""
import sys


def table(path):
    rows = {}
    header = None
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if header is None:
            header = f
            continue
        rows[f[0]] = dict(zip(header, f))
    return rows


def rule_sync(v):
    if v["synccheck"] == "barrier":
        return "barrier"
    if v["synccheck"] == "invalid-args" or v["guide"] == "mask":
        return "mask"
    return "barrier" if v["guide"] == "barrier" else "-"


def main():
    args = sys.argv[1:]
    other = None
    if "--expected" in args:
        i = args.index("--expected")
        other = table(args[i + 1])
        del args[i:i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    verdicts, emu, corpus = table(args[0]), table(args[1]), table(args[2])
    allowed = {}
    for line in open(args[3]):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        allowed[(f[0], f[1])] = f[2]
    bad = same = listed = 0
    if len(corpus) < 60:
        print("FAIL  the corpus has %d kernels (at least 60)" % len(corpus))
        bad += 1
    for name in corpus:
        v, e = verdicts.get(name), emu.get(name)
        if v is None or e is None:
            print("FAIL  %s: no %s verdict" % (name, "recorded" if v is None else "emulator"))
            bad += 1
            continue
        want = {"sync": rule_sync(v),
                "race": "race" if v["racecheck"] in ("error", "warning") else "-",
                "bounds": "error" if v["memcheck"] == "error" else "-"}
        got = {"sync": e["sync"], "race": "race" if e["race"] in ("error", "warning") else "-",
               "bounds": e["bounds"]}
        for col in ("sync", "race", "bounds"):
            if want[col] == got[col]:
                same += 1
                if (name, col) in allowed:
                    print("FAIL  sync-differences.tsv lists %s %s, where the emulator and the "
                          "checkers agree (%s): remove the row" % (name, col, got[col]))
                    bad += 1
                continue
            why = allowed.get((name, col))
            text = "%s %s: the emulator says %s, the checkers %s" % (name, col, got[col], want[col])
            if why:
                listed += 1
                print("diff  %s (%s)" % (text, why))
            else:
                bad += 1
                print("FAIL  %s%s" % (text, " (%s)" % e["detail"] if e.get("detail") else ""))
    for (name, col), why in sorted(allowed.items()):
        if name not in corpus:
            print("FAIL  sync-differences.tsv names %s, which the corpus does not have" % name)
            bad += 1
    if other is not None:
        for name in corpus:
            a, b = verdicts.get(name), other.get(name)
            for col in ("synccheck", "racecheck", "memcheck"):
                if a and b and a[col] != b[col]:
                    print("note  %s %s: measured %s, expected %s" % (name, col, a[col], b[col]))
    print("sync corpus: %d kernels, %d verdicts equal, %d differences listed, %d not"
          % (len(corpus), same, listed, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
