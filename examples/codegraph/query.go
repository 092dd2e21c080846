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
// itself: who calls X, what does X call, what implements X, references to X, what does
// package X import, what imports X, classes (functions, methods...) whose name contains X,
// classes in module X; for others, write SQL for query_sql.
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
	var refused *mcp.ClientError
	switch {
	case errors.As(err, &noSampling):
		return g.parseAndAnswer(ctx, in, project, "The client offers no sampling")
	case errors.As(err, &refused):
		// Some clients declare sampling and answer it with an error (-32601, or a refusal
		// when no one is there to approve the request).
		return g.parseAndAnswer(ctx, in, project, fmt.Sprintf("The client did not sample (it answered %d: %s)", refused.Code, refused.Message))
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
		QueryUsed: sql, Results: rows.Maps(), Method: "sampling", Truncated: rows.Truncated,
		Summary: summary(len(rows.Values), rows.Truncated, rows.Columns),
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

// parseAndAnswer answers the questions it can parse, for a client that cannot sample: why
// says what the client did.
func (g *Graph) parseAndAnswer(ctx context.Context, in QueryInput, project int64, why string) (QueryResult, error) {
	p, ok := parseQuestion(in.NaturalLanguageQuery)
	if !ok {
		return QueryResult{}, fmt.Errorf("%s, so the server must parse the question itself, and it does not understand %q; it understands: %s. "+
			"Otherwise write the SQL yourself for query_sql (the schema is graph://schema), or use search_symbols, find_callers, find_callees, find_implementations, find_references, find_imports, find_importers",
			why, in.NaturalLanguageQuery, formsHelp)
	}
	note := " (" + why + ", so the server parsed the question itself; query_sql runs SQL you write over graph://schema for other questions.)"
	return g.answerParsed(ctx, p, project, note)
}
