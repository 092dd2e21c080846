package importer

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"golang.org/x/tools/imports"
)

const (
	mcpPkg      = "github.com/mcpgen/mcpgen/runtime/mcp"
	jsonwirePkg = "github.com/mcpgen/mcpgen/runtime/jsonwire"
	// Header is the first line of the generated file, as of every file mcpgen writes.
	Header = model.Header
	// CodeFile and SnapshotFile are the files of a generated package.
	CodeFile     = "client_gen.go"
	SnapshotFile = "snapshot.json"
	// CodecFile holds the encoders and decoders of the server's Go types a client reuses.
	CodecFile = "codec_gen.go"
)

// Options say what package to generate.
type Options struct {
	Package string // the package's name
	Dir     string // where its files go
	// Reuse, when the server is an mcpgen package, are its Go types the client takes
	// instead of generating copies from the schemas.
	Reuse *Reuse
}

// Reuse is what a client reuses of an mcpgen server's package: for some tools, the Go types
// of their arguments or results, with the code that encodes and decodes them, which goes
// into the package as CodecFile.
type Reuse struct {
	Tools   map[string]ReusedTool // by tool name
	Imports map[string]string     // the packages the reused types name: path -> name
	Codec   []byte                // the source of CodecFile
	Notes   []string              // the types it could not reuse, and why
}

// ReusedTool is what the client reuses of one tool.
type ReusedTool struct {
	In, Out        jen.Code // the argument and result types; nil for one not reused
	Encode, Decode string   // the CodecFile functions: func(*jsonwire.Encoder, *In), func(*jsonwire.Decoder, *Out)
}

// File is a generated file.
type File struct {
	Path string
	Data []byte
}

// Result is a generated package: its files and the schema constructs that fell back to
// json.RawMessage.
type Result struct {
	Files     []File
	Fallbacks []string
	// Remove are files an earlier generation may have written that this one does not: they
	// go, if they are there.
	Remove []string
}

// tool is a tool with its Go names and types.
type tool struct {
	Tool
	method string
	reuse  ReusedTool // the server's Go types it takes, if any
	in     *goType    // nil: the tool takes no arguments (or they are reuse.In)
	inRaw  bool       // the input schema is not an object of properties: json.RawMessage
	out    *goType    // nil: no output schema, the method returns the content
	outKey string     // a Mapping's: the property of out the response is decoded into, if not out itself
}

// Generate writes the typed client of snap.
func Generate(snap *Snapshot, opts Options) (*Result, error) {
	if !isIdent(opts.Package) {
		return nil, fmt.Errorf("%q is not a Go package name", opts.Package)
	}
	snapBytes, err := snap.Marshal()
	if err != nil {
		return nil, err
	}
	res := &Result{}
	pkg := &pkgTypes{names: namer{"Client": true, "New": true, "Snapshot": true}}
	methods := namer{"MCP": true}
	// In the snapshot's order (tools by name), whatever order snap has them in: names are
	// handed out in this order.
	sorted := *snap
	sorted.Tools = slices.Clone(snap.Tools)
	sorted.Prompts = slices.Clone(snap.Prompts)
	sorted.ResourceTemplates = slices.Clone(snap.ResourceTemplates)
	sorted.sort()
	snap = &sorted
	var tools []*tool
	for _, t := range snap.Tools {
		tl := &tool{Tool: t, method: methods.unique(exported(t.Name))}
		if opts.Reuse != nil {
			tl.reuse = opts.Reuse.Tools[t.Name]
		}
		if tl.reuse.In == nil && !noArguments(t.InputSchema) {
			in, _ := newConverter(pkg, t.InputSchema, "tool "+t.Name+" input", &res.Fallbacks).convert(t.InputSchema, "")
			tl.in, tl.inRaw = in, in.kind != kStruct
			if in.kind == kStruct {
				in.input = tl.method + "Input"
			}
		}
		if tl.reuse.Out == nil && len(t.OutputSchema) > 0 {
			tl.out, _ = newConverter(pkg, t.OutputSchema, "tool "+t.Name+" output", &res.Fallbacks).convert(t.OutputSchema, "")
		}
		tools = append(tools, tl)
	}
	pkg.finish(tools)

	e := &emitter{file: jen.NewFile(opts.Package), pkg: pkg}
	f := e.file
	f.HeaderComment(strings.TrimPrefix(Header, "// "))
	f.ImportName(mcpPkg, "mcp")
	f.ImportName(jsonwirePkg, "jsonwire")
	f.Anon("embed")
	if opts.Reuse != nil {
		for path, name := range opts.Reuse.Imports {
			f.ImportName(path, name)
		}
	}
	for _, line := range wrap(packageDoc(snap, opts), 96) {
		f.PackageComment(line)
	}

	f.Add(comment("Snapshot is what the server offered when this package was generated: the " + SnapshotFile + " mcpgen import --check compares with the server."))
	f.Comment("//go:embed " + SnapshotFile)
	f.Var().Id("Snapshot").Index().Byte()

	f.Add(comment("Client calls the server's tools, prompts and resource templates with Go types. It is safe for concurrent use, as the *mcp.Client it wraps is."))
	f.Type().Id("Client").Struct(jen.Id("MCP").Op("*").Qual(mcpPkg, "Client").Comment("the connection, for everything else the server offers"))
	f.Comment("New wraps a client connected to the server.")
	f.Func().Id("New").Params(jen.Id("c").Op("*").Qual(mcpPkg, "Client")).Op("*").Id("Client").Block(jen.Return(jen.Op("&").Id("Client").Values(jen.Id("MCP").Op(":").Id("c"))))

	for _, t := range tools {
		e.toolMethod(t)
	}
	e.prompts(snap.Prompts, methods)
	e.templates(snap.ResourceTemplates, methods)
	e.helpers(tools)
	for _, t := range pkg.decls {
		e.decl(t)
	}

	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("generating %s: %w", opts.Package, err)
	}
	// Formatted, with the imports in goimports' groups.
	src, err := imports.Process(CodeFile, buf.Bytes(), &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
	if err != nil {
		return nil, fmt.Errorf("generating %s: %w", opts.Package, err)
	}
	res.Files = []File{
		{Path: filepath.Join(opts.Dir, CodeFile), Data: src},
		{Path: filepath.Join(opts.Dir, SnapshotFile), Data: snapBytes},
	}
	if opts.Reuse != nil && opts.Reuse.Codec != nil {
		res.Files = append(res.Files, File{Path: filepath.Join(opts.Dir, CodecFile), Data: opts.Reuse.Codec})
	} else {
		res.Remove = append(res.Remove, filepath.Join(opts.Dir, CodecFile))
	}
	return res, nil
}

// isIdent says whether s makes a package name: lower-case letters, digits and _, not
// starting with a digit.
func isIdent(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == "" && (s[0] < '0' || s[0] > '9')
}

func packageDoc(snap *Snapshot, opts Options) string {
	who := "an MCP server"
	if snap.Server != nil && snap.Server.Name != "" {
		who = "the MCP server " + snap.Server.Name
		if snap.Server.Version != "" {
			who += " " + snap.Server.Version
		}
	}
	if snap.GoPackage != "" {
		who = "the MCP server of package " + snap.GoPackage + ", reusing its Go types where it can,"
	}
	doc := fmt.Sprintf("Package %s calls %s with Go types: a method per tool, prompt and resource template, arguments and results as structs.", opts.Package, who)
	return doc + " Regenerate with mcpgen import; mcpgen import --check says whether the server has changed since."
}

type emitter struct {
	file *jen.File
	pkg  *pkgTypes
	// openapi: a Mapping's types, which mcpgen's generator reads: validation keywords in
	// jsonschema tags, unions with declared schemas, no MarshalJSON on structs.
	openapi bool
	// codecs are the codecs a Mapping's structs need (Mapping.codecs); nil: both.
	codecs map[*goType]codecs
}

// goTypeOf is the Go type expression of t.
func goTypeOf(t *goType) jen.Code {
	switch t.kind {
	case kString:
		return jen.String()
	case kInt:
		return jen.Int64()
	case kFloat:
		return jen.Float64()
	case kBool:
		return jen.Bool()
	case kTime:
		return jen.Qual("time", "Time")
	case kRaw:
		return jen.Qual("encoding/json", "RawMessage")
	case kBytes:
		return jen.Index().Byte()
	case kSlice:
		return jen.Index().Add(elemTypeOf(t))
	case kMap:
		return jen.Map(jen.String()).Add(elemTypeOf(t))
	}
	return jen.Id(t.name)
}

// elemTypeOf is the Go type of the elements of a kSlice or kMap: *T when they may be null.
func elemTypeOf(t *goType) jen.Code {
	if t.elemPointer() {
		return jen.Op("*").Add(goTypeOf(t.elem))
	}
	return goTypeOf(t.elem)
}

// fieldValueType is the T of a field's mcp.Nullable[T]: the field's type, or a pointer to it
// when the struct contains itself by the field.
func fieldValueType(fl *field) jen.Code {
	if fl.recursive {
		return jen.Op("*").Add(goTypeOf(fl.t))
	}
	return goTypeOf(fl.t)
}

// decl declares a type, with its codec.
func (e *emitter) decl(t *goType) {
	f := e.file
	f.Add(comment(typeDoc(t)))
	if e.openapi && (t.kind == kUnion || t.kind == kOneOf) {
		// Its own JSON form, so mcpgen's generator takes the schema declared.
		f.Comment("//")
		f.Comment("//mcp:schema " + declaredSchema(t))
	}
	switch t.kind {
	case kEnum:
		f.Type().Id(t.name).String()
		var consts []jen.Code
		for _, v := range t.values {
			consts = append(consts, jen.Id(v.name).Id(t.name).Op("=").Lit(v.value))
		}
		f.Const().Defs(consts...)
	case kStruct:
		var fields []jen.Code
		for _, fl := range t.fields {
			if fl.fixed {
				continue
			}
			typ := goTypeOf(fl.t)
			tag := fl.key
			switch {
			case fl.threeStates():
				typ = jen.Qual(mcpPkg, "Nullable").Types(fieldValueType(fl))
				tag += ",omitzero"
			case fl.pointer():
				typ = jen.Op("*").Add(typ)
			}
			if fl.optional && !fl.threeStates() {
				tag += ",omitempty"
			}
			if doc := docAnd(fl.doc, fallbackDoc(fl.t)); doc != "" {
				fields = append(fields, comment(doc))
			}
			tags := map[string]string{"json": tag}
			if e.openapi {
				if s := schemaTag(fl); s != "" {
					tags["jsonschema"] = s
				}
			}
			fields = append(fields, jen.Id(fl.name).Add(typ).Tag(tags))
		}
		if t.extra != nil {
			tags := map[string]string{"json": "-"}
			if e.openapi { // mcpgen's generator reads and writes them, as the schema has them
				tags["mcp"] = "additionalProperties"
			}
			fields = append(fields, comment(t.extraName+" are the members besides those above (additionalProperties)."),
				jen.Id(t.extraName).Add(goTypeOf(t.extraMap())).Tag(tags))
		}
		f.Type().Id(t.name).Struct(fields...)
		e.structCodec(t)
	case kOneOf:
		var fields []jen.Code
		for _, b := range t.branches {
			fields = append(fields, jen.Id(b.t.name).Op("*").Id(b.t.name))
		}
		f.Type().Id(t.name).Struct(fields...)
		e.oneOfCodec(t)
	case kUnion:
		var fields []jen.Code
		for _, m := range t.members {
			if doc := docAnd(m.doc, fallbackDoc(m.t)); doc != "" {
				fields = append(fields, comment(doc))
			}
			typ := goTypeOf(m.t)
			if !m.t.kind.nilable() {
				typ = jen.Op("*").Add(typ)
			}
			fields = append(fields, jen.Id(m.name).Add(typ))
		}
		f.Type().Id(t.name).Struct(fields...)
		e.unionCodec(t)
	case kIface:
		f.Type().Id(t.name).Interface(jen.Id("is" + t.name).Params())
		for _, b := range t.branches {
			f.Func().Params(jen.Id(b.t.name)).Id("is" + t.name).Params().Block()
		}
		e.ifaceCodec(t)
	}
}

// typeDoc is the comment of a declared type: its description, and how to use a union.
func typeDoc(t *goType) string {
	var doc []string
	if t.doc != "" {
		doc = append(doc, t.doc)
	}
	switch t.kind {
	case kEnum:
		if t.doc == "" {
			doc = append(doc, t.name+" is one of the values below.")
		}
	case kStruct:
		if t.doc == "" {
			doc = append(doc, t.name+" is an object of the server's schema.")
		}
		var fixed []string
		for _, f := range t.fields {
			if f.fixed {
				fixed = append(fixed, fmt.Sprintf("%q is %q", f.key, f.value))
			}
		}
		if len(fixed) > 0 {
			doc = append(doc, "Its "+andList(fixed)+", always: the encoder writes it.")
		}
	case kUnion:
		var kinds, names []string
		for _, m := range t.members {
			kinds = append(kinds, article(m.json))
			names = append(names, m.name)
		}
		text := t.name + " is " + orList(kinds) + ": set one of its fields, " + orList(names) + "; decoding sets the one of the value's JSON type"
		if slices.ContainsFunc(t.members, func(m *member) bool { return m.json == "integer" }) && slices.ContainsFunc(t.members, func(m *member) bool { return m.json == "number" }) {
			text += " (a whole number: Integer)"
		}
		doc = append(doc, text+".")
	case kOneOf:
		var names []string
		for _, b := range t.branches {
			names = append(names, b.t.name)
		}
		text := t.name + " is one of " + orList(names) + ": set one of its fields. Decoding tells them apart by "
		if t.tag != "" {
			text += fmt.Sprintf("the value of %q.", t.tag)
		} else {
			text += "the properties each requires; when an object has those of several, the first listed wins."
		}
		doc = append(doc, text)
	case kIface:
		var names []string
		for _, b := range t.branches {
			names = append(names, b.t.name)
		}
		text := t.name + " is one of " + orList(names) + ", which decoding tells apart by "
		if t.tag != "" {
			text += fmt.Sprintf("the value of %q.", t.tag)
		} else {
			text += "the properties each requires; when an object has those of several, the first listed wins."
		}
		doc = append(doc, text+" Unmarshal"+t.name+" decodes one.")
	}
	return strings.Join(doc, "\n\n")
}

// article is "a string", "an object"...
func article(kind string) string {
	if strings.ContainsAny(kind[:1], "aeiou") {
		return "an " + kind
	}
	return "a " + kind
}

// schemaTag is the jsonschema tag of a Mapping's field: its validation keywords, and
// whether it may be null, and is required though a pointer.
func schemaTag(fl *field) string {
	items := []string{}
	if fl.rules != "" {
		items = append(items, fl.rules)
	}
	if fl.nullable && fl.t.kind != kRaw && !fl.threeStates() { // an mcp.Nullable says it itself
		items = append(items, "nullable")
	}
	if !fl.optional && fl.pointer() {
		items = append(items, "required")
	}
	return strings.Join(items, ",")
}
