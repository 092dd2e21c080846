//go:build cgo

package chunk

import (
	"context"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/examples/internal/grammar"
	sitter "github.com/smacker/go-tree-sitter"
)

// sitterOK cuts src with tree-sitter into *r when a grammar parses the file named name,
// and reports whether it did.
func sitterOK(name string, src []byte, r *Result) bool {
	l := grammar.ForFile(name)
	if l == nil {
		return false
	}
	chunks, ok := sitterChunks(l, src)
	if ok {
		*r = Result{Language: l.Name, Chunker: "tree-sitter", Chunks: chunks}
	}
	return ok
}

// sitterChunks cuts a file that tree-sitter parses: each definition at the top level is a
// chunk, one-line items too (pub struct S;, type X = ...), from its doc comment to its end;
// a class, impl, module or namespace with definitions inside becomes a chunk of its head
// and one per member (Class.method), so that no line is in two chunks; imports are one chunk
// per run, and whatever else stands at the top level (statements, expressions) a chunk per
// run of at most WindowLines lines. ok is false when the file could not be parsed.
func sitterChunks(l *grammar.Language, src []byte) (chunks []Chunk, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tree, err := grammar.Parse(ctx, l, src)
	if err != nil || tree == nil {
		return nil, false
	}
	defer tree.Close()
	w := &walker{src: src, lines: splitLines(src)}
	w.items(tree.RootNode(), "")
	return w.out, true
}

type walker struct {
	src   []byte
	lines []string
	out   []Chunk
	// last is the last line any chunk holds: a chunk never starts at or above it.
	last int
	// run is a run of top-level code that is no definition, waiting to be a chunk.
	run     *Chunk
	runKind string
}

// lines of a node, 1-based: a node that ends at the start of a line (after its newline)
// ends on the line before.
func span(n *sitter.Node) (start, end int) {
	start, end = int(n.StartPoint().Row)+1, int(n.EndPoint().Row)+1
	if n.EndPoint().Column == 0 && end > start {
		end--
	}
	return start, end
}

// items makes chunks of the named children of n, the members of container prefix ("" at
// the top level).
func (w *walker) items(n *sitter.Node, prefix string) {
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		t := c.Type()
		switch {
		case isComment(t):
			continue // taken with what follows it
		case importKinds[t] != "":
			w.extend(c, importKinds[t])
			continue
		}
		def, kind := definition(c)
		if def == nil {
			if prefix == "" {
				w.extend(c, "code")
			}
			continue
		}
		w.flush()
		name := nameOf(def, w.src)
		if prefix != "" && name != "" {
			name = prefix + "." + name
		}
		if prefix != "" && kind == "function" {
			kind = "method"
		}
		start, end := span(c)
		start = w.docStart(start)
		if body := bodyOf(def); body != nil && containers[def.Type()] && hasDefinitions(body) {
			// The head: down to the first member (and its doc comment).
			first := body
			for k := 0; k < int(body.NamedChildCount()); k++ {
				if d, _ := definition(body.NamedChild(k)); d != nil {
					first = body.NamedChild(k)
					break
				}
			}
			if fs, _ := span(first); fs > int(c.StartPoint().Row)+1 { // members on lines of their own
				w.add(Chunk{Kind: kind, Name: name, StartLine: start, EndLine: max(start, w.docStart(fs)-1)})
				w.items(body, name)
				w.last = max(w.last, end)
				continue
			}
		}
		w.add(Chunk{Kind: kind, Name: name, StartLine: start, EndLine: end})
	}
	w.flush()
}

// extend adds n to the run of top-level code of its kind, starting one if needed.
func (w *walker) extend(n *sitter.Node, kind string) {
	start, end := span(n)
	if w.run != nil && (w.runKind != kind || end-w.run.StartLine >= WindowLines) {
		w.flush()
	}
	if w.run == nil {
		w.run, w.runKind = &Chunk{Kind: kind, StartLine: max(start, w.last+1)}, kind
	}
	w.run.EndLine = end
}

func (w *walker) flush() {
	if w.run != nil {
		w.add(*w.run)
		w.run = nil
	}
}

func (w *walker) add(c Chunk) {
	c.StartLine = max(c.StartLine, w.last+1)
	if c.EndLine < c.StartLine {
		return
	}
	w.out = append(w.out, c)
	w.last = c.EndLine
}

// docStart moves start up over the comment lines right above it (a doc comment, however the
// grammar places it), and never onto a line of a chunk before.
func (w *walker) docStart(start int) int {
	for start-1 > w.last && start-1 >= 1 && commentLine(w.lines[start-2]) {
		start--
	}
	return start
}

func commentLine(line string) bool {
	t := strings.TrimSpace(line)
	for _, p := range []string{"//", "/*", "*", "#", "--", "@"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func isComment(t string) bool { return strings.Contains(t, "comment") }

// importKinds are the statements that bring in other code, chunked together per run.
var importKinds = map[string]string{
	"import_statement": "import", "import_from_statement": "import", "import_declaration": "import", "use_declaration": "import",
	"using_directive": "import", "preproc_include": "import", "import_list": "import", "import_header": "import",
	"future_import_statement": "import", "extern_crate_declaration": "import", "namespace_use_declaration": "import",
	"package_declaration": "package", "package_clause": "package", "package_header": "package",
}

// kinds name the definitions chunks are made of, by node type, across the grammars.
var kinds = map[string]string{
	"function_definition": "function", "function_declaration": "function", "function_item": "function", "method_declaration": "function",
	"method_definition": "function", "method": "function", "singleton_method": "function", "constructor_declaration": "function",
	"function_signature_item": "function", "method_signature": "function", "protocol_function_declaration": "function",
	"abstract_method_signature": "function", "generator_function_declaration": "function", "function_signature": "function",
	"class_declaration": "class", "class_definition": "class", "class": "class", "class_specifier": "class",
	"abstract_class_declaration": "class", "record_declaration": "class", "object_declaration": "class", "object_definition": "class",
	"struct_item": "struct", "struct_specifier": "struct", "struct_declaration": "struct", "union_item": "struct", "union_specifier": "struct",
	"interface_declaration": "interface", "protocol_declaration": "interface", "trait_item": "trait", "trait_definition": "trait",
	"trait_declaration": "trait",
	"enum_item":         "enum", "enum_specifier": "enum", "enum_declaration": "enum",
	"type_item": "type", "type_alias_declaration": "type", "type_definition": "type", "type_alias": "type",
	"const_item": "const", "static_item": "var", "lexical_declaration": "var", "variable_declaration": "var", "declaration": "var",
	"property_declaration": "var", "val_definition": "var", "var_definition": "var", "field_declaration": "",
	"impl_item": "impl", "mod_item": "module", "module": "module", "namespace_declaration": "namespace",
	"namespace_definition": "namespace", "macro_definition": "macro", "preproc_function_def": "macro", "preproc_def": "const",
}

// containers are the definitions whose members are chunks of their own (an interface's are
// signatures: it stays whole).
var containers = map[string]bool{
	"class_declaration": true, "class_definition": true, "class": true, "class_specifier": true, "abstract_class_declaration": true,
	"record_declaration": true, "object_declaration": true, "object_definition": true, "struct_declaration": true,
	"trait_item": true, "trait_definition": true, "trait_declaration": true, "impl_item": true, "mod_item": true, "module": true, "namespace_declaration": true, "namespace_definition": true,
	"enum_declaration": true,
}

// definition returns the definition n is or wraps (an export, a decorator, a template),
// and its kind; nil when n is none.
func definition(n *sitter.Node) (*sitter.Node, string) {
	switch n.Type() {
	case "export_statement", "decorated_definition", "template_declaration", "ambient_declaration":
		for _, f := range []string{"declaration", "definition"} {
			if d := n.ChildByFieldName(f); d != nil {
				return definition(d)
			}
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			if d, k := definition(n.NamedChild(i)); d != nil {
				return d, k
			}
		}
		return nil, ""
	}
	if k := kinds[n.Type()]; k != "" {
		return n, k
	}
	return nil, ""
}

// bodyOf returns the node that holds a container's members.
func bodyOf(n *sitter.Node) *sitter.Node {
	if b := n.ChildByFieldName("body"); b != nil {
		return b
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		switch c := n.NamedChild(i); c.Type() {
		case "class_body", "declaration_list", "body_statement", "template_body", "interface_body", "protocol_body",
			"field_declaration_list", "block", "enum_body", "enum_class_body", "object_type":
			return c
		}
	}
	return nil
}

func hasDefinitions(body *sitter.Node) bool {
	for i := 0; i < int(body.NamedChildCount()); i++ {
		if d, k := definition(body.NamedChild(i)); d != nil && k != "var" {
			return true
		}
	}
	return false
}

// nameOf returns the name a definition declares: its name field, or what the grammar holds
// in its place (a C function's declarator, a Kotlin class's type identifier, a Rust impl's
// trait and type, a JavaScript const's variable).
func nameOf(n *sitter.Node, src []byte) string {
	if n.Type() == "impl_item" {
		typ := n.ChildByFieldName("type")
		if typ == nil {
			return ""
		}
		if tr := n.ChildByFieldName("trait"); tr != nil {
			return tr.Content(src) + " for " + typ.Content(src)
		}
		return typ.Content(src)
	}
	if nm := n.ChildByFieldName("name"); nm != nil {
		return nm.Content(src)
	}
	if d := n.ChildByFieldName("declarator"); d != nil {
		return declaratorName(d, src)
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		c := n.NamedChild(i)
		switch c.Type() {
		case "type_identifier", "simple_identifier", "identifier", "constant":
			return c.Content(src)
		case "variable_declarator", "variable_declaration", "init_declarator":
			return nameOf(c, src)
		}
	}
	return ""
}

// declaratorName finds the identifier in a C declarator: int (*f)(void) is f.
func declaratorName(n *sitter.Node, src []byte) string {
	for n != nil {
		switch n.Type() {
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier", "destructor_name", "operator_name":
			return n.Content(src)
		}
		d := n.ChildByFieldName("declarator")
		if d == nil && n.NamedChildCount() > 0 {
			d = n.NamedChild(0)
		}
		n = d
	}
	return ""
}
