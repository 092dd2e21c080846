package importer

import (
	"bytes"
	"fmt"
	"path/filepath"
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
	var tools []*tool
	for _, t := range snap.Tools {
		tl := &tool{Tool: t, method: methods.unique(exported(t.Name))}
		if opts.Reuse != nil {
			tl.reuse = opts.Reuse.Tools[t.Name]
		}
		if tl.reuse.In == nil && !noArguments(t.InputSchema) {
			in, _ := newConverter(pkg, t.InputSchema, "tool "+t.Name+" input", &res.Fallbacks).convert(t.InputSchema, tl.method+"Input", "")
			tl.in, tl.inRaw = in, in.kind != kStruct
		}
		if tl.reuse.Out == nil && len(t.OutputSchema) > 0 {
			tl.out, _ = newConverter(pkg, t.OutputSchema, "tool "+t.Name+" output", &res.Fallbacks).convert(t.OutputSchema, tl.method+"Output", "")
		}
		tools = append(tools, tl)
	}
	pkg.enumNames()

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
}

// comment writes text as a doc comment of // lines, wrapped at 96 columns.
func comment(text string) *jen.Statement {
	var s *jen.Statement
	for _, line := range wrap(strings.TrimRight(text, "\n"), 96) {
		if s == nil {
			s = jen.Comment(line)
		} else {
			s = s.Line().Comment(line)
		}
	}
	if s == nil {
		return jen.Null()
	}
	return s
}

// wrap breaks each line of text at spaces to fit width columns; an empty line stays, as a
// paragraph break.
func wrap(text string, width int) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		line := words[0]
		for _, w := range words[1:] {
			if len(line)+1+len(w) > width {
				out = append(out, line)
				line = w
				continue
			}
			line += " " + w
		}
		out = append(out, line)
	}
	return out
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
	case kSlice:
		return jen.Index().Add(goTypeOf(t.elem))
	case kMap:
		return jen.Map(jen.String()).Add(goTypeOf(t.elem))
	}
	return jen.Id(t.name)
}

// decl declares a struct or an enum, with its codec.
func (e *emitter) decl(t *goType) {
	f := e.file
	if t.doc == "" {
		f.Add(comment(t.name + map[kind]string{kEnum: " is one of the values below.", kStruct: " is an object of the server's schema."}[t.kind]))
	} else {
		f.Add(comment(t.name + ": " + t.doc))
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
			typ := goTypeOf(fl.t)
			if fl.pointer() {
				typ = jen.Op("*").Add(typ)
			}
			tag := fl.key
			if fl.optional {
				tag += ",omitempty"
			}
			var c []jen.Code
			if fl.doc != "" {
				c = append(c, comment(fl.doc))
			}
			c = append(c, jen.Id(fl.name).Add(typ).Tag(map[string]string{"json": tag}))
			fields = append(fields, c...)
		}
		f.Type().Id(t.name).Struct(fields...)
		e.structCodec(t)
	}
}
