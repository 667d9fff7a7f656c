#!/usr/bin/env python3
"""The house's size limits (Docs/Architecture.md, "House rules"), checked by the test command:
a Swift file of Sources/ has at most 350 lines, a function (func, init, deinit, a closure-free
accessor) at most 60 from its declaration to its closing brace. Comments and string literals are
read as blanks, so braces inside them do not count.

Usage: scripts/check-size.py [ROOT] [--max-file N] [--max-function N]
Exit 1 with one line per file or function over its limit; 0 and "size check: ok" otherwise."""
import argparse
import os
import re
import sys

DECL = re.compile(r'^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*'
                  r'(?:(?:public|private|internal|fileprivate|package|open|static|class|final|override|mutating|'
                  r'nonmutating|nonisolated|convenience|required|dynamic|consuming|borrowing|isolated)\s+|'
                  r'(?:private|fileprivate|internal|public|package)\(set\)\s+)*'
                  r'(func\s+[^\s(<]+|init[?!]?|deinit)\b')


def blank_out(text):
    """The text with comments and string contents replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    stack = ['code']          # code | str | raw (multi-line) | interp depth markers
    depth = []                # parenthesis depth inside each interpolation
    while i < n:
        c, mode = text[i], stack[-1]
        if mode == 'code':
            if text.startswith('//', i):
                j = text.find('\n', i)
                j = n if j < 0 else j
                out.append(' ' * (j - i)); i = j; continue
            if text.startswith('/*', i):
                level, j = 1, i + 2
                while j < n and level:
                    if text.startswith('/*', j): level += 1; j += 2
                    elif text.startswith('*/', j): level -= 1; j += 2
                    else: j += 1
                out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j; continue
            if text.startswith('"""', i):
                stack.append('ml'); out.append('"""'); i += 3; continue
            if c == '"':
                stack.append('str'); out.append('"'); i += 1; continue
            if depth and c == '(':
                depth[-1] += 1
            elif depth and c == ')':
                if depth[-1] == 0:
                    depth.pop(); stack.pop(); out.append(')'); i += 1; continue
                depth[-1] -= 1
            out.append(c); i += 1; continue
        # inside a string literal
        if c == '\\' and i + 1 < n:
            if text[i + 1] == '(':
                stack.append('code'); depth.append(0); out.append('  '); i += 2; continue
            out.append('  ' if text[i + 1] != '\n' else ' \n'); i += 2; continue
        if mode == 'ml' and text.startswith('"""', i):
            stack.pop(); out.append('"""'); i += 3; continue
        if mode == 'str' and c in '"\n':
            stack.pop(); out.append(c); i += 1; continue
        out.append('\n' if c == '\n' else ' '); i += 1
    return ''.join(out)


def functions(text):
    """(name, first line, line count) of every function body in a Swift source."""
    lines = blank_out(text).split('\n')
    found, open_decls, depth = [], [], 0
    pending = None            # a declaration whose body brace has not come yet
    for number, line in enumerate(lines, 1):
        m = DECL.match(line)
        if m and pending is None:
            pending = (m.group(1).replace('func ', '').strip(), number)
        for ch in line:
            if ch == '{':
                if pending is not None:
                    open_decls.append((pending[0], pending[1], depth))
                    pending = None
                depth += 1
            elif ch == '}':
                depth -= 1
                if open_decls and open_decls[-1][2] == depth:
                    name, start, _ = open_decls.pop()
                    found.append((name, start, number - start + 1))
        # a protocol requirement or a declaration without a body ends at its line
        if pending is not None and '{' not in line and not line.rstrip().endswith((',', '(', '->')) \
                and re.search(r'\)\s*(?:(?:async|throws|rethrows|throws\([^)]*\))\s*)*(?:->\s*[^{]+)?$', line.strip()) \
                and not re.search(r'\b(where)\b', line):
            pending = None
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('root', nargs='?', default='.')
    ap.add_argument('--max-file', type=int, default=350)
    ap.add_argument('--max-function', type=int, default=60)
    a = ap.parse_args()
    sources = os.path.join(a.root, 'Sources')
    bad = []
    for dirpath, _, names in sorted(os.walk(sources)):
        for name in sorted(names):
            if not name.endswith('.swift'):
                continue
            path = os.path.join(dirpath, name)
            shown = os.path.relpath(path, a.root)
            text = open(path, encoding='utf-8', errors='replace').read()
            count = text.count('\n') + (0 if text.endswith('\n') or not text else 1)
            if count > a.max_file:
                bad.append(f'{shown}: {count} lines (at most {a.max_file}): split it by responsibility')
            for fn, start, length in functions(text):
                if length > a.max_function:
                    bad.append(f'{shown}:{start}: {fn} has {length} lines (at most {a.max_function})')
    for line in bad:
        print(line, file=sys.stderr)
    if bad:
        print(f'size check: {len(bad)} over the house limits (Docs/Architecture.md, "House rules")', file=sys.stderr)
        return 1
    print('size check: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
