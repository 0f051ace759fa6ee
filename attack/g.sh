#!/bin/bash
# usage: attack/g.sh attack/NAME.cu labN  -> grades emulated and twin
f=$1; lab=$2; so=${f%.cu}.so
nice make -s lab-lib LAB=$lab SRC=$f OUT=$so >${f%.cu}.build.txt 2>&1 || { echo BUILD FAILED; tail -20 ${f%.cu}.build.txt; exit 1; }
echo "=== emulator"; nice build/smemlab-grade --measure emulator --timeout 5 --lib $so $lab 2>&1 | tee ${f%.cu}.emu.txt | sed -n '3,/^lab/p'
echo "=== twin"; SMEMLAB_TWIN=1 nice build/smemlab-grade --measure emulator --timeout 5 --lib $so $lab 2>&1 | tee ${f%.cu}.twin.txt | sed -n '3,/^lab/p'
