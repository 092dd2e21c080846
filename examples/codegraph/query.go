package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/examples/codegraph/graph"
	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// QueryInput is a question about the code.
type QueryInput struct {
	// A question about the code, in plain words: "who calls net/http.Serve?", "which types
	// implement io.Writer?", "which functions in package foo have no callers?".
	NaturalLanguageQuery string `json:"natural_language_query" jsonschema:"minLength=1"`
	// Project to ask about (its name or root), when several are indexed.
	Project string `json:"project,omitempty"`
}

// QueryResult is the answer to a question.
type QueryResult struct {
	// QueryUsed is the SQL that ran (or, for a question the server parsed itself, the tool
	// call that answered it).
	QueryUsed string           `json:"query_used"`
	Results   []map[string]any `json:"results"`
	Summary   string           `json:"summary"`
	// Method says who turned the question into the query: "sampling" (the client's model,
	// asked through MCP sampling) or "parser" (the server, for clients without sampling).
	Method string `json:"method"`
	// Truncated says that more rows matched than were returned.
	Truncated bool `json:"truncated,omitempty"`
}

// QueryCodeGraph answers a question about the indexed code. The server asks the client's own
// model (through MCP sampling) to write a SQL query over the graph's schema
// (graph://schema), runs it on a read-only connection with a time and row limit, and returns
// the query, its rows and a summary. Without sampling it answers the questions it can parse
// itself: who calls X, what does X call, what implements X, references to X, types whose name
// contains X.
//
//mcp:tool query_code_graph readonly
func (g *Graph) QueryCodeGraph(ctx context.Context, in QueryInput) (QueryResult, error) {
	project, err := g.project(ctx, in.Project)
	if err != nil {
		return QueryResult{}, err
	}
	prompt, err := g.systemPrompt(ctx)
	if err != nil {
		return QueryResult{}, err
	}
	sctx, cancel := context.WithTimeout(ctx, g.SampleTimeout)
	defer cancel()
	res, err := mcp.Sample(sctx, &mcp.CreateMessageRequest{
		SystemPrompt: prompt,
		Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text{Text: question(in, project)}}},
		MaxTokens:    1000,
		ModelPreferences: &mcp.ModelPreferences{
			IntelligencePriority: ptr(0.8), SpeedPriority: ptr(0.5),
		},
	})
	var noSampling *mcp.ErrCapability
	switch {
	case errors.As(err, &noSampling):
		return g.parseAndAnswer(ctx, in, project)
	case errors.Is(err, mcp.ErrInputRequired):
		return QueryResult{}, err // a 2026-07-28 request: the client answers, and the body runs again
	case err != nil && sctx.Err() != nil && ctx.Err() == nil:
		return QueryResult{}, fmt.Errorf("the client's model did not answer within %v", g.SampleTimeout)
	case err != nil:
		return QueryResult{}, fmt.Errorf("asking the client's model for a query: %w", err)
	}
	text, ok := res.Content.(mcp.Text)
	if !ok {
		return QueryResult{}, fmt.Errorf("the client's model answered with %T content, not the text of a query", res.Content)
	}
	sql := extractSQL(text.Text)
	rows, err := g.store.Guarded(ctx, sql, g.MaxRows, g.QueryTimeout)
	if err != nil {
		return QueryResult{}, fmt.Errorf("the query the model wrote failed: %v\nquery_used: %s", err, sql)
	}
	return QueryResult{
		QueryUsed: sql, Results: rows.Rows, Method: "sampling", Truncated: rows.Truncated,
		Summary: summary(len(rows.Rows), rows.Truncated, rows.Columns),
	}, nil
}

func ptr[T any](v T) *T { return &v }

func question(in QueryInput, project int64) string {
	if project == 0 {
		return in.NaturalLanguageQuery
	}
	return fmt.Sprintf("%s\n\n(About the project with id %d: add project_id = %d where a table has it.)", in.NaturalLanguageQuery, project, project)
}

func summary(n int, truncated bool, columns []string) string {
	s := fmt.Sprintf("Found %d rows", n)
	if n == 1 {
		s = "Found 1 row"
	}
	if len(columns) > 0 {
		s += " (" + strings.Join(columns, ", ") + ")"
	}
	if truncated {
		s += "; more matched: only the first ones are listed"
	}
	return s + "."
}

var fenced = regexp.MustCompile("(?s)```(?:sql|sqlite)?\\s*\\n?(.*?)```")

// extractSQL takes the query out of the model's answer: the first fenced block, or all of it.
func extractSQL(answer string) string {
	if m := fenced.FindStringSubmatch(answer); m != nil {
		answer = m[1]
	}
	return strings.TrimRight(strings.TrimSpace(answer), "; \n\t")
}

// systemPrompt tells the model what to write: one SQLite SELECT over the schema, with
// examples, for the projects indexed now.
func (g *Graph) systemPrompt(ctx context.Context) (string, error) {
	ps, err := g.store.Projects(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(promptIntro)
	b.WriteString("\n\nThe indexed projects (projects.id, name, root):\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "- %d, %s, %s\n", p.ID, p.Name, p.Root)
	}
	b.WriteString("\nThe schema:\n\n```sql\n")
	b.WriteString(graph.Schema)
	b.WriteString("```\n\n")
	b.WriteString(promptExamples)
	return b.String(), nil
}

const promptIntro = `You translate questions about Go code into one SQLite query over a code graph.
Answer with the query only, in a ` + "```sql" + ` block: one SELECT statement (WITH ... SELECT is fine,
and WITH RECURSIVE for paths), read-only, returning at most 200 rows, with column names that say
what each is. The graph was built by the Go type checker: calls and references are exact.`

const promptExamples = `Examples:

Question: who calls net/http.Serve?
` + "```sql" + `
SELECT src AS caller, file, line, col FROM edge_names
WHERE kind = 'calls' AND dst = 'net/http.Serve' ORDER BY file, line
` + "```" + `

Question: which types implement io.Writer?
` + "```sql" + `
SELECT n.qualified_name, n.kind, f.path AS file, n.line FROM edges e
JOIN symbols i ON i.id = e.dst JOIN nodes n ON n.symbol_id = e.src JOIN files f ON f.id = n.file_id
WHERE e.kind = 'implements' AND i.qualified_name = 'io.Writer' ORDER BY n.qualified_name
` + "```" + `

Question: show me the types whose name contains "user"
` + "```sql" + `
SELECT qualified_name, kind FROM nodes
WHERE kind IN ('struct', 'interface', 'type', 'alias') AND name LIKE '%user%' ORDER BY qualified_name LIMIT 50
` + "```" + `

Question: which exported functions of package example.com/app/store have no callers?
` + "```sql" + `
SELECT n.qualified_name FROM nodes n JOIN packages p ON p.id = n.package_id
WHERE p.path = 'example.com/app/store' AND n.kind IN ('func', 'method') AND n.exported = 1
AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.dst = n.symbol_id AND e.kind = 'references')
ORDER BY n.qualified_name
` + "```" + `

Question: how does example.com/app.main reach os.Exit, in at most 4 calls?
` + "```sql" + `
WITH RECURSIVE walk(name, depth, path) AS (
  SELECT 'example.com/app.main', 0, 'example.com/app.main'
  UNION ALL
  SELECT e.dst, w.depth + 1, w.path || ' -> ' || e.dst
  FROM walk w JOIN edge_names e ON e.src = w.name AND e.kind = 'calls'
  WHERE w.depth < 4 AND instr(w.path, e.dst) = 0
)
SELECT path, depth FROM walk WHERE name = 'os.Exit' ORDER BY depth LIMIT 10
` + "```"

// The questions the server understands without a model.
var forms = []struct {
	re   *regexp.Regexp
	kind string
}{
	{regexp.MustCompile(`(?i)\b(?:who|what|which\s+(?:functions?|methods?))\s+calls?\s+(\S+)`), "callers"},
	{regexp.MustCompile(`(?i)\bcallers\s+of\s+(\S+)`), "callers"},
	{regexp.MustCompile(`(?i)\bwhat\s+(?:functions\s+)?(?:does|do)\s+(\S+)\s+call\b`), "callees"},
	{regexp.MustCompile(`(?i)\bcallees\s+of\s+(\S+)`), "callees"},
	{regexp.MustCompile(`(?i)\b(?:what|which(?:\s+types?)?|who)\s+implements?\s+(\S+)`), "implementations"},
	{regexp.MustCompile(`(?i)\bimplementations?\s+of\s+(\S+)`), "implementations"},
	{regexp.MustCompile(`(?i)\b(?:references\s+to|uses\s+of|usages\s+of)\s+(\S+)`), "references"},
	{regexp.MustCompile(`(?i)\bwhere\s+is\s+(\S+)\s+used\b`), "references"},
	{regexp.MustCompile(`(?i)\btypes?\s+(?:whose\s+names?\s+)?contains?\s+(\S+)`), "types"},
	{regexp.MustCompile(`(?i)\btypes?\s+(?:with|containing)\s+(\S+)\s+in\s+(?:their|the)\s+names?`), "types"},
}

const formsHelp = `who calls X, what does X call, what implements X, references to X, types whose name contains X`

// parseAndAnswer answers the questions it can parse, for a client without sampling.
func (g *Graph) parseAndAnswer(ctx context.Context, in QueryInput, project int64) (QueryResult, error) {
	note := " (The client offers no sampling, so the server parsed the question itself; it understands: " + formsHelp + ".)"
	for _, f := range forms {
		m := f.re.FindStringSubmatch(in.NaturalLanguageQuery)
		if m == nil {
			continue
		}
		name := strings.Trim(m[1], "\"'`?.,;:!")
		r := QueryResult{Method: "parser", Results: []map[string]any{}}
		if f.kind == "types" {
			sql := fmt.Sprintf(`SELECT qualified_name, kind FROM nodes WHERE kind IN ('struct', 'interface', 'type', 'alias') AND name LIKE '%%%s%%'%s ORDER BY qualified_name`,
				strings.ReplaceAll(name, "'", "''"), projectFilter(project))
			rows, err := g.store.Guarded(ctx, sql, g.MaxRows, g.QueryTimeout)
			if err != nil {
				return QueryResult{}, err
			}
			r.QueryUsed, r.Results, r.Truncated = sql, rows.Rows, rows.Truncated
			r.Summary = summary(len(rows.Rows), rows.Truncated, rows.Columns) + note
			return r, nil
		}
		sym, err := g.store.Resolve(ctx, project, name)
		if err != nil {
			return QueryResult{}, fmt.Errorf("%v%s", g.whileIndexing(err), note)
		}
		r.QueryUsed = fmt.Sprintf("find_%s(%q)", f.kind, sym.QName)
		switch f.kind {
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
			r.QueryUsed = fmt.Sprintf("find_callees(%q)", sym.QName)
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
		r.Summary = fmt.Sprintf("Found %d %s of %s.%s", len(r.Results), f.kind, sym.QName, note)
		return r, nil
	}
	return QueryResult{}, fmt.Errorf("the client offers no sampling, so the server must parse the question itself, and it does not understand %q; it understands: %s (or use find_callers, find_callees, find_implementations, find_references)",
		in.NaturalLanguageQuery, formsHelp)
}

func projectFilter(project int64) string {
	if project == 0 {
		return ""
	}
	return fmt.Sprintf(" AND project_id = %d", project)
}
