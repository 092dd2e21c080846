package index

import (
	"os"
	"path/filepath"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Python: a unit is a module, named as Python imports it: "json.decoder" for
// json/decoder.py, "json" for json/__init__.py, counting the directories above the file
// that are packages (have an __init__.py), inside the root or above it.

var pythonFamily = &family{
	name:      "python",
	languages: []string{"python"},
	unitOf:    pythonModule,
	extract:   pythonExtract,
	newIndex:  newPythonIndex,
}

func pythonModule(root string, sf sourceFile) string {
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(sf.abs), ".pyi"), ".py")
	parts := []string{}
	if name != "__init__" {
		parts = append(parts, name)
	}
	for dir := filepath.Dir(sf.abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil {
			break
		}
		parts = append([]string{filepath.Base(dir)}, parts...)
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if len(parts) == 0 {
		return filepath.Base(filepath.Dir(sf.abs))
	}
	return strings.Join(parts, ".")
}

func pythonExtract(f *sfile, root *sitter.Node, src []byte, rel string) {
	isInit := strings.HasSuffix(rel, "__init__.py") || strings.HasSuffix(rel, "__init__.pyi")
	pkg := f.unit // the package relative imports start from
	if !isInit {
		if i := strings.LastIndexByte(f.unit, '.'); i >= 0 {
			pkg = f.unit[:i]
		} else {
			pkg = ""
		}
	}
	var walk func(n *sitter.Node, scope, class, caller string, inFunc bool)
	walk = func(n *sitter.Node, scope, class, caller string, inFunc bool) {
		switch n.Type() {
		case "decorated_definition":
			if d := n.ChildByFieldName("definition"); d != nil {
				walk(d, scope, class, caller, inFunc)
			}
			return
		case "function_definition":
			nameNode := n.ChildByFieldName("name")
			name := text(nameNode, src)
			if !inFunc && name != "" {
				line, col := pos(nameNode)
				kind, parent := "func", ""
				if class != "" && scope == class {
					kind, parent = "method", class
				}
				q := scope + "." + name
				f.defs = append(f.defs, sdef{kind: kind, name: name, qname: q, parent: parent, line: line, col: col, endLine: endLine(n),
					sig: firstLine(n, src), doc: pyDoc(n, src), exported: !strings.HasPrefix(name, "_")})
				caller = q
			}
			if b := n.ChildByFieldName("body"); b != nil {
				walk(b, scope, class, caller, true)
			}
			for _, field := range []string{"parameters", "return_type"} {
				if p := n.ChildByFieldName(field); p != nil {
					walk(p, scope, class, caller, true)
				}
			}
			return
		case "class_definition":
			nameNode := n.ChildByFieldName("name")
			name := text(nameNode, src)
			if inFunc || name == "" {
				break
			}
			line, col := pos(nameNode)
			q := scope + "." + name
			f.defs = append(f.defs, sdef{kind: "class", name: name, qname: q, line: line, col: col, endLine: endLine(n),
				sig: firstLine(n, src), doc: pyDoc(n, src), exported: !strings.HasPrefix(name, "_")})
			if sup := n.ChildByFieldName("superclasses"); sup != nil {
				for _, b := range children(sup) {
					if t := b.Type(); t == "identifier" || t == "attribute" {
						bl, bc := pos(b)
						f.bases = append(f.bases, sbase{class: q, name: text(b, src), line: bl, col: bc})
					}
				}
				walk(sup, scope, class, caller, inFunc)
			}
			if b := n.ChildByFieldName("body"); b != nil {
				walk(b, q, q, caller, false)
			}
			return
		case "assignment":
			left, right := n.ChildByFieldName("left"), n.ChildByFieldName("right")
			if inFunc && left != nil && right != nil && left.Type() == "identifier" && right.Type() == "call" {
				if fn := right.ChildByFieldName("function"); fn != nil && (fn.Type() == "identifier" || fn.Type() == "attribute") {
					if f.locals == nil {
						f.locals = map[string]string{}
					}
					f.locals[caller+" "+text(left, src)] = text(fn, src)
				}
			}
		case "expression_statement":
			if !inFunc {
				if a := n.NamedChild(0); a != nil && a.Type() == "assignment" {
					if left := a.ChildByFieldName("left"); left != nil && left.Type() == "identifier" {
						name := text(left, src)
						line, col := pos(left)
						kind, parent := "var", ""
						if class != "" && scope == class {
							kind, parent = "field", class
						}
						f.defs = append(f.defs, sdef{kind: kind, name: name, qname: scope + "." + name, parent: parent, line: line, col: col,
							endLine: endLine(n), sig: firstLine(n, src), exported: !strings.HasPrefix(name, "_")})
					}
				}
			}
		case "import_statement":
			for _, c := range children(n) {
				line, col := pos(c)
				switch c.Type() {
				case "dotted_name":
					mod := text(c, src)
					first := strings.SplitN(mod, ".", 2)[0]
					f.imports = append(f.imports, simport{local: first, target: first, module: mod, line: line, col: col})
				case "aliased_import":
					mod := text(c.ChildByFieldName("name"), src)
					f.imports = append(f.imports, simport{local: text(c.ChildByFieldName("alias"), src), target: mod, module: mod, line: line, col: col})
				}
			}
			return
		case "import_from_statement":
			modNode := n.ChildByFieldName("module_name")
			mod := text(modNode, src)
			if modNode != nil && modNode.Type() == "relative_import" {
				mod = pyRelative(pkg, mod)
			}
			line, col := pos(n)
			f.imports = append(f.imports, simport{module: mod, line: line, col: col})
			for _, c := range children(n) {
				if c.Equal(modNode) {
					continue
				}
				switch c.Type() {
				case "dotted_name":
					name := text(c, src)
					f.imports = append(f.imports, simport{local: name, target: mod + "." + name})
				case "aliased_import":
					name := text(c.ChildByFieldName("name"), src)
					f.imports = append(f.imports, simport{local: text(c.ChildByFieldName("alias"), src), target: mod + "." + name})
				case "wildcard_import":
					f.imports = append(f.imports, simport{local: "*", target: mod})
				}
			}
			return
		case "call":
			fn := n.ChildByFieldName("function")
			switch {
			case fn == nil:
			case fn.Type() == "identifier":
				line, col := pos(fn)
				f.calls = append(f.calls, scall{caller: caller, class: class, name: text(fn, src), line: line, col: col})
			case fn.Type() == "attribute":
				attr := fn.ChildByFieldName("attribute")
				line, col := pos(attr)
				f.calls = append(f.calls, scall{caller: caller, class: class, recv: receiver(fn.ChildByFieldName("object"), src), name: text(attr, src), line: line, col: col})
			}
		}
		for _, c := range children(n) {
			walk(c, scope, class, caller, inFunc)
		}
	}
	walk(root, f.unit, "", f.unit, false)
}

// receiver is a call's receiver as written when it is a name or a dotted chain of names
// ("self", "os.path"), "super()" for super(), and "?" for anything else.
func receiver(n *sitter.Node, src []byte) string {
	if n == nil {
		return "?"
	}
	switch n.Type() {
	case "identifier", "this", "self":
		return text(n, src)
	case "attribute", "member_expression", "field_access":
		s := text(n, src)
		for _, r := range s {
			if !(r == '.' || r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return "?"
			}
		}
		return s
	case "call", "new_expression", "object_creation_expression":
		fn := n.ChildByFieldName("function")
		if fn == nil {
			fn = n.ChildByFieldName("constructor")
		}
		if fn == nil {
			fn = n.ChildByFieldName("type")
		}
		if fn != nil && text(fn, src) == "super" {
			return "super()"
		}
		// A construction: X().m() or new X().m() calls X's m.
		if r := receiver(fn, src); r != "?" && r != "" {
			return r + "()"
		}
	}
	return "?"
}

// pyRelative is the module a relative import names, from the package it is in.
func pyRelative(pkg, rel string) string {
	dots := len(rel) - len(strings.TrimLeft(rel, "."))
	base := pkg
	for range dots - 1 {
		if i := strings.LastIndexByte(base, '.'); i >= 0 {
			base = base[:i]
		} else {
			base = ""
		}
	}
	rest := rel[dots:]
	switch {
	case base == "":
		return rest
	case rest == "":
		return base
	}
	return base + "." + rest
}

// pyDoc is a function's or class's docstring.
func pyDoc(n *sitter.Node, src []byte) string {
	b := n.ChildByFieldName("body")
	if b == nil || b.NamedChildCount() == 0 {
		return ""
	}
	first := b.NamedChild(0)
	if first.Type() != "expression_statement" || first.NamedChildCount() == 0 || first.NamedChild(0).Type() != "string" {
		return ""
	}
	s := text(first.NamedChild(0), src)
	s = strings.TrimLeft(s, "rRbBuUfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			return strings.TrimSpace(s[len(q):len(s)-len(q)]) + "\n"
		}
	}
	return ""
}

// pythonIndex resolves Python calls.
type pythonIndex struct {
	defs    map[string]*sdef
	byName  map[string][]string // functions and classes, by name
	methods map[string][]string // methods, by name
	modules map[string]bool
	imports map[*sfile]map[string]string
	bases   map[string][]string
}

var pyBuiltins = map[string]bool{}

// pyBuiltinMethods are the methods of Python's built-in types (str, bytes, list, dict, set,
// files): a call x.strip() is almost always one of them, never a guess to make by name.
var pyBuiltinMethods = map[string]bool{}

func init() {
	for _, b := range strings.Fields(`print len range str int float list dict set tuple isinstance issubclass getattr setattr hasattr
		delattr super type object open iter next enumerate zip map filter sorted reversed min max sum abs any all repr hash id format
		vars dir callable property staticmethod classmethod bool bytes bytearray memoryview frozenset slice round divmod pow chr ord
		hex oct bin input exec eval compile globals locals complex ascii breakpoint aiter anext __import__`) {
		pyBuiltins[b] = true
	}
	for _, m := range strings.Fields(`capitalize casefold center count decode encode endswith expandtabs find format format_map index
		isalnum isalpha isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join ljust lower
		lstrip maketrans partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip split splitlines
		startswith strip swapcase title translate upper zfill hex fromhex append extend insert pop remove sort reverse copy clear
		get items keys values update setdefault popitem fromkeys add discard union intersection difference symmetric_difference
		issubset issuperset isdisjoint read write close flush readline readlines seek tell writelines fileno truncate`) {
		pyBuiltinMethods[m] = true
	}
}

func newPythonIndex(files []*sfile) resolver {
	x := &pythonIndex{defs: map[string]*sdef{}, byName: map[string][]string{}, methods: map[string][]string{},
		modules: map[string]bool{}, imports: map[*sfile]map[string]string{}, bases: map[string][]string{}}
	for _, f := range files {
		x.modules[f.unit] = true
		for i := range f.defs {
			d := &f.defs[i]
			x.defs[d.qname] = d
			switch d.kind {
			case "func", "class":
				x.byName[d.name] = append(x.byName[d.name], d.qname)
			case "method":
				x.methods[d.name] = append(x.methods[d.name], d.qname)
			}
		}
		m := map[string]string{}
		for _, im := range f.imports {
			if im.local != "" && im.local != "*" {
				m[im.local] = im.target
			}
		}
		x.imports[f] = m
	}
	for _, f := range files {
		for _, b := range f.bases {
			if t, _ := x.base(f, b); t != "" {
				x.bases[b.class] = append(x.bases[b.class], t)
			}
		}
	}
	return x
}

func (x *pythonIndex) base(f *sfile, b sbase) (string, string) {
	return x.lookup(f, b.name)
}

// lookup resolves a name or dotted name as written in a file's module scope.
func (x *pythonIndex) lookup(f *sfile, name string) (string, string) {
	first, rest, dotted := strings.Cut(name, ".")
	if q := f.unit + "." + first; x.defs[q] != nil {
		if !dotted {
			return q, "scope"
		}
		if x.defs[q+"."+rest] != nil {
			return q + "." + rest, "scope"
		}
	}
	if t, ok := x.imports[f][first]; ok {
		q := t
		if dotted {
			q += "." + rest
		}
		if x.defs[q] != nil || !x.inProject(q) {
			return q, "scope"
		}
		if d := x.reexported(q); d != "" {
			return d, "scope"
		}
		return q, "scope" // imported, but declared where the project has no source (a C module)
	}
	// A star import, or a name of the package's own __init__.
	for _, im := range f.imports {
		if im.local == "*" && x.defs[im.target+"."+name] != nil {
			return im.target + "." + name, "scope"
		}
	}
	return "", ""
}

// inProject says whether a qualified name is under one of the project's modules.
func (x *pythonIndex) inProject(q string) bool {
	for m := q; ; {
		if x.modules[m] {
			return true
		}
		i := strings.LastIndexByte(m, '.')
		if i < 0 {
			return false
		}
		m = m[:i]
	}
}

// reexported follows a name a package imports into its __init__ ("json.loads" is
// json/__init__.py's "from .decoder import ..."; "os.path" is a module the package binds).
func (x *pythonIndex) reexported(q string) string {
	i := strings.LastIndexByte(q, '.')
	if i < 0 {
		return ""
	}
	mod, name := q[:i], q[i+1:]
	for f, m := range x.imports {
		if f.unit == mod {
			if t, ok := m[name]; ok && x.defs[t] != nil {
				return t
			}
		}
	}
	return ""
}

// method finds a method of a class or of its bases, nearest first.
func (x *pythonIndex) method(class, name string, depth int) string {
	if depth > 10 {
		return ""
	}
	if q := class + "." + name; x.defs[q] != nil {
		return q
	}
	for _, b := range x.bases[class] {
		if m := x.method(b, name, depth+1); m != "" {
			return m
		}
	}
	return ""
}

func (x *pythonIndex) resolve(f *sfile, c scall) (string, string) {
	switch {
	case c.recv == "":
		if t, how := x.lookup(f, c.name); t != "" {
			return t, how
		}
		if pyBuiltins[c.name] {
			return "", ""
		}
		if qs := x.byName[c.name]; len(qs) == 1 {
			return qs[0], "name"
		}
		return "", ""
	case (c.recv == "self" || c.recv == "cls") && c.class != "":
		if m := x.method(c.class, c.name, 0); m != "" {
			return m, "scope"
		}
	case c.recv == "super()" && c.class != "":
		for _, b := range x.bases[c.class] {
			if m := x.method(b, c.name, 0); m != "" {
				return m, "scope"
			}
		}
	case c.recv != "?":
		if !strings.HasSuffix(c.recv, "()") {
			if t, how := x.lookup(f, c.recv+"."+c.name); t != "" {
				return t, how
			}
		}
		// A variable the function assigned a construction of a class, or a construction.
		ctor, ok := f.locals[c.caller+" "+c.recv]
		if strings.HasSuffix(c.recv, "()") {
			ctor, ok = strings.TrimSuffix(c.recv, "()"), true
		}
		if ok {
			if class, _ := x.lookup(f, ctor); class != "" && x.defs[class] != nil && x.defs[class].kind == "class" {
				if m := x.method(class, c.name, 0); m != "" {
					return m, "scope"
				}
			}
		}
	}
	// x.m() with x's type unknown: the only method of the name, unless built-in types
	// have it, and only for a receiver that is no module (os.path.join is no method).
	if qs := x.methods[c.name]; len(qs) == 1 && !pyBuiltinMethods[c.name] && c.recv != "?" && strings.HasPrefix(c.recv, "self.") {
		return qs[0], "name"
	}
	return "", ""
}
