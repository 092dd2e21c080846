package index

import (
	"bytes"
	"os"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Java: a unit is a package, as its files declare it ("com.example.user"); names are
// qualified by it ("com.example.user.UserService.createUser"), nested classes by their
// class. A construction (new X()) calls X's constructor, X.<init>, where X declares one, and
// X itself where it does not.

var javaFamily = &family{
	name:      "java",
	languages: []string{"java"},
	unitOf:    javaPackage,
	extract:   javaExtract,
	newIndex:  newJavaIndex,
}

var packageDecl = regexp.MustCompile(`(?m)^\s*package\s+([\w.]+)\s*;`)

func javaPackage(root string, sf sourceFile) string {
	b, err := os.ReadFile(sf.abs)
	if err == nil {
		if len(b) > 64<<10 {
			b = b[:64<<10]
		}
		// Skip the comments before the declaration (a licence, say) by looking past them.
		if m := packageDecl.FindSubmatch(stripBlockComments(b)); m != nil {
			return string(m[1])
		}
	}
	dir := strings.TrimSuffix(sf.rel, "/"+lastSegment(sf.rel))
	if dir == sf.rel {
		return "(default)"
	}
	return strings.ReplaceAll(dir, "/", ".")
}

func lastSegment(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func stripBlockComments(b []byte) []byte {
	var out []byte
	for {
		i := bytes.Index(b, []byte("/*"))
		if i < 0 {
			return append(out, b...)
		}
		out = append(out, b[:i]...)
		j := bytes.Index(b[i+2:], []byte("*/"))
		if j < 0 {
			return out
		}
		b = b[i+2+j+2:]
	}
}

func javaExtract(f *sfile, root *sitter.Node, src []byte, rel string) {
	local := func(scope, name, typ string) {
		if f.locals == nil {
			f.locals = map[string]string{}
		}
		f.locals[scope+" "+name] = typ
	}
	addDef := func(kind, name string, nameNode, n *sitter.Node, scope, parent string) string {
		if name == "" {
			return ""
		}
		line, col := pos(nameNode)
		q := scope + "." + name
		f.defs = append(f.defs, sdef{kind: kind, name: name, qname: q, parent: parent, line: line, col: col, endLine: endLine(n),
			sig: firstLine(n, src), doc: javaDoc(n, src), exported: strings.Contains(firstLine(n, src), "public")})
		return q
	}
	params := func(n *sitter.Node, caller string) {
		if ps := n.ChildByFieldName("parameters"); ps != nil {
			for _, p := range children(ps) {
				if t, name := javaTypeName(p.ChildByFieldName("type"), src), text(p.ChildByFieldName("name"), src); t != "" && name != "" {
					local(caller, name, t)
				}
			}
		}
	}
	var walk func(n *sitter.Node, scope, class, caller string)
	walk = func(n *sitter.Node, scope, class, caller string) {
		switch n.Type() {
		case "import_declaration":
			s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(text(n, src), "import")), ";"))
			static := strings.HasPrefix(s, "static ")
			s = strings.TrimSpace(strings.TrimPrefix(s, "static "))
			line, col := pos(n)
			mod := s
			if strings.HasSuffix(s, ".*") {
				mod = strings.TrimSuffix(s, ".*")
				f.imports = append(f.imports, simport{local: "*", target: mod})
			} else {
				f.imports = append(f.imports, simport{local: lastDot(s), target: s})
				mod = s[:max(strings.LastIndexByte(s, '.'), 0)]
			}
			if static {
				mod = mod[:max(strings.LastIndexByte(mod, '.'), 0)]
			}
			f.imports = append(f.imports, simport{module: mod, line: line, col: col})
			return
		case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
			if strings.HasSuffix(scope, ".") {
				break // a local class: its calls are its method's
			}
			nameNode := n.ChildByFieldName("name")
			kind := map[string]string{"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
				"record_declaration": "class", "annotation_type_declaration": "interface"}[n.Type()]
			parent := ""
			if class != "" && scope == class {
				parent = class
			}
			q := addDef(kind, text(nameNode, src), nameNode, n, scope, parent)
			if q == "" {
				break
			}
			if sup := n.ChildByFieldName("superclass"); sup != nil {
				for _, t := range children(sup) {
					if name := javaTypeName(t, src); name != "" {
						l, c := pos(t)
						f.bases = append(f.bases, sbase{class: q, name: name, line: l, col: c})
					}
				}
			}
			for _, c := range children(n) {
				if c.Type() == "super_interfaces" || c.Type() == "extends_interfaces" {
					for _, tl := range children(c) {
						for _, t := range children(tl) {
							if name := javaTypeName(t, src); name != "" {
								l, cc := pos(t)
								f.bases = append(f.bases, sbase{class: q, name: name, iface: c.Type() == "super_interfaces", line: l, col: cc})
							}
						}
					}
				}
			}
			if b := n.ChildByFieldName("body"); b != nil {
				for _, m := range children(b) {
					walk(m, q, q, q)
				}
			}
			return
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
			nameNode := n.ChildByFieldName("name")
			name := text(nameNode, src)
			if n.Type() != "method_declaration" {
				name = "<init>"
			}
			if class != "" && scope == class && nameNode != nil {
				caller = addDef("method", name, nameNode, n, class, class)
			}
			params(n, caller)
			if b := n.ChildByFieldName("body"); b != nil {
				walk(b, scope+".", class, caller) // a scope of its own: local classes are no members
			}
			return
		case "field_declaration":
			t := javaTypeName(n.ChildByFieldName("type"), src)
			for _, d := range children(n) {
				if d.Type() == "variable_declarator" {
					nameNode := d.ChildByFieldName("name")
					if class != "" && scope == class {
						addDef("field", text(nameNode, src), nameNode, n, class, class)
						if t != "" {
							local(class, text(nameNode, src), t)
						}
					}
					if v := d.ChildByFieldName("value"); v != nil {
						walk(v, scope, class, caller)
					}
				}
			}
			return
		case "local_variable_declaration":
			t := javaTypeName(n.ChildByFieldName("type"), src)
			for _, d := range children(n) {
				if d.Type() == "variable_declarator" {
					name := text(d.ChildByFieldName("name"), src)
					v := d.ChildByFieldName("value")
					switch {
					case t != "" && t != "var":
						local(caller, name, t)
					case v != nil && v.Type() == "object_creation_expression":
						local(caller, name, javaTypeName(v.ChildByFieldName("type"), src))
					}
				}
			}
		case "method_invocation":
			nameNode := n.ChildByFieldName("name")
			line, col := pos(nameNode)
			recv := ""
			if o := n.ChildByFieldName("object"); o != nil {
				recv = receiver(o, src)
				if o.Type() == "super" {
					recv = "super"
				}
			}
			f.calls = append(f.calls, scall{caller: caller, class: class, recv: recv, name: text(nameNode, src), line: line, col: col})
		case "object_creation_expression":
			if t := n.ChildByFieldName("type"); t != nil {
				at := t
				if t.Type() == "generic_type" && t.NamedChildCount() > 0 {
					at = t.NamedChild(0)
				}
				if at.Type() == "scoped_type_identifier" && at.NamedChildCount() > 0 {
					at = at.NamedChild(int(at.NamedChildCount()) - 1)
				}
				line, col := pos(at)
				f.calls = append(f.calls, scall{caller: caller, class: class, recv: "new", name: javaTypeName(t, src), line: line, col: col})
			}
		case "explicit_constructor_invocation": // this(...) or super(...)
			if c := n.ChildByFieldName("constructor"); c != nil {
				line, col := pos(c)
				f.calls = append(f.calls, scall{caller: caller, class: class, recv: "ctor " + c.Type(), name: "<init>", line: line, col: col})
			}
		}
		for _, c := range children(n) {
			walk(c, scope, class, caller)
		}
	}
	walk(root, f.unit, "", f.unit)
}

func lastDot(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }

// javaTypeName is the class a type names, without type arguments ("List" for List<String>,
// "Map.Entry"), or "" for a primitive or array.
func javaTypeName(n *sitter.Node, src []byte) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "type_identifier", "scoped_type_identifier":
		return text(n, src)
	case "generic_type":
		if n.NamedChildCount() > 0 {
			return javaTypeName(n.NamedChild(0), src)
		}
	}
	return ""
}

// javaDoc is the /** */ comment before a declaration.
func javaDoc(n *sitter.Node, src []byte) string {
	if p := n.PrevSibling(); p != nil && p.Type() == "block_comment" {
		if s := text(p, src); strings.HasPrefix(s, "/**") {
			return cleanBlockDoc(s)
		}
	}
	return ""
}

// javaIndex resolves Java calls.
type javaIndex struct {
	classIndex
	packages map[string]bool
	imports  map[*sfile]map[string]string
	stars    map[*sfile][]string
}

func newJavaIndex(files []*sfile) resolver {
	x := &javaIndex{classIndex: newClassIndex(files), packages: map[string]bool{}, imports: map[*sfile]map[string]string{}, stars: map[*sfile][]string{}}
	for _, f := range files {
		x.packages[f.unit] = true
		m := map[string]string{}
		for _, im := range f.imports {
			switch im.local {
			case "":
			case "*":
				x.stars[f] = append(x.stars[f], im.target)
			default:
				m[im.local] = im.target
			}
		}
		x.imports[f] = m
	}
	x.resolveBases(files, x.base)
	return x
}

// typeOf resolves a class name as written in a class: a member class of it or of the
// classes around it, one of the package, an import, a class of a package imported whole, or
// a qualified name.
func (x *javaIndex) typeOf(f *sfile, class, name string) string {
	first, rest, dotted := strings.Cut(name, ".")
	q := ""
	for c := class; c != "" && q == ""; c = outer(c, f.unit) {
		if x.defs[c+"."+first] != nil {
			q = c + "." + first
		} else if m := x.member(c, first, 0); m != "" {
			q = m
		}
	}
	switch {
	case q != "":
	case x.defs[f.unit+"."+first] != nil:
		q = f.unit + "." + first
	case x.imports[f][first] != "":
		q = x.imports[f][first]
	default:
		for _, p := range x.stars[f] {
			if x.defs[p+"."+first] != nil {
				q = p + "." + first
				break
			}
		}
	}
	if q == "" {
		if dotted && x.defs[name] != nil {
			return name // fully qualified
		}
		return ""
	}
	if dotted {
		q += "." + rest
	}
	return q
}

// member is a member class of a class or of its bases.
func (x *javaIndex) member(class, name string, depth int) string {
	if depth > 10 {
		return ""
	}
	for _, b := range x.bases[class] {
		if x.defs[b+"."+name] != nil {
			return b + "." + name
		}
		if m := x.member(b, name, depth+1); m != "" {
			return m
		}
	}
	return ""
}

// outer is the class around a nested class, or "".
func outer(class, unit string) string {
	i := strings.LastIndexByte(class, '.')
	if i <= len(unit) {
		return ""
	}
	return class[:i]
}

func (x *javaIndex) base(f *sfile, b sbase) (string, string) {
	if t := x.typeOf(f, outer(b.class, f.unit), b.name); t != "" {
		return t, "scope"
	}
	if t := x.typeOf(f, b.class, b.name); t != "" {
		return t, "scope"
	}
	return "", ""
}

// construct is what a construction of class calls: its constructor, or itself.
func (x *javaIndex) construct(class string) string {
	if x.defs[class+".<init>"] != nil {
		return class + ".<init>"
	}
	return class
}

func (x *javaIndex) resolve(f *sfile, c scall) (string, string) {
	switch {
	case c.recv == "":
		for cl := c.class; cl != ""; cl = outer(cl, f.unit) {
			if m := x.method(cl, c.name, 0); m != "" {
				return m, "scope"
			}
		}
		if t, ok := x.imports[f][c.name]; ok { // a static import
			return t, "scope"
		}
	case c.recv == "new":
		if t := x.typeOf(f, c.class, c.name); t != "" {
			return x.construct(t), "scope"
		}
		return "", ""
	case c.recv == "ctor this" && c.class != "":
		return x.construct(c.class), "scope"
	case c.recv == "ctor super" && c.class != "":
		for _, b := range x.bases[c.class] {
			if x.defs[b] != nil && x.defs[b].kind == "class" {
				return x.construct(b), "scope"
			}
		}
		return "", ""
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
		recv := strings.TrimPrefix(c.recv, "this.")
		typ, ok := f.locals[c.caller+" "+recv]
		for cl := c.class; !ok && cl != ""; cl = outer(cl, f.unit) {
			typ, ok = f.locals[cl+" "+recv]
		}
		if strings.HasSuffix(c.recv, "()") {
			typ, ok = strings.TrimSuffix(c.recv, "()"), true
		}
		if !ok {
			typ = c.recv // a class: a static method
		}
		if class := x.typeOf(f, c.class, typ); class != "" {
			if m := x.method(class, c.name, 0); m != "" {
				return m, "scope"
			}
			if x.defs[class] != nil {
				return "", "" // a method the class inherits from outside the project
			}
		}
	}
	return x.byName(c)
}
