#!/usr/bin/env python3
"""compare-global.py GLOBAL.tsv BACKEND=DIR... (--ncu CSV... | --fixture TSV)
[--write-fixture TSV] - the global-access corpus (tests/truth/gen-global.py) as
each backend measured it, against Nsight Compute: for every kernel, the global
load and store requests (warp-level instructions) and the 32-byte sectors they
touched must be ncu's (l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}), and
the requests the L1 saw (l1tex__t_requests_...) the instructions'; every
backend's ideal the trace's (the hardware counts none), every output
fingerprint the GPU's. Exit 1 on any difference."""
import argparse, collections, csv, json, re, sys

FIELDS = ("ld_req", "ld_sectors", "st_req", "st_sectors")
L1 = ("ld_l1req", "st_l1req")  # ncu alone: the L1's requests, held to ld_req / st_req
IDEALS = ("ld_ideal", "st_ideal")
NCU = {
    "ld_req": "smsp__inst_executed_op_global_ld_pred_on_any.sum",
    "st_req": "smsp__inst_executed_op_global_st_pred_on_any.sum",
    "ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "ld_l1req": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "st_l1req": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
}
COUNTS = re.compile(r"gl (\d+) gst (\d+) shfl \S+ gls (\d+)/(\d+) gss (\d+)/(\d+)")


def read_ncu(path):
    """{kernel: {field: value}} from `ncu --csv` (the kernel's name up to '(')."""
    lines = open(path).read().splitlines()
    first = next(i for i, l in enumerate(lines) if l.startswith('"ID",'))
    rows = list(csv.reader(l for l in lines[first:] if not l.startswith("==")))
    head = rows[0]
    ki, mi, vi = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
    raw = collections.defaultdict(dict)
    for r in rows[1:]:
        if len(r) == len(head):
            raw[r[ki].split("(")[0]][r[mi]] = float(r[vi].replace(",", ""))
    return {k: {f: int(m.get(NCU[f], 0)) for f in FIELDS + L1} for k, m in raw.items()}


def read_backend(folder, parts):
    """{kernel: (fingerprint, {field: value} or None, status)} of one backend's JSON."""
    got = {}
    for part in parts:
        lab = json.load(open("%s/%s.json" % (folder, part)))["labs"][0]
        by = collections.defaultdict(dict)
        for c in lab["checks"]:
            by[c["kernel"]][c["check"]] = c
        for kernel, checks in by.items():
            corr, counts = checks.get("correct", {}), checks.get("counts", {})
            fp = re.search(r"fingerprint ([0-9a-f]{16})", corr.get("message", ""))
            m = COUNTS.search(counts.get("measured", ""))
            vals = None
            if m:
                g = list(map(int, m.groups()))
                vals = {"ld_req": g[0], "st_req": g[1], "ld_sectors": g[2], "ld_ideal": g[3],
                        "st_sectors": g[4], "st_ideal": g[5]}
            got[kernel] = (fp.group(1) if fp else None, vals,
                           counts.get("status", "absent") + ": " + counts.get("message", ""))
    return got


def main():
    if sys.argv[1:] == ["--metrics"]:  # what ncu must read, for check-truth.sh
        print(",".join(sorted(NCU.values())))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("backends", nargs="+")
    ap.add_argument("--ncu", action="append", default=[])
    ap.add_argument("--fixture")
    ap.add_argument("--write-fixture")
    a = ap.parse_args()
    rows = [l.split("\t")[:2] for l in open(a.corpus).read().splitlines() if l.strip()]
    parts = sorted({r[0] for r in rows})
    truth, prints = {}, {}
    if a.fixture:
        for l in open(a.fixture):
            if l.startswith("#") or l.startswith("name\t"):
                continue
            f = l.rstrip("\n").split("\t")
            prints[f[0]] = f[1]
            # '-': not recorded (the L1's requests of a fixture the counters backend read)
            truth[f[0]] = {k: int(v) for k, v in zip(FIELDS + L1 + IDEALS, f[2:]) if v != "-"}
    passes = [read_ncu(p) for p in a.ncu]
    backends = {spec.split("=", 1)[0]: read_backend(spec.split("=", 1)[1], parts)
                for spec in a.backends}
    bad = 0
    out = []
    for part, kernel in rows:
        if passes:
            seen = [p[kernel] for p in passes if kernel in p]
            if not seen:
                print("FAIL  %s: ncu measured nothing" % kernel)
                bad += 1
                continue
            if any(s != seen[0] for s in seen):
                print("note  %s: the hardware differed between passes: %s" % (kernel, seen))
            truth[kernel] = dict(seen[0])
            gpu = backends.get("trace", {}).get(kernel)
            prints[kernel] = gpu[0] if gpu else prints.get(kernel)
            if gpu and gpu[1]:
                truth[kernel].update({f: gpu[1][f] for f in IDEALS})
        want = truth.get(kernel)
        if want:
            for side in ("ld", "st"):  # the L1's requests are the instructions'
                if side + "_l1req" in want and want[side + "_l1req"] != want[side + "_req"]:
                    bad += 1
                    print("FAIL  %s: ncu's %s requests %d, its instructions %d" %
                          (kernel, side, want[side + "_l1req"], want[side + "_req"]))
        for b, got in backends.items():
            fp, counts, status = got.get(kernel, (None, None, "absent"))
            problems = []
            if prints.get(kernel) and fp != prints[kernel]:
                problems.append("output fingerprint %s, the GPU's %s" % (fp, prints[kernel]))
            if counts is None:
                problems.append("not measured (%s)" % status)
            elif want:
                problems += ["%s %d, ncu %d" % (f, counts[f], want[f])
                             for f in FIELDS if counts[f] != want[f]]
                problems += ["%s %d, the trace's %d" % (f, counts[f], want[f])
                             for f in IDEALS if f in want and counts[f] and counts[f] != want[f]]
            for what in problems:
                bad += 1
                print("FAIL  %s %s: %s" % (kernel, b, what))
        if want:
            out.append("%s\t%s\t%s" % (kernel, prints.get(kernel) or "-",
                                       "\t".join(str(want.get(f, 0)) for f in FIELDS + L1 + IDEALS)))
    if a.write_fixture:
        with open(a.write_fixture, "w") as f:
            f.write("# the global-access corpus (tests/truth/gen-global.py) as Nsight Compute "
                    "measured it; ideal: the trace's; fingerprint: the GPU's output\n")
            f.write("name\tfingerprint\t%s\n" % "\t".join(FIELDS + L1 + IDEALS))
            f.write("\n".join(out) + "\n")
    print("global: %d kernels, %d backends: %s" % (len(rows), len(backends),
          "%d differences" % bad if bad else "every count equal"))
    sys.exit(1 if bad else 0)


main()
