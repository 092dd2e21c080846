// Package chunk cuts source files into the pieces a reader (or an embedding model) wants:
// functions, methods and types with their doc comments. Go is parsed with go/parser; the
// languages tree-sitter's grammars parse (C, C++, C#, Java, Kotlin, Scala, Swift, Rust,
// JavaScript, TypeScript, PHP, Python, Ruby) with tree-sitter; for the others a small scanner
// follows braces (Dart, Protocol Buffers, or a file tree-sitter could not parse) or
// indentation, and Markdown is cut at its headings. Whatever none of these knows is cut into
// windows of lines.
package chunk

import (
	"path"
	"strings"
)

// Chunk is one piece of a file.
type Chunk struct {
	Kind      string // function, method, type, class, const, var, section, lines...
	Name      string // the declared name, "Type.Method" for methods; may be empty
	StartLine int    // 1-based, the first line of its doc comment if it has one
	EndLine   int    // inclusive
}

// Result is a file cut into chunks.
type Result struct {
	Language string
	// Chunker names how: "go/parser", "braces", "indentation", "headings" or "lines".
	Chunker string
	Chunks  []Chunk
}

// WindowLines is the size of the windows of lines used where no syntax is known.
const WindowLines = 60

// maxSitterFile bounds the files parsed with tree-sitter; larger ones (generated tables,
// bundles) are cut by the scanners, which take no memory per node.
const maxSitterFile = 4 << 20

// File cuts the file at name (for its extension) holding src.
func File(name string, src []byte) Result {
	ext := strings.ToLower(path.Ext(name))
	lang := languages[ext]
	var r Result
	switch {
	case ext == ".go":
		r = goChunks(name, src)
	case len(src) <= maxSitterFile && sitterOK(name, src, &r):
	case lang.style == styleBraces:
		r = Result{Chunker: "braces", Chunks: braceChunks(src, lang)}
	case lang.style == styleIndent:
		r = Result{Chunker: "indentation", Chunks: indentChunks(src)}
	case lang.style == styleHeadings:
		r = Result{Chunker: "headings", Chunks: headingChunks(src)}
	}
	if r.Language == "" {
		r.Language = lang.name
	}
	if ext == ".go" {
		r.Language = "go"
	}

	n := lineCount(src)
	r.Chunks = clamp(r.Chunks, n)
	if len(r.Chunks) == 0 {
		r.Chunker = "lines"
		r.Chunks = windows(src, 1, n)
	}
	return r
}

// clamp keeps chunks within the file's n lines: a declaration the parser could not finish
// (its end unknown) ends where it starts, at the latest at the end of the file.
func clamp(chunks []Chunk, n int) []Chunk {
	out := chunks[:0]
	for _, c := range chunks {
		if c.StartLine < 1 || c.StartLine > n {
			continue
		}
		c.EndLine = min(max(c.EndLine, c.StartLine), n)
		out = append(out, c)
	}
	return out
}

type style int

const (
	styleNone style = iota
	styleBraces
	styleIndent
	styleHeadings
)

type language struct {
	name  string
	style style
	// hash: # starts a line comment (PHP, also //); backtick: `...` is a string;
	// charQuote: '...' is a character literal, and a lone ' a lifetime or a label.
	hash, backtick, charQuote bool
}

var languages = map[string]language{
	".c": {name: "c", style: styleBraces, charQuote: true}, ".h": {name: "c", style: styleBraces, charQuote: true},
	".cc": {name: "c++", style: styleBraces, charQuote: true}, ".cpp": {name: "c++", style: styleBraces, charQuote: true}, ".cxx": {name: "c++", style: styleBraces, charQuote: true},
	".hpp": {name: "c++", style: styleBraces, charQuote: true}, ".hh": {name: "c++", style: styleBraces, charQuote: true},
	".java": {name: "java", style: styleBraces, charQuote: true}, ".kt": {name: "kotlin", style: styleBraces, charQuote: true}, ".scala": {name: "scala", style: styleBraces, charQuote: true},
	".cs": {name: "c#", style: styleBraces, charQuote: true}, ".swift": {name: "swift", style: styleBraces}, ".dart": {name: "dart", style: styleBraces},
	".rs": {name: "rust", style: styleBraces, charQuote: true},
	".js": {name: "javascript", style: styleBraces, backtick: true}, ".mjs": {name: "javascript", style: styleBraces, backtick: true},
	".cjs": {name: "javascript", style: styleBraces, backtick: true}, ".jsx": {name: "javascript", style: styleBraces, backtick: true},
	".ts": {name: "typescript", style: styleBraces, backtick: true}, ".tsx": {name: "typescript", style: styleBraces, backtick: true},
	".mts": {name: "typescript", style: styleBraces, backtick: true}, ".cts": {name: "typescript", style: styleBraces, backtick: true},
	".php": {name: "php", style: styleBraces, hash: true},
	".py":  {name: "python", style: styleIndent}, ".pyi": {name: "python", style: styleIndent},
	".md": {name: "markdown", style: styleHeadings}, ".markdown": {name: "markdown", style: styleHeadings},
	".s": {name: "assembly"}, ".json": {name: "json"}, ".yaml": {name: "yaml"}, ".yml": {name: "yaml"},
	".toml": {name: "toml"}, ".sh": {name: "shell"}, ".html": {name: "html"}, ".css": {name: "css"},
	".txt": {name: "text"}, ".proto": {name: "protobuf", style: styleBraces},
}

// splitLines returns the lines of src without their newlines.
func splitLines(src []byte) []string {
	s := string(src)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func lineCount(src []byte) int { return len(splitLines(src)) }

// windows cuts lines [from, to] into windows of WindowLines.
func windows(src []byte, from, to int) []Chunk {
	var out []Chunk
	for start := from; start <= to; start += WindowLines {
		end := min(start+WindowLines-1, to)
		out = append(out, Chunk{Kind: "lines", StartLine: start, EndLine: end})
	}
	return out
}

// Text returns the lines of a chunk from src.
func Text(src []byte, c Chunk) string {
	lines := splitLines(src)
	if c.StartLine < 1 || c.StartLine > len(lines) {
		return ""
	}
	return strings.Join(lines[c.StartLine-1:min(c.EndLine, len(lines))], "\n")
}
