// Package emit writes the generated file of a package from its checked model: the
// registration function, each declaration's handler, the JSON Schemas, and the decoders,
// encoders and result checkers of the structs they use. It finds no problems in the user's
// code (the analysis has found them all); every list it writes is in the model's order or
// sorted, so the file is the same, byte for byte, however the source was ordered.
package emit

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"go/format"
	"go/types"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// emitter writes one package's generated file.
type emitter struct {
	file     *jen.File
	pkgPath  string
	scope    *types.Scope            // the user's package block
	patterns map[string]string       // regular expression -> variable name
	rats     map[string]string       // multipleOf number -> variable name
	checked  map[*schema.Object]bool // the result structs that need a checker

	taken       map[string]bool            // package-level identifiers of the generated file
	ids         map[idKey]string           // and whom they belong to
	imports     map[string]string          // import path -> the name it is imported under
	importsUsed map[string]bool            // those names
	localNames  map[string]string          // a local's name -> the name it takes in this package
	plainLocals bool                       // writing RegisterMCP, whose locals keep their names
	recvParams  map[*model.Receiver]string // RegisterMCP's parameter for each receiver type
	// lenient decoders skip unknown properties instead of reporting them: a client decoding
	// a server's results, which may gain properties its callers need not know.
	lenient bool
	// verbatim are declarations written into the file as they are, after formatting (see
	// verbatimCode), in the order of their markers.
	verbatim []string
	// outputUsers counts the tools of each output schema (by its text): one that several
	// tools share is declared once (sharedOutput).
	outputUsers map[string]int
	declared    map[string]bool // the shared output schemas' constants declared so far
}

// kindEmitter says what the generated file has for one kind of declaration. A new kind is a
// row in kinds.
type kindEmitter struct {
	// names allocates the package-level identifiers of one declaration.
	names func(e *emitter, d model.Decl)
	// register is RegisterMCP's statement that adds one declaration to the server.
	register func(e *emitter, d model.Decl) jen.Code
	// code is the file's declarations for all declarations of the kind, in order.
	code func(e *emitter, ds []model.Decl) []jen.Code
}

var kinds = [model.NumKinds]kindEmitter{
	model.ToolKind:       {toolNames, registerTool, toolCode},
	model.ResourceKind:   {resourceNames, registerResource, resourceCode},
	model.PromptKind:     {promptNames, registerPrompt, promptCode},
	model.CompletionKind: {completionNames, registerCompletion, completionCode},
	model.FormKind:       {formNames, registerForm, formCode},
}

// File renders the generated file of a package. An error is a bug in mcpgen.
func File(p *model.Package) ([]byte, error) {
	e := newEmitter(p.Path, p.Name, p.Scope)
	f := e.file
	f.HeaderComment("//go:build !" + model.BuildTag)
	e.checked = checked(p.Objects)
	for _, d := range p.Decls {
		if t, ok := d.(*model.Tool); ok && t.Out == model.OutStruct {
			e.outputUsers[string(t.OutputSchema)]++
		}
	}

	// The structs that need a decoder (arguments) or an encoder (results), and those a tool's
	// result checker may reach (a resource's contents have no schema to be checked against).
	var decoded, encoded, results []*schema.Object
	seenIn, seenOut, seenResult := map[*schema.Object]bool{}, map[*schema.Object]bool{}, map[*schema.Object]bool{}
	for _, d := range p.Decls {
		in, out := d.Types()
		objects(in, seenIn, &decoded)
		objects(out, seenOut, &encoded)
		if d.Kind() == model.ToolKind {
			objects(out, seenResult, &results)
		}
	}
	for _, o := range encoded {
		if !seenResult[o] {
			delete(e.checked, o) // a checker nothing would call
		}
	}

	// Package-level identifiers, in an order that depends only on names (declarations in the
	// model's order, structs by name), so that the numbers given to derived names that collide
	// do not depend on declaration order.
	e.alloc(model.RegisterFunc)
	for _, d := range p.Decls {
		kinds[d.Kind()].names(e, d)
	}
	e.allocCodecs(decoded, "Decode")
	e.allocCodecs(encoded, "Encode")
	for _, o := range encoded {
		if e.checked[o] {
			e.allocID(o, "Check", model.GenPrefix+"Check"+o.Name)
		}
	}
	e.nameReceivers(p.Receivers)

	code := []jen.Code{contractGuard(p), e.register(p)}
	for k := range model.NumKinds {
		if ds := slices.DeleteFunc(slices.Clone(p.Decls), func(d model.Decl) bool { return d.Kind() != k }); len(ds) > 0 {
			code = append(code, kinds[k].code(e, ds)...)
		}
	}
	for _, o := range decoded {
		code = append(code, e.decoder(o))
	}
	for _, o := range encoded {
		code = append(code, e.encoder(o))
	}
	for _, o := range encoded {
		if e.checked[o] {
			code = append(code, e.checker(o, e.checked))
		}
	}
	if len(e.patterns) > 0 || len(e.rats) > 0 {
		code = append(code, e.vars())
	}
	addChunked(f, code)
	return e.render()
}

// newEmitter starts the generated file of package name at path, whose package block is
// scope, with its header and the imports generated code may use.
func newEmitter(path, name string, scope *types.Scope) *emitter {
	f := jen.NewFilePathName(path, name)
	e := &emitter{file: f, pkgPath: path, scope: scope, patterns: map[string]string{}, rats: map[string]string{},
		taken: map[string]bool{}, ids: map[idKey]string{}, imports: map[string]string{}, importsUsed: map[string]bool{},
		localNames: map[string]string{}, recvParams: map[*model.Receiver]string{}, outputUsers: map[string]int{}, declared: map[string]bool{}}
	f.HeaderComment(strings.TrimPrefix(model.Header, "// "))
	e.registerImports()
	return e
}

// allocCodecs sorts structs by name and names the function of role (Decode, Encode) of each.
func (e *emitter) allocCodecs(objs []*schema.Object, role string) {
	slices.SortFunc(objs, func(a, b *schema.Object) int { return cmp.Compare(a.Name, b.Name) })
	for _, o := range objs {
		e.allocID(o, role, model.GenPrefix+role+o.Name)
	}
}

// render writes the file, formatted, with its imports in goimports' groups and the verbatim
// declarations in place.
func (e *emitter) render() ([]byte, error) {
	var buf bytes.Buffer
	e.file.NoFormat = true // formatted here, in chunks when it is large
	if err := e.file.Render(&buf); err != nil {
		return nil, err
	}
	formatted, ok := formatChunks(buf.Bytes())
	if !ok {
		src := unchunked(buf.Bytes())
		var err error
		if formatted, err = format.Source(src); err != nil {
			// Leave the unformatted source where it can be read.
			msg := err.Error()
			if dump, derr := os.CreateTemp("", "mcpgen-unformatted-*.go"); derr == nil {
				dump.Write(src)
				dump.Close()
				msg += " (unformatted output in " + dump.Name() + ")"
			}
			return nil, errors.New(msg)
		}
	}
	// A blank line between the header and the build constraint, for the reader.
	out := bytes.Replace(formatted, []byte("\n//go:build"), []byte("\n\n//go:build"), 1)
	out = groupImports(out)
	return e.insertVerbatim(out)
}

// verbatimMarker starts the comment that stands for a verbatim declaration until the file is
// formatted.
const verbatimMarker = "mcpgen:verbatim "

// verbatimCode is a declaration that is written into the file as it is, once the rest is
// formatted: text must be gofmt's output already. The schemas' raw string constants are
// most of a large package's file (GitHub's REST API: 12 of 18 MB), and formatting would
// only have copied them.
func (e *emitter) verbatimCode(text string) jen.Code {
	e.verbatim = append(e.verbatim, text)
	return jen.Comment(verbatimMarker + strconv.Itoa(len(e.verbatim)-1))
}

// insertVerbatim replaces the markers of the verbatim declarations, each a line of its own.
func (e *emitter) insertVerbatim(src []byte) ([]byte, error) {
	if len(e.verbatim) == 0 {
		return src, nil
	}
	size := len(src)
	for _, text := range e.verbatim {
		size += len(text)
	}
	out := bytes.NewBuffer(make([]byte, 0, size))
	rest := src
	for i, text := range e.verbatim {
		marker := "\n// " + verbatimMarker + strconv.Itoa(i) + "\n"
		at := bytes.Index(rest, []byte(marker))
		if at < 0 {
			return nil, fmt.Errorf("the marker of verbatim declaration %d is not in the formatted file", i)
		}
		out.Write(rest[:at+1])
		out.WriteString(text)
		rest = rest[at+len(marker)-1:]
	}
	out.Write(rest)
	return out.Bytes(), nil
}

// groupImports sorts the lines of the file's import block as goimports does, the standard
// library's first, then a blank line and the others (paths with a dot in their first
// element), each group by path. jennifer's output is formatted otherwise, and goimports
// would parse and print the whole file again for this.
func groupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	n := bytes.Index(src[start:], []byte("\n)\n"))
	if n < 0 {
		return src
	}
	type spec struct {
		line, path string
		std        bool
	}
	var specs []spec
	for line := range strings.SplitSeq(string(src[start:start+n]), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		_, quoted, _ := strings.Cut(line, `"`)
		p := strings.TrimSuffix(quoted, `"`)
		first, _, _ := strings.Cut(p, "/")
		specs = append(specs, spec{line, p, !strings.Contains(first, ".")})
	}
	slices.SortStableFunc(specs, func(a, b spec) int {
		if a.std != b.std {
			if a.std {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.path, b.path)
	})
	var block bytes.Buffer
	for i, s := range specs {
		if i > 0 && s.std != specs[i-1].std {
			block.WriteByte('\n')
		}
		block.WriteString(s.line)
		if i < len(specs)-1 {
			block.WriteByte('\n')
		}
	}
	return slices.Concat(src[:start], block.Bytes(), src[start+n:])
}

// objects lists the structs a type uses, for emitting decoders (or encoders).
func objects(t *schema.Type, seen map[*schema.Object]bool, out *[]*schema.Object) {
	if t == nil {
		return
	}
	if t.Kind == schema.Struct {
		if seen[t.Object] {
			return
		}
		seen[t.Object] = true
		*out = append(*out, t.Object)
		for _, f := range t.Object.Members() {
			objects(f.Type, seen, out)
		}
		return
	}
	objects(t.Elem, seen, out)
}

// register emits RegisterMCP, which adds every declaration to a server.
func (e *emitter) register(p *model.Package) jen.Code {
	e.plainLocals = true
	defer func() { e.plainLocals = false }()
	s := e.localName("s")
	params := []jen.Code{jen.Id(s).Op("*").Qual(model.RuntimePath, "Server")}
	for _, r := range p.Receivers {
		params = append(params, jen.Id(e.recvParams[r]).Add(e.recvType(r)))
	}
	var body []jen.Code
	var offers []string
	for _, d := range p.Decls {
		body = append(body, kinds[d.Kind()].register(e, d))
		if k := d.Kind().Plural(); !slices.Contains(offers, k) {
			offers = append(offers, k)
		}
	}
	var doc *jen.Statement
	if p.Empty() {
		doc = jen.Comment(fmt.Sprintf("%s adds nothing to %s: package %s has no //mcp: directives. It is", model.RegisterFunc, s, p.Name)).Line().
			Comment("generated while code calls it, so that the code compiles; mcpgen removes it once none does.")
	} else {
		text := fmt.Sprintf("%s adds the MCP %s of package %s to %s.", model.RegisterFunc, list(offers), p.Name, s)
		if len(p.Receivers) > 0 {
			text += " Methods are called on the values given."
		}
		doc = jen.Comment(text)
	}
	return doc.Line().Func().Id(model.RegisterFunc).Params(params...).Block(body...)
}

// list joins words as a sentence does: "tools, resources and prompts".
func list(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func (e *emitter) recvType(r *model.Receiver) *jen.Statement {
	if r.Pointer {
		return jen.Op("*").Add(e.typ(r.Type))
	}
	return e.typ(r.Type)
}

// contractGuard emits the declaration that fails to compile with a runtime of another
// contract, at a line that says what to do. A file declares the oldest version whose runtime
// has all it calls: every file needs 3, the first of package mcpgen; version 4 added
// SetError, which only the files of tools whose results say they are errors call and
// declare, so that the others still build with runtimes that keep the older one.
func contractGuard(p *model.Package) jen.Code {
	version := model.ContractVersion
	for _, d := range p.Decls {
		if t, ok := d.(*model.Tool); ok && t.IsError {
			version = model.ContractSetError
		}
	}
	return jen.Comment("The line below needs the runtime of the mcpgen that generated this file. If it does not").Line().
		Comment("compile, the module builds with another version of mcpgen's runtime: run go generate").Line().
		Comment("(go tool mcpgen) with the mcpgen the module requires.").Line().
		Const().Id("_").Op("=").Qual(model.ContractPath, "Contract"+version)
}

// typ writes a Go type, qualified as the generated file must write it.
func (e *emitter) typ(t types.Type) *jen.Statement {
	switch t := t.(type) {
	case *types.Alias:
		// A generic alias (type A[T any] = S[T]) is written with its type arguments.
		return e.typeArgs(e.qual(t.Obj()), t.TypeArgs())
	case *types.Named:
		return e.typeArgs(e.qual(t.Obj()), t.TypeArgs())
	case *types.Basic:
		return jen.Id(t.Name())
	case *types.Pointer:
		return jen.Op("*").Add(e.typ(t.Elem()))
	case *types.Slice:
		return jen.Index().Add(e.typ(t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(e.typ(t.Elem()))
	case *types.Map:
		return jen.Map(e.typ(t.Key())).Add(e.typ(t.Elem()))
	case *types.Interface:
		if t.Empty() {
			return jen.Any()
		}
	case *types.Struct:
		var fields []jen.Code
		for i := range t.NumFields() {
			v := t.Field(i)
			var field *jen.Statement
			if v.Embedded() {
				field = e.typ(v.Type())
			} else {
				field = jen.Id(v.Name()).Add(e.typ(v.Type()))
			}
			if tag := t.Tag(i); tag != "" {
				field = field.Lit(tag) // any string literal is a valid tag, and identity compares the text
			}
			fields = append(fields, field)
		}
		return jen.Struct(fields...)
	}
	panic(fmt.Sprintf("gen: cannot write type %s", t))
}

// typeArgs adds the type arguments of an instance, if it is one.
func (e *emitter) typeArgs(s *jen.Statement, args *types.TypeList) *jen.Statement {
	if args == nil || args.Len() == 0 {
		return s
	}
	var list []jen.Code
	for a := range args.Types() {
		list = append(list, e.typ(a))
	}
	return s.Types(list...)
}

// qual names a package-level type: unqualified in the generated file's own package (no
// local takes a name the package declares), qualified in another.
func (e *emitter) qual(obj types.Object) *jen.Statement {
	pkg := obj.Pkg()
	if pkg == nil {
		return jen.Id(obj.Name())
	}
	if pkg.Path() == e.pkgPath {
		return jen.Id(obj.Name())
	}
	// The package's real name, so the import needs no alias unless it would be shadowed.
	e.importName(pkg.Path(), pkg.Name())
	return jen.Qual(pkg.Path(), obj.Name())
}

// vars declares the package variables the checks use: patterns and multipleOf numbers,
// prepared once.
func (e *emitter) vars() jen.Code {
	var defs []jen.Code
	for _, p := range sortedByValue(e.patterns) {
		defs = append(defs, jen.Id(e.patterns[p]).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit(p)))
	}
	for _, r := range sortedByValue(e.rats) {
		defs = append(defs, jen.Id(e.rats[r]).Op("=").Add(wire("MustRat")).Call(jen.Lit(r)))
	}
	return jen.Comment("Patterns and numbers of the schemas' rules, prepared once.").Line().Var().Defs(defs...)
}

// sortedByValue returns a map's keys in the order of their values, the names given in order.
func sortedByValue(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(m[a], m[b]) })
	return keys
}

// pattern names the package variable holding a compiled pattern.
func (e *emitter) pattern(re string) string { return e.prepared(e.patterns, "Pattern", re) }

// rat names the package variable holding a multipleOf number.
func (e *emitter) rat(text string) string { return e.prepared(e.rats, "Multiple", text) }

// prepared names the package variable that holds a value the checks prepare once per file
// (see vars), allocating the name on first use: model.GenPrefix, kind and a number.
func (e *emitter) prepared(vars map[string]string, kind, key string) string {
	if name, ok := vars[key]; ok {
		return name
	}
	name := e.alloc(fmt.Sprintf("%s%s%d", model.GenPrefix, kind, len(vars)))
	vars[key] = name
	return name
}
