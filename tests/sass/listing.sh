#!/usr/bin/env bash
# listing.sh CUBIN - what tests/sass/listings/NAME.smXX.txt holds for a lab's or the
# emulator's tests' cubin: nvdisasm's listing (CUDA 13.0: NVDISASM_VERSION.txt) cut to each
# function's three header lines and its memory instructions (LD*, ST*, ATOM*, RED*; not
# the constant or local ones), each with its two encoding words: the labs' and
# milestones' listings (emulator.control's keeps its BAR lines too, the sass.* listings
# every instruction: not this script's). Needs nvdisasm (a GPU machine's CUDA):
#   make build/tests/sass/NAME.smXX.cubin
#   bash tests/sass/listing.sh build/tests/sass/NAME.smXX.cubin > tests/sass/listings/NAME.smXX.txt
# It reproduces a listing whose source did not change byte for byte (check that first).
set -euo pipefail
cubin=${1:?usage: listing.sh CUBIN}
nvdisasm=${NVDISASM:-${CUDA_HOME:-/usr/local/cuda}/bin/nvdisasm}
"$nvdisasm" -hex "$cubin" | awk '
    /^\/\/-+ \.text\./ || /^\t\.section\t\.text\./ || /^\.text\..*:/ { print; next }
    second { print; second = 0; next }
    /^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+(@!?U?P[T0-9]+[ \t]+)?(LD|ST|LDG|STG|LDS|STS|LDSM|STSM|LDGSTS|ATOM|ATOMG|ATOMS|RED|REDG)[. \t]/ {
        print; second = 1 }'
