#!/usr/bin/env python3
"""compare-truth.py CORPUS_TSV (--ncu NCU_CSV | --fixture H100_TSV) BACKEND=JSON_DIR...
[--write-fixture OUT_TSV] - the grader's counts and verdicts on the truth corpus
against what the hardware measured.

Each JSON_DIR holds part-NN.json, the grader's report of part NN with that
backend (smemlab-grade --corpus part-NN.tsv --json ...). Fails unless, for every
kernel and backend, the correct check passes and the shared requests and
wavefronts of the store-conflicts and load-conflicts checks equal the
hardware's (Nsight Compute's metrics; its conflict counter is printed beside,
never used), a load and a store of the same pattern get the same verdict, and
every backend gives the same verdicts. The truth comes from an Nsight Compute
CSV of this run (--ncu), or from the recorded tests/truth/h100-ncu.tsv
(--fixture), matched by element type and patterns.
"""
import argparse, collections, csv, glob, json, os, re, sys

METRICS = {
    "smsp__inst_executed_op_shared_ld.sum": "ld_requests",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "ld_wavefronts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "ld_conflicts",
    "smsp__inst_executed_op_shared_st.sum": "st_requests",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "st_wavefronts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "st_conflicts",
}
FIELDS = ["ld_requests", "ld_wavefronts", "ld_conflicts", "st_requests", "st_wavefronts", "st_conflicts"]

def read_corpus(path):
    rows, seed = [], None
    for line in open(path):
        m = re.search(r"--seed (\d+)", line)
        if line.startswith("#") and m:
            seed = m.group(1)
        if line.startswith("k"):
            name, ty, width, store, load, _ = line.rstrip("\n").split("\t")
            rows.append(dict(name=name, type=ty, width=width, store=store, load=load))
    return rows, seed

def truth_from_ncu(path):
    truth = collections.defaultdict(dict)
    for row in csv.DictReader([l for l in open(path) if l.startswith('"')]):
        name = row["Kernel Name"].split("(")[0]
        if row["Metric Name"] in METRICS and METRICS[row["Metric Name"]] not in truth[name]:
            truth[name][METRICS[row["Metric Name"]]] = int(float(row["Metric Value"].replace(",", "")))
    return truth

def truth_from_fixture(path, rows):
    by_key = {}
    for line in open(path):
        if line.startswith("#") or line.startswith("type\t"):
            continue
        f = line.rstrip("\n").split("\t")
        by_key[tuple(f[:4])] = dict(zip(FIELDS, map(int, f[4:])))
    return {r["name"]: by_key[(r["type"], r["width"], r["store"], r["load"])]
            for r in rows if (r["type"], r["width"], r["store"], r["load"]) in by_key}

def read_reports(directory):
    checks = {}
    for path in sorted(glob.glob(os.path.join(directory, "part-*.json"))):
        lab = json.load(open(path))["labs"][0]
        if lab.get("not_graded"):
            sys.exit("compare-truth: %s was not graded: %s" % (path, lab["not_graded"]))
        for c in lab["checks"]:
            checks[(c["kernel"], c["check"])] = c
    return checks

def verdict(check):
    """'conflict-free' or 'N-way conflict', from 'loads 4-way conflict (expected ...'."""
    m = re.match(r"(?:stores|loads) (.*?) \(expected", check["message"]) if check else None
    return m.group(1) if m else (check["status"] + ": " + check["message"]) if check else "absent"

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("backends", nargs="+", metavar="BACKEND=JSON_DIR")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--ncu")
    src.add_argument("--fixture")
    ap.add_argument("--write-fixture")
    a = ap.parse_args()
    rows, seed = read_corpus(a.corpus)
    truth = truth_from_ncu(a.ncu) if a.ncu else truth_from_fixture(a.fixture, rows)
    reports = {b.split("=", 1)[0]: read_reports(b.split("=", 1)[1]) for b in a.backends}
    problems, equal = [], collections.Counter()
    same_pattern = agree_ls = agree_backends = conflict_verdicts = 0
    for r in rows:
        k, t = r["name"], truth.get(r["name"])
        if t is None:
            problems.append("%s: no hardware measurement for %s %s %s" % (k, r["type"], r["store"], r["load"]))
            continue
        verdicts = {}
        for b, checks in reports.items():
            correct = checks.get((k, "correct"))
            st, ld = checks.get((k, "store-conflicts")), checks.get((k, "load-conflicts"))
            got = [c and c.get("counts") for c in (st, ld)]
            ok = correct and correct["status"] == "pass"
            if not ok:
                problems.append("%s %s: correct %s" % (b, k, correct and correct["message"]))
            if all(got) and (got[0]["requests"], got[0]["wavefronts"], got[1]["requests"], got[1]["wavefronts"]) == \
                    (t["st_requests"], t["st_wavefronts"], t["ld_requests"], t["ld_wavefronts"]):
                equal[b] += 1
            else:
                problems.append("%s %s (%s, store %s, load %s): grader st %s ld %s; hardware st %d/%d ld %d/%d "
                                "(conflict counter: st %d, ld %d)" % (
                                    b, k, r["type"], r["store"], r["load"],
                                    got[0] and "%d/%d" % (got[0]["wavefronts"], got[0]["requests"]),
                                    got[1] and "%d/%d" % (got[1]["wavefronts"], got[1]["requests"]),
                                    t["st_wavefronts"], t["st_requests"], t["ld_wavefronts"],
                                    t["ld_requests"], t["st_conflicts"], t["ld_conflicts"]))
            verdicts[b] = (verdict(st), verdict(ld))
            if r["store"] == r["load"]:
                if verdicts[b][0] == verdicts[b][1]:
                    agree_ls += 1
                else:
                    problems.append("%s %s (%s, %s both ways): store %s, load %s" % (
                        b, k, r["type"], r["store"], verdicts[b][0], verdicts[b][1]))
        same_pattern += r["store"] == r["load"]
        conflict_verdicts += 2
        if len(set(verdicts.values())) <= 1:
            agree_backends += 2
        else:
            problems.append("%s: backends differ: %s" % (k, verdicts))
    for p in problems[:40]:
        print("  FAIL  " + p)
    if len(problems) > 40:
        print("  ... and %d more" % (len(problems) - 40))
    n = len(rows)
    print("truth: %d kernels (seed %s); hardware from %s" % (n, seed, a.ncu or a.fixture))
    for b in reports:
        print("truth: %s: requests and wavefronts equal to Nsight Compute's in %d/%d kernels"
              % (b, equal[b], n))
    print("truth: load and store verdicts agree in %d/%d same-pattern kernels (every backend)"
          % (agree_ls, same_pattern * len(reports)))
    print("truth: %s agree on %d/%d conflict verdicts" % (" and ".join(reports), agree_backends,
                                                          conflict_verdicts))
    if a.write_fixture and a.ncu:
        with open(a.write_fixture, "w") as f:
            f.write("type\twidth\tstore\tload\t" + "\t".join(FIELDS) + "\n")
            for r in rows:
                if r["name"] in truth:
                    f.write("\t".join([r["type"], r["width"], r["store"], r["load"]] +
                                      [str(truth[r["name"]][x]) for x in FIELDS]) + "\n")
    print("truth: %s" % ("FAIL: %d problems" % len(problems) if problems else "all equal"))
    return 1 if problems else 0

if __name__ == "__main__":
    sys.exit(main())
