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
	"github.com/mcpgen/mcpgen/gen/schema"
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
	patterns map[string]string       // regular expression -> variable name
	rats     map[string]string       // multipleOf number -> variable name
	checked  map[*schema.Object]bool // the result structs that need a checker
}

// locals are the names generated code gives its variables (temporaries get a depth suffix);
// an imported package with one of these names is imported under an alias instead.
var locals = map[string]bool{"a": true, "b": true, "c": true, "count": true, "ctx": true, "d": true, "def": true,
	"e": true, "err": true, "f": true, "i": true, "in": true, "k": true, "key": true, "length": true, "list": true,
	"m": true, "n": true, "ok": true, "out": true, "recv": true, "s": true, "v": true, "x": true}

// emitFile renders the generated file of a package.
func emitFile(p *pkgGen) ([]byte, error) {
	f := jen.NewFilePathName(p.pkg.PkgPath, p.pkg.Name)
	e := &emitter{file: f, pkgPath: p.pkg.PkgPath, patterns: map[string]string{}, rats: map[string]string{}}
	f.HeaderComment(strings.TrimPrefix(Header, "// "))
	f.HeaderComment("//go:build !" + BuildTag)
	f.ImportName(RuntimePath, "mcp")
	f.ImportName(JSONWirePath, "jsonwire")

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
	slices.SortFunc(p.forms, func(a, b *Form) int { return cmp.Compare(a.Type.Object.Name, b.Type.Object.Name) })

	recvs := receivers(p)
	f.Add(e.register(p, recvs))
	var decoded, encoded []*schema.Object
	seenIn, seenOut := map[*schema.Object]bool{}, map[*schema.Object]bool{}
	for _, t := range p.tools {
		f.Line()
		f.Add(e.schemas(t))
		f.Line()
		f.Add(e.call(t))
		objects(t.In, seenIn, &decoded)
		objects(t.OutType, seenOut, &encoded)
	}
	for _, r := range p.resources {
		f.Line()
		f.Add(e.readFunc(r))
		objects(r.In, seenIn, &decoded)
	}
	for _, pr := range p.prompts {
		f.Line()
		f.Add(e.getFunc(pr))
		objects(pr.In, seenIn, &decoded)
	}
	for _, c := range p.completions {
		f.Line()
		f.Add(e.completeFunc(c))
	}
	if len(p.forms) > 0 {
		f.Line()
		f.Add(e.formSchemas(p.forms))
	}
	for _, fm := range p.forms {
		objects(fm.Type, seenIn, &decoded)
	}
	byName := func(a, b *schema.Object) int { return cmp.Compare(a.Name, b.Name) }
	slices.SortFunc(decoded, byName)
	slices.SortFunc(encoded, byName)
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
	// A blank line between the header and the build constraint, for the reader; imports in
	// goimports' groups (standard library first).
	out := bytes.Replace(buf.Bytes(), []byte("\n//go:build"), []byte("\n\n//go:build"), 1)
	return imports.Process(DefaultFileName, out, &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
}

// receivers orders the receiver types of method tools by name and names their parameters.
func receivers(p *pkgGen) []*Receiver {
	var out []*Receiver
	for _, r := range p.receivers {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Receiver) int { return cmp.Compare(a.Type.Obj().Name(), b.Type.Obj().Name()) })
	taken := map[string]bool{"s": true, "ctx": true, "c": true, "mcp": true, "jsonwire": true}
	for _, r := range out {
		name := lowerFirst(r.Type.Obj().Name())
		if isKeyword(name) || taken[name] {
			name += "Recv"
		}
		for i := 2; taken[name]; i++ {
			name = lowerFirst(r.Type.Obj().Name()) + strconv.Itoa(i)
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
	return jen.Comment(doc).Line().Func().Id(RegisterFunc).Params(params...).Block(body...)
}

func (e *emitter) recvType(r *Receiver) *jen.Statement {
	if r.Pointer {
		return jen.Op("*").Add(e.typ(r.Type))
	}
	return e.typ(r.Type)
}

// toolValue emits the mcp.Tool literal of one tool, fields in the order a reader wants them.
func (e *emitter) toolValue(t *Tool) jen.Code {
	field := func(name string, value jen.Code) jen.Code { return jen.Id(name).Op(":").Add(value) }
	fields := []jen.Code{field("Name", jen.Lit(t.Name))}
	if t.Title != "" {
		fields = append(fields, field("Title", jen.Lit(t.Title)))
	}
	if t.Description != "" {
		fields = append(fields, field("Description", jen.Lit(t.Description)))
	}
	fields = append(fields, field("InputSchema", jen.Id(genPrefix+goName(&t.Callable)+"Input")))
	if t.Out == OutStruct {
		fields = append(fields, field("OutputSchema", jen.Id(genPrefix+goName(&t.Callable)+"Output")))
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
	var handler jen.Code = jen.Id(genPrefix + "Call" + goName(&t.Callable))
	if t.Recv != nil {
		handler = jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("c").Op("*").Qual(RuntimePath, "ToolCall")).Block(
			jen.Id(genPrefix+"Call"+goName(&t.Callable)).Call(jen.Id("ctx"), jen.Id("c"), jen.Id(t.Recv.Param)),
		)
	}
	fields = append(fields, field("Handler", handler))
	return jen.Qual(RuntimePath, "Tool").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, fields...)
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
	in := []byte(noArguments)
	if t.In != nil {
		in = schema.Render(t.In)
	}
	defs := []jen.Code{jen.Id(genPrefix + goName(&t.Callable) + "Input").Op("=").Op("`" + string(in) + "`")}
	if t.Out == OutStruct {
		defs = append(defs, jen.Id(genPrefix+goName(&t.Callable)+"Output").Op("=").Op("`"+string(schema.Render(t.OutType))+"`"))
	}
	return jen.Comment(fmt.Sprintf("JSON Schemas of tool %s.", t.Name)).Line().Const().Defs(defs...)
}

// call emits the handler of one tool: decode and validate the arguments, call the function,
// turn what it returns into the result.
func (e *emitter) call(t *Tool) jen.Code {
	ctxName := "_"
	if t.Ctx {
		ctxName = "ctx"
	}
	params := []jen.Code{jen.Id(ctxName).Qual("context", "Context"), jen.Id("c").Op("*").Qual(RuntimePath, "ToolCall")}
	var body []jen.Code
	var args []jen.Code
	if t.Ctx {
		args = append(args, jen.Id("ctx"))
	}
	if t.In != nil && t.In.Kind == schema.Custom {
		// The type reads its own JSON, against the schema it declares.
		body = append(body,
			jen.Var().Id("in").Add(e.typ(t.In.Go)),
			jen.Id("c").Dot("UnmarshalArguments").Call(jen.Op("&").Id("in")),
		)
		args = append(args, argument("in", t.InPointer))
	} else if t.In != nil {
		body = append(body,
			jen.Var().Id("in").Add(e.typ(t.In.Go)),
			jen.Id(genPrefix+"Decode"+t.In.Object.Name).Call(jen.Id("c").Dot("Arguments").Call(), jen.Op("&").Id("in")),
		)
		if t.InPointer {
			args = append(args, jen.Op("&").Id("in"))
		} else {
			args = append(args, jen.Id("in"))
		}
	} else {
		body = append(body, jen.Id("c").Dot("Arguments").Call().Dot("EmptyObject").Call())
	}
	body = append(body, jen.If(jen.Op("!").Id("c").Dot("ArgumentsOK").Call()).Block(jen.Return()))

	fn := jen.Id(t.Func.Name())
	if t.Recv != nil {
		params = append(params, jen.Id("recv").Add(e.recvType(t.Recv)))
		fn = jen.Id("recv").Dot(t.Func.Name())
	}
	invoke := fn.Call(args...)
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
	doc := fmt.Sprintf("%sCall%s serves tool %s.", genPrefix, goName(&t.Callable), t.Name)
	return jen.Comment(doc).Line().Func().Id(genPrefix + "Call" + goName(&t.Callable)).Params(params...).Block(body...)
}

// result emits what sets the call's result from out.
func (e *emitter) result(t *Tool) []jen.Code {
	c := jen.Id("c")
	switch t.Out {
	case OutStruct:
		name := t.OutType.Deref().Object.Name
		value := jen.Op("&").Id("out")
		var out []jen.Code
		if t.OutPointer {
			value = jen.Id("out")
			out = append(out, jen.If(jen.Id("out").Op("==").Nil()).Block(
				c.Clone().Dot("ReturnError").Call(jen.Qual(RuntimePath, "ErrNilResult")),
				jen.Return(),
			))
		}
		if e.checked[t.OutType.Deref().Object] {
			out = append(out,
				jen.Id(genPrefix+"Check"+name).Call(c.Clone().Dot("Checker").Call(), value.Clone()),
				jen.If(jen.Op("!").Add(c.Clone()).Dot("ResultOK").Call()).Block(jen.Return()),
			)
		}
		return append(out, jen.Id(genPrefix+"Encode"+name).Call(c.Clone().Dot("Structured").Call(), value))
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
		return e.qual(t.Obj())
	case *types.Named:
		s := e.qual(t.Obj())
		if args := t.TypeArgs(); args != nil {
			var list []jen.Code
			for a := range args.Types() {
				list = append(list, e.typ(a))
			}
			s = s.Types(list...)
		}
		return s
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

func (e *emitter) qual(obj types.Object) *jen.Statement {
	pkg := obj.Pkg()
	if pkg == nil || pkg.Path() == e.pkgPath {
		return jen.Id(obj.Name())
	}
	// The package's real name, so the import needs no alias unless it would be shadowed.
	if locals[strings.TrimRight(pkg.Name(), "0123456789")] {
		e.file.ImportAlias(pkg.Path(), pkg.Name()+"pkg")
	} else {
		e.file.ImportName(pkg.Path(), pkg.Name())
	}
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

func (e *emitter) pattern(re string) string {
	if name, ok := e.patterns[re]; ok {
		return name
	}
	name := fmt.Sprintf("%sPattern%d", genPrefix, len(e.patterns))
	e.patterns[re] = name
	return name
}
