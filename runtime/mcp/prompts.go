package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Prompt is a prompt template a client may offer its user, listed by prompts/list.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Icons       []Icon // sent to clients of protocol 2025-11-25 and later
	// Scopes are the OAuth scopes a caller's token needs to get the prompt, or have its
	// arguments completed, on a protected server (HTTPOptions.Auth).
	Scopes []string
	// Get renders the prompt. args holds the client's arguments object ({} when it sent
	// none); generated code decodes it into the argument struct and checks args.Err before
	// anything else (see package runtime/mcp/mcpgen).
	Get func(ctx context.Context, args *Input) (*GetPromptResult, error)
}

// PromptArgument describes one argument of a prompt. Arguments are strings.
type PromptArgument struct {
	Name        string
	Title       string
	Description string
	Required    bool
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    Role
	Content Content // Text, Image, Audio, ResourceLink or EmbeddedResource
}

// GetPromptResult is a rendered prompt.
type GetPromptResult struct {
	Description string
	Messages    []PromptMessage
}

type promptEntry struct {
	Prompt
	rendered [numDialects][]byte
}

// AddPrompt registers a prompt. It panics if the prompt is malformed or its name is taken.
func (s *Server) AddPrompt(p Prompt) {
	if p.Name == "" || p.Get == nil {
		panic(fmt.Sprintf("mcp: prompt %q needs a name and a Get function", p.Name))
	}
	e := &promptEntry{Prompt: p}
	for d := range numDialects {
		e.rendered[d] = e.render(d)
	}
	s.add(func() bool {
		var ok bool
		s.prompts, ok = insertSorted(s.prompts, e, promptName)
		return ok
	}, fmt.Sprintf("mcp: prompt %q registered twice", p.Name), "notifications/prompts/list_changed")
}

func (p *promptEntry) render(d dialect) []byte {
	var e jsonwire.Encoder
	p.Prompt.encode(&e, d)
	return e.Bytes()
}

func (s *Server) lookupPrompt(name string) *promptEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := search(s.prompts, []byte(name), promptName)
	if i < 0 {
		return nil
	}
	return s.prompts[i]
}

// promptName is the key the prompts are sorted by.
func promptName(p *promptEntry) string { return p.Name }

func listPrompts(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	return listPage(req, params, "prompts/list", "prompts", &req.srv.prompts, promptName,
		func(p *promptEntry, d dialect) []byte { return p.rendered[d] })
}

// getPrompt answers prompts/get. An unknown prompt and arguments that do not fit are
// protocol errors (invalid params); an error the prompt's function returns is an internal
// error, unless it is a *jsonrpc.Error of its own choosing.
func getPrompt(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	var q getPromptParams
	if params != nil {
		d := jsonwire.NewDecoder(params)
		q.decode(d)
		if d.Finish(); d.Failed() {
			return nil, invalidParams("prompts/get: %s", d.Summary())
		}
	}
	if !q.hasName {
		return nil, invalidParams("prompts/get: a prompt name is required")
	}
	name, args := q.name, q.arguments
	p := req.srv.lookupPrompt(name)
	if p == nil {
		return nil, invalidParams("unknown prompt %q", name)
	}
	if args == nil {
		args = []byte("{}")
	}
	res, err := p.Get(ctx, newInput(args, promptArguments, name))
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return nil, rpcErr
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "prompt "+name+": "+err.Error())
	}
	if res == nil {
		res = &GetPromptResult{}
	}
	for i, m := range res.Messages {
		switch {
		case m.Content == nil:
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, fmt.Sprintf("prompt %s: message %d has no content", name, i))
		case m.Role != "" && m.Role != RoleUser && m.Role != RoleAssistant:
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, fmt.Sprintf("prompt %s: message %d has role %q; a role is %q or %q", name, i, m.Role, RoleUser, RoleAssistant))
		}
	}
	var e jsonwire.Encoder
	res.encode(&e, req.client.revision().dialect())
	return e.Bytes(), nil
}
