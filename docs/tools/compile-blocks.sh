#!/usr/bin/env bash
# compile-blocks.sh NVCC DIR - compile every DIR/*.cu that extract-code.lua
# wrote from a ```{.cuda .compile} block, as the docs promise they compile:
#     NVCC -std=c++17 -Icommon -arch=sm_75 -c BLOCK.cu
# Run from the kit's root. Prints one line per block; on failure the
# compiler's messages (they name the page and block); exits 1 if any failed.
set -u
nvcc=${1:?usage: compile-blocks.sh NVCC DIR}
dir=${2:?usage: compile-blocks.sh NVCC DIR}
command -v "$nvcc" >/dev/null || { echo "compile-blocks: $nvcc not found (the CUDA Toolkit is needed to check the docs' code)" >&2; exit 3; }
shopt -s nullglob
blocks=("$dir"/*.cu)
[ ${#blocks[@]} -gt 0 ] || { echo "compile-blocks: no compilable blocks in $dir"; exit 0; }
jobs=$(nproc 2>/dev/null || echo 4)
failed=0
for cu in "${blocks[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    ( "$nvcc" -std=c++17 -Icommon -arch=sm_75 -c "$cu" -o "${cu%.cu}.o" >"${cu%.cu}.log" 2>&1
      echo $? >"${cu%.cu}.rc" ) &
done
wait
for cu in "${blocks[@]}"; do
    where=$(head -n1 "$cu" | sed 's/^#line 1 "\(.*\)"$/\1/')
    if [ "$(cat "${cu%.cu}.rc")" = 0 ]; then
        echo "compiles: $where"
    else
        failed=$((failed + 1))
        echo "DOES NOT COMPILE: $where ($cu)" >&2
        cat "${cu%.cu}.log" >&2
    fi
done
[ "$failed" = 0 ] || { echo "compile-blocks: $failed block(s) do not compile" >&2; exit 1; }
