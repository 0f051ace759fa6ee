#!/usr/bin/env python3
"""check-sections.py [KIT] - every section a lab table sends a student to exists.

The grader's `Next:` line and report page link each kernel to the section of its
course page that teaches it (lab_table.h: kernel_spec.section, "Course:
course/lab8.html#reduce"). A section the page does not have sends the student to
the top of the page: this fails `make check-docs` for each one, naming the table's
file and line and the page. A section is an explicit id on the page: {#id} on a
heading, span or div, or id="id" in raw HTML.
"""
import pathlib
import re
import sys


def ids_of(page):
    text = page.read_text(encoding="utf-8")
    return set(re.findall(r"\{#([A-Za-z][\w-]*)", text)) | set(re.findall(r'\bid="([^"]+)"', text))


def main():
    kit = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    tables = sorted((kit / "grader" / "labs").glob("lab[0-9]*.c"))
    if not tables:
        print(f"check-sections: no lab tables in {kit}/grader/labs", file=sys.stderr)
        return 2
    problems, seen = [], 0
    for table in tables:
        page = kit / "docs" / f"{table.stem}.md"
        ids = ids_of(page) if page.exists() else set()
        for no, line in enumerate(table.read_text(encoding="utf-8").splitlines(), 1):
            for section in re.findall(r'\.section\s*=\s*"([^"]*)"', line):
                seen += 1
                if not page.exists():
                    problems.append(f"{table}:{no}: section '{section}': no page {page}")
                elif section not in ids:
                    problems.append(f"{table}:{no}: section '{section}' is not on {page} "
                                    f"(add {{#{section}}} to the heading or paragraph that teaches it)")
    for p in problems:
        print(f"check-sections: {p}", file=sys.stderr)
    if not problems:
        print(f"check-sections: {seen} sections of {len(tables)} lab tables, each on its page")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
