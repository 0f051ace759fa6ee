#!/usr/bin/env bash
# test-batch-real.sh BUILD - smemlab-batch without a GPU: compile errors with the real nvcc, in the build jail; the real grader without a GPU (emulated)
# (make check; tests/batch/lib.sh has what the batch tests share).
set -u
. "$(dirname "$0")/lib.sh"

echo "[$SECONDS s] == compile errors with the real nvcc; the real grader without a GPU (emulated)"
if command -v "${NVCC:-nvcc}" > /dev/null; then
    R=$T/real
    mkdir -p "$R" "$T/secret"
    echo 'TOP SECRET exam answers' > "$T/secret/answers.h"
    cp "$SKEL" "$R/sam.cu"
    { cat "$SKEL"; echo "int x = ;"; } > "$R/syn.cu"
    line=$(grep -n 'int x = ;' "$R/syn.cu" | cut -d: -f1)
    { echo "#include \"$T/secret/answers.h\""; cat "$SKEL"; } > "$R/peek.cu"
    "$BATCH" --plain --grader "$GRADER" --nvcc-arch=-arch=sm_75 lab3 "$R" -o "$T/res-real" > "$T/run.log" 2>&1
    rc=$?
    [ "$(field syn reason "$T/res-real")" = "does not compile: lab3.cu:$line: expected an expression" ] \
        && ok "nvcc error: $(field syn reason "$T/res-real")" || no "nvcc error: $(field syn reason "$T/res-real")"
    reason_has peek "lab3.cu includes a file outside your submission: only smemlab.h and system headers may be included (it names \"$T/secret/answers.h\")" "$T/res-real"
    # the path appears as the student wrote it, in peek's reason alone; the content nowhere
    grep -rq "TOP SECRET" "$T/res-real" && no "another file's content leaked" || ok "no other file's content in the results"
    peek_sha=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['sha256'])" "$T/res-real/peek.json")
    # peek's own: its reports, and its source as kept for --reproduce (sources/SHA256.cu)
    [ "$(grep -rl "$T/secret" "$T/res-real" | grep -v '/peek\.\(json\|txt\|html\)$\|/peek/results.json$\|gradebook.csv$\|junit.xml$' | grep -v "/sources/$peek_sha.cu$" | wc -l)" = 0 ] \
        && ok "the outside path is named only in peek's own reports" || no "the outside path leaked into others' reports"
    grep -rq "smemlab-batch\.[A-Za-z0-9]\{6\}\|$TMPDIR" "$T/res-real" && no "scratch path leaked: $(grep -rho "smemlab-batch\.[A-Za-z0-9]\{6\}[^ ]*" "$T/res-real" | head -1)" \
        || ok "no scratch path in any report (records, feedback, Gradescope, Autolab, JUnit, gradebook)"
    grep -qF "lab3.cu($line): error: expected an expression" "$T/res-real/feedback/syn.txt" && grep -qxF "  int x = ;" "$T/res-real/feedback/syn.txt" \
        && ! grep -q "secret\|answers" "$T/res-real/feedback/syn.txt" && ok "a compile error: the compiler's first lines about the file in the feedback" \
        || { no "compile error lines"; cat "$T/res-real/feedback/syn.txt"; }
    # no launcher at all: the grader names the library it was given; the student reads no scratch path
    printf '// nothing but a comment\n' > "$R/bare.cu"
    "$BATCH" --plain --grader "$GRADER" --nvcc-arch=-arch=sm_75 --only bare lab3 "$R" -o "$T/res-real" > "$T/run.log" 2>&1
    grep -q "launch_setRowReadColPad not found in lab3.so" "$T/res-real/feedback/bare.txt" && ! grep -rq "smemlab-batch\." "$T/res-real" \
        && ok "a file without launchers: 'not found in lab3.so', no scratch path" || { no "bare: $(grep -m2 'not found' "$T/res-real/feedback/bare.txt")"; }
    # --nvcc as a path relative to where the batch was started (make runs it from the kit)
    mkdir -p "$T/relnv/bin" && ln -sf "$(command -v nvcc)" "$T/relnv/bin/nvcc"
    (cd "$T/relnv" && "$BATCH" --plain --grader "$GRADER" --nvcc bin/nvcc --nvcc-arch=-arch=sm_75 --only syn lab3 "$R" -o "$T/res-relnv" > "$T/run.log" 2>&1)
    [ "$(field syn reason "$T/res-relnv")" = "does not compile: lab3.cu:$line: expected an expression" ] \
        && ok "--nvcc bin/nvcc, a relative path: built with it" || no "--nvcc bin/nvcc: $(field syn reason "$T/res-relnv")"
    if nvidia-smi > /dev/null 2>&1; then
        echo "  skip  (a GPU is present: the no-GPU path is not tested here)"
    else
        # no GPU: the grader emulates, so the skeleton is graded and loses points
        [ $rc = 0 ] && [ "$(field sam status "$T/res-real")" = graded ] && ok "no GPU: exit 0, sam graded by emulation" || no "no GPU: exit $rc, $(field sam status "$T/res-real")"
        reason_has sam "checks failed" "$T/res-real"
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r['grader_exit'] == 1 and r['points'] < r['max_points']))" "$T/res-real/sam.json" \
            && ok "the grader's own exit status recorded (1: the skeleton loses points)" || no "grader_exit"
    fi
    validate "$T/res-real"
    # a graded student's HTML feedback links the grader's report page of their file; one
    # that did not compile has none to link
    sha=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['sha256'])" "$T/res-real/sam.json")
    page=$T/res-real/pages/$sha.html
    grep -qF "href=\"../pages/$sha.html\"" "$T/res-real/feedback/sam.html" && [ -s "$page" ] &&
        grep -qF '<section id="source"' "$page" && grep -qF 'id="k-setRowReadColPad"' "$page" &&
        ! grep -qF "../pages/" "$T/res-real/feedback/syn.html" &&
        ok "sam's feedback links the page of sam's file (pages/${sha:0:12}...html); syn's, not compiled, none" ||
        no "the report page of sam: $(ls "$T/res-real/pages" 2>&1 | head -3)"
else
    echo "  skip  (no nvcc)"
fi

batch_finish real
