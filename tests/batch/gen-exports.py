#!/usr/bin/env python3
"""gen-exports.py --solution F --skeleton F OUT - a lab 3 class as Moodle and
Canvas export it, with what learning systems and browsers do to file names
(issue 30: "the instructor's day"), for make check-exports.

OUT/moodle/    16 students, a folder each ("Full Name_PID_assignsubmission_file_/"),
               one flat file; Lab3.cu, "lab3 (1).cu", "lab3(2).cu", LAB3.CU, an
               export-named re-upload, a zip; lab3.cu beside "lab3 (1).cu" and
               beside old/lab3.cu (no order: refused, both named); empty and
               whitespace-only files; online text only
OUT/moodle.zip the same, zipped under a wrapper folder, as Moodle hands it over
OUT/canvas/    16 flat files "sortablename_USERID_ATTACHMENTID_FILE" (LATE too),
               lab3.cu with its re-upload lab3-1.cu, two zips (the attachment ids
               say which is newer: the newer is graded, even when it is worse), a
               zip holding two lab3.cu (no order: refused)
OUT/canvas.zip the same, zipped
OUT/roster.csv Canvas's roster: ids and names (one who submitted nothing)
OUT/expected.tsv  export, name in the gradebook, status, points, a text the reason
               must hold, a text the source (and its note) must hold

Each file is the solution or the skeleton with a comment of its own (no two
hashes equal), or a solution with a syntax error. Points: the solution 15, the
skeleton 0 (graded by emulation without a GPU, as on one).
"""
import argparse, io, os, zipfile

ap = argparse.ArgumentParser()
ap.add_argument("--solution", required=True)
ap.add_argument("--skeleton", required=True)
ap.add_argument("out")
a = ap.parse_args()
SOL, SKEL = open(a.solution, "rb").read(), open(a.skeleton, "rb").read()
rows = []


def code(kind, who):
    body = {"sol": SOL, "skel": SKEL, "broken": SOL}[kind]
    body += ("\n// %s, %s\n" % (who, kind)).encode()
    if kind == "broken":
        body += b"int broken = ;\n"
    return body


def put(root, rel, data):
    path = os.path.join(a.out, root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(data)


def zipped(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def expect(export, name, status, points, reason="", source=""):
    rows.append("\t".join([export, name, status, str(points), reason, source]))


# --- Moodle: a folder per student ------------------------------------------------
M = "moodle"
def mfolder(name, pid):
    return "%s_%d_assignsubmission_file_" % (name, pid)

moodle = [  # name, files {relative path: data}, status, points, reason, source
    ("Ada Lovelace", {"lab3.cu": code("sol", "ada")}, "graded", 15, "", "/lab3.cu"),
    ("José Martínez", {"Lab3.cu": code("sol", "jose")}, "graded", 15, "", "named Lab3.cu, taken as lab3.cu"),
    ("Zoë O'Brien", {"lab3 (1).cu": code("sol", "zoe")}, "graded", 15, "", "named lab3 (1).cu, taken as lab3.cu"),
    ("Łukasz Żółć", {"lab3.cu": code("sol", "lukasz"), "lab3 (1).cu": code("skel", "lukasz")},
     "rejected", 0, "2 files could be lab3.cu (Łukasz Żółć_1003_assignsubmission_file_/lab3 (1).cu and "
     "Łukasz Żółć_1003_assignsubmission_file_/lab3.cu): the export does not say which is the newest", ""),
    ("Nguyễn Văn An", {"lab3.cu": code("sol", "an"), "old/lab3.cu": code("skel", "an")},
     "rejected", 0, "2 files could be lab3.cu", "") ,
    ("王小明", {"lab3.cu": b""}, "rejected", 0, "empty submission: lab3.cu is empty (0 bytes)", ""),
    ("Ольга Петрова", {"lab3.cu": b"  \n\t\n\r\n"}, "rejected", 0,
     "empty submission: lab3.cu holds only spaces and line ends (7 bytes)", ""),
    ("Mary-Jane Watson", {"lab3.cu": code("skel", "mj")}, "graded", 0, "checks failed", ""),
    ("Jean-Luc Picard", {"lab3.cu": code("broken", "jl")}, "not-compiled", 0,
     "does not compile: lab3.cu:%d: expected an expression" % (code("broken", "jl").count(b"\n")), ""),
    ("Ana Paula de Souza", {"lab3.zip": zipped([("mywork/lab3-padding/lab3.cu", code("sol", "ana")),
                                                ("mywork/README.md", b"notes")])},
     "graded", 15, "", "lab3.zip:mywork/lab3-padding/lab3.cu"),
    ("François Müller", {"François Müller_1010_assignsubmission_file_lab3.cu": code("sol", "fm")},
     "graded", 15, "", "named François Müller_1010_assignsubmission_file_lab3.cu, taken as lab3.cu"),
    ("Kim, Jong", {"lab3.cu": code("sol", "kim"), "README.md": b"my notes"}, "graded", 15, "", ""),
    ("Straße Groß", {"LAB3.CU": code("sol", "gross")}, "graded", 15, "", "named LAB3.CU, taken as lab3.cu"),
    ("Seán Ó Briain", {"lab3(2).cu": code("sol", "sean")}, "graded", 15, "", "named lab3(2).cu"),
    ("Æsa Ødegård", None, "graded", 15, "", "named Lab3.cu, taken as lab3.cu"),  # flat, below
    ("İlkay Gündoğan", {}, "rejected", 0, "no lab3.cu in the files of İlkay Gündoğan (1 entry)", ""),
]
mz = []
for i, (name, files, status, points, reason, source) in enumerate(moodle):
    pid = 1000 + i
    if files is None:  # "download submissions in folders" off: one flat file
        rel = "%s_%d_assignsubmission_file_Lab3.cu" % (name, pid)
        mz.append((rel, code("sol", "aesa")))
    elif not files:  # an online text, no file
        mz.append(("%s_%d_assignsubmission_onlinetext_/onlinetext.html" % (name, pid), b"<p>see lab</p>"))
    for rel, data in (files or {}).items():
        mz.append((mfolder(name, pid) + "/" + rel, data))
    expect(M, name, status, points, reason, source)
for rel, data in mz:
    put(M, rel, data)
open(os.path.join(a.out, "moodle.zip"), "wb").write(
    zipped([("Lab 3-Shared memory-777/" + rel, data) for rel, data in mz]))

# --- Canvas: flat files, a roster ----------------------------------------------------------
C = "canvas"
canvas = [  # (last, first), [(file, attachment, data)], status, points, reason, source
    (("Lovelace", "Ada"), [("lab3.cu", 1, code("sol", "c-ada"))], "graded", 15, "", ""),
    (("Martínez", "José"), [("Lab3.cu", 2, code("sol", "c-jose"))], "graded", 15, "", "named Lab3.cu"),
    (("O'Brien", "Zoë"), [("lab3 (1).cu", 3, code("sol", "c-zoe"))], "graded", 15, "", "named lab3 (1).cu"),
    (("Petrova", "Olga"), [("lab3.cu", 4, code("broken", "c-olga")), ("lab3-1.cu", 104, code("sol", "c-olga"))],
     "graded", 15, "", "the newest of 2 uploads"),
    (("Żółć", "Łukasz"), [("lab3.cu", 5, code("sol", "c-lukasz")), ("lab3-1.cu", 105, code("skel", "c-lukasz"))],
     "graded", 0, "checks failed", "lab3-1.cu (taken as lab3.cu: the newest of 2 uploads"),
    (("Empty", "Emil"), [("lab3.cu", 6, b"")], "rejected", 0, "empty submission", ""),
    (("Blank", "Bea"), [("lab3.cu", 7, b"\n\n   \n")], "rejected", 0, "empty submission", ""),
    (("Watson", "Mary"), [("lab3.cu", 8, code("skel", "c-mary"))], "graded", 0, "checks failed", ""),
    (("Picard", "Luc"), [("lab3.cu", 9, code("broken", "c-luc"))], "not-compiled", 0, "does not compile: lab3.cu:", ""),
    (("de Souza", "Ana"), [("lab3.zip", 10, zipped([("lab3.cu", code("sol", "c-ana"))]))], "graded", 15, "", "lab3.zip:lab3.cu"),
    (("Late", "Larry"), [("lab3.cu", 11, code("sol", "c-larry"))], "graded", 15, "", ""),
    (("Kim", "Jong"), [("lab3.cu", 12, code("sol", "c-kim")), ("README.txt", 112, b"notes")], "graded", 15, "", ""),
    (("Smith", "John"), [("smithjohn_50012_800000_lab3.cu", 13, code("sol", "c-john"))], "graded", 15, "",
     "named smithjohn_50012_800000_lab3.cu"),
    (("Gross", "Otto"), [("lab3_2.cu", 14, code("sol", "c-otto"))], "graded", 15, "", "named lab3_2.cu"),
    (("Twice", "Tom"), [("a.zip", 15, zipped([("lab3.cu", code("sol", "c-tom"))])),
                        ("b.zip", 115, zipped([("lab3.cu", code("skel", "c-tom"))]))],
     "graded", 0, "checks failed", "b.zip:lab3.cu (taken as lab3.cu: the newest of 2 uploads"),
    (("Both", "Bo"), [("lab3.zip", 16, zipped([("lab3.cu", code("sol", "c-bo")), ("v2/lab3.cu", code("skel", "c-bo"))]))],
     "rejected", 0, "2 files could be lab3.cu (bothbo_50015_900016_lab3.zip:lab3.cu and "
     "bothbo_50015_900016_lab3.zip:v2/lab3.cu): the export does not say which is the newest", ""),
]
roster = ["id,name,email"]
cz = []
for i, ((last, first), files, status, points, reason, source) in enumerate(canvas):
    sortable = "".join(c for c in (last + ", " + first).lower() if c.isalnum() or c == "_")
    uid = 50000 + i
    late = "_LATE" if last == "Late" else ""
    for fname, att, data in files:
        cz.append(("%s%s_%d_%d_%s" % (sortable, late, uid, 900000 + att, fname), data))
    roster.append('s%03d,"%s %s",s%03d@example.edu' % (i, first, last, i))
    expect(C, "%s %s" % (first, last), status, points, reason, source)
roster.append("s999,Never Submitted,never@example.edu")
expect(C, "Never Submitted", "rejected", 0, "no submission", "")
for rel, data in cz:
    put(C, rel, data)
open(os.path.join(a.out, "canvas.zip"), "wb").write(zipped(cz))
open(os.path.join(a.out, "roster.csv"), "w", encoding="utf-8").write("\r\n".join(roster) + "\r\n")
with open(os.path.join(a.out, "expected.tsv"), "w", encoding="utf-8") as f:
    f.write("\n".join(rows) + "\n")
print("gen-exports: Moodle %d, Canvas %d (+ roster) in %s" % (len(moodle), len(canvas), a.out))
