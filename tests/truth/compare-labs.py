#!/usr/bin/env python3
"""compare-labs.py - labs 7 and 8 as the trace graded them, against Nsight
Compute on the same launches (tests/truth/check-labs.sh, make check-truth-gpu).

  compare-labs.py --calls JSON          truth-run's rows for a graded library:
                                        "call KERNEL N" for each kernel the
                                        grade measured (N: its measured size)
  compare-labs.py NCU.csv BACKEND=DIR... [--differences TSV] [--write-fixture TSV]
                 [--card NAME]
                                        for every DIR/NAME.json (a grade by
                                        that backend) and DIR/NAME.tsv (its
                                        calls), in the order truth-run made
                                        them (the backends as given, the names
                                        sorted), each count the grade reports
                                        must be ncu's: global load and store
                                        instructions, shared requests a block
                                        (loads and stores) and shuffles. A row
                                        of --differences (NAME pattern, kernel,
                                        backend, field, reason) may differ: any
                                        amount, or where the field reads gl+N,
                                        by the hardware counting at most N more
                                        than the grade. Exit 1 on any other
                                        difference. --card: the GPU's name, said
                                        beside each difference and in the fixture.
"""
import argparse, collections, csv, fnmatch, glob, json, os, re, sys

GLOBAL = re.compile(r"(\d+) global load and (\d+) store instructions \((\d+) blocks, n = (\d+)\)")
TREE = re.compile(r"; ([\d.]+) shared requests a block")
SHFL = re.compile(r"^(\d+) shuffles; ([\d.]+) shared requests( a block)?")
FIXTURE = ("gl", "gst", "sld", "sst", "satom", "shfl")
EXERCISE_ARG = 5  # an exercise's lane, delta or mask: its counts depend on no value
NCU = {
    "gl": "smsp__inst_executed_op_global_ld_pred_on_any.sum",
    "gst": "smsp__inst_executed_op_global_st_pred_on_any.sum",
    "sld": "smsp__inst_executed_op_shared_ld_pred_on_any.sum",
    "sst": "smsp__inst_executed_op_shared_st_pred_on_any.sum",
    "satom": "smsp__inst_executed_op_shared_atom_pred_on_any.sum",
    # by the thread only (compare-idioms.py): a warp's full shuffle is 32
    "shfl": "smsp__sass_thread_inst_executed_op_inter_thread_communication_pred_on.sum",
}


def graded(path):
    """{kernel: {check: measured}} of one grade's JSON."""
    by = collections.defaultdict(dict)
    for lab in json.load(open(path))["labs"]:
        for c in lab["checks"]:
            by[c["kernel"]][c["check"]] = c.get("measured", "")
    return by


def calls(path):
    for kernel, checks in graded(path).items():
        m = GLOBAL.search(checks.get("global-traffic", ""))
        if m:
            print("call\t%s\t%s" % (kernel, m.group(4)))
        elif "shuffle" in checks: # an exercise: one warp, no size
            print("call\t%s\t%d" % (kernel, EXERCISE_ARG))


def read_ncu(path):
    """The profiled launches in order: [(kernel, {field: value})]."""
    lines = open(path).read().splitlines()
    first = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if first is None:
        return []
    rows = list(csv.reader(l for l in lines[first:] if not l.startswith("==")))
    head = rows[0]
    ii, ki = head.index("ID"), head.index("Kernel Name")
    mi, vi = head.index("Metric Name"), head.index("Metric Value")
    launches = collections.OrderedDict()
    for r in rows[1:]:
        if len(r) == len(head):
            launches.setdefault(r[ii], (r[ki].split("(")[0], {}))[1][r[mi]] = \
                float(r[vi].replace(",", ""))
    return [(k, {f: m.get(n, 0.0) for f, n in NCU.items()}) for k, m in launches.values()]


def measured(checks):
    """What the grade says, as numbers: {field: value}, and the blocks."""
    got, blocks = {}, None
    m = GLOBAL.search(checks.get("global-traffic", ""))
    if m:
        got["gl"], got["gst"], blocks = int(m.group(1)), int(m.group(2)), int(m.group(3))
    m = TREE.search(checks.get("smem-conflicts", ""))
    if m:
        got["shared"] = m.group(1)
    m = SHFL.search(checks.get("shuffle", ""))
    if m:
        got["shfl"] = int(m.group(1))
    return got, blocks


def differences(path):
    """{(NAME pattern, kernel, backend, field): reason} of --differences."""
    allowed = {}
    for l in open(path) if path else []:
        f = l.rstrip("\n").split("\t")
        if len(f) == 5 and not l.startswith("#"):
            allowed[tuple(f[:4])] = f[4]
    return allowed


def allows(field, f, v, want):
    """Whether a row's field (gl, *, or gl+N) excuses the grade's v against ncu's want."""
    name, _, most = field.partition("+")
    if name not in (f, "*"):
        return False
    return not most or 0 <= float(want) - float(v) <= float(most)


def rows(backends):
    """(backend, name, checks, kernel, size) in the order truth-run made the calls."""
    for spec in backends:
        backend, folder = spec.split("=", 1)
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            name = os.path.basename(path)[:-5]
            checks = graded(path)
            for row in open(os.path.join(folder, name + ".tsv")):
                kernel, size = row.rstrip("\n").split("\t")[1:3]
                yield backend, name, checks, kernel, size


def compare(a):
    allowed, launches = differences(a.differences), read_ncu(a.ncu)
    at = bad = documented = equal = 0
    fixture = []
    for backend, name, checks, kernel, size in rows(a.backends):
        # a launcher that launched nothing has no row; a planted variant keeps the name
        if at >= len(launches) or launches[at][0] != kernel:
            print("note  %s %s: ncu profiled no launch of it" % (name, kernel))
            continue
        hw = launches[at][1]
        at += 1
        fixture.append("\t".join([name, kernel, size, backend] + ["%.0f" % hw[f] for f in FIXTURE]))
        got, blocks = measured(checks[kernel])
        ncu = {"gl": hw["gl"], "gst": hw["gst"], "shfl": hw["shfl"] / 32}
        if blocks:
            ncu["shared"] = "%.1f" % ((hw["sld"] + hw["sst"]) / blocks)
        for f, v in got.items():
            want = ncu.get(f)
            if want is None or (v == want if f == "shared" else float(v) == float(want)):
                equal += want is not None
                continue
            why = next((r for (n, k, b, ff), r in allowed.items()
                        if fnmatch.fnmatchcase(name, n) and k in (kernel, "*")
                        and b in (backend, "*") and allows(ff, f, v, want)), None)
            what = "%s %s %s %s: %s, ncu %s" % (name, kernel, backend, f, v, want)
            if why:
                documented += 1
                print("documented  %s%s - %s" % (what, " on the " + a.card if a.card else "", why))
            else:
                bad += 1
                print("FAIL  " + what)
    if a.write_fixture:
        with open(a.write_fixture, "w") as out:
            out.write("# labs 7 and 8 as Nsight Compute measured them%s (tests/truth/check-labs.sh):"
                      " each kernel at the size the backend graded; shfl: %s\n"
                      % (" on the " + a.card if a.card else "", NCU["shfl"]))
            out.write("name\tkernel\tn\tbackend\t%s\n" % "\t".join(FIXTURE))
            out.write("\n".join(fixture) + "\n")
    if at != len(launches):
        print("FAIL  ncu profiled %d launches, the calls account for %d" % (len(launches), at))
        bad += 1
    print("labs: %d counts equal to ncu's%s%s" % (equal, ", %d differ" % bad if bad else "",
                                                 ", %d documented" % documented if documented else ""))
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--metrics"]: # what ncu must read, for check-labs.sh
        print(",".join(sorted(NCU.values())))
        return 0
    if sys.argv[1:2] == ["--calls"] and len(sys.argv) == 3:
        calls(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("ncu")
    ap.add_argument("backends", nargs="+")
    ap.add_argument("--differences")
    ap.add_argument("--write-fixture")
    ap.add_argument("--card", default="")
    return compare(ap.parse_args())


sys.exit(main())
