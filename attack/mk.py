#!/usr/bin/env python3
# mk.py NAME LABDIR header  (reads pairs OLD\n====\nNEW separated by lines '%%%%' on stdin)
import sys
name, labdir, header = sys.argv[1], sys.argv[2], sys.argv[3]
lab = labdir.split('-')[0]
src = open(f'solutions/{labdir}/{lab}.cu').read()
spec = sys.stdin.read()
for block in spec.split('%%%%\n'):
    if not block.strip(): continue
    old, new = block.split('====\n')
    if src.count(old) != 1:
        sys.exit(f'{name}: old text found {src.count(old)} times:\n{old}')
    src = src.replace(old, new)
hdr = '/*\n * ATTACK VARIANT: ' + name + '\n' + ''.join(' * ' + l + '\n' for l in header.split('\n')) + ' */\n\n'
open(f'attack/{name}.cu', 'w').write(hdr + src)
