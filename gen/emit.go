package gen

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"go/types"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
	"golang.org/x/tools/imports"
)

// genPrefix starts every package-level identifier of a generated file except RegisterFunc,
// so that generated names never collide with the user's.
const genPrefix = "mcpgen"

// emitter writes one package's generated file. Every list it emits is sorted first, so the
// output is the same, byte for byte, however the input was ordered.
type emitter struct {
	file     *jen.File
	pkgPath  string
	scope    *types.Scope            // the user's package block
	patterns map[string]string       // regular expression -> variable name
	rats     map[string]string       // multipleOf number -> variable name
	checked  map[*schema.Object]bool // the result structs that need a checker
	inputs   map[*Tool][]byte        // the input schemas, rendered once: checked, then emitted

	taken       map[string]bool   // package-level identifiers of the generated file
	ids         map[idKey]string  // and whom they belong to
	imports     map[string]string // import path -> the name it is imported under
	importsUsed map[string]bool   // those names
	refs        map[string]string // user declaration -> its marker
	markers     map[string]string // marker -> user declaration
}

// locals are the names generated code gives its variables (temporaries get a depth suffix);
// an imported package with one of these names is imported under an alias instead.
var locals = map[string]bool{"a": true, "args": true, "b": true, "c": true, "count": true, "ctx": true, "d": true,
	"dur": true, "e": true, "err": true, "f": true, "i": true, "in": true, "k": true, "key": true, "keyOK": true,
	"kn": true, "length": true, "list": true, "m": true, "n": true, "num": true, "ok": true, "out": true, "raw": true,
	"recv": true, "req": true, "s": true, "text": true, "uri": true, "v": true, "vars": true, "x": true}

// emitFile renders the generated file of a package. Declarations of the user's package that
// hide predeclared identifiers the file needs are reported, and then no file is returned.
func emitFile(p *pkgGen) ([]byte, error) {
	f := jen.NewFilePathName(p.pkg.PkgPath, p.pkg.Name)
	e := &emitter{file: f, pkgPath: p.pkg.PkgPath, scope: p.pkg.Types.Scope(), patterns: map[string]string{}, rats: map[string]string{},
		taken: map[string]bool{}, ids: map[idKey]string{}, imports: map[string]string{}, importsUsed: map[string]bool{},
		refs: map[string]string{}, markers: map[string]string{}}
	f.HeaderComment(strings.TrimPrefix(Header, "// "))
	f.HeaderComment("//go:build !" + BuildTag)
	e.registerImports()

	var roots []*schema.Type
	for _, t := range p.tools {
		roots = append(roots, t.In, t.OutType)
	}
	for _, r := range p.resources {
		roots = append(roots, r.In)
	}
	for _, pr := range p.prompts {
		roots = append(roots, pr.In)
	}
	for _, fm := range p.forms {
		roots = append(roots, fm.Type)
	}
	e.checked = checked(schema.Prepare(roots))
	e.inputs = map[*Tool][]byte{}
	for _, t := range p.tools {
		e.inputs[t] = []byte(noArguments)
		if t.In != nil {
			e.inputs[t] = schema.Render(t.In)
		}
	}
	if !e.headersValid(p) {
		return nil, nil
	}
	slices.SortFunc(p.forms, func(a, b *Form) int { return cmp.Compare(a.Type.Object.Name, b.Type.Object.Name) })

	// The structs that need a decoder (arguments) or an encoder (results).
	var decoded, encoded []*schema.Object
	seenIn, seenOut := map[*schema.Object]bool{}, map[*schema.Object]bool{}
	for _, t := range p.tools {
		objects(t.In, seenIn, &decoded)
		objects(t.OutType, seenOut, &encoded)
	}
	for _, r := range p.resources {
		objects(r.In, seenIn, &decoded)
	}
	for _, pr := range p.prompts {
		objects(pr.In, seenIn, &decoded)
	}
	for _, fm := range p.forms {
		objects(fm.Type, seenIn, &decoded)
	}
	byName := func(a, b *schema.Object) int { return cmp.Compare(a.Name, b.Name) }
	slices.SortFunc(decoded, byName)
	slices.SortFunc(encoded, byName)
	e.allocate(p, decoded, encoded)

	recvs := e.receivers(p)
	f.Add(contractGuard())
	f.Line()
	f.Add(e.register(p, recvs))
	for _, t := range p.tools {
		f.Line()
		f.Add(e.schemas(t))
		f.Line()
		f.Add(e.call(t))
	}
	for _, r := range p.resources {
		f.Line()
		f.Add(e.readFunc(r))
	}
	for _, pr := range p.prompts {
		f.Line()
		f.Add(e.getFunc(pr))
	}
	for _, c := range p.completions {
		f.Line()
		f.Add(e.completeFunc(c))
	}
	if len(p.forms) > 0 {
		f.Line()
		f.Add(e.formSchemas(p.forms))
	}
	for _, o := range decoded {
		f.Line()
		f.Add(e.decoder(o))
	}
	for _, o := range encoded {
		f.Line()
		f.Add(e.encoder(o))
	}
	for _, o := range encoded {
		if e.checked[o] {
			f.Line()
			f.Add(e.checker(o, e.checked))
		}
	}
	if len(e.patterns) > 0 || len(e.rats) > 0 {
		f.Line()
		f.Add(e.vars())
	}

	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		// jennifer's error carries the whole unformatted source: keep the first line, and
		// leave the source where it can be read.
		msg, source, _ := strings.Cut(err.Error(), "\n")
		if dump, derr := os.CreateTemp("", "mcpgen-unformatted-*.go"); derr == nil {
			dump.WriteString(source)
			dump.Close()
			msg += " (unformatted output in " + dump.Name() + ")"
		}
		return nil, errors.New(msg)
	}
	out, hidden, err := e.finish(buf.Bytes())
	if err != nil {
		return nil, err
	}
	if len(hidden) > 0 {
		for _, obj := range hidden {
			p.diags.Hintf(obj.Pos(), "rename it: the generated file shares the package's names, so it cannot refer to Go's "+obj.Name()+" otherwise",
				"%s %s hides Go's predeclared %s, which the generated code needs", objectKind(obj), obj.Name(), obj.Name())
		}
		return nil, nil
	}
	// A blank line between the header and the build constraint, for the reader; imports in
	// goimports' groups (standard library first).
	out = bytes.Replace(out, []byte("\n//go:build"), []byte("\n\n//go:build"), 1)
	return imports.Process(DefaultFileName, out, &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
}

// objectKind says what a package-level declaration is, for messages.
func objectKind(obj types.Object) string {
	switch obj.(type) {
	case *types.Func:
		return "func"
	case *types.TypeName:
		return "type"
	case *types.Const:
		return "const"
	}
	return "var"
}

// allocate reserves the package-level identifiers of the generated file, in an order that
// depends only on names (tools by name, resources by URI, structs by name...), so that the
// numbers given to derived names that collide do not depend on declaration order.
func (e *emitter) allocate(p *pkgGen, decoded, encoded []*schema.Object) {
	e.alloc(RegisterFunc)
	for _, t := range p.tools {
		e.allocID(t, "Call", genPrefix+"Call"+goName(&t.Callable))
		e.allocID(t, "Input", genPrefix+goName(&t.Callable)+"Input")
		if t.Out == OutStruct {
			e.allocID(t, "Output", genPrefix+goName(&t.Callable)+"Output")
		}
	}
	for _, r := range p.resources {
		e.allocID(r, "Read", genPrefix+"Read"+goName(&r.Callable))
	}
	for _, pr := range p.prompts {
		e.allocID(pr, "Get", genPrefix+"Get"+goName(&pr.Callable))
	}
	for _, c := range p.completions {
		e.allocID(c, "Complete", genPrefix+"Complete"+goName(&c.Callable))
	}
	for _, fm := range p.forms {
		e.allocID(fm.Type.Object, "Form", genPrefix+fm.Type.Object.Name+"Form")
	}
	for _, o := range decoded {
		e.allocID(o, "Decode", genPrefix+"Decode"+o.Name)
	}
	for _, o := range encoded {
		e.allocID(o, "Encode", genPrefix+"Encode"+o.Name)
	}
	for _, o := range encoded {
		if e.checked[o] {
			e.allocID(o, "Check", genPrefix+"Check"+o.Name)
		}
	}
}

// receivers orders the receiver types of methods by name and names their parameters in
// RegisterMCP. A parameter must not hide what RegisterMCP's body refers to (imported packages,
// predeclared identifiers, generated functions), nor be hidden by the parameters of the
// closures it declares (ctx, c, uri, vars, args, req).
func (e *emitter) receivers(p *pkgGen) []*Receiver {
	var out []*Receiver
	for _, r := range p.receivers {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Receiver) int { return cmp.Compare(a.Type.Obj().Name(), b.Type.Obj().Name()) })
	reserved := func(name string) bool {
		return name == "s" || locals[name] || e.taken[name] || e.importsUsed[name] || isKeyword(name) || types.Universe.Lookup(name) != nil
	}
	taken := map[string]bool{}
	for _, r := range out {
		base := lowerFirst(r.Type.Obj().Name())
		if reserved(base) {
			base += "Recv"
		}
		name := base
		for i := 2; taken[name] || reserved(name); i++ {
			name = base + strconv.Itoa(i)
		}
		taken[name] = true
		r.Param = name
	}
	return out
}

func lowerFirst(s string) string {
	r := []rune(s)
	// Lower a leading acronym as a whole: HTTPClient -> httpClient.
	for i := range r {
		if i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) || !unicode.IsUpper(r[i]) {
			break
		}
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

func isKeyword(s string) bool {
	switch s {
	case "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for",
		"func", "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select",
		"struct", "switch", "type", "var":
		return true
	}
	return false
}

// goName is an annotated function's Go name, for generated identifiers: Func, or
// Type + Method for methods.
func goName(c *Callable) string {
	if c.Recv != nil {
		return c.Recv.Type.Obj().Name() + upperFirst(c.Func.Name())
	}
	return upperFirst(c.Func.Name())
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// register emits RegisterMCP, which adds every tool to a server.
func (e *emitter) register(p *pkgGen, recvs []*Receiver) jen.Code {
	params := []jen.Code{jen.Id("s").Op("*").Qual(RuntimePath, "Server")}
	for _, r := range recvs {
		params = append(params, jen.Id(r.Param).Add(e.recvType(r)))
	}
	var body []jen.Code
	for _, t := range p.tools {
		body = append(body, jen.Id("s").Dot("AddTool").Call(e.toolValue(t)))
	}
	body = append(body, e.registerFeatures(p)...)
	doc := fmt.Sprintf("%s adds the MCP %s of package %s to s.", RegisterFunc, p.offerings(), p.pkg.Name)
	if len(recvs) > 0 {
		doc += " Methods are called on the values given."
	}
	comment := jen.Comment(doc)
	if p.empty() {
		comment = jen.Comment(fmt.Sprintf("%s adds nothing to s: package %s has no //mcp: directives. It is", RegisterFunc, p.pkg.Name)).Line().
			Comment("generated while code calls it, so that the code compiles; mcpgen removes it once none does.")
	}
	return comment.Line().Func().Id(RegisterFunc).Params(params...).Block(body...)
}

func (e *emitter) recvType(r *Receiver) *jen.Statement {
	if r.Pointer {
		return jen.Op("*").Add(e.typ(r.Type))
	}
	return e.typ(r.Type)
}

// toolValue emits the mcp.Tool literal of one tool, fields in the order a reader wants them.
func (e *emitter) toolValue(t *Tool) jen.Code {
	fields := optionalFields([]jen.Code{field("Name", jen.Lit(t.Name))}, "Title", t.Title, "Description", t.Description)
	fields = append(fields, field("InputSchema", jen.Id(e.id(t, "Input"))))
	if t.Out == OutStruct {
		fields = append(fields, field("OutputSchema", jen.Id(e.id(t, "Output"))))
	}
	var hints []jen.Code
	for _, h := range []struct {
		name string
		v    *bool
	}{{"ReadOnlyHint", t.Hints.ReadOnly}, {"DestructiveHint", t.Hints.Destructive}, {"IdempotentHint", t.Hints.Idempotent}, {"OpenWorldHint", t.Hints.OpenWorld}} {
		if h.v != nil {
			hints = append(hints, field(h.name, jen.Qual(RuntimePath, "Ptr").Call(jen.Lit(*h.v))))
		}
	}
	if len(hints) > 0 {
		fields = append(fields, field("Annotations", jen.Qual(RuntimePath, "ToolAnnotations").Values(hints...)))
	}
	var handler jen.Code = jen.Id(e.id(t, "Call"))
	if t.Recv != nil {
		handler = jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("c").Op("*").Qual(RuntimePath, "ToolCall")).Block(
			jen.Id(e.id(t, "Call")).Call(jen.Id("ctx"), jen.Id("c"), jen.Id(t.Recv.Param)),
		)
	}
	fields = append(fields, field("Handler", handler))
	return multiLine(jen.Qual(RuntimePath, "Tool"), fields...)
}

// noArguments is the input schema of a tool that takes no arguments, as the 2025-11-25 spec
// recommends: an object that must be empty.
const noArguments = `{
  "type": "object",
  "properties": {},
  "additionalProperties": false
}`

// schemas emits the tool's JSON Schemas as constants.
func (e *emitter) schemas(t *Tool) jen.Code {
	defs := []jen.Code{jen.Id(e.id(t, "Input")).Op("=").Op("`" + string(e.inputs[t]) + "`")}
	if t.Out == OutStruct {
		defs = append(defs, jen.Id(e.id(t, "Output")).Op("=").Op("`"+string(schema.Render(t.OutType))+"`"))
	}
	return jen.Comment(fmt.Sprintf("JSON Schemas of tool %s.", t.Name)).Line().Const().Defs(defs...)
}

// headersValid checks the x-mcp-header annotations of every input schema as the runtime
// will when the tool is registered, reporting what it would refuse. The tags' own checks
// catch their mistakes first, with positions; this catches schemas declared with
// //mcp:schema, so that no generated file holds a tool that clients drop and the runtime
// panics on.
func (e *emitter) headersValid(p *pkgGen) bool {
	ok := true
	for _, t := range p.tools {
		for _, problem := range schema.HeaderProblems(e.inputs[t]) {
			p.diags.Hintf(t.Pos, "fix the schema declared with //mcp:schema, or mark the argument with a field tag mcp:\"header=Name\"",
				"tool %s: in its inputSchema, %s", t.Name, problem)
			ok = false
		}
	}
	return ok
}

// ContractVersion is the version of the runtime's contract with generated code that the
// emitted code keeps (runtime/mcp/generated.go).
const ContractVersion = "1"

// contractGuard emits the declaration that fails to compile with a runtime of another
// contract, at a line that says what to do.
func contractGuard() jen.Code {
	return jen.Comment("The line below needs the runtime of the mcpgen that generated this file. If it does not").Line().
		Comment("compile, the module builds with another version of mcpgen's runtime: run go generate").Line().
		Comment("(go tool mcpgen) with the mcpgen the module requires.").Line().
		Const().Id("_").Op("=").Qual(RuntimePath, "GeneratedCodeContract"+ContractVersion)
}

// decodeInput emits the steps every handler takes with its input (arguments, variables):
// decode it into in with the input type's decoder (or its own UnmarshalJSON, or check that it
// is empty when there is no input type), then ask whether it was valid and hand the error to
// fail, which says what the kind of handler does with it.
func (e *emitter) decodeInput(in *schema.Type, fail ...jen.Code) []jen.Code {
	var body []jen.Code
	switch {
	case in == nil:
		body = append(body, jen.Id("args").Dot("Decoder").Call().Dot("EmptyObject").Call())
	case in.Kind == schema.Custom:
		// A type with its own JSON reads it, against the schema it declares.
		body = append(body, jen.Var().Id("in").Add(e.typ(in.Go)), jen.Id("args").Dot("Unmarshal").Call(jen.Op("&").Id("in")))
	default:
		body = append(body, jen.Var().Id("in").Add(e.typ(in.Go)),
			jen.Id(e.id(in.Object, "Decode")).Call(jen.Id("args").Dot("Decoder").Call(), jen.Op("&").Id("in")))
	}
	return append(body, jen.If(jen.Err().Op(":=").Id("args").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(fail...))
}

// call emits the handler of one tool: decode and validate the arguments, call the function,
// turn what it returns into the result.
func (e *emitter) call(t *Tool) jen.Code {
	params := []jen.Code{ctxParam(&t.Callable), jen.Id("c").Op("*").Qual(RuntimePath, "ToolCall")}
	params = append(params, e.recvParam(&t.Callable)...)
	body := []jen.Code{jen.Id("args").Op(":=").Id("c").Dot("Arguments").Call()}
	body = append(body, e.decodeInput(t.In, jen.Id("c").Dot("ReturnError").Call(jen.Err()), jen.Return())...)
	var args []jen.Code
	if t.In != nil {
		args = append(args, argument("in", t.InPointer))
	}

	invoke := e.invoke(&t.Callable, args...)
	switch {
	case t.Out == OutNone && !t.Err:
		body = append(body, invoke)
	case t.Out == OutNone:
		body = append(body, jen.If(jen.Err().Op(":=").Add(invoke), jen.Err().Op("!=").Nil()).Block(
			jen.Id("c").Dot("ReturnError").Call(jen.Err()),
		))
	case t.Err:
		body = append(body,
			jen.List(jen.Id("out"), jen.Err()).Op(":=").Add(invoke),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("c").Dot("ReturnError").Call(jen.Err()), jen.Return()),
		)
		body = append(body, e.result(t)...)
	default:
		body = append(body, jen.Id("out").Op(":=").Add(invoke))
		body = append(body, e.result(t)...)
	}
	name := e.id(t, "Call")
	return jen.Comment(fmt.Sprintf("%s serves tool %s.", name, t.Name)).Line().Func().Id(name).Params(params...).Block(body...)
}

// result emits what sets the call's result from out.
func (e *emitter) result(t *Tool) []jen.Code {
	c := jen.Id("c")
	switch t.Out {
	case OutStruct:
		obj := t.OutType.Deref().Object
		value := jen.Op("&").Id("out")
		var out []jen.Code
		if t.OutPointer {
			value = jen.Id("out")
			out = append(out, jen.If(jen.Id("out").Op("==").Nil()).Block(
				c.Clone().Dot("ReturnError").Call(jen.Qual(RuntimePath, "ErrNilResult")),
				jen.Return(),
			))
		}
		if e.checked[obj] {
			out = append(out,
				jen.Id(e.id(obj, "Check")).Call(c.Clone().Dot("Checker").Call(), value.Clone()),
				jen.If(jen.Op("!").Add(c.Clone()).Dot("ResultOK").Call()).Block(jen.Return()),
			)
		}
		return append(out, jen.Id(e.id(obj, "Encode")).Call(c.Clone().Dot("Structured").Call(), value))
	case OutText:
		return []jen.Code{c.Dot("ReturnText").Call(e.convert(jen.Id("out"), t.OutGo, types.Typ[types.String]))}
	case OutContent:
		return []jen.Code{c.Dot("ReturnContent").Call(jen.Id("out"))}
	case OutContents:
		return []jen.Code{c.Dot("ReturnContent").Call(jen.Id("out").Op("..."))}
	case OutResult:
		if t.OutPointer {
			return []jen.Code{c.Dot("ReturnResult").Call(jen.Id("out"))}
		}
		return []jen.Code{c.Dot("ReturnResult").Call(jen.Op("&").Id("out"))}
	}
	return nil
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

// qual names a package-level type: unqualified (as a reference finish resolves) in the
// generated file's own package, qualified in another.
func (e *emitter) qual(obj types.Object) *jen.Statement {
	pkg := obj.Pkg()
	if pkg == nil {
		return jen.Id(obj.Name())
	}
	if pkg.Path() == e.pkgPath {
		return e.ref(obj.Name())
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
// (see vars), allocating the name on first use: genPrefix, kind and a number.
func (e *emitter) prepared(vars map[string]string, kind, key string) string {
	if name, ok := vars[key]; ok {
		return name
	}
	name := e.alloc(fmt.Sprintf("%s%s%d", genPrefix, kind, len(vars)))
	vars[key] = name
	return name
}
