package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/gen/internal/diag"
	"github.com/mcpgen/mcpgen/internal/describe"
	"golang.org/x/tools/go/packages"
)

// BuildTag is set while mcpgen loads packages. Generated files carry //go:build !mcpgen, so
// a stale or broken generated file never stands in the way of regenerating it.
const BuildTag = "mcpgen"

// load type-checks the packages matching cfg.Patterns, from source, with the mcpgen build tag.
func load(cfg *Config, fset *token.FileSet) ([]*packages.Package, error) {
	tags := append([]string{BuildTag}, cfg.BuildTags...)
	pcfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedModule,
		Dir:        cfg.Dir,
		Env:        cfg.Env,
		Fset:       fset,
		BuildFlags: []string{"-tags=" + strings.Join(tags, ",")},
		Tests:      false,
	}
	pkgs, err := packages.Load(pcfg, cfg.Patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %w", err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(cfg.Patterns, " "))
	}
	return pkgs, nil
}

// undefinedGenerated matches the type errors of code that uses the generated file, which is
// left out while loading.
var undefinedGenerated = regexp.MustCompile(`^undefined: (\w+\.)?` + RegisterFunc + `$`)

// loadErrors turns a package's load and type errors into diagnostics, skipping the ones
// caused by the generated file being left out.
func loadErrors(pkg *packages.Package, diags *diag.List) (failed bool) {
	for _, e := range pkg.Errors {
		switch {
		case e.Kind == packages.TypeError && undefinedGenerated.MatchString(e.Msg):
			continue
		case e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") && pkg.TypesInfo != nil:
			// The compiler's output, run by go list for export data: it repeats the type
			// errors of the package, which are reported one by one with their positions.
			continue
		}
		diags.Add(parsePosition(e.Pos), "", "%s", e.Msg)
		failed = true
	}
	return failed
}

var positionForm = regexp.MustCompile(`^(.*?):(\d+)(?::(\d+))?$`)

// parsePosition reads the "file:line:col" form go/packages reports positions in.
func parsePosition(s string) token.Position {
	m := positionForm.FindStringSubmatch(s)
	if m == nil {
		if s == "-" {
			s = ""
		}
		return token.Position{Filename: s}
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return token.Position{Filename: m[1], Line: line, Column: col}
}

// source indexes what go/types does not keep: doc comments, //mcp:schema directives and
// struct tag positions. Packages loaded from source are indexed up front, by object. Types
// of other packages come from export data, which records where each object is declared (file
// and line): those declarations are read on demand, from the main module's source files only,
// so that the output is the same whichever packages the command line names, and the
// standard library's and other modules' doc comments stay out of schemas.
type source struct {
	fields  map[*types.Var]*ast.Field
	docs    map[*types.TypeName]string
	consts  map[*types.Const]string            // doc or line comments of constants
	schemas map[*types.TypeName]declaredSchema // from //mcp:schema

	fset       *token.FileSet
	diags      *diag.List
	moduleDirs []string             // directories of the main modules
	parsed     map[string]bool      // files read for declarations of other packages
	byLine     map[lineKey]lineDecl // their declarations
	schemaRead map[*types.TypeName]bool
}

type declaredSchema struct {
	json string
	pos  token.Pos
}

// lineKey names a declaration by where export data puts it: file, line and name.
type lineKey struct {
	file string
	line int
	name string
}

type lineDecl struct {
	doc   *ast.CommentGroup // a type's or constant's doc comment (or line comment)
	field *ast.Field
}

func newSource(pkgs []*packages.Package, fset *token.FileSet, diags *diag.List) *source {
	s := &source{fields: map[*types.Var]*ast.Field{}, docs: map[*types.TypeName]string{}, consts: map[*types.Const]string{},
		schemas: map[*types.TypeName]declaredSchema{}, fset: fset, diags: diags, parsed: map[string]bool{},
		byLine: map[lineKey]lineDecl{}, schemaRead: map[*types.TypeName]bool{}}
	for _, pkg := range pkgs {
		if pkg.Module != nil && pkg.Module.Main && pkg.Module.Dir != "" && !slices.Contains(s.moduleDirs, pkg.Module.Dir) {
			s.moduleDirs = append(s.moduleDirs, pkg.Module.Dir)
		}
		if pkg.TypesInfo == nil {
			continue
		}
		for _, file := range pkg.Syntax {
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GenDecl:
					for _, spec := range n.Specs {
						if vs, ok := spec.(*ast.ValueSpec); ok && n.Tok == token.CONST {
							s.readConstDocs(pkg, vs)
							continue
						}
						ts, ok := spec.(*ast.TypeSpec)
						if !ok {
							continue
						}
						if obj, ok := pkg.TypesInfo.Defs[ts.Name].(*types.TypeName); ok {
							if doc := typeSpecDoc(n, ts); doc != nil {
								s.docs[obj] = describe.Description(obj.Name(), doc.Text())
								s.readSchema(obj, doc)
							}
							s.schemaRead[obj] = true
						}
					}
				case *ast.StructType:
					for _, f := range n.Fields.List {
						for _, id := range fieldIdents(f) {
							if v, ok := pkg.TypesInfo.Defs[id].(*types.Var); ok {
								s.fields[v] = f
							}
						}
					}
				}
				return true
			})
		}
	}
	return s
}

// typeSpecDoc is a type's doc comment: the spec's own, or its declaration's when the
// declaration has only this spec.
func typeSpecDoc(gd *ast.GenDecl, ts *ast.TypeSpec) *ast.CommentGroup {
	if ts.Doc == nil && len(gd.Specs) == 1 {
		return gd.Doc
	}
	return ts.Doc
}

// foreign returns the declaration of an object of a package not loaded from source, if it is
// in the main module's source.
func (s *source) foreign(obj types.Object) (lineDecl, bool) {
	if !obj.Pos().IsValid() {
		return lineDecl{}, false
	}
	pos := s.fset.Position(obj.Pos())
	if !s.parsed[pos.Filename] {
		s.parsed[pos.Filename] = true
		if s.inModule(pos.Filename) {
			s.indexFile(pos.Filename)
		}
	}
	d, ok := s.byLine[lineKey{pos.Filename, pos.Line, obj.Name()}]
	return d, ok
}

func (s *source) inModule(file string) bool {
	for _, dir := range s.moduleDirs {
		if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}

// indexFile reads the declarations of a file of another package by file, line and name.
func (s *source) indexFile(name string) {
	f, err := parser.ParseFile(s.fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return // the package compiled, so this does not happen; without it, no descriptions
	}
	key := func(id *ast.Ident) lineKey {
		return lineKey{name, s.fset.Position(id.Pos()).Line, id.Name}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			for _, spec := range n.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					s.byLine[key(spec.Name)] = lineDecl{doc: typeSpecDoc(n, spec)}
				case *ast.ValueSpec:
					if n.Tok != token.CONST {
						continue
					}
					doc := spec.Doc
					if doc == nil {
						doc = spec.Comment
					}
					for _, id := range spec.Names {
						s.byLine[key(id)] = lineDecl{doc: doc}
					}
				}
			}
		case *ast.StructType:
			for _, field := range n.Fields.List {
				for _, id := range fieldIdents(field) {
					s.byLine[key(id)] = lineDecl{field: field}
				}
			}
		}
		return true
	})
}

// fieldIdents returns the identifiers that define a struct field: its names, or for an
// embedded field the type name.
func fieldIdents(f *ast.Field) []*ast.Ident {
	if len(f.Names) > 0 {
		return f.Names
	}
	t := f.Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.SelectorExpr:
			return []*ast.Ident{x.Sel}
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return []*ast.Ident{x}
		default:
			return nil
		}
	}
}

// readConstDocs records the comments of constants: the doc comment, else the line comment.
func (s *source) readConstDocs(pkg *packages.Package, vs *ast.ValueSpec) {
	doc := vs.Doc.Text()
	if doc == "" {
		doc = vs.Comment.Text()
	}
	for _, id := range vs.Names {
		if c, ok := pkg.TypesInfo.Defs[id].(*types.Const); ok {
			if d := describe.Description(c.Name(), doc); d != "" {
				s.consts[c] = d
			}
		}
	}
}

func (s *source) ConstDoc(c *types.Const) string {
	if doc, ok := s.consts[c]; ok {
		return doc
	}
	d, _ := s.foreign(c)
	return describe.Description(c.Name(), d.doc.Text())
}

// field returns the syntax of a struct field.
func (s *source) field(v *types.Var) *ast.Field {
	if f := s.fields[v]; f != nil {
		return f
	}
	d, _ := s.foreign(v)
	return d.field
}

func (s *source) FieldDoc(v *types.Var) string {
	f := s.field(v)
	if f == nil {
		return ""
	}
	doc := f.Doc.Text()
	if doc == "" {
		doc = f.Comment.Text()
	}
	return describe.Description(v.Name(), doc)
}

func (s *source) TypeDoc(obj *types.TypeName) string {
	if doc, ok := s.docs[obj]; ok {
		return doc
	}
	d, _ := s.foreign(obj)
	return describe.Description(obj.Name(), d.doc.Text())
}

func (s *source) TypeSchema(obj *types.TypeName) (string, token.Pos) {
	if !s.schemaRead[obj] {
		s.schemaRead[obj] = true
		if d, ok := s.foreign(obj); ok && d.doc != nil {
			s.readSchema(obj, d.doc)
		}
	}
	d := s.schemas[obj]
	return d.json, d.pos
}

// readSchema reads a //mcp:schema directive, the schema of a type that encodes itself, given
// on the line or in a JSON file beside the source file:
//
//	//mcp:schema {"type": "string", "format": "uri"}
//	//mcp:schema file=contact.schema.json
func (s *source) readSchema(obj *types.TypeName, doc *ast.CommentGroup) {
	for _, c := range directivesIn(doc) {
		text, ok := strings.CutPrefix(c.Text, schemaDirective)
		if !ok {
			continue
		}
		text = strings.TrimSpace(text)
		from := "" // where the JSON came from, for messages
		if name, isFile := strings.CutPrefix(text, "file="); isFile {
			path := filepath.Join(filepath.Dir(s.fset.Position(c.Slash).Filename), filepath.FromSlash(name))
			data, err := os.ReadFile(path)
			if err != nil {
				s.diags.Hintf(c.Slash, "the path is relative to the directory of this source file",
					"//mcp:schema of type %s: cannot read %s: %v", obj.Name(), name, errors.Unwrap(err))
				continue
			}
			text, from = string(data), " in "+name
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			s.diags.Hintf(c.Slash, `write one JSON object on the line: //mcp:schema {"type": "string"}, or put it in a file: //mcp:schema file=x.json`,
				"//mcp:schema of type %s: not a JSON object%s: %v", obj.Name(), from, err)
			continue
		}
		var compact bytes.Buffer
		json.Compact(&compact, []byte(text))
		s.schemas[obj] = declaredSchema{compact.String(), c.Slash}
	}
}

func (s *source) TagPos(v *types.Var) token.Pos {
	if f := s.field(v); f != nil && f.Tag != nil {
		return f.Tag.Pos()
	}
	return token.NoPos
}

// packageDir returns the directory of a package's source files.
func packageDir(pkg *packages.Package) string {
	if pkg.Dir != "" {
		return pkg.Dir
	}
	if len(pkg.GoFiles) > 0 {
		return filepath.Dir(pkg.GoFiles[0])
	}
	return ""
}
