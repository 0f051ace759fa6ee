# judge.sh - the expectations on graded JSON reports, shared by check-gpu.sh
# (on a GPU) and tests/emulator/check-labs.sh (make check-emulated, by emulation). Source it with
# `expect` (build/tests/expect) and the functions ok and bad defined.
#
#   judge_solution JSON RC LABEL     full marks, exit 0
#   judge_skeleton JSON RC LABEL     some points lost, exit 1
#   judge_row JSON FILE KERNEL CHECK TEXT [WHERE]
#                                    one row of tests/planted/manifest.tsv (CHECK
#                                    passes: TEXT lists the checks that pass)
#   judge_every_failure DIR PLANTED LABEL [SKIP [DIFFERENCES]]
#                                    every check a planted variant failed (but
#                                    speed) is a row, or in DIFFERENCES (a TSV of
#                                    verdicts this backend adds, documented)
# Each also holds the report's points to its statuses (expect FILE scores):
# a failed check scores 0, the totals are the checks' sums, a failure costs marks.

# What full marks are: everything (a GPU), or everything but speed, which the
# emulator does not measure (EMULATED=1; exit 4 where a lab has speed checks).
full_marks() { [ -n "${EMULATED:-}" ] && echo full-but-speed || echo full; }

judge_solution() { # JSON RC LABEL: full marks, exit 0 (or 4 when emulated)
    local why
    why=$("$expect" "$1" "$(full_marks)"; "$expect" "$1" scores)
    case $2 in 0|${EMULATED:+4}) ;; *) why="exit $2 $why" ;; esac
    [ -z "$why" ] && ok "$3: full marks" || bad "$3: $why"
}

judge_skeleton() { # JSON RC LABEL [SCORE]: points lost, exit 1
    local why
    why=$("$expect" "$1" not-full; "$expect" "$1" scores)
    [ "$2" = 1 ] && [ -z "$why" ] && ok "$3: ${4:-loses points}" || bad "$3 (exit $2): $why"
}

judge_row() { # JSON FILE KERNEL CHECK TEXT [WHERE]
    local json=$1 file=$2 kernel=$3 check=$4 text=$5 where=${6:-} name why
    name=${file%.cu}
    [ -f "$json" ] || { bad "$name$where: not graded (no $json)"; return; }
    why=$("$expect" "$json" scores)
    [ -z "$why" ] || { bad "$name$where: $why"; return; }
    case $check in
    host-printed) # graded in full; what it printed is kept apart
        why=$("$expect" "$json" "$(full_marks)")$("$expect" "$json" printed "$text")
        [ -z "$why" ] && ok "$name$where: full marks, and its output shown apart: \"$text\"" || bad "$name$where: $why"
        return ;;
    device-printed) # graded in full; what the kernels printed is shown apart, GPU or emulated
        why=$("$expect" "$json" "$(full_marks)")$("$expect" "$json" device-printed "$text")
        [ -z "$why" ] && ok "$name$where: full marks, and the kernels' printf shown apart: \"$text\"" || bad "$name$where: $why"
        return ;;
    full-marks) # a right way the exercise did not show: nothing lost
        why=$("$expect" "$json" "$(full_marks)")
        [ -z "$why" ] && ok "$name$where: full marks ($text)" || bad "$name$where: $why"
        return ;;
    not-graded-emulated) # an instrument's limit: not graded by emulation, full marks on a GPU
        if [ -n "${EMULATED:-}" ]; then
            why=$("$expect" "$json" kernel-not-graded "$kernel" "$text")$("$expect" "$json" others-correct "$kernel")
            [ -z "$why" ] && ok "$name$where: $kernel not graded (\"$text\"), nothing failed, the others graded" || bad "$name$where: $why"
        else
            why=$("$expect" "$json" full)
            [ -z "$why" ] && ok "$name$where: full marks on the GPU" || bad "$name$where: $why"
        fi
        return ;;
    not-graded-all) # an instruction no backend measures: not graded everywhere, nothing lost
        why=$("$expect" "$json" measures-not-graded "$kernel" "$text")$("$expect" "$json" others-correct "$kernel")
        [ -z "$why" ] && ok "$name$where: $kernel's measured checks not graded (\"$text\"), nothing failed, the others graded" || bad "$name$where: $why"
        return ;;
    passes) # the checks of KERNEL that keep their points, comma-separated (a pasted
            # kernel's rows say what it gets: these pass, its other rows fail)
        local each
        why=
        for each in ${text//,/ }; do
            why=$why$("$expect" "$json" check "$kernel" "$each" pass)
        done
        [ -z "$why" ] && ok "$name$where: $kernel keeps $text" || bad "$name$where: $why"
        return ;;
    *:not-graded) # CHECK of KERNEL not graded, with these words: the grader cannot tell
        why=$("$expect" "$json" check "$kernel" "${check%:not-graded}" not-graded "$text")
        [ -z "$why" ] && ok "$name$where: $kernel ${check%:not-graded} not graded: \"$text\"" || bad "$name$where: $why"
        return ;;
    not-graded) # the library is refused as a whole
        why=$("$expect" "$json" not-graded "$text")
        [ -z "$why" ] && ok "$name$where: not graded, \"$text\"" || bad "$name$where: $why"
        return ;;
    esac
    # TEXT may name what each device says, "A|B": a GPU faults where the
    # emulator, which does not, names the access (either one passes)
    local alt said=
    local IFS='|'
    for alt in $text; do
        # a check that waits for another one (check_waits: "waits for ...", "not run: ...")
        # is "waiting" in the JSON, a failure of its own "fail": neither earns its points
        why=$("$expect" "$json" check "$kernel" "$check" fail "$alt") &&
            [ -z "$why" ] || why=$("$expect" "$json" check "$kernel" "$check" waiting "$alt")
        [ -z "$why" ] && { said=$alt; break; }
    done
    unset IFS
    [ -n "$said" ] && ok "$name$where: $kernel $check fails with \"$said\"" || bad "$name$where: $why"
    case $said in
    "cuda error"|"timed out"|"not a record"*|"ended the program"|"crashed:"*|"did not return"*|"called "*|"as "*"'s algorithms do")
        why=$("$expect" "$json" others-correct "$kernel")
        [ -z "$why" ] && ok "$name$where: the other kernels are still graded" || bad "$name$where: $why" ;;
    esac
}

judge_every_failure() { # DIR PLANTED LABEL [SKIP [DIFFERENCES]]: each planted variant (PLANTED/NAME.patch)
    # graded into DIR has a row, and each check it failed is one of its rows, so a row's message
    # is what a student reads for every failure, not only for the one the variant was planted
    # for ("waiting": a check that waits for one that failed, held by that one's row). Speed
    # aside: it is timed, a slow consequence near its threshold goes either way from run to
    # run, and the variants planted for it have their speed rows.
    local why
    # (SKIP: names apart by spaces whose rows this backend does not hold; DIFFERENCES: a
    # failure this backend adds to the emulator's, documented there with why, is no new failure)
    why=$(python3 - "$1" "$2" "${4:-}" "${5:-}" <<'PY'
import csv, glob, json, os, sys
rows = {}
with open(os.path.join(sys.argv[2], "manifest.tsv")) as f:
    for r in csv.reader(f, delimiter="\t"):
        if r and r[0] != "file":
            rows.setdefault(r[0][:-3], set()).add((r[2], r[3]))
documented = set()
if sys.argv[4]:
    with open(sys.argv[4]) as f:
        for r in csv.reader(f, delimiter="\t"):
            if len(r) >= 3 and not r[0].startswith("#"):
                documented.add((r[0], r[1], r[2]))
def known(name, kernel, check):
    return any((v in (name, "*")) and (k in (kernel, "*")) and c == check for v, k, c in documented)
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    name = os.path.basename(path)[:-5]
    if not os.path.exists(os.path.join(sys.argv[2], name + ".patch")) or name in sys.argv[3].split():
        continue  # a solution, a skeleton, another grade of the run
    if name not in rows:
        print(f"{name}: no row in the manifest")
        continue
    for lab in json.load(open(path)).get("labs", []):
        for c in lab.get("checks", []):
            if c["status"] == "fail" and c["check"] != "speed" and \
                    (c["kernel"], c["check"]) not in rows[name] and \
                    not known(name, c["kernel"], c["check"]):
                print(f"{name}: {c['kernel']} {c['check']} fails, in no row: {c['message'][:120]}")
PY
)
    if [ -z "$why" ]; then
        ok "$3: every check a planted variant fails is one of its rows"
    else
        bad "$3: failures in no row of tests/planted/manifest.tsv:
$why"
    fi
}
