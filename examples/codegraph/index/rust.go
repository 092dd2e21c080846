package index

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Rust: a unit is a module, named as Rust paths name it from its crate ("shapes::geometry"
// for src/geometry.rs or src/geometry/mod.rs of the crate shapes, "shapes" for src/lib.rs and
// src/main.rs); items are qualified with "::" ("shapes::geometry::Square::area"), a type's
// methods (of its impl blocks, and of traits) under the type or trait.

var rustFamily = &family{
	name:      "rust",
	languages: []string{"rust"},
	unitOf:    rustModule,
	extract:   rustExtract,
	newIndex:  newRustIndex,
}

var cargoName = regexp.MustCompile(`(?m)^\s*name\s*=\s*"([^"]+)"`)

// rustModule is a file's module path: its crate's name (Cargo.toml's package name, or the
// root's directory), then its path under src/.
func rustModule(root string, sf sourceFile) string {
	crateDir, crate := root, filepath.Base(root)
	for dir := filepath.Dir(sf.abs); ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "Cargo.toml")); err == nil {
			crateDir = dir
			if m := cargoName.FindSubmatch(b); m != nil {
				crate = string(m[1])
			}
			break
		}
		if dir == root || filepath.Dir(dir) == dir {
			break
		}
	}
	crate = strings.ReplaceAll(crate, "-", "_")
	rel, _ := filepath.Rel(crateDir, sf.abs)
	rel = strings.TrimSuffix(filepath.ToSlash(rel), ".rs")
	rel = strings.TrimPrefix(rel, "src/")
	parts := []string{crate}
	for _, p := range strings.Split(rel, "/") {
		if p != "mod" && p != "lib" && p != "main" && p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "::")
}

func rustExtract(f *sfile, root *sitter.Node, src []byte, rel string) {
	addDef := func(kind string, nameNode, n *sitter.Node, scope, parent string) string {
		name := text(nameNode, src)
		if name == "" {
			return ""
		}
		line, col := pos(nameNode)
		q := scope + "::" + name
		f.defs = append(f.defs, sdef{kind: kind, name: name, qname: q, parent: parent, line: line, col: col, endLine: endLine(n),
			sig: firstLine(n, src), doc: rustDoc(n, src), exported: strings.HasPrefix(strings.TrimSpace(text(n, src)), "pub")})
		return q
	}
	var walk func(n *sitter.Node, scope, typ, caller string, inFunc bool)
	walk = func(n *sitter.Node, scope, typ, caller string, inFunc bool) {
		switch n.Type() {
		case "function_item", "function_signature_item":
			if !inFunc {
				kind, parent := "func", ""
				if typ != "" {
					kind, parent = "method", typ
				}
				if q := addDef(kind, n.ChildByFieldName("name"), n, scope, parent); q != "" {
					caller = q
				}
			}
			if b := n.ChildByFieldName("body"); b != nil {
				walk(b, scope, typ, caller, true)
			}
			return
		case "struct_item", "enum_item", "union_item", "trait_item", "type_item":
			if inFunc {
				break
			}
			kind := map[string]string{"struct_item": "struct", "enum_item": "enum", "union_item": "union", "trait_item": "trait", "type_item": "type"}[n.Type()]
			q := addDef(kind, n.ChildByFieldName("name"), n, scope, "")
			if n.Type() == "trait_item" {
				if b := n.ChildByFieldName("body"); b != nil {
					for _, c := range children(b) {
						walk(c, q, q, caller, false)
					}
				}
			}
			return
		case "impl_item":
			t := rustTypeName(n.ChildByFieldName("type"), src)
			if t == "" || inFunc {
				break
			}
			q := scope + "::" + t
			if tr := n.ChildByFieldName("trait"); tr != nil {
				l, c := pos(tr)
				f.bases = append(f.bases, sbase{class: q, name: rustTypeName(tr, src), iface: true, line: l, col: c})
			}
			if b := n.ChildByFieldName("body"); b != nil {
				for _, c := range children(b) {
					walk(c, q, q, caller, false)
				}
			}
			return
		case "mod_item":
			if b := n.ChildByFieldName("body"); b != nil && !inFunc {
				q := scope + "::" + text(n.ChildByFieldName("name"), src)
				for _, c := range children(b) {
					walk(c, q, "", q, false)
				}
				return
			}
		case "use_declaration":
			line, col := pos(n)
			for _, u := range rustUses(n.ChildByFieldName("argument"), src, "") {
				path := strings.Replace(u[1], "crate::", strings.SplitN(f.unit, "::", 2)[0]+"::", 1)
				path = strings.Replace(path, "self::", f.unit+"::", 1)
				path = strings.Replace(path, "super::", scopeOf(f.unit)+"::", 1)
				f.imports = append(f.imports, simport{local: u[0], target: path, module: scopeOf(path), line: line, col: col})
			}
			return
		case "call_expression":
			fn := n.ChildByFieldName("function")
			switch {
			case fn == nil:
			case fn.Type() == "identifier":
				line, col := pos(fn)
				f.calls = append(f.calls, scall{caller: caller, class: typ, name: text(fn, src), line: line, col: col})
			case fn.Type() == "scoped_identifier": // Type::new, module::f
				name := fn.ChildByFieldName("name")
				line, col := pos(name)
				f.calls = append(f.calls, scall{caller: caller, class: typ, recv: "path " + text(fn.ChildByFieldName("path"), src), name: text(name, src), line: line, col: col})
			case fn.Type() == "field_expression": // x.m()
				field := fn.ChildByFieldName("field")
				line, col := pos(field)
				recv := "?"
				if v := fn.ChildByFieldName("value"); v != nil && v.Type() == "self" {
					recv = "self"
				}
				f.calls = append(f.calls, scall{caller: caller, class: typ, recv: recv, name: text(field, src), line: line, col: col})
			}
		}
		for _, c := range children(n) {
			walk(c, scope, typ, caller, inFunc)
		}
	}
	walk(root, f.unit, "", f.unit, false)
}

// scopeOf is a path without its last segment.
func scopeOf(q string) string {
	if i := strings.LastIndex(q, "::"); i >= 0 {
		return q[:i]
	}
	return q
}

// rustTypeName is the name of the type an impl is for, without generics.
func rustTypeName(n *sitter.Node, src []byte) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "generic_type":
		return rustTypeName(n.ChildByFieldName("type"), src)
	case "type_identifier", "identifier":
		return text(n, src)
	case "scoped_type_identifier":
		return text(n.ChildByFieldName("name"), src)
	}
	return ""
}

// rustUses lists the names a use declaration binds, with the paths they stand for.
func rustUses(n *sitter.Node, src []byte, prefix string) [][2]string {
	if n == nil {
		return nil
	}
	join := func(p string) string {
		if prefix == "" {
			return p
		}
		return prefix + "::" + p
	}
	switch n.Type() {
	case "identifier", "scoped_identifier", "crate", "self", "super":
		p := join(text(n, src))
		return [][2]string{{p[strings.LastIndex(p, ":")+1:], p}}
	case "use_as_clause":
		return [][2]string{{text(n.ChildByFieldName("alias"), src), join(text(n.ChildByFieldName("path"), src))}}
	case "scoped_use_list":
		p := join(text(n.ChildByFieldName("path"), src))
		return rustUses(n.ChildByFieldName("list"), src, p)
	case "use_list":
		var out [][2]string
		for _, c := range children(n) {
			out = append(out, rustUses(c, src, prefix)...)
		}
		return out
	}
	return nil
}

// rustDoc is the /// comment before an item.
func rustDoc(n *sitter.Node, src []byte) string {
	var lines []string
	for p := n.PrevSibling(); p != nil && p.Type() == "line_comment"; p = p.PrevSibling() {
		s := text(p, src)
		if !strings.HasPrefix(s, "///") {
			break
		}
		lines = append([]string{strings.TrimSpace(strings.TrimPrefix(s, "///"))}, lines...)
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// rustIndex resolves Rust calls.
type rustIndex struct {
	classIndex
	imports map[*sfile]map[string]string
}

func newRustIndex(files []*sfile) resolver {
	x := &rustIndex{classIndex: newClassIndex(files), imports: map[*sfile]map[string]string{}}
	x.sep = "::"
	for _, f := range files {
		m := map[string]string{}
		for _, im := range f.imports {
			if im.local != "" && im.local != "*" {
				m[im.local] = im.target
			}
		}
		x.imports[f] = m
	}
	x.resolveBases(files, x.base)
	return x
}

// lookup resolves a path as written in a module: an item of the module or of a module
// around it, a name a use brought in, or a path from the crate.
func (x *rustIndex) lookup(f *sfile, path string) string {
	first, rest, more := strings.Cut(path, "::")
	var q string
	switch {
	case first == "Self":
		return ""
	case first == "crate":
		q = strings.SplitN(f.unit, "::", 2)[0]
	case first == "self":
		q = f.unit
	case first == "super":
		q = scopeOf(f.unit)
	case x.defs[f.unit+"::"+first] != nil:
		q = f.unit + "::" + first
	case x.imports[f][first] != "":
		q = x.imports[f][first]
	default:
		q = strings.SplitN(f.unit, "::", 2)[0] + "::" + first // a module of the crate
	}
	if more {
		q += "::" + rest
	}
	return q
}

func (x *rustIndex) base(f *sfile, b sbase) (string, string) {
	if t := x.lookup(f, b.name); x.defs[t] != nil {
		return t, "scope"
	}
	return "", ""
}

func (x *rustIndex) resolve(f *sfile, c scall) (string, string) {
	switch {
	case c.recv == "":
		if t := x.lookup(f, c.name); x.defs[t] != nil {
			return t, "scope"
		}
	case c.recv == "self" && c.class != "":
		if m := x.method(c.class, c.name, 0); m != "" {
			return m, "scope"
		}
	case strings.HasPrefix(c.recv, "path "):
		p := strings.TrimPrefix(c.recv, "path ")
		if p == "Self" && c.class != "" {
			if m := x.method(c.class, c.name, 0); m != "" {
				return m, "scope"
			}
			return "", ""
		}
		if t := x.lookup(f, p); t != "" {
			if m := x.method(t, c.name, 0); m != "" {
				return m, "scope"
			}
			if x.defs[t+"::"+c.name] != nil {
				return t + "::" + c.name, "scope"
			}
		}
		return "", ""
	}
	if c.recv != "" && rustStdMethods[c.name] {
		return "", "" // x.len(): the standard library's far more often than the crate's
	}
	return x.byName(c)
}

// rustStdMethods are methods of the standard library's everyday types (Vec, slices, str and
// String, Option and Result, iterators, maps, Rc and RefCell) that a crate's types often
// have too: a call of one on a receiver of unknown type is not guessed by name.
var rustStdMethods = map[string]bool{}

func init() {
	for _, m := range strings.Fields(`len is_empty iter iter_mut into_iter as_ref as_mut as_str as_slice as_bytes
		to_string to_owned to_vec unwrap unwrap_or unwrap_or_else unwrap_or_default expect ok err is_some is_none
		is_ok is_err map map_err and_then ok_or ok_or_else take replace any all collect extend insert remove
		contains contains_key entry first last get_mut chars bytes lines split trim starts_with ends_with
		borrow borrow_mut fmt cmp partial_cmp eq hash from into default`) {
		rustStdMethods[m] = true
	}
}
