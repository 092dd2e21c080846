package host

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// The registry: every ready server's tools and prompts under one name each,
// mcp_{server}_{name}, made safe for model APIs (letters, digits, _ and -; at most 64
// characters), and its resources by server and URI.

// MaxNameLength is the longest name model APIs take for a tool.
const MaxNameLength = 64

// Tool is one tool of one server, under the name the host gives it.
type Tool struct {
	Name   string    // mcp_{server}_{tool}, unique in the host
	Server string    // the server's name in the configuration
	Tool   *mcp.Tool // as the server listed it; Tool.Name is its own name
	srv    *server
}

// Description is the tool's description, as the server wrote it.
func (t *Tool) Description() string { return t.Tool.Description }

// InputSchema is the tool's input schema, as the server sent it.
func (t *Tool) InputSchema() json.RawMessage { return inputSchema(t.Tool) }

// Anthropic is the tool's definition for the Anthropic Messages API's tools:
// {"name", "description", "input_schema"}.
func (t *Tool) Anthropic() json.RawMessage {
	b, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}{t.Name, t.Tool.Description, t.InputSchema()})
	return b
}

// OpenAI is the tool's definition for OpenAI's tools (function calling):
// {"type": "function", "function": {"name", "description", "parameters"}}.
func (t *Tool) OpenAI() json.RawMessage {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	b, _ := json.Marshal(struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}{"function", function{t.Name, t.Tool.Description, t.InputSchema()}})
	return b
}

// Call calls the tool. arguments is anything encoding/json encodes as an object (nil for
// none). A context without a deadline gets the server's timeout. A server that is not
// ready (restarting, say) fails the call at once with a *NotReadyError (ErrNotReady).
func (t *Tool) Call(ctx context.Context, arguments any) (*mcp.CallToolResult, error) {
	return t.srv.callTool(ctx, t.Name, t.Tool.Name, arguments)
}

func inputSchema(t *mcp.Tool) json.RawMessage {
	if len(t.InputSchema) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return json.RawMessage(t.InputSchema)
}

// Prompt is one prompt of one server, under the name the host gives it.
type Prompt struct {
	Name   string // mcp_{server}_{prompt}
	Server string
	Prompt *mcp.Prompt
	srv    *server
}

// Get gets the prompt with its arguments.
func (p *Prompt) Get(ctx context.Context, arguments map[string]string) (*mcp.GetPromptResult, error) {
	return p.srv.getPrompt(ctx, p.Prompt.Name, arguments)
}

// Resource is one resource of one server; a resource's name is its server and URI.
type Resource struct {
	Server   string
	Resource *mcp.Resource
	srv      *server
}

// Read reads the resource.
func (r *Resource) Read(ctx context.Context) ([]mcp.ResourceContents, error) {
	return r.srv.readResource(ctx, r.Resource.URI)
}

// ResourceTemplate is one resource template of one server.
type ResourceTemplate struct {
	Server   string
	Template *mcp.ResourceTemplate
}

// Collision is a name two tools (or prompts) of different servers would both have had: the
// first, in the order of server and name, keeps it; the other gets Renamed.
type Collision struct {
	Name            string // the name both would have
	Server, Tool    string // the one renamed
	Renamed         string
	KeptBy, KeptFor string // the server and tool that kept Name
}

func (c Collision) String() string {
	return fmt.Sprintf("%s/%s and %s/%s both make %s; %s/%s is %s", c.KeptBy, c.KeptFor, c.Server, c.Tool, c.Name, c.Server, c.Tool, c.Renamed)
}

// registry is a snapshot of the host's tools, prompts and resources: those a server
// offered when it was last ready, named together, so that a server that restarts keeps its
// names, and the others theirs. tools, prompts and resources are those of the servers that
// are ready; byName and byPrompt find those of the others too, whose calls fail with
// ErrNotReady until they are back.
type registry struct {
	known      []*Tool // every tool, ready or not, by server and name
	tools      []*Tool
	byName     map[string]*Tool
	prompts    []*Prompt
	byPrompt   map[string]*Prompt
	resources  []*Resource
	templates  []*ResourceTemplate
	collisions []Collision
}

// buildRegistry names the tools and prompts every server offered when it was last ready.
// The names depend only on which servers have been ready and what they listed, never on
// the order things happened in.
func buildRegistry(servers []*server) *registry {
	r := &registry{byName: map[string]*Tool{}, byPrompt: map[string]*Prompt{}}
	var tools []*Tool
	var prompts []*Prompt
	ready := map[*server]bool{}
	for _, s := range servers {
		lists, isReady, listed := s.known()
		if !listed {
			continue
		}
		ready[s] = isReady
		for _, t := range lists.tools {
			tools = append(tools, &Tool{Server: s.cfg.Name, Tool: t, srv: s})
		}
		for _, p := range lists.prompts {
			prompts = append(prompts, &Prompt{Server: s.cfg.Name, Prompt: p, srv: s})
		}
		if isReady {
			for _, res := range lists.resources {
				r.resources = append(r.resources, &Resource{Server: s.cfg.Name, Resource: res, srv: s})
			}
			for _, t := range lists.templates {
				r.templates = append(r.templates, &ResourceTemplate{Server: s.cfg.Name, Template: t})
			}
		}
	}
	toolOwner := func(t *Tool) owner { return owner{t.Server, t.Tool.Name} }
	promptOwner := func(p *Prompt) owner { return owner{p.Server, p.Prompt.Name} }
	slices.SortFunc(tools, func(a, b *Tool) int { return toolOwner(a).compare(toolOwner(b)) })
	slices.SortFunc(prompts, func(a, b *Prompt) int { return promptOwner(a).compare(promptOwner(b)) })
	r.known = tools
	for i, name := range r.qualify(owners(tools, toolOwner)) {
		tools[i].Name = name
		r.byName[name] = tools[i]
		if ready[tools[i].srv] {
			r.tools = append(r.tools, tools[i])
		}
	}
	for i, name := range r.qualify(owners(prompts, promptOwner)) {
		prompts[i].Name = name
		r.byPrompt[name] = prompts[i]
		if ready[prompts[i].srv] {
			r.prompts = append(r.prompts, prompts[i])
		}
	}
	slices.SortFunc(r.tools, func(a, b *Tool) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(r.prompts, func(a, b *Prompt) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(r.resources, func(a, b *Resource) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Resource.URI, b.Resource.URI))
	})
	return r
}

// names is every name the registry offers (of the servers that are ready): tools, prompts,
// then resources by server and URI, then resource templates. Two registries with the same names offer the same
// things under the same names.
func (r *registry) names() []string {
	out := make([]string, 0, len(r.tools)+len(r.prompts)+len(r.resources))
	for _, t := range r.tools {
		out = append(out, t.Name)
	}
	for _, p := range r.prompts {
		out = append(out, "prompt "+p.Name)
	}
	for _, res := range r.resources {
		out = append(out, "resource "+res.Server+" "+res.Resource.URI)
	}
	for _, t := range r.templates {
		out = append(out, "template "+t.Server+" "+t.Template.URITemplate)
	}
	return out
}

// renamed is how many of the tools and prompts the registry offers were renamed.
func (r *registry) renamed() int {
	offered := map[string]bool{}
	for _, t := range r.tools {
		offered[t.Name] = true
	}
	for _, p := range r.prompts {
		offered[p.Name] = true
	}
	n := 0
	for _, c := range r.collisions {
		if offered[c.Renamed] {
			n++
		}
	}
	return n
}

// owner is a server and the name of one of its tools (or prompts).
type owner struct{ server, name string }

func (o owner) compare(p owner) int {
	return cmp.Or(cmp.Compare(o.server, p.server), cmp.Compare(o.name, p.name))
}

func owners[T any](items []T, of func(T) owner) []owner {
	out := make([]owner, len(items))
	for i, it := range items {
		out[i] = of(it)
	}
	return out
}

// qualify names each of owners, in order, mcp_{server}_{name}; of two that would have the
// same name the later is renamed, and the collision recorded.
func (r *registry) qualify(owners []owner) []string {
	taken := map[string]owner{}
	names := make([]string, len(owners))
	for i, o := range owners {
		name := QualifiedName(o.server, o.name)
		if kept, ok := taken[name]; ok {
			renamed := disambiguate(name, o.server, o.name, func(n string) bool { _, t := taken[n]; return t })
			r.collisions = append(r.collisions, Collision{Name: name, Server: o.server, Tool: o.name, Renamed: renamed, KeptBy: kept.server, KeptFor: kept.name})
			name = renamed
		}
		taken[name] = o
		names[i] = name
	}
	return names
}

// QualifiedName is the name a host gives tool (or prompt) name of server: mcp_{server}_{name},
// with every character model APIs refuse made _, and shortened to MaxNameLength with a short
// hash of the whole name when it is longer, so that it stays unique and the same from run to
// run.
func QualifiedName(server, name string) string {
	full := "mcp_" + SafeName(server) + "_" + SafeName(name)
	if len(full) <= MaxNameLength {
		return full
	}
	return full[:MaxNameLength-7] + "_" + shortHash(server+"\x00"+name)
}

// disambiguate gives a name that is taken another one: the name with a short hash of the
// server and tool, shortened to fit, and with a counter should even that be taken.
func disambiguate(name, server, tool string, taken func(string) bool) string {
	suffix := "_" + shortHash(server+"\x00"+tool)
	base := name
	if len(base)+len(suffix) > MaxNameLength {
		base = base[:MaxNameLength-len(suffix)]
	}
	candidate := base + suffix
	for i := 2; taken(candidate); i++ {
		s := fmt.Sprintf("%s%d", suffix, i)
		if len(base)+len(s) > MaxNameLength {
			base = base[:MaxNameLength-len(s)]
		}
		candidate = base + s
	}
	return candidate
}

// SafeName replaces what model APIs do not take in a tool name (anything but letters,
// digits, _ and -) with _: what a server's name, and a tool's, become in QualifiedName.
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:3])
}
