#!/bin/bash
# check-trace.sh BUILD PROBE - the trace backend against hand-worked numbers
# (make check-trace-gpu; needs a GPU and the Compute Sanitizer).
# Columns: library launcher store-requests store-wavefronts load-requests
# load-wavefronts race|norace [load-ideal]
set -u
build=$1 probe=$2 failed=0
export SMEMLAB_TRACE_LIB=${SMEMLAB_TRACE_LIB:-$build/libsmemlab-trace.so} # the probe lives in build/tests
export CUDA_MODULE_LOADING=EAGER # patch every module when it loads, before any launch
while read -r lib launcher args; do
    [[ -z $lib || $lib == \#* ]] && continue
    # shellcheck disable=SC2086 # args are separate numbers
    "$probe" "$build/$lib" "$launcher" $args || failed=$((failed + 1))
done <<'TABLE'
# lab 1: 32x32 int tile, 32 warps
solutions/lab1.so launch_setRowReadRow 32 32 32 32 norace 32
solutions/lab1.so launch_setColReadCol 32 1024 32 1024 norace 32
solutions/lab1.so launch_setRowReadCol 32 32 32 1024 norace 32
planted/lab1-no-sync.so launch_setRowReadCol 32 32 32 1024 race 32
# the 64-bit rule: a long long tile, 2 wavefronts a warp is the ideal
planted/lab1-long-tile.so launch_setRowReadCol 32 64 32 1024 norace 64
# lab 3: pitch 33
solutions/lab3.so launch_setRowReadColPad 32 32 32 32 norace 32
solutions/lab3.so launch_setRowReadColDynPad 32 32 32 32 norace 32
# lab 4: 32x16, 16 warps; irow/icol read 16-way, two pad columns none
solutions/lab4.so launch_setRowReadRow 16 16 16 16 norace 16
solutions/lab4.so launch_setRowReadCol 16 16 16 256 norace 16
solutions/lab4.so launch_setRowReadColPad 16 16 16 16 norace 16
TABLE
if ((failed)); then
    echo "check-trace: $failed probe(s) failed" >&2
    exit 1
fi
echo "check-trace: all probes agree"
