#!/usr/bin/env bash
# pack-recorded.sh BUILD [DEST] - what make check-truth-gpu recorded on this card in
# one tarball, DEST/truth-CARD.tar.gz (truth-CARD-PART.tar.gz for a run of one part,
# TRUTH_ONLY=PART; DEST: BUILD/truth-recorded unless given; CARD: card-name.sh's),
# holding tests/truth/CARD-ncu.tsv, -idioms.tsv, -global.tsv, -labs.tsv and
# sync-verdicts.tsv as check-truth.sh and check-labs.sh wrote them,
# beside the two scripts' output (check-truth-CARD.log, check-labs-CARD.log: every
# documented difference with what this card counted). Installed at the kit's
# root: tar -xzf truth-CARD.tar.gz, then make check holds the emulator to it too.
set -u
build=${1:?usage: pack-recorded.sh BUILD [DEST]}
dest=${2:-$build/truth-recorded}
here=$(dirname "$0")
card=$(bash "$here/card-name.sh") || exit 1
rec=$build/truth/recorded
mkdir -p "$dest" || exit 1
for log in check-truth check-labs; do
    [ -f "$build/truth-logs/$log.log" ] && cp "$build/truth-logs/$log.log" "$dest/$log-$card.log"
done
files=$(cd "$rec" 2>/dev/null && ls tests/truth/* 2>/dev/null)
if [ -z "$files" ]; then
    echo "pack-recorded: nothing was recorded in $rec (the run stopped before Nsight Compute; its output: $dest)" >&2
    exit 1
fi
# a run of one part (TRUTH_ONLY) packs that part's files alone, under its own name
tarball=truth-$card${TRUTH_ONLY:+-$TRUTH_ONLY}.tar.gz
tar -C "$rec" -czf "$dest/$tarball" $files || exit 1
echo "pack-recorded: $dest/$tarball holds $(echo $files); install it at the kit's root: tar -xzf $tarball"
