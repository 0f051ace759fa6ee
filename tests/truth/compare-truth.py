#!/usr/bin/env python3
"""compare-truth.py CORPUS_TSV (--ncu NCU_CSV... [--fixture H100_TSV] | --fixture H100_TSV)
BACKEND=JSON_DIR... [--write-fixture OUT_TSV] [--problems FILE] - the grader's
counts and verdicts on the truth corpus against what the hardware measured.

Each JSON_DIR holds part-NN.json, the grader's report of part NN with that
backend (smemlab-grade --corpus part-NN.tsv --json ...). Fails unless, for every
kernel and backend, the correct check passes and the shared requests and
wavefronts of the store-conflicts and load-conflicts checks equal the
hardware's (Nsight Compute's metrics; its conflict counter is printed beside,
never used), a load and a store of the same pattern get the same verdict, and
every backend gives the same verdicts. The truth comes from Nsight Compute
CSVs of this run (--ncu, one or more passes), or from the recorded
tests/truth/h100-ncu.tsv (--fixture), matched by element type and patterns.

The hardware is not always repeatable: the H100 has given a kernel's 2-byte
stores 4 wavefronts in one run and 5 in another. Every hardware observation
counts (each ncu pass, the fixture where given, and the counters backend,
which reads the same hardware counters): a backend's count must equal one of
them, and a kernel whose observations differ is listed as not repeatable,
with what each observation said, so that it is seen and not hidden.
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
    ap.add_argument("--ncu", action="append", default=[])
    ap.add_argument("--fixture")
    ap.add_argument("--write-fixture")
    ap.add_argument("--problems")
    a = ap.parse_args()
    if not a.ncu and not a.fixture:
        ap.error("give --ncu CSV (one or more) or --fixture TSV")
    rows, seed = read_corpus(a.corpus)
    passes = [("ncu pass %d" % (i + 1), truth_from_ncu(p)) for i, p in enumerate(a.ncu)]
    if a.fixture:
        passes.append(("fixture", truth_from_fixture(a.fixture, rows)))
    truth = passes[0][1]
    reports = {b.split("=", 1)[0]: read_reports(b.split("=", 1)[1]) for b in a.backends}
    COUNTS = ("st_requests", "st_wavefronts", "ld_requests", "ld_wavefronts")
    def counted(b, k):
        st, ld = reports[b].get((k, "store-conflicts")), reports[b].get((k, "load-conflicts"))
        got = [c and c.get("counts") for c in (st, ld)]
        if not all(got):
            return None
        return (got[0]["requests"], got[0]["wavefronts"], got[1]["requests"], got[1]["wavefronts"])
    # every hardware observation of each kernel: the ncu passes, the fixture, the counters
    observed, unrepeatable = {}, []
    for r in rows:
        k = r["name"]
        seen = {}
        for name, t in passes:
            if k in t:
                seen.setdefault(tuple(t[k][x] for x in COUNTS), []).append(name)
        if "counters" in reports and counted("counters", k):
            seen.setdefault(counted("counters", k), []).append("counters")
        observed[k] = seen
        if len(seen) > 1:
            unrepeatable.append("%s (%s, store %s, load %s): %s" % (
                k, r["type"], r["store"], r["load"],
                "; ".join("%s: st %d/%d ld %d/%d" % (", ".join(v), c[1], c[0], c[3], c[2])
                          for c, v in sorted(seen.items()))))
    problems, equal = [], collections.Counter()
    same_pattern = agree_ls = agree_backends = conflict_verdicts = 0
    for r in rows:
        k = r["name"]
        t = truth.get(k) or next((t[k] for _, t in passes if k in t), None)
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
            if all(got) and counted(b, k) in observed[k]:
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
        elif len(observed[k]) > 1 and all(counted(b, k) in observed[k] for b in reports):
            agree_backends += 2 # each backend saw one of the hardware's own answers
        else:
            problems.append("%s: backends differ: %s" % (k, verdicts))
    for p in problems[:40]:
        print("  FAIL  " + p)
    if len(problems) > 40:
        print("  ... and %d more" % (len(problems) - 40))
    for u in unrepeatable[:10]:
        print("  not repeatable on the hardware: " + u)
    if len(unrepeatable) > 10:
        print("  ... and %d more not repeatable" % (len(unrepeatable) - 10))
    if a.problems:
        with open(a.problems, "w") as f:
            f.writelines("FAIL  %s\n" % p for p in problems)
            f.writelines("not repeatable  %s\n" % u for u in unrepeatable)
    n = len(rows)
    print("truth: %d kernels (seed %s); hardware from %s" % (
        n, seed, ", ".join(a.ncu + ([a.fixture] if a.fixture else [])) +
        (" and the counters" if "counters" in reports else "")))
    print("truth: the hardware gave one answer for %d/%d kernels, more than one for %d (listed)"
          % (n - len(unrepeatable), n, len(unrepeatable)))
    for b in reports:
        print("truth: %s: requests and wavefronts equal to the hardware's in %d/%d kernels"
              % (b, equal[b], n))
    print("truth: load and store verdicts agree in %d/%d same-pattern kernels (every backend)"
          % (agree_ls, same_pattern * len(reports)))
    print("truth: %s agree on %d/%d conflict verdicts" % (" and ".join(reports), agree_backends,
                                                          conflict_verdicts))
    if a.write_fixture and passes and a.ncu:
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
