#!/usr/bin/env python3
"""Finishes the man page swift-argument-parser's generate-manual writes (Docs/man/slomo.1).

    scripts/man-finish.py MANPAGE README.md

- `.nh` (no hyphenation) and the hyphens of options in running text written `\-`, so that
  --pre-trigger is never broken at a line end (groff and mandoc break after a plain hyphen; `\-`
  prints a plain ASCII hyphen in man-db's groff on Debian and in mandoc);
- each command's "Examples:" lines become a literal display (mdoc would fill them into one
  paragraph), and a long example's continuation lines (ending in a backslash) stay as written;
- EXAMPLES: every command's examples, in one section;
- EXIT STATUS: the statuses from the README's table (the one list of them), instead of `.Ex -std`.
Run by `scripts/dev.sh man`; ManualAndCompletionTests runs it on a fresh page and compares.
"""
import re, sys

page, readme = sys.argv[1], sys.argv[2]
lines = open(page).read().split("\n")

out, examples, i = [], [], 0
while i < len(lines):
    line = lines[i]
    out.append(line)
    if line == ".Os":
        out.append(".nh")
    if line == "Examples:":
        block = []
        i += 1
        while i < len(lines) and lines[i].startswith("  "):
            block.append(lines[i][2:])
            i += 1
        out[-1:] = ["Examples:", ".Bd -literal -offset indent"] + block + [".Ed"]
        examples += block
        continue
    i += 1

option = re.compile(r"(?<![\w\\/.-])(--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)")
out = [l if l.startswith(".") else option.sub(lambda m: m.group(1).replace("-", "\\-"), l) for l in out]
examples = [option.sub(lambda m: m.group(1).replace("-", "\\-"), l) for l in examples]
text = "\n".join(out)
statuses = []
in_table = False
for row in open(readme).read().split("\n"):
    if row.startswith("## Exit statuses"):
        in_table = True
        continue
    if in_table and row.startswith("## "):
        break
    m = re.match(r"\| (\d+) \| (.*) \|$", row) if in_table else None
    if m:
        statuses.append((m.group(1), m.group(2).replace("`", "")))
if not statuses:
    sys.exit("man-finish: no exit status table in " + readme)
section = [".Sh EXAMPLES", ".Bd -literal -offset indent"] + examples + [".Ed", ".Sh \"EXIT STATUS\"", ".Bl -tag -width 6n"]
for code, meaning in statuses:
    section += [".It " + code, meaning]
section.append(".El")
text = text.replace('.Sh "EXIT STATUS"\n.Ex -std', "\n".join(section))
open(page, "w").write(text)
