package importer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Change is one difference between two snapshots of a server, and whether it breaks callers
// written against the older one. Breaking is judged by what goes over the wire: a caller that
// sends what the old schema allowed and reads what the old schema promised.
type Change struct {
	Kind     string // "tool", "prompt" or "resource template"
	Name     string
	Where    string // "input /properties/city", "output", "argument style", ""
	What     string
	Breaking bool
}

func (c Change) String() string {
	s := "compatible: "
	if c.Breaking {
		s = "breaking:   "
	}
	s += c.Kind + " " + c.Name
	if c.Where != "" {
		s += ": " + c.Where
	}
	return s + ": " + c.What
}

// Compare lists what changed from old to new: tools, prompts and resource templates removed
// or added, and within each tool the input and output schemas, property by property.
func Compare(old, new *Snapshot) []Change {
	var out []Change
	add := func(kind, name, where, what string, breaking bool) {
		out = append(out, Change{Kind: kind, Name: name, Where: where, What: what, Breaking: breaking})
	}
	schemas := func(tool, side string, o, n json.RawMessage) {
		d := &differ{oldRoot: o, newRoot: n, input: side == "input"}
		d.compare(o, n, "")
		for _, c := range d.changes {
			add("tool", tool, strings.TrimSpace(side+" "+c.where), c.what, c.breaking)
		}
	}
	pair(old.Tools, new.Tools, func(t Tool) string { return t.Name },
		func(o Tool) { add("tool", o.Name, "", "removed", true) },
		func(o, n Tool) {
			schemas(o.Name, "input", o.InputSchema, n.InputSchema)
			switch {
			case len(o.OutputSchema) > 0 && len(n.OutputSchema) == 0:
				add("tool", o.Name, "output", "the output schema was removed: no structured content is promised", true)
			case len(o.OutputSchema) == 0 && len(n.OutputSchema) > 0:
				add("tool", o.Name, "output", "an output schema was added", false)
			case len(o.OutputSchema) > 0:
				schemas(o.Name, "output", o.OutputSchema, n.OutputSchema)
			}
		},
		func(n Tool) { add("tool", n.Name, "", "added", false) })

	pair(old.Prompts, new.Prompts, func(p Prompt) string { return p.Name },
		func(o Prompt) { add("prompt", o.Name, "", "removed", true) },
		func(o, n Prompt) {
			pair(o.Arguments, n.Arguments, func(a PromptArgument) string { return a.Name },
				func(oa PromptArgument) { add("prompt", o.Name, "argument "+oa.Name, "removed", true) },
				func(oa, na PromptArgument) {
					switch {
					case !oa.Required && na.Required:
						add("prompt", o.Name, "argument "+oa.Name, "became required", true)
					case oa.Required && !na.Required:
						add("prompt", o.Name, "argument "+oa.Name, "became optional", false)
					}
				},
				func(na PromptArgument) {
					add("prompt", o.Name, "argument "+na.Name, map[bool]string{true: "added, required", false: "added, optional"}[na.Required], na.Required)
				})
		},
		func(n Prompt) { add("prompt", n.Name, "", "added", false) })

	pair(old.ResourceTemplates, new.ResourceTemplates, func(t ResourceTemplate) string { return t.Name },
		func(o ResourceTemplate) { add("resource template", o.Name, "", "removed", true) },
		func(o, n ResourceTemplate) {
			switch {
			case !slices.Equal(mcp.URITemplateVariables(o.URITemplate), mcp.URITemplateVariables(n.URITemplate)):
				add("resource template", o.Name, "", fmt.Sprintf("its variables changed: %s became %s", o.URITemplate, n.URITemplate), true)
			case o.URITemplate != n.URITemplate:
				add("resource template", o.Name, "", fmt.Sprintf("its URI changed: %s became %s", o.URITemplate, n.URITemplate), true)
			}
		},
		func(n ResourceTemplate) { add("resource template", n.Name, "", "added", false) })
	return out
}

// pair matches the items of old and new by name: each old one is removed or kept (with its
// new self), in old's order; then the new ones old lacked are added, in new's order.
func pair[T any](old, new []T, name func(T) string, removed func(T), kept func(o, n T), added func(T)) {
	for _, o := range old {
		if i := slices.IndexFunc(new, func(n T) bool { return name(n) == name(o) }); i >= 0 {
			kept(o, new[i])
		} else {
			removed(o)
		}
	}
	for _, n := range new {
		if !slices.ContainsFunc(old, func(o T) bool { return name(o) == name(n) }) {
			added(n)
		}
	}
}

// Breaking says whether any of changes breaks callers.
func Breaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Breaking })
}
