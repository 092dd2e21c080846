"""Where rustc says each call in a Rust crate goes: the reference codegraph's Rust calls are
compared with (langref.Compare). It compiles the crate at ROOT (src/lib.rs, with the edition
and every feature its Cargo.toml names; no dependencies) with Debian's rustc and
-Zsave-analysis, whose JSON has the crate's definitions and every name that refers to one
after type checking (RUSTC_BOOTSTRAP=1 allows the -Z flag on a stable compiler; rustc 1.63
still has it, later ones dropped it). For every function or method name in the crate's
files that is called (followed by "(", or a turbofish and "(") it prints one JSON object a
line:

  {"file": "src/ast/parse.rs", "line": 53, "col": 8, "name": "bump", "targets": [["src/ast/parse.rs", 560]]}

with the file, line and column (1-based, bytes) of the name called, and the file and line of
the name of its definition inside ROOT; "outside": true instead when rustc resolved it to a
function of another crate (std, core, alloc), so that codegraph's edge to a declaration of
the crate there is wrong. rustc records a call of a trait's method as a call of the trait's
declaration (which implementation runs depends on the type): such a call goes to the
declaration and to each of the crate's implementations of it, and a call of another crate's
trait's method that the crate implements (fmt of Display) goes to neither side.

usage: RUSTC=/usr/bin/rustc python3 rustc_calls.py ROOT
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib

# After a called name: optional white space and turbofish, then the parenthesis.
CALLED = re.compile(rb"\s*(::\s*<[^;{}()]*>\s*)?\(")


def main():
    root = os.path.realpath(sys.argv[1])
    with open(os.path.join(root, "Cargo.toml"), "rb") as f:
        cargo = tomllib.load(f)
    pkg = cargo["package"]
    args = ["--crate-name", pkg["name"].replace("-", "_"), "--crate-type", "lib",
            "--edition", str(pkg.get("edition", "2015")), "-Zsave-analysis", "-Zno-codegen",
            "--cap-lints", "allow"]
    for feature in cargo.get("features", {}):
        args += ["--cfg", 'feature="%s"' % feature]
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, RUSTC_BOOTSTRAP="1")
        subprocess.run([os.environ.get("RUSTC", "rustc")] + args + ["--out-dir", out, os.path.join(root, "src", "lib.rs")],
                       env=env, check=True, stdout=sys.stderr)
        analysis = os.path.join(out, "save-analysis")
        with open(os.path.join(analysis, os.listdir(analysis)[0])) as f:
            data = json.load(f)

    sources = {}

    def source(path):
        if path not in sources:
            with open(path, "rb") as f:
                b = f.read()
            starts = [0] + [i + 1 for i, c in enumerate(b) if c == 10]
            sources[path] = (b, starts)
        return sources[path]

    def place(span):
        """The file (relative to root), line and byte column of a span, None outside root."""
        path = os.path.realpath(os.path.join(root, span["file_name"]))
        if not path.startswith(root + os.sep):
            return None
        b, starts = source(path)
        line = span["line_start"]
        # rustc's columns count characters: to bytes, through the line's text
        text = b[starts[line - 1]:].split(b"\n", 1)[0].decode()
        col = len(text[:span["column_start"] - 1].encode()) + 1
        end = len(text[:span["column_end"] - 1].encode()) + 1
        return os.path.relpath(path, root), line, col, path, starts[line - 1] + end - 1

    defs, names = {}, {}
    for d in data["defs"]:
        if d["kind"] in ("Function", "Method") and d["id"]["krate"] == 0:
            p = place(d["span"])
            if p is not None:
                defs[d["id"]["index"]] = [p[0], p[1]]
                names[d["id"]["index"]] = d["name"]
    # A trait's methods, and the crate's implementations of each (by trait and name); the
    # names of the methods the crate implements for other crates' traits (Display::fmt).
    trait_of = {}
    for d in data["defs"]:
        if d["kind"] == "Trait" and d["id"]["krate"] == 0:
            for c in d.get("children") or []:
                trait_of[c["index"]] = d["id"]["index"]
    impl_trait = {r["kind"]["Impl"]["id"]: r["to"] for r in data["relations"] if "Impl" in r["kind"]}
    impls, foreign = {}, set()
    for i in data["impls"]:
        to = impl_trait.get(i["id"])
        if i["kind"] != "Direct" or to is None:
            continue
        for c in i["children"]:
            if c["krate"] != 0 or c["index"] not in names:
                continue
            if to["krate"] == 0:
                impls.setdefault((to["index"], names[c["index"]]), []).append(defs[c["index"]])
            else:
                foreign.add(names[c["index"]])

    sites = {}
    for r in data["refs"]:
        if r["kind"] != "Function":
            continue
        p = place(r["span"])
        if p is None:
            continue
        rel, line, col, path, end = p
        b, starts = source(path)
        if not CALLED.match(b, end):
            continue  # a function named, not called: a path in a use, a function passed
        name = b[starts[line - 1] + col - 1:end].decode()
        site = sites.setdefault((rel, line, col), {"file": rel, "line": line, "col": col, "name": name, "targets": []})
        ref = r["ref_id"]
        if ref["krate"] != 0:
            # Another crate's function, or its trait's method, which may be the crate's
            # implementation of it: which one, rustc leaves to the type, so neither.
            if name not in foreign:
                site["outside"] = True
            continue
        if ref["index"] not in defs:
            continue
        targets = [defs[ref["index"]]]
        if ref["index"] in trait_of:
            # rustc names the trait's method; its implementations in the crate go too.
            targets += impls.get((trait_of[ref["index"]], name), [])
        for t in targets:
            if t not in site["targets"]:
                site["targets"].append(t)
    for key in sorted(sites):
        print(json.dumps(sites[key]))


if __name__ == "__main__":
    main()
