#!/usr/bin/env python3
# plant.py NAME KIND MARKER  (header body on stdin): attack/NAME.cu -> tests/planted/NAME.patch
import sys, difflib, re, subprocess, os
name, kind, marker = sys.argv[1:4]
body = sys.stdin.read().rstrip('\n')
lab = name.split('-')[0]
labdir = [d for d in os.listdir('solutions') if d.startswith(lab + '-')][0]
solpath = f'solutions/{labdir}/{lab}.cu'
sol = open(solpath).read().splitlines(keepends=True)
att = open(f'attack/{name}.cu').read()
att = att[att.index('*/\n\n') + 4:]  # drop the attack header
a = att.splitlines(keepends=True)
sm = difflib.SequenceMatcher(a=sol, b=a, autojunk=False)
first = next(op for op in sm.get_opcodes() if op[0] != 'equal')
j = first[3]
indent = re.match(r'\s*', a[j] if j < len(a) else '').group(0) if first[0] != 'delete' else '    '
a.insert(j, f'{indent}/* PLANTED: {marker} */\n')
hdr = f'/*\n * PLANTED {kind}: tests/planted/{name}.patch\n' + ''.join(
    (' * ' + l).rstrip() + '\n' for l in body.split('\n')) + ' */\n\n'
os.makedirs('attack/planted', exist_ok=True)
out = f'attack/planted/{name}.cu'
open(out, 'w').write(hdr + ''.join(a))
d = subprocess.run(['diff', '-u', '--label', solpath, '--label', solpath, solpath, out],
                   capture_output=True, text=True)
assert d.returncode == 1, d.stderr
open(f'tests/planted/{name}.patch', 'w').write(d.stdout)
print('wrote', name)
