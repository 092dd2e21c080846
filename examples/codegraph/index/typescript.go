package index

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// JavaScript and TypeScript: a unit is a module, named by its file without the extension
// ("src/util/strings"); relative imports are resolved to those units (a directory to its
// index file).

var typescriptFamily = &family{
	name:      "typescript",
	languages: []string{"javascript", "typescript", "tsx"},
	unitOf: func(root string, sf sourceFile) string {
		rel := sf.rel
		for _, ext := range []string{".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".mjs", ".cjs", ".js"} {
			if strings.HasSuffix(rel, ext) {
				return strings.TrimSuffix(rel, ext)
			}
		}
		return rel
	},
	extract:  tsExtract,
	newIndex: newTSIndex,
}

func tsExtract(f *sfile, root *sitter.Node, src []byte, rel string) {
	dir := path.Dir(f.unit)
	module := func(spec string) string {
		spec = strings.Trim(spec, "'\"`")
		if strings.HasPrefix(spec, ".") {
			spec = path.Clean(path.Join(dir, spec))
			for _, ext := range []string{".js", ".ts", ".mjs", ".tsx", ".jsx"} {
				spec = strings.TrimSuffix(spec, ext)
			}
		}
		return spec
	}
	addDef := func(kind string, nameNode, n *sitter.Node, scope, parent string, exported bool) string {
		name := text(nameNode, src)
		if name == "" {
			return ""
		}
		line, col := pos(nameNode)
		q := scope + "." + name
		f.defs = append(f.defs, sdef{kind: kind, name: name, qname: q, parent: parent, line: line, col: col, endLine: endLine(n),
			sig: firstLine(n, src), doc: jsDoc(n, src), exported: exported})
		return q
	}
	local := func(caller, name, typ string) {
		if f.locals == nil {
			f.locals = map[string]string{}
		}
		f.locals[caller+" "+name] = typ
	}
	var walk func(n *sitter.Node, scope, class, caller string, inFunc, exported bool)
	walk = func(n *sitter.Node, scope, class, caller string, inFunc, exported bool) {
		switch n.Type() {
		case "export_statement":
			if srcNode := n.ChildByFieldName("source"); srcNode != nil { // export { X } from "./x"
				mod := module(text(srcNode, src))
				line, col := pos(n)
				f.imports = append(f.imports, simport{module: mod, line: line, col: col})
				for _, c := range children(n) {
					if c.Type() != "export_clause" {
						continue
					}
					for _, s := range children(c) {
						name := text(s.ChildByFieldName("name"), src)
						alias := text(s.ChildByFieldName("alias"), src)
						if alias == "" {
							alias = name
						}
						f.imports = append(f.imports, simport{local: alias, target: mod + "." + name})
					}
				}
				return
			}
			for _, c := range children(n) {
				walk(c, scope, class, caller, inFunc, true)
			}
			return
		case "import_statement":
			srcNode := n.ChildByFieldName("source")
			mod := module(text(srcNode, src))
			line, col := pos(n)
			f.imports = append(f.imports, simport{module: mod, line: line, col: col})
			for _, clause := range children(n) {
				if clause.Type() != "import_clause" {
					continue
				}
				for _, c := range children(clause) {
					switch c.Type() {
					case "identifier": // import X from "m": its default export
						f.imports = append(f.imports, simport{local: text(c, src), target: mod + ".default"})
					case "namespace_import": // import * as X from "m"
						for _, id := range children(c) {
							f.imports = append(f.imports, simport{local: text(id, src), target: mod})
						}
					case "named_imports":
						for _, s := range children(c) {
							if s.Type() != "import_specifier" {
								continue
							}
							name := text(s.ChildByFieldName("name"), src)
							alias := text(s.ChildByFieldName("alias"), src)
							if alias == "" {
								alias = name
							}
							f.imports = append(f.imports, simport{local: alias, target: mod + "." + name})
						}
					}
				}
			}
			return
		case "function_declaration", "generator_function_declaration":
			if !inFunc {
				if q := addDef("func", n.ChildByFieldName("name"), n, scope, "", exported); q != "" {
					caller = q
				}
			}
			tsParams(n, src, caller, local)
			if b := n.ChildByFieldName("body"); b != nil {
				walk(b, scope, class, caller, true, false)
			}
			return
		case "class_declaration", "abstract_class_declaration", "class":
			nameNode := n.ChildByFieldName("name")
			if inFunc || nameNode == nil {
				break
			}
			q := addDef("class", nameNode, n, scope, "", exported)
			for _, c := range children(n) {
				if c.Type() != "class_heritage" {
					continue
				}
				for _, clause := range children(c) {
					iface := clause.Type() == "implements_clause"
					for _, b := range children(clause) {
						if t := b.Type(); t == "identifier" || t == "type_identifier" || t == "member_expression" || t == "nested_type_identifier" {
							bl, bc := pos(b)
							f.bases = append(f.bases, sbase{class: q, name: text(b, src), iface: iface, line: bl, col: bc})
						}
					}
				}
			}
			if b := n.ChildByFieldName("body"); b != nil {
				for _, m := range children(b) {
					switch m.Type() {
					case "method_definition", "method_signature", "abstract_method_signature":
						mq := addDef("method", m.ChildByFieldName("name"), m, q, q, true)
						tsParams(m, src, mq, local)
						if body := m.ChildByFieldName("body"); body != nil {
							walk(body, q, q, mq, true, false)
						}
					case "public_field_definition", "field_definition":
						name := m.ChildByFieldName("name")
						if name == nil {
							name = m.ChildByFieldName("property")
						}
						if fq := addDef("field", name, m, q, q, true); fq != "" {
							if t := tsTypeName(m.ChildByFieldName("type"), src); t != "" {
								local(q, text(name, src), t)
							}
						}
						if v := m.ChildByFieldName("value"); v != nil {
							walk(v, q, q, q, true, false)
						}
					default:
						walk(m, q, q, caller, true, false)
					}
				}
			}
			return
		case "interface_declaration":
			if inFunc {
				break
			}
			q := addDef("interface", n.ChildByFieldName("name"), n, scope, "", exported)
			for _, c := range children(n) {
				if c.Type() == "extends_type_clause" {
					for _, b := range children(c) {
						bl, bc := pos(b)
						f.bases = append(f.bases, sbase{class: q, name: text(b, src), line: bl, col: bc})
					}
				}
			}
			if b := n.ChildByFieldName("body"); b != nil {
				for _, m := range children(b) {
					switch m.Type() {
					case "method_signature":
						addDef("method", m.ChildByFieldName("name"), m, q, q, true)
					case "property_signature":
						addDef("field", m.ChildByFieldName("name"), m, q, q, true)
					}
				}
			}
			return
		case "type_alias_declaration":
			if !inFunc {
				addDef("type", n.ChildByFieldName("name"), n, scope, "", exported)
			}
			return
		case "enum_declaration":
			if !inFunc {
				addDef("enum", n.ChildByFieldName("name"), n, scope, "", exported)
			}
			return
		case "variable_declarator":
			name, value := n.ChildByFieldName("name"), n.ChildByFieldName("value")
			if name == nil || name.Type() != "identifier" {
				break
			}
			if !inFunc {
				kind := "var"
				if value != nil && (value.Type() == "arrow_function" || value.Type() == "function_expression" || value.Type() == "function") {
					kind = "func"
				}
				if q := addDef(kind, name, n.Parent(), scope, "", exported); q != "" && kind == "func" {
					tsParams(value, src, q, local)
					if b := value.ChildByFieldName("body"); b != nil {
						walk(b, scope, class, q, true, false)
					}
					return
				}
			} else {
				if t := tsTypeName(n.ChildByFieldName("type"), src); t != "" {
					local(caller, text(name, src), t)
				} else if value != nil && value.Type() == "new_expression" {
					local(caller, text(name, src), text(value.ChildByFieldName("constructor"), src))
				}
			}
		case "call_expression":
			fn := n.ChildByFieldName("function")
			switch {
			case fn == nil:
			case fn.Type() == "identifier":
				line, col := pos(fn)
				f.calls = append(f.calls, scall{caller: caller, class: class, name: text(fn, src), line: line, col: col})
			case fn.Type() == "member_expression":
				prop := fn.ChildByFieldName("property")
				line, col := pos(prop)
				f.calls = append(f.calls, scall{caller: caller, class: class, recv: receiver(fn.ChildByFieldName("object"), src), name: text(prop, src), line: line, col: col})
			}
		case "new_expression":
			if c := n.ChildByFieldName("constructor"); c != nil {
				name := c
				recv := "new"
				if c.Type() == "member_expression" {
					name = c.ChildByFieldName("property")
					recv = "new " + receiver(c.ChildByFieldName("object"), src)
				}
				if name != nil && (name.Type() == "identifier" || name.Type() == "property_identifier") {
					line, col := pos(name)
					f.calls = append(f.calls, scall{caller: caller, class: class, recv: recv, name: text(name, src), line: line, col: col})
				}
			}
		case "arrow_function", "function_expression", "function":
			tsParams(n, src, caller, local)
			for _, c := range children(n) {
				walk(c, scope, class, caller, true, false)
			}
			return
		}
		for _, c := range children(n) {
			walk(c, scope, class, caller, inFunc, false)
		}
	}
	walk(root, f.unit, "", f.unit, false, false)
}

// tsParams records the typed parameters of a function as its locals.
func tsParams(fn *sitter.Node, src []byte, caller string, local func(caller, name, typ string)) {
	if fn == nil {
		return
	}
	ps := fn.ChildByFieldName("parameters")
	if ps == nil {
		return
	}
	for _, p := range children(ps) {
		pat := p.ChildByFieldName("pattern")
		if pat != nil && pat.Type() == "identifier" {
			if t := tsTypeName(p.ChildByFieldName("type"), src); t != "" {
				local(caller, text(pat, src), t)
			}
		}
	}
}

// tsTypeName is the name of a type annotation that names a class ("UserService" in
// ": UserService" or ": UserService<T>"), or "".
func tsTypeName(n *sitter.Node, src []byte) string {
	if n == nil {
		return ""
	}
	if n.Type() == "type_annotation" && n.NamedChildCount() > 0 {
		n = n.NamedChild(0)
	}
	switch n.Type() {
	case "type_identifier", "nested_type_identifier":
		return text(n, src)
	case "generic_type":
		return tsTypeName(n.ChildByFieldName("name"), src)
	}
	return ""
}

// jsDoc is the /** */ comment before a declaration (or its export statement).
func jsDoc(n *sitter.Node, src []byte) string {
	for m := n; m != nil; m = m.Parent() {
		if p := m.PrevSibling(); p != nil && p.Type() == "comment" {
			s := text(p, src)
			if strings.HasPrefix(s, "/**") {
				return cleanBlockDoc(s)
			}
			return ""
		}
		if m.Parent() == nil || m.Parent().Type() != "export_statement" {
			return ""
		}
	}
	return ""
}

// cleanBlockDoc is a /** ... */ comment's text.
func cleanBlockDoc(s string) string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "/**"), "*/")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(l, "*"))
		if l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// tsIndex resolves JavaScript and TypeScript calls.
type tsIndex struct {
	classIndex
	units   map[string]bool
	imports map[*sfile]map[string]string
}

func newTSIndex(files []*sfile) resolver {
	x := &tsIndex{classIndex: newClassIndex(files), units: map[string]bool{}, imports: map[*sfile]map[string]string{}}
	for _, f := range files {
		x.units[f.unit] = true
	}
	for _, f := range files {
		m := map[string]string{}
		for _, im := range f.imports {
			if im.local != "" {
				m[im.local] = x.unitName(im.target)
			}
		}
		x.imports[f] = m
	}
	x.resolveBases(files, x.base)
	return x
}

// unitName writes a target "dir/mod.name" with the unit the module names: a directory's
// index module.
func (x *tsIndex) unitName(target string) string {
	mod, name := target, ""
	if i := strings.LastIndexByte(target, '.'); i > strings.LastIndexByte(target, '/') {
		mod, name = target[:i], target[i:]
	}
	if !x.units[mod] && x.units[mod+"/index"] {
		mod += "/index"
	}
	return mod + name
}

// lookup resolves a name as written in a file's module scope: a declaration of the module,
// or an import.
func (x *tsIndex) lookup(f *sfile, name string) (string, string) {
	first, rest, dotted := strings.Cut(name, ".")
	q := f.unit + "." + first
	if x.defs[q] == nil {
		t, ok := x.imports[f][first]
		if !ok {
			return "", ""
		}
		q = x.reexport(t, 0)
	}
	if dotted {
		q += "." + rest
	}
	return q, "scope"
}

// reexport follows a name a module imports and exports again ("export { X } from './x'" or
// "import { X } from './x'; export { X }"), to its declaration.
func (x *tsIndex) reexport(q string, depth int) string {
	if x.defs[q] != nil || depth > 5 {
		return q
	}
	i := strings.LastIndexByte(q, '.')
	if i < 0 {
		return q
	}
	for f, m := range x.imports {
		if f.unit == q[:i] {
			if t, ok := m[q[i+1:]]; ok {
				return x.reexport(t, depth+1)
			}
		}
	}
	return q
}

func (x *tsIndex) base(f *sfile, b sbase) (string, string) {
	if t, how := x.lookup(f, b.name); t != "" {
		return t, how
	}
	return "", ""
}

func (x *tsIndex) resolve(f *sfile, c scall) (string, string) {
	switch {
	case c.recv == "":
		if t, how := x.lookup(f, c.name); t != "" {
			return t, how
		}
	case c.recv == "new":
		if t, how := x.lookup(f, c.name); t != "" {
			return t, how
		}
	case strings.HasPrefix(c.recv, "new "):
		if t, how := x.lookup(f, strings.TrimPrefix(c.recv, "new ")+"."+c.name); t != "" {
			return t, how
		}
	case c.recv == "this" && c.class != "":
		if m := x.method(c.class, c.name, 0); m != "" {
			return m, "scope"
		}
	case c.recv == "super" && c.class != "":
		for _, b := range x.bases[c.class] {
			if m := x.method(b, c.name, 0); m != "" {
				return m, "scope"
			}
		}
	case c.recv != "?":
		typ, ok := f.locals[c.caller+" "+c.recv]
		if !ok && strings.HasPrefix(c.recv, "this.") && c.class != "" {
			typ, ok = f.locals[c.class+" "+strings.TrimPrefix(c.recv, "this.")]
		}
		if strings.HasSuffix(c.recv, "()") {
			typ, ok = strings.TrimSuffix(c.recv, "()"), true
		}
		if ok {
			if class, _ := x.lookup(f, typ); class != "" {
				if m := x.method(class, c.name, 0); m != "" {
					return m, "scope"
				}
			}
		} else if t, _ := x.lookup(f, c.recv); t != "" {
			if x.defs[t] != nil && (x.defs[t].kind == "class" || x.defs[t].kind == "interface") {
				if m := x.method(t, c.name, 0); m != "" {
					return m, "scope" // a static method
				}
			} else if x.defs[t+"."+c.name] != nil || !x.units[t] && x.defs[t] == nil {
				return t + "." + c.name, "scope" // a namespace import's member, or outside the project
			}
		}
	}
	return x.byName(c)
}
