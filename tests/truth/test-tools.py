#!/usr/bin/env python3
"""test-tools.py - the truth tools' own rules, without a GPU. card-name.sh: the name a
card's recorded files carry (h100 for the H100 whose files are here). compare-labs.py's rule for the hardware's differences
(tests/truth/lab-differences.tsv), without a GPU: one grade of lab 8's reduceShfl
(32769 global loads) against Nsight Compute's rows made up here. The file's own
row (lab[78]-* * * gl+1) excuses one load more and no other difference; a
row without a bound excuses any; a difference no row names fails. make check-truth
runs it."""
import json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "compare-labs.py")
GRADE = "32769 global load and 0 store instructions (4097 blocks, n = 1048577)"


def run(tmp, ncu_gl, differences, name="lab8-xor-via-smem"):
    d = os.path.join(tmp, "trace")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    json.dump({"labs": [{"checks": [{"kernel": "reduceShfl", "check": "global-traffic",
                                     "measured": GRADE}]}]}, open(os.path.join(d, name + ".json"), "w"))
    open(os.path.join(d, name + ".tsv"), "w").write("call\treduceShfl\t1048577\n")
    csv = os.path.join(tmp, "ncu.csv")
    with open(csv, "w") as f:
        f.write('"ID","Kernel Name","Metric Name","Metric Value"\n')
        f.write('"0","reduceShfl(const int *, int *, int)",'
                '"smsp__inst_executed_op_global_ld_pred_on_any.sum","%s"\n' % ncu_gl)
    r = subprocess.run([sys.executable, TOOL, csv, "trace=" + d, "--differences", differences,
                        "--card", "NVIDIA H200"], capture_output=True, text=True)
    return r.returncode, r.stdout


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        own = os.path.join(HERE, "lab-differences.tsv")
        unbounded = os.path.join(tmp, "any.tsv")
        open(unbounded, "w").write("lab8-*\treduceShfl\ttrace\tgl\tany amount\n")
        none = os.path.join(tmp, "none.tsv")
        open(none, "w").write("# no rows\n")
        cases = [("one load more, the H200's", 32770, own, 0, "on the NVIDIA H200"),
                 ("equal", 32769, own, 0, "labs: 2 counts equal to ncu's\n"),
                 ("two loads more", 32771, own, 1, "FAIL"),
                 ("one load fewer", 32768, own, 1, "FAIL"),
                 ("any amount, a row without a bound", 40000, unbounded, 0, "documented"),
                 ("no row", 32770, none, 1, "FAIL")]
        for what, gl, diffs, want, words in cases:
            rc, out = run(tmp, gl, diffs)
            if rc == want and words in out:
                print("ok    %s: exit %d" % (what, rc))
            else:
                failed += 1
                print("FAIL  %s: exit %d (want %d, %r)\n%s" % (what, rc, want, words, out))
    names = [("NVIDIA H100 80GB HBM3", "h100"), ("NVIDIA H200", "h200"), ("NVIDIA H100 PCIe", "h100"),
             ("NVIDIA A100-SXM4-80GB", "a100"), ("NVIDIA GeForce RTX 4090", "rtx-4090")]
    env = {k: v for k, v in os.environ.items() if k != "TRUTH_CARD"}
    for name, want in names:
        got = subprocess.run(["bash", os.path.join(HERE, "card-name.sh"), name], env=env,
                             capture_output=True, text=True).stdout.strip()
        if got == want:
            print("ok    card-name.sh %r: %s" % (name, got))
        else:
            failed += 1
            print("FAIL  card-name.sh %r: %r, not %s" % (name, got, want))
    print("truth tools: %d cases, %d failed" % (len(cases) + len(names), failed))
    return 1 if failed else 0


sys.exit(main())
