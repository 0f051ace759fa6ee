#!/usr/bin/env python3
"""compare-idioms.py IDIOMS.tsv BACKEND=DIR... (--ncu CSV... | --fixture TSV)
[--differences TSV] [--write-fixture TSV] - the idiom corpus
(tests/truth/gen-idioms.py) as each backend measured it, against Nsight
Compute: for every kernel, shared requests and wavefronts of each side (loads
with ldmatrix, stores with stmatrix and cp.async's shared side, atomics),
global load requests (cp.async's included), global store requests and warp
shuffles must be ncu's, and every backend's output fingerprint the GPU's. A
backend that cannot count shuffles (the counters) says so ("shfl -"), which
is a difference where the hardware executed any. A kernel, backend and field named in
--differences (tests/truth/idiom-differences.tsv; the kernel a pattern: cp*)
may differ: it is printed with its reason. Exit 1 on any other difference."""
import argparse, collections, csv, fnmatch, json, re, sys

FIELDS = ("ld_req", "ld_waves", "st_req", "st_waves", "atom_req", "atom_waves", "gl", "gst",
          "shfl")
# The ideal wavefronts of each side, for the widths the GPU executed: the trace's
# (it sees the SASS), which the emulator must equal (ncu has no such counter).
IDEALS = ("ld_ideal", "st_ideal")
# Requests: instructions a lane at least executed (ptxas pads cp.async sequences with
# shared loads that never run, `@!PT LDS`, and loops with stores every lane skips).
NCU = {
    "ld_req": ("smsp__inst_executed_op_shared_ld_pred_on_any.sum",
               "smsp__inst_executed_op_ldsm_pred_on_any.sum"),
    "ld_waves": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",),
    "st_req": ("smsp__inst_executed_op_shared_st_pred_on_any.sum",
               "smsp__inst_executed_op_shared_stsm_pred_on_any.sum",
               "smsp__inst_executed_op_ldgsts_pred_on_any.sum"),
    "st_waves": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                 "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"),
    "atom_req": ("smsp__inst_executed_op_shared_atom_pred_on_any.sum",),
    "atom_waves": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",),
    "gl": ("smsp__inst_executed_op_global_ld_pred_on_any.sum",
           "smsp__inst_executed_op_ldgsts_pred_on_any.sum"),
    "gst": ("smsp__inst_executed_op_global_st_pred_on_any.sum",),
    # ncu counts shuffles by the thread (SASS patching: SHFL is the class's only
    # instruction these kernels execute); a warp's shuffle is 32 of them
    "shfl": ("smsp__sass_thread_inst_executed_op_inter_thread_communication_pred_on.sum",),
}
PER_THREAD = {"shfl": 32}
METRICS = sorted({m for ms in NCU.values() for m in ms})
COUNTS = re.compile(r"ld (\d+)/(\d+)/(\d+) st (\d+)/(\d+)/(\d+) atom (\d+)/(\d+) gl (\d+)"
                    r" gst (\d+) shfl (\d+|-)")
ORDER = ("ld_req", "ld_waves", "ld_ideal", "st_req", "st_waves", "st_ideal", "atom_req",
         "atom_waves", "gl", "gst", "shfl")


def read_ncu(path):
    """{kernel: {field: value}} from `ncu --csv` (the kernel's name up to '(')."""
    lines = open(path).read().splitlines()
    # what the kernels printed (printf) and ncu's own notes come before the table
    first = next(i for i, l in enumerate(lines) if l.startswith('"ID",'))
    rows = list(csv.reader(l for l in lines[first:] if not l.startswith("==")))
    head = rows[0]
    ki, mi, vi = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
    raw = collections.defaultdict(dict)
    for r in rows[1:]:
        if len(r) == len(head):
            raw[r[ki].split("(")[0]][r[mi]] = float(r[vi].replace(",", ""))
    return {k: {f: number(sum(m.get(x, 0) for x in NCU[f]) / PER_THREAD.get(f, 1))
                for f in FIELDS} for k, m in raw.items()}


def number(v):
    """An integer where the count is whole (a fraction is a partial warp's)."""
    return int(v) if float(v).is_integer() else round(float(v), 3)


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
            got[kernel] = (fp.group(1) if fp else None,
                           dict(zip(ORDER, (None if g == "-" else int(g) for g in m.groups())))
                           if m else None,
                           counts.get("status", "absent") + ": " + counts.get("message", ""))
    return got


def main():
    if sys.argv[1:] == ["--metrics"]: # what ncu must read, for check-truth.sh
        print(",".join(METRICS))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("idioms")
    ap.add_argument("backends", nargs="+")
    ap.add_argument("--ncu", action="append", default=[])
    ap.add_argument("--fixture")
    ap.add_argument("--differences")
    ap.add_argument("--write-fixture")
    a = ap.parse_args()
    rows = [l.split("\t")[:3] for l in open(a.idioms).read().splitlines() if l.strip()]
    parts = sorted({r[0] for r in rows})
    truth, prints = {}, {}
    if a.fixture:
        head = None
        for l in open(a.fixture):
            f = l.rstrip("\n").split("\t")
            if l.startswith("name\t"):
                head = f
            if l.startswith("#") or l.startswith("name\t"):
                continue
            prints[f[0]] = f[1]
            # by the header's names: a column the fixture lacks is not compared
            truth[f[0]] = {h: number(v) for h, v in zip(head[2:], f[2:])}
    passes = [read_ncu(p) for p in a.ncu]
    allowed = {}
    if a.differences:
        for l in open(a.differences):
            f = l.rstrip("\n").split("\t")
            if len(f) == 4 and not l.startswith("#"):
                allowed[(f[0], f[1], f[2])] = f[3]
    backends = {}
    for spec in a.backends:
        name, folder = spec.split("=", 1)
        backends[name] = read_backend(folder, parts)
    bad = documented = 0
    out = []
    for part, kernel, cls in rows:
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
        if a.fixture and not passes and not want:
            bad += 1
            print("FAIL  %s (%s): not in %s (make check-truth-gpu records it)" % (kernel, cls, a.fixture))
            continue
        for b, got in backends.items():
            fp, counts, status = got.get(kernel, (None, None, "absent"))
            problems = []
            if prints.get(kernel) and fp != prints[kernel]:
                problems.append(("output", "fingerprint %s, the GPU's %s" % (fp, prints[kernel])))
            if counts is None:
                problems.append(("counts", "not measured (%s)" % status))
            elif want:
                for f in FIELDS:
                    if f not in want:
                        continue
                    if counts[f] is None and want[f]:
                        problems.append((f, "not counted, ncu %s" % want[f]))
                    elif counts[f] is not None and counts[f] != want[f]:
                        problems.append((f, "%d, ncu %s" % (counts[f], want[f])))
                for f in IDEALS: # the counters know no ideal (0)
                    if f in want and counts[f] and counts[f] != want[f]:
                        problems.append((f, "%d, the trace's %d" % (counts[f], want[f])))
            for field, what in problems:
                why = next((r for (k, bb, ff), r in allowed.items()
                            if fnmatch.fnmatchcase(kernel, k) and bb == b and ff in (field, "*")), None)
                if why:
                    documented += 1
                    print("documented  %s %s %s: %s - %s" % (kernel, b, field, what, why))
                else:
                    bad += 1
                    print("FAIL  %s (%s) %s %s: %s" % (kernel, cls, b, field, what))
        if want:
            out.append("%s\t%s\t%s" % (kernel, prints.get(kernel) or "-",
                                       "\t".join(str(want.get(f, 0)) for f in FIELDS + IDEALS)))
    if a.write_fixture:
        with open(a.write_fixture, "w") as f:
            f.write("# the idiom corpus (tests/truth/gen-idioms.py) as Nsight Compute measured it;"
                    " fingerprint: the GPU's output\n")
            f.write("name\tfingerprint\t%s\n" % "\t".join(FIELDS + IDEALS))
            f.write("\n".join(out) + "\n")
    print("idioms: %d kernels, %d backends: %s%s" % (len(rows), len(backends),
          "%d differences" % bad if bad else "every count equal",
          ", %d documented" % documented if documented else ""))
    sys.exit(1 if bad else 0)


main()
