"""Where clang says each call in some C and C++ files goes: the reference codegraph's C and
C++ calls are compared with (langref.Compare). It parses every .c, .cc and .cpp file under
ROOT with libclang, finds the definitions of the project's functions and methods across all
of them (as the linker would join them, by USR), and for every call in those files prints
one JSON object a line:

  {"file": "lexer.c", "line": 53, "col": 8, "name": "ts_lexer__advance", "targets": [["lexer.c", 160]]}

with the file, line and column (1-based, bytes) of the name called, and the file and line of
its definition inside ROOT (none when it is defined outside, or only declared).

usage: python3 clang_calls.py ROOT [INCLUDE_DIR...]
"""

import json
import os
import sys

import clang.cindex as ci

for lib in ("/usr/lib/llvm-14/lib/libclang-14.so.1", "/usr/lib/x86_64-linux-gnu/libclang-14.so.1"):
    if os.path.exists(lib):
        ci.Config.set_library_file(lib)
        break

DEFS = {ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD, ci.CursorKind.CONSTRUCTOR,
        ci.CursorKind.DESTRUCTOR, ci.CursorKind.FUNCTION_TEMPLATE}


def main():
    root = os.path.realpath(sys.argv[1])
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(n for n in dirnames if not n.startswith("."))
        for n in sorted(filenames):
            if n.endswith((".c", ".cc", ".cpp", ".cxx")):
                files.append(os.path.join(dirpath, n))
    index = ci.Index.create()
    tus = []
    for f in files:
        args = ["-std=c++17"] if not f.endswith(".c") else ["-std=gnu11"]
        includes = ["-I" + root] + ["-I" + d for d in sys.argv[2:]]
        tus.append((f, index.parse(f, args=args + includes)))
    inside = lambda loc: loc.file is not None and os.path.realpath(loc.file.name).startswith(root + os.sep)
    rel = lambda loc: os.path.relpath(os.path.realpath(loc.file.name), root)
    defs = {}
    for _, tu in tus:
        for c in tu.cursor.walk_preorder():
            if c.kind in DEFS and c.is_definition() and inside(c.location):
                defs.setdefault(c.get_usr(), []).append([rel(c.location), c.location.line])
    for f, tu in tus:
        for c in tu.cursor.walk_preorder():
            if c.kind != ci.CursorKind.CALL_EXPR or not inside(c.location) or os.path.realpath(c.location.file.name) != f:
                continue
            name = None
            for d in c.walk_preorder():
                if d.kind in (ci.CursorKind.DECL_REF_EXPR, ci.CursorKind.MEMBER_REF_EXPR) and d.spelling == c.spelling:
                    name = d
                    break
            if name is None or c.referenced is None:
                continue
            loc = name.location
            if name.kind == ci.CursorKind.MEMBER_REF_EXPR:
                # its location is the member's name, after the -> or .
                pass
            targets = defs.get(c.referenced.get_usr(), [])
            print(json.dumps({"file": os.path.relpath(f, root), "line": loc.line, "col": loc.column,
                              "name": c.spelling, "targets": targets}))


if __name__ == "__main__":
    main()
