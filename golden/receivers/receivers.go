// Package receivers has methods whose receiver types would give RegisterMCP parameters named
// like what its body refers to: the parameters of the closures it declares (args, req, uri,
// vars), the imported context package, predeclared identifiers (true, string) and a
// generated function.
package receivers

import (
	"context"
	"strings"
)

// Args holds a greeting; its parameter would hide the args of a prompt's closure.
type Args struct{ Greeting string }

// HelloArgs are the arguments of the hello prompt.
type HelloArgs struct {
	// Name to greet.
	Name string `json:"name"`
}

// Hello greets someone.
//
//mcp:prompt
func (a Args) Hello(in HelloArgs) string { return a.Greeting + ", " + in.Name }

// Req completes names; its parameter would hide the req of a completion's closure.
type Req struct{}

// Names suggests names.
//
//mcp:complete prompt=hello arg=name
func (Req) Names(prefix string) []string {
	var out []string
	for _, n := range []string{"Ada", "Alan", "Grace"} {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// URI serves a fixed resource; its parameter would hide the uri of a resource's closure.
type URI struct{}

// Info says what this server is.
//
//mcp:resource info://server
func (URI) Info() string { return "receivers" }

// Vars serves a template; its parameter would hide the vars of a template's closure.
type Vars struct{}

// ItemRef names an item.
type ItemRef struct {
	ID int `json:"id"`
}

// Item is one item.
//
//mcp:resource items://{id}
func (Vars) Item(ref ItemRef) string { return strings.Repeat("*", ref.ID) }

// Context would hide the context package in the closures' parameters.
type Context struct{}

// Deadline says whether the call has a deadline.
//
//mcp:tool readonly
func (Context) Deadline(ctx context.Context) string {
	_, ok := ctx.Deadline()
	return map[bool]string{true: "deadline", false: "no deadline"}[ok]
}

// True would hide the predeclared true, which RegisterMCP writes for hints.
type True struct{}

// Yes says yes.
//
//mcp:tool idempotent
func (True) Yes() string { return "yes" }

// String would hide the predeclared string type of the closures' parameters.
type String struct{}

// Upper upper-cases a text.
//
//mcp:resource upper://{text}
func (String) Upper(in struct {
	Text string `json:"text"`
}) string {
	return strings.ToUpper(in.Text)
}

// McpgenCallTrueYes would give a parameter named like the generated handler of True.Yes.
type McpgenCallTrueYes struct{}

// No says no.
//
//mcp:tool
func (McpgenCallTrueYes) No() string { return "no" }
