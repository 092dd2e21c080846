package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Completion suggests values for one argument of a prompt, or one variable of a resource
// template, as the user types it (completion/complete). Set Prompt or ResourceTemplate.
type Completion struct {
	Prompt           string // the prompt's name
	ResourceTemplate string // the template's URI template
	Argument         string // the argument or variable
	// Complete returns the values that complete req.Value, best first. At most 100 are
	// sent; the client learns how many there were in all.
	Complete func(ctx context.Context, req CompletionRequest) ([]string, error)
}

// CompletionRequest is what the user has typed so far.
type CompletionRequest struct {
	Argument string
	Value    string            // the partial value of the argument
	Context  map[string]string // values of other arguments already given, if the client sent them
}

type completionKey struct {
	prompt   bool // otherwise a resource template
	name     string
	argument string
}

// AddCompletion registers a completion. It panics if it names no prompt or template, or if
// that argument already has one.
func (s *Server) AddCompletion(c Completion) {
	if (c.Prompt == "") == (c.ResourceTemplate == "") || c.Argument == "" || c.Complete == nil {
		panic("mcp: a completion needs a prompt or a resource template (one of them), an argument and a Complete function")
	}
	key := completionKey{prompt: c.Prompt != "", name: c.Prompt + c.ResourceTemplate, argument: c.Argument}
	s.add(func() bool {
		if s.completers[key] != nil {
			return false
		}
		s.completers[key] = &c
		return true
	}, fmt.Sprintf("mcp: completion for %s %q argument %q registered twice", key.kind(), key.name, c.Argument), "")
}

func (k completionKey) kind() string {
	if k.prompt {
		return "prompt"
	}
	return "resource template"
}

// readCompleteParams reads the params of completion/complete, or says what is wrong with
// them, each problem at its JSON Pointer.
func readCompleteParams(params []byte) (completeParams, *jsonrpc.Error) {
	var p completeParams
	if params == nil {
		return p, invalidParams("completion/complete: params need a ref and an argument with a name and a value")
	}
	d := jsonwire.NewDecoder(params)
	p.decode(d)
	if d.Finish(); d.Failed() {
		return p, invalidParams("completion/complete: %s", d.Summary())
	}
	return p, nil
}

// maxCompletionValues is the protocol's limit on the values of one completion result.
const maxCompletionValues = 100

// complete answers completion/complete. A reference to a prompt or template the server does
// not have is invalid params; an argument without a completion gets no suggestions.
func complete(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	p, perr := readCompleteParams(params)
	if perr != nil {
		return nil, perr
	}
	if p.argument == "" {
		return nil, invalidParams("completion/complete: argument.name is required")
	}
	srv := req.srv
	var key completionKey
	switch p.refType {
	case "ref/prompt":
		if srv.lookupPrompt(p.refName) == nil {
			return nil, invalidParams("completion/complete: unknown prompt %q", p.refName)
		}
		key = completionKey{prompt: true, name: p.refName, argument: p.argument}
	case "ref/resource":
		srv.mu.RLock()
		known := search(srv.templates, []byte(p.refURI), templateURI) >= 0
		srv.mu.RUnlock()
		if !known {
			return nil, invalidParams("completion/complete: unknown resource template %q", p.refURI)
		}
		key = completionKey{name: p.refURI, argument: p.argument}
	default:
		return nil, invalidParams("completion/complete: ref.type must be \"ref/prompt\" or \"ref/resource\"")
	}
	srv.mu.RLock()
	c := srv.completers[key]
	srv.mu.RUnlock()

	var values []string
	if c != nil {
		var err error
		values, err = c.Complete(ctx, CompletionRequest{Argument: p.argument, Value: p.value, Context: p.context})
		if err != nil {
			var rpcErr *jsonrpc.Error
			if errors.As(err, &rpcErr) {
				return nil, rpcErr
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "completion: "+err.Error())
		}
	}
	var e jsonwire.Encoder
	(&CompleteResult{Values: values[:min(len(values), maxCompletionValues)], Total: len(values), HasMore: len(values) > maxCompletionValues}).encode(&e)
	return e.Bytes(), nil
}
