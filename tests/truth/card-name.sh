#!/usr/bin/env bash
# card-name.sh [NAME] - the short name a card's recorded figures carry
# (tests/truth/CARD-ncu.tsv, ...): the device's name as nvidia-smi gives it (or
# NAME), lower case, without the maker's and the line's words, up to its first
# word with a digit: "NVIDIA H100 80GB HBM3" h100, "NVIDIA H200" h200,
# "NVIDIA A100-SXM4-80GB" a100, "NVIDIA GeForce RTX 4090" rtx-4090.
# TRUTH_CARD overrides it. Exit 1 where there is no name to read.
set -u
if [ -n "${TRUTH_CARD:-}" ]; then echo "$TRUTH_CARD"; exit 0; fi
name=${1:-$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)}
short=$(printf '%s\n' "$name" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' ' ' | awk '{
    out = ""
    for (i = 1; i <= NF; i++) {
        if ($i ~ /^(nvidia|geforce|tesla|quadro)$/) continue
        out = out (out == "" ? "" : "-") $i
        if ($i ~ /[0-9]/) break
    }
    print out }')
[ -n "$short" ] || { echo "card-name.sh: no GPU name to read (nvidia-smi gave none): set TRUTH_CARD" >&2; exit 1; }
echo "$short"
