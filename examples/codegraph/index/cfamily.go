package index

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// C and C++: a unit is a file ("src/util.c"); names are the linker's, qualified by C++'s
// namespaces and classes with "::" ("parse_args", "geo::Square::area"), so that a call made
// in one file finds the definition in another as the linker does. A call resolves to a
// definition in its own file, to the methods of its class (this->m(), m() in a method,
// Class::m()), and otherwise by name when the project defines it once.

var cFamily = &family{
	name:      "c",
	languages: []string{"c", "cpp"},
	unitOf:    func(root string, sf sourceFile) string { return sf.rel },
	extract:   cExtract,
	newIndex:  newCIndex,
}

func cExtract(f *sfile, root *sitter.Node, src []byte, rel string) {
	addDef := func(kind, name string, nameNode, n *sitter.Node, parent string) string {
		if name == "" {
			return ""
		}
		line, col := pos(nameNode)
		f.defs = append(f.defs, sdef{kind: kind, name: name[strings.LastIndex(name, ":")+1:], qname: name, parent: parent, line: line, col: col,
			endLine: endLine(n), sig: firstLine(n, src), doc: cDoc(n, src), exported: !strings.HasPrefix(strings.TrimSpace(text(n, src)), "static")})
		return name
	}
	join := func(scope, name string) string {
		if scope == "" {
			return name
		}
		return scope + "::" + name
	}
	var walk func(n *sitter.Node, scope, class, caller string, inFunc bool)
	walk = func(n *sitter.Node, scope, class, caller string, inFunc bool) {
		switch n.Type() {
		case "namespace_definition":
			if b := n.ChildByFieldName("body"); b != nil {
				ns := join(scope, text(n.ChildByFieldName("name"), src))
				for _, c := range children(b) {
					walk(c, ns, "", caller, false)
				}
			}
			return
		case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
			nameNode, body := n.ChildByFieldName("name"), n.ChildByFieldName("body")
			if nameNode == nil || body == nil || inFunc {
				break
			}
			kind := map[string]string{"class_specifier": "class", "struct_specifier": "struct", "union_specifier": "union", "enum_specifier": "enum"}[n.Type()]
			q := addDef(kind, join(scope, text(nameNode, src)), nameNode, n, "")
			for _, c := range children(n) {
				if c.Type() == "base_class_clause" {
					for _, b := range children(c) {
						if t := b.Type(); t == "type_identifier" || t == "qualified_identifier" {
							l, cc := pos(b)
							f.bases = append(f.bases, sbase{class: q, name: text(b, src), line: l, col: cc})
						}
					}
				}
			}
			for _, c := range children(body) {
				walk(c, q, q, caller, false)
			}
			return
		case "function_definition":
			d := cDeclarator(n.ChildByFieldName("declarator"))
			if d != nil && !inFunc {
				name := text(d, src)
				owner := class
				if strings.Contains(name, "::") { // Class::method, defined outside its class
					owner = join(scope, name[:strings.LastIndex(name, "::")])
					name = join(scope, name)
				} else {
					name = join(scope, name)
				}
				kind := "func"
				if owner != "" {
					kind = "method"
				}
				if q := addDef(kind, name, d, n, owner); q != "" {
					caller = q
				}
				class = owner
			}
			if b := n.ChildByFieldName("body"); b != nil {
				walk(b, scope, class, caller, true)
			}
			return
		case "field_declaration":
			if class != "" && !inFunc {
				if d := cDeclarator(n.ChildByFieldName("declarator")); d != nil && n.ChildByFieldName("declarator").Type() == "function_declarator" {
					addDef("method", join(class, text(d, src)), d, n, class)
					return
				}
			}
		case "preproc_include":
			if p := n.ChildByFieldName("path"); p != nil {
				line, col := pos(n)
				f.imports = append(f.imports, simport{module: strings.Trim(text(p, src), "\"<>"), line: line, col: col})
			}
			return
		case "call_expression":
			fn := n.ChildByFieldName("function")
			switch {
			case fn == nil:
			case fn.Type() == "identifier":
				line, col := pos(fn)
				f.calls = append(f.calls, scall{caller: caller, class: class, name: text(fn, src), line: line, col: col})
			case fn.Type() == "qualified_identifier":
				name := fn.ChildByFieldName("name")
				line, col := pos(name)
				f.calls = append(f.calls, scall{caller: caller, class: class, recv: "path " + text(fn.ChildByFieldName("scope"), src), name: text(name, src), line: line, col: col})
			case fn.Type() == "field_expression":
				field := fn.ChildByFieldName("field")
				line, col := pos(field)
				recv := "?"
				if a := fn.ChildByFieldName("argument"); a != nil && a.Type() == "this" {
					recv = "this"
				}
				f.calls = append(f.calls, scall{caller: caller, class: class, recv: recv, name: text(field, src), line: line, col: col})
			}
		}
		for _, c := range children(n) {
			walk(c, scope, class, caller, inFunc)
		}
	}
	walk(root, "", "", f.unit, false)
}

// cDeclarator is the name a declarator declares: through pointers, references and function
// declarators, to the identifier (or Class::name).
func cDeclarator(n *sitter.Node) *sitter.Node {
	for n != nil {
		switch n.Type() {
		case "identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name":
			return n
		case "function_declarator", "pointer_declarator", "reference_declarator", "parenthesized_declarator":
			d := n.ChildByFieldName("declarator")
			if d == nil && n.NamedChildCount() > 0 {
				d = n.NamedChild(int(n.NamedChildCount()) - 1)
			}
			n = d
		default:
			return nil
		}
	}
	return nil
}

// cDoc is the comment right before a definition.
func cDoc(n *sitter.Node, src []byte) string {
	p := n.PrevSibling()
	if p == nil || p.Type() != "comment" || int(p.EndPoint().Row)+1 < int(n.StartPoint().Row) {
		return ""
	}
	s := text(p, src)
	if strings.HasPrefix(s, "/*") {
		return cleanBlockDoc("/**" + strings.TrimPrefix(strings.TrimPrefix(s, "/**"), "/*"))
	}
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(s, "///"), "//")) + "\n"
}

// cIndex resolves C and C++ calls.
type cIndex struct {
	classIndex
	byFile map[string]map[string]string // file -> name -> its definition there
}

func newCIndex(files []*sfile) resolver {
	x := &cIndex{classIndex: newClassIndex(files), byFile: map[string]map[string]string{}}
	x.sep = "::"
	for _, f := range files {
		m := map[string]string{}
		for _, d := range f.defs {
			m[d.qname] = d.qname
		}
		x.byFile[f.rel] = m
	}
	x.resolveBases(files, x.base)
	return x
}

func (x *cIndex) base(f *sfile, b sbase) (string, string) {
	if x.defs[b.name] != nil {
		return b.name, "scope"
	}
	if s := scopeOf(b.class); s != b.class && x.defs[s+"::"+b.name] != nil {
		return s + "::" + b.name, "scope"
	}
	return "", ""
}

func (x *cIndex) resolve(f *sfile, c scall) (string, string) {
	switch {
	case c.recv == "":
		if c.class != "" {
			if m := x.method(c.class, c.name, 0); m != "" {
				return m, "scope"
			}
		}
		for s := c.caller; strings.Contains(s, "::"); s = scopeOf(s) { // the enclosing namespaces
			if q := scopeOf(s) + "::" + c.name; x.defs[q] != nil && x.defs[q].kind == "func" {
				return q, "scope"
			}
		}
		if _, ok := x.byFile[f.rel][c.name]; ok {
			return c.name, "scope"
		}
	case c.recv == "this" && c.class != "":
		if m := x.method(c.class, c.name, 0); m != "" {
			return m, "scope"
		}
	case strings.HasPrefix(c.recv, "path "):
		p := strings.TrimPrefix(c.recv, "path ")
		if m := x.method(p, c.name, 0); m != "" {
			return m, "scope"
		}
		if x.defs[p+"::"+c.name] != nil {
			return p + "::" + c.name, "scope"
		}
		return "", ""
	}
	return x.byName(c)
}
