// Package importer is mcpgen import: it turns what a server offers (its tools' schemas, its
// prompts, its resource templates) into a typed Go client, and compares two snapshots of a
// server to say which changes break existing callers.
//
//	snap, err := importer.Take(ctx, client) // or importer.ReadSnapshot(data)
//	files, err := importer.Generate(snap, importer.Options{Package: "weatherclient", Dir: "weatherclient"})
//	changes := importer.Compare(old, snap)
//
// The generated code calls the server through mcpgen's client and encodes arguments and
// decodes results with generated code over runtime/jsonwire: no reflection on the call path.
package importer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Snapshot is what a server offers, as tools/list, prompts/list and resources/templates/list
// said: the file mcpgen import --save writes and --from reads, and the one a generated package
// embeds.
type Snapshot struct {
	Server *ServerInfo `json:"server,omitempty"`
	// GoPackage is the import path of the mcpgen server package the snapshot was read from
	// (mcpgen import ./path), whose Go types the generated client reuses: --check reads that
	// package again rather than a running server.
	GoPackage         string             `json:"goPackage,omitempty"`
	Tools             []Tool             `json:"tools"`
	Prompts           []Prompt           `json:"prompts,omitempty"`
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates,omitempty"`
}

// ServerInfo names the server a snapshot was taken of.
type ServerInfo struct {
	Name            string `json:"name"`
	Version         string `json:"version,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// Tool is one tool, as tools/list described it.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Prompt is one prompt, as prompts/list described it.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ResourceTemplate is one resource template, as resources/templates/list described it.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Take lists what the server c is connected to offers.
func Take(ctx context.Context, c *mcp.Client) (*Snapshot, error) {
	info := c.Server()
	snap := &Snapshot{Server: &ServerInfo{Name: info.Name, Version: info.Version, ProtocolVersion: info.ProtocolVersion}}
	if info.Capabilities.Tools {
		tools, err := c.ListTools(ctx)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		for _, t := range tools {
			tool := Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: json.RawMessage(t.InputSchema)}
			if t.OutputSchema != "" {
				tool.OutputSchema = json.RawMessage(t.OutputSchema)
			}
			snap.Tools = append(snap.Tools, tool)
		}
	}
	if info.Capabilities.Prompts {
		prompts, err := c.ListPrompts(ctx)
		if err != nil {
			return nil, fmt.Errorf("prompts/list: %w", err)
		}
		for _, p := range prompts {
			prompt := Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				prompt.Arguments = append(prompt.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			snap.Prompts = append(snap.Prompts, prompt)
		}
	}
	if info.Capabilities.Resources {
		templates, err := c.ListResourceTemplates(ctx)
		if err != nil {
			return nil, fmt.Errorf("resources/templates/list: %w", err)
		}
		for _, t := range templates {
			snap.ResourceTemplates = append(snap.ResourceTemplates, ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType})
		}
	}
	snap.sort()
	return snap, nil
}

func (s *Snapshot) sort() {
	slices.SortFunc(s.Tools, func(a, b Tool) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Prompts, func(a, b Prompt) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.ResourceTemplates, func(a, b ResourceTemplate) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.URITemplate, b.URITemplate))
	})
}

// ReadSnapshot reads a snapshot file.
func ReadSnapshot(data []byte) (*Snapshot, error) {
	var s Snapshot
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a snapshot of mcpgen import (tools, prompts, resourceTemplates): %w", err)
	}
	for i, t := range s.Tools {
		if t.Name == "" {
			return nil, fmt.Errorf("tool %d has no name", i)
		}
		if len(t.InputSchema) == 0 {
			return nil, fmt.Errorf("tool %s has no inputSchema", t.Name)
		}
	}
	s.sort()
	return &s, nil
}

// Marshal writes the snapshot as its file holds it: indented, tools, prompts and templates by
// name, the schemas' members in the order the server wrote them. The same snapshot is the
// same bytes.
func (s *Snapshot) Marshal() ([]byte, error) {
	c := *s
	c.Tools = slices.Clone(s.Tools)
	c.Prompts = slices.Clone(s.Prompts)
	c.ResourceTemplates = slices.Clone(s.ResourceTemplates)
	c.sort()
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
