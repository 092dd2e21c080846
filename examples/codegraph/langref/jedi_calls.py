"""Where jedi says each call in some Python files goes: the reference codegraph's Python
calls are compared with (langref.Compare). For every call in the files under ROOT/DIR... it
asks jedi, with ROOT as the project, for the definitions of the name called, following
imports, and prints one JSON object a line:

  {"file": "json/decoder.py", "line": 53, "col": 8, "targets": [["re/__init__.py", 227]]}

with the file, line and column (1-based, bytes) of the name called, and the file and line of
each definition jedi found inside ROOT.

usage: python3 jedi_calls.py ROOT DIR...
"""

import ast
import json
import os
import sys

import jedi


def calls(tree):
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name):
            yield f.lineno, f.col_offset, f.id
        elif isinstance(f, ast.Attribute) and f.end_lineno is not None:
            yield f.end_lineno, f.end_col_offset - len(f.attr), f.attr


def main():
    root = os.path.realpath(sys.argv[1])
    project = jedi.Project(root, smart_sys_path=False)
    for d in sys.argv[2:]:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = sorted(n for n in dirnames if not n.startswith(".") and n != "__pycache__")
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as fh:
                    code = fh.read()
                try:
                    tree = ast.parse(code)
                except SyntaxError:
                    continue
                script = jedi.Script(code, path=path, project=project)
                lines = code.split("\n")
                for line, col, called in calls(tree):
                    # ast's columns count UTF-8 bytes; jedi's count characters.
                    chars = len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))
                    targets = []
                    try:
                        defs = script.goto(line, chars, follow_imports=True)
                    except Exception:
                        defs = []
                    for d in defs:
                        if d.module_path is None or d.line is None:
                            continue
                        p = os.path.realpath(str(d.module_path))
                        if p.startswith(root + os.sep):
                            targets.append([os.path.relpath(p, root), d.line])
                    print(json.dumps({"file": os.path.relpath(path, root), "line": line, "col": col + 1,
                                      "name": called, "targets": targets}))


if __name__ == "__main__":
    main()
