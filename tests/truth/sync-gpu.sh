#!/usr/bin/env bash
# sync-gpu.sh DIR - the synchronisation corpus (DIR/sync.cu and DIR/sync.tsv, written
# by tests/truth/gen-sync.py) under NVIDIA's checkers, on a GPU (make check-truth-gpu):
# every kernel launched alone (DIR/sync-run NAME) under compute-sanitizer --tool
# synccheck, racecheck and memcheck, and their verdicts written kernel by kernel to
# DIR/sync-verdicts.tsv in tests/truth/sync-verdicts.tsv's format (that file is
# replaced by it once measured). The logs stay in DIR/logs/TOOL/NAME.txt.
#   synccheck: barrier ("Barrier error detected. Divergent thread(s) in warp|block"),
#              invalid-args ("Barrier error detected. Invalid arguments"), -
#   racecheck: error or warning (its summary's hazards), -
#   memcheck:  error (its summary counts one), -
# Exit 0, or 1 when the corpus does not build or a checker does not run.
set -u
dir=${1:?usage: sync-gpu.sh DIR}
nvcc=${NVCC:-nvcc}
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo "$(dirname "$(command -v "$nvcc")")/compute-sanitizer")}
[ -x "$sanitizer" ] || { echo "sync-gpu: no compute-sanitizer (set COMPUTE_SANITIZER)" >&2; exit 1; }
"$nvcc" -arch=native -lineinfo -diag-suppress 177 -o "$dir/sync-run" "$dir/sync.cu" || {
    echo "sync-gpu: the corpus does not build" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
version=$("$sanitizer" --version 2>/dev/null | grep -o 'Version [0-9.]*' | head -n1)
rm -rf "$dir/logs" && mkdir -p "$dir/logs/synccheck" "$dir/logs/racecheck" "$dir/logs/memcheck"

verdict() { # TOOL LOG: the tool's verdict from its log
    local tool=$1 log=$2 summary
    case $tool in
    synccheck)
        if grep -q 'Barrier error detected. Invalid arguments' "$log"; then echo invalid-args
        elif grep -q 'Barrier error detected' "$log"; then echo barrier
        else echo -; fi ;;
    racecheck)
        summary=$(grep -o 'RACECHECK SUMMARY: .*' "$log" | head -n1)
        if echo "$summary" | grep -qE '\(([1-9][0-9]*) errors?'; then echo error
        elif echo "$summary" | grep -qE '([1-9][0-9]*) warnings?\)'; then echo warning
        else echo -; fi ;;
    memcheck)
        if grep -qE 'ERROR SUMMARY: [1-9][0-9]* errors?' "$log"; then echo error; else echo -; fi ;;
    esac
}

out=$dir/sync-verdicts.tsv
{
    echo "# measured on ${gpu:-a GPU} by compute-sanitizer ${version:-?}, $(date -u +%Y-%m-%d)"
    echo "# (tests/truth/sync-gpu.sh): what synccheck, racecheck and memcheck reported for each"
    echo "# kernel of tests/truth/gen-sync.py, launched alone; guide: the CUDA Programming"
    echo "# Guide's verdict, from the generator. Copy over tests/truth/sync-verdicts.tsv."
    printf 'name\tsynccheck\tracecheck\tmemcheck\tguide\n'
} > "$out"
# One kernel under the three tools: its row (the kernels run side by side, a few at a
# time: each run is mostly the sanitizer's start, and one GPU serves them all).
one() { # NAME GUIDE
    local name=$1 guide=$2 row=$1 tool log
    for tool in synccheck racecheck memcheck; do
        log=$dir/logs/$tool/$name.txt
        timeout 120 "$sanitizer" --tool "$tool" --print-limit 10 "$dir/sync-run" "$name" > "$log" 2>&1
        grep -q 'SUMMARY' "$log" || echo "sync-gpu: $tool did not finish on $name (see $log)" >&2
        row+=$'\t'$(verdict "$tool" "$log")
    done
    printf '%s\t%s\n' "$row" "$guide" > "$dir/logs/$name.row"
}
export -f one verdict
export dir sanitizer
jobs=${SYNC_JOBS:-$(nproc 2>/dev/null || echo 4)}
[ "$jobs" -gt 8 ] && jobs=8
awk -F'\t' '$1 != "name" { print $1 "\t" $9 }' "$dir/sync.tsv" |
    xargs -d '\n' -P "$jobs" -I{} bash -c 'IFS=$'"'"'\t'"'"' read -r n g <<< "$1"; one "$n" "$g"' _ {}
bad=0
while IFS=$'\t' read -r name _; do
    [ "$name" = name ] && continue
    if [ -f "$dir/logs/$name.row" ]; then cat "$dir/logs/$name.row" >> "$out"
    else echo "sync-gpu: no verdicts for $name" >&2; bad=1; fi
    for tool in synccheck racecheck memcheck; do
        grep -q 'SUMMARY' "$dir/logs/$tool/$name.txt" 2>/dev/null || bad=1
    done
done < "$dir/sync.tsv"
echo "sync-gpu: $(($(wc -l < "$out") - 5)) kernels under synccheck, racecheck and memcheck: $out"
exit $bad
