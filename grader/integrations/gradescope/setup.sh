#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, when it builds the
# autograder's image (Ubuntu). It installs what the kit needs, creates the
# unprivileged user that runs students' code, and builds the grader.
#
# The CUDA Toolkit (12.6 or newer) is not in Ubuntu's own archive at that
# version. Install it from NVIDIA's CUDA apt repository for the image's
# Ubuntu release (NVIDIA's installation guide: the cuda-keyring package, then
# apt-get install cuda-toolkit-12-6): with that repository configured, this
# script installs it; without, it stops and says so. Without a GPU (most of
# Gradescope's runners) every submission is still compiled and graded, its
# kernels emulated on the CPU: every check but speed as on a GPU, the
# results saying "graded by: emulated on the CPU: ...; speed not measured".
set -euo pipefail

ROOT=${AUTOGRADER_ROOT:-/autograder}
SRC=$ROOT/source
KIT=$SRC/kit
RUN_AS=${SMEMLAB_RUN_AS:-student}
CUDA_PACKAGE=${SMEMLAB_CUDA_PACKAGE:-cuda-toolkit-12-6}
export DEBIAN_FRONTEND=noninteractive

packages="make gcc pkg-config libcjson-dev libseccomp-dev jq"
missing=$(for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing
fi

PATH=$PATH:/usr/local/cuda/bin
if ! command -v nvcc >/dev/null; then
    if apt-cache show "$CUDA_PACKAGE" >/dev/null 2>&1; then
        apt-get install -y -qq "$CUDA_PACKAGE"
    else
        echo "setup.sh: nvcc not found and apt knows no $CUDA_PACKAGE." >&2
        echo "  Add NVIDIA's CUDA apt repository for this Ubuntu release (the cuda-keyring" >&2
        echo "  package, see NVIDIA's CUDA installation guide) at the top of setup.sh," >&2
        echo "  or set SMEMLAB_CUDA_PACKAGE to a CUDA Toolkit package apt can install." >&2
        exit 1
    fi
fi

if ! id "$RUN_AS" >/dev/null 2>&1; then
    useradd --no-create-home --shell /usr/sbin/nologin "$RUN_AS"
fi

# the grader make gradescope shipped, where it can grade on this image; else built here
. "$KIT/grader/integrations/prebuilt.sh"
if prebuilt_fits "$KIT"; then
    echo "setup.sh: the prebuilt grader ($(cat "$KIT/build/PREBUILT")) grades here"
else
    echo "setup.sh: building the grader here: the prebuilt one cannot grade on this image: $why"
    rm -rf "$KIT/build"
fi
make -C "$KIT" -j"$(nproc)" lab-tools
echo "setup.sh: grader built; students' code will run as $RUN_AS"
