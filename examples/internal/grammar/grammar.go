// Package grammar gives the examples the tree-sitter grammars they parse source with
// (github.com/smacker/go-tree-sitter, which bundles them), by language and by file name:
// one place that says which files are which language.
package grammar

import (
	"context"
	"path/filepath"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/scala"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Language is a language the examples parse.
type Language struct {
	Name       string   // "python", "java", "javascript", "typescript", "tsx", "rust", "c", "cpp", ...
	Extensions []string // with the dot
	grammar    func() *sitter.Language
}

// Grammar is the language's tree-sitter grammar.
func (l *Language) Grammar() *sitter.Language { return l.grammar() }

// Languages are the languages, in no particular order.
var Languages = []*Language{
	{"python", []string{".py", ".pyi"}, python.GetLanguage},
	{"java", []string{".java"}, java.GetLanguage},
	{"javascript", []string{".js", ".mjs", ".cjs", ".jsx"}, javascript.GetLanguage},
	{"typescript", []string{".ts", ".mts", ".cts"}, typescript.GetLanguage},
	{"tsx", []string{".tsx"}, tsx.GetLanguage},
	{"rust", []string{".rs"}, rust.GetLanguage},
	{"c", []string{".c", ".h"}, c.GetLanguage},
	{"cpp", []string{".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"}, cpp.GetLanguage},
	{"csharp", []string{".cs"}, csharp.GetLanguage},
	{"kotlin", []string{".kt", ".kts"}, kotlin.GetLanguage},
	{"swift", []string{".swift"}, swift.GetLanguage},
	{"php", []string{".php"}, php.GetLanguage},
	{"ruby", []string{".rb", ".rake", ".gemspec"}, ruby.GetLanguage},
	{"scala", []string{".scala", ".sc"}, scala.GetLanguage},
}

// ForFile is the language of a file, by its extension, or nil. A TypeScript declaration
// file (.d.ts) is TypeScript.
func ForFile(name string) *Language {
	ext := strings.ToLower(filepath.Ext(name))
	for _, l := range Languages {
		for _, e := range l.Extensions {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// Parse parses src, stopping when ctx ends. The tree must be closed.
func Parse(ctx context.Context, l *Language, src []byte) (*sitter.Tree, error) {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(l.Grammar())
	return p.ParseCtx(ctx, nil, src)
}
