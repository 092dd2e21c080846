package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
)

// Questions the server answers without a model, for clients that offer no sampling: the
// phrasings of the seed's examples (listings of declarations whose name contains a word, or
// in a module) and the relations (who calls, what calls, implements, references, imports).

// relations are the questions about one symbol or package, tried in order.
var relations = []struct {
	re   *regexp.Regexp
	kind string
}{
	{regexp.MustCompile(`(?i)\bwhat\s+(?:functions\s+|methods\s+)?(?:does|do)\s+(?:the\s+)?(?:function\s+|method\s+)?(\S+)\s+call\b`), "callees"},
	{regexp.MustCompile(`(?i)\b(?:callees\s+of|calls\s+made\s+by|called\s+by)\s+(\S+)`), "callees"},
	{regexp.MustCompile(`(?i)\b(?:who|what|which\s+(?:functions?|methods?))\s+calls?\s+(\S+)`), "callers"},
	{regexp.MustCompile(`(?i)\b(?:callers\s+of|calls\s+(?:to|of))\s+(\S+)`), "callers"},
	{regexp.MustCompile(`(?i)\bwhere\s+is\s+(\S+)\s+called\b`), "callers"},
	{regexp.MustCompile(`(?i)\b(?:what|which(?:\s+(?:types?|classes|structs))?|who)\s+implements?\s+(\S+)`), "implementations"},
	{regexp.MustCompile(`(?i)\bimplementations?\s+of\s+(\S+)`), "implementations"},
	{regexp.MustCompile(`(?i)\bwhat\s+(?:packages\s+|modules\s+)?(?:does|do)\s+(?:the\s+)?(?:package\s+|module\s+)?(\S+)\s+import\b`), "imports"},
	{regexp.MustCompile(`(?i)\b(?:imports\s+of|dependencies\s+of)\s+(?:the\s+)?(?:package\s+|module\s+)?(\S+)`), "imports"},
	{regexp.MustCompile(`(?i)\b(?:who|what|which(?:\s+(?:packages|modules))?)\s+imports?\s+(?:the\s+)?(?:package\s+|module\s+)?(\S+)`), "importers"},
	{regexp.MustCompile(`(?i)\bimporters\s+of\s+(?:the\s+)?(?:package\s+|module\s+)?(\S+)`), "importers"},
	{regexp.MustCompile(`(?i)\b(?:references\s+to|uses\s+of|usages\s+of)\s+(\S+)`), "references"},
	{regexp.MustCompile(`(?i)\bwhere\s+is\s+(\S+)\s+used\b`), "references"},
}

// The parts of a listing: what kind of declaration, a word its name contains, a module.
var (
	kindWord = regexp.MustCompile(`(?i)\b(classes|class|types?|structs?|interfaces?|functions?|funcs?|methods?|fields?|variables?|vars?|constants?|consts?|enums?|traits?|symbols?|declarations?)\b`)
	contains = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bnames?\s+(?:contains?|containing|includes?|including|has|have|with)\s+` + word),
		regexp.MustCompile(`(?i)\b(?:contains?|containing|including|matching|named|called)\s+` + word),
		regexp.MustCompile(`(?i)\bwith\s+` + word + `\s+in\s+(?:their|its|the)\s+names?`),
	}
	inModule = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:in|of|from|under)\s+(?:the\s+)?` + word + `\s+(?:module|package|namespace|directory|folder|crate)\b`),
		regexp.MustCompile(`(?i)\b(?:in|of|from|under)\s+(?:the\s+)?(?:module|package|namespace|directory|folder|crate)\s+` + word),
	}
)

// word is a quoted or bare name: 'user', "user", `user`, user, net/http, com.example.
const word = "[\"'`]?([\\w./:-]*\\w)[\"'`]?"

var kindOf = map[string][]string{
	"class": {"class"}, "classe": {"class"}, "type": {"type"}, "struct": {"struct"}, "interface": {"interface"},
	"function": {"func"}, "func": {"func"}, "method": {"method"}, "field": {"field"},
	"variable": {"var"}, "var": {"var"}, "constant": {"const"}, "const": {"const"},
	"enum": {"enum"}, "trait": {"trait"},
}

const formsHelp = `who calls X, what does X call, what implements X, references to X, what does package X import, what imports X, ` +
	`classes (functions, methods, types...) whose name contains X, classes in module X`

// parsedQuestion is a question the server understood.
type parsedQuestion struct {
	relation string // callers, callees, implementations, references, imports, importers; "" for a listing
	subject  string // the symbol or package a relation is about
	kinds    []string
	contains string
	module   string
}

// parseQuestion reads a question, or says it cannot.
func parseQuestion(q string) (parsedQuestion, bool) {
	for _, r := range relations {
		if m := r.re.FindStringSubmatch(q); m != nil {
			return parsedQuestion{relation: r.kind, subject: strings.Trim(m[1], "\"'`?.,;:!")}, true
		}
	}
	var p parsedQuestion
	for _, m := range kindWord.FindAllStringSubmatch(q, -1) {
		w := strings.ToLower(m[1])
		if _, ok := kindOf[w]; !ok {
			w = strings.TrimSuffix(w, "s") // a plural
		}
		if k, ok := kindOf[w]; ok {
			p.kinds = append(p.kinds, graph.ExpandKinds(k)...)
		}
	}
	for _, re := range contains {
		if m := re.FindStringSubmatch(q); m != nil {
			p.contains = m[1]
			break
		}
	}
	for _, re := range inModule {
		if m := re.FindStringSubmatch(q); m != nil {
			p.module = m[1]
			break
		}
	}
	if p.contains == "" && p.module == "" {
		return p, false // "all functions" alone is no question worth 200 arbitrary rows
	}
	return p, true
}

// answerParsed answers a question the server understood.
func (g *Graph) answerParsed(ctx context.Context, p parsedQuestion, project int64, note string) (QueryResult, error) {
	r := QueryResult{Method: "parser", Results: []map[string]any{}}
	if p.relation == "" {
		sql := listingSQL(p, project)
		rows, err := g.store.Guarded(ctx, sql, g.MaxRows, g.QueryTimeout)
		if err != nil {
			return QueryResult{}, err
		}
		r.QueryUsed, r.Results, r.Truncated = sql, rows.Maps(), rows.Truncated
		r.Summary = summary(len(rows.Values), rows.Truncated, rows.Columns) + note
		return r, nil
	}
	if p.relation == "imports" || p.relation == "importers" {
		in := PackageInput{Package: p.subject}
		var res ImportsResult
		var err error
		if p.relation == "imports" {
			res, err = g.FindImports(ctx, in)
		} else {
			res, err = g.FindImporters(ctx, in)
		}
		if err != nil {
			return QueryResult{}, fmt.Errorf("%v%s", err, note)
		}
		r.QueryUsed = fmt.Sprintf("find_%s(%q)", p.relation, res.Package)
		for _, im := range res.Imports {
			r.Results = append(r.Results, map[string]any{"package": im.Package, "in_project": im.InProject, "test_only": im.TestOnly, "file": im.Sites[0].File, "line": im.Sites[0].Line})
		}
		r.Summary = fmt.Sprintf("Found %d %s of %s.%s", len(r.Results), p.relation, res.Package, note)
		return r, nil
	}
	sym, err := g.store.Resolve(ctx, project, p.subject)
	if err != nil {
		return QueryResult{}, fmt.Errorf("%v%s", g.whileIndexing(err), note)
	}
	r.QueryUsed = fmt.Sprintf("find_%s(%q)", p.relation, sym.QName)
	switch p.relation {
	case "callers":
		callers, more, err := g.store.Callers(ctx, sym, 1, maxSites)
		if err != nil {
			return QueryResult{}, err
		}
		for _, c := range callers {
			for _, s := range c.Sites {
				r.Results = append(r.Results, map[string]any{"caller": c.Caller, "file": s.File, "line": s.Line, "col": s.Col, "kind": s.Kind})
			}
		}
		r.Truncated = more
	case "callees":
		callees, more, err := g.store.Callees(ctx, sym, 1, maxSites)
		if err != nil {
			return QueryResult{}, err
		}
		for _, c := range callees {
			r.Results = append(r.Results, map[string]any{"callee": c.Callee, "calls": len(c.Sites), "dynamic": c.Dynamic})
		}
		r.Truncated = more
	case "implementations":
		impls, err := g.store.Implementations(ctx, sym)
		if err != nil {
			return QueryResult{}, err
		}
		for _, t := range impls {
			r.Results = append(r.Results, map[string]any{"qualified_name": t.QName, "kind": t.Kind, "file": t.File, "line": t.Line})
		}
	case "references":
		sites, more, err := g.store.References(ctx, sym, maxSites)
		if err != nil {
			return QueryResult{}, err
		}
		for _, s := range sites {
			r.Results = append(r.Results, map[string]any{"in": s.In, "file": s.File, "line": s.Line, "col": s.Col, "kind": s.Kind})
		}
		r.Truncated = more
	}
	r.Summary = fmt.Sprintf("Found %d %s of %s.%s", len(r.Results), p.relation, sym.QName, note)
	return r, nil
}

// listingSQL is the query for a listing: declarations of the kinds, whose name contains a
// word, in a module (a package whose path is the module's, ends with it, or lies under it).
func listingSQL(p parsedQuestion, project int64) string {
	var where []string
	if len(p.kinds) > 0 {
		where = append(where, "n.kind IN ("+quoteList(p.kinds)+")")
	} else {
		where = append(where, "n.kind NOT IN ('package', 'module')")
	}
	if p.contains != "" {
		where = append(where, "n.name LIKE "+likeQuote("%", p.contains, "%")+` ESCAPE '\'`)
	}
	if m := strings.Trim(p.module, "/."); m != "" {
		var alts []string
		alts = append(alts, "p.path = "+quote(m), "p.name = "+quote(m))
		for _, sep := range []string{"/", "."} {
			alts = append(alts,
				"p.path LIKE "+likeQuote("%"+sep, m, "")+` ESCAPE '\'`,
				"p.path LIKE "+likeQuote("", m, sep+"%")+` ESCAPE '\'`,
				"p.path LIKE "+likeQuote("%"+sep, m, sep+"%")+` ESCAPE '\'`)
		}
		where = append(where, "("+strings.Join(alts, " OR ")+")")
	}
	if project != 0 {
		where = append(where, fmt.Sprintf("n.project_id = %d", project))
	}
	return "SELECT n.qualified_name, n.kind, f.path AS file, n.line FROM nodes n JOIN packages p ON p.id = n.package_id LEFT JOIN files f ON f.id = n.file_id\nWHERE " +
		strings.Join(where, "\n  AND ") + "\nORDER BY n.qualified_name"
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// likeQuote quotes s for LIKE ... ESCAPE '\', between a prefix and suffix of wildcards.
func likeQuote(prefix, s, suffix string) string {
	s = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
	return quote(prefix + s + suffix)
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return strings.Join(q, ", ")
}
