package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/internal/diag"
	"github.com/mcpgen/mcpgen/gen/internal/directive"
	"github.com/mcpgen/mcpgen/internal/describe"
	"golang.org/x/tools/go/packages"
)

// Source indexes what go/types does not keep: doc comments, //mcp:schema directives and
// struct tag positions. Packages loaded from source are indexed up front, by object. Types
// of other packages come from export data, which records where each object is declared (file
// and line): those declarations are read on demand, from the main module's source files only,
// so that the output is the same whichever packages the command line names, and the
// standard library's and other modules' doc comments stay out of schemas.
type Source struct {
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

// NewSource indexes the packages loaded from source.
func NewSource(pkgs []*packages.Package, fset *token.FileSet, diags *diag.List) *Source {
	s := &Source{fields: map[*types.Var]*ast.Field{}, docs: map[*types.TypeName]string{}, consts: map[*types.Const]string{},
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
func (s *Source) foreign(obj types.Object) (lineDecl, bool) {
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

func (s *Source) inModule(file string) bool {
	for _, dir := range s.moduleDirs {
		if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}

// indexFile reads the declarations of a file of another package by file, line and name.
func (s *Source) indexFile(name string) {
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
func (s *Source) readConstDocs(pkg *packages.Package, vs *ast.ValueSpec) {
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

func (s *Source) ConstDoc(c *types.Const) string {
	if doc, ok := s.consts[c]; ok {
		return doc
	}
	d, _ := s.foreign(c)
	return describe.Description(c.Name(), d.doc.Text())
}

// field returns the syntax of a struct field.
func (s *Source) field(v *types.Var) *ast.Field {
	if f := s.fields[v]; f != nil {
		return f
	}
	d, _ := s.foreign(v)
	return d.field
}

func (s *Source) FieldDoc(v *types.Var) string {
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

func (s *Source) TypeDoc(obj *types.TypeName) string {
	if doc, ok := s.docs[obj]; ok {
		return doc
	}
	d, _ := s.foreign(obj)
	return describe.Description(obj.Name(), d.doc.Text())
}

func (s *Source) TypeSchema(obj *types.TypeName) (string, token.Pos) {
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
func (s *Source) readSchema(obj *types.TypeName, doc *ast.CommentGroup) {
	for _, c := range directive.In(doc) {
		text, ok := strings.CutPrefix(c.Text, directive.SchemaPrefix)
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

func (s *Source) TagPos(v *types.Var) token.Pos {
	if f := s.field(v); f != nil && f.Tag != nil {
		return f.Tag.Pos()
	}
	return token.NoPos
}
