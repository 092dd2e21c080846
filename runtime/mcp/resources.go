package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Resource is a resource at a fixed URI, listed by resources/list.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        *int64
	Icons       []Icon // sent to clients of protocol 2025-11-25 and later
	Annotations *Annotations
	// Scopes are the OAuth scopes a caller's token needs to read the resource, or to
	// subscribe to its changes, on a protected server (HTTPOptions.Auth).
	Scopes []string
	// Read returns the resource's contents; uri is the one asked for.
	Read func(ctx context.Context, uri string) ([]ResourceContents, error)
}

// ResourceTemplate offers the resources whose URIs match a URI template (RFC 6570), listed
// by resources/templates/list. A template's variables are written {name}, matching one path
// segment, or {+name}, matching the rest.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Icons       []Icon // sent to clients of protocol 2025-11-25 and later
	Annotations *Annotations
	// Scopes are the OAuth scopes a caller's token needs to read its resources, subscribe
	// to their changes, or have its variables completed, on a protected server
	// (HTTPOptions.Auth).
	Scopes []string
	// Read returns the contents of the resource at uri, whose variables are in vars.
	Read func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error)
}

// ErrResourceNotFound is returned by a Read function for a URI that names no resource; the
// client gets the protocol's "resource not found" error.
var ErrResourceNotFound = errors.New("resource not found")

type resourceEntry struct {
	Resource
}

type templateEntry struct {
	ResourceTemplate
	pattern *regexp.Regexp
	names   []string
}

// AddResource registers a resource. It panics if the resource is malformed or its URI is
// taken.
func (s *Server) AddResource(r Resource) {
	if r.URI == "" || r.Name == "" || r.Read == nil {
		panic(fmt.Sprintf("mcp: resource %q needs a URI, a name and a Read function", r.URI))
	}
	e := &resourceEntry{r}
	s.add(func() bool {
		var ok bool
		s.resources, ok = insertSorted(s.resources, e, resourceURI)
		return ok
	}, fmt.Sprintf("mcp: resource %q registered twice", r.URI), "notifications/resources/list_changed")
}

// AddResourceTemplate registers a resource template. It panics if the template is malformed
// or registered twice.
func (s *Server) AddResourceTemplate(t ResourceTemplate) {
	pattern, names, err := compileTemplate(t.URITemplate)
	if err != nil || t.Name == "" || t.Read == nil {
		panic(fmt.Sprintf("mcp: resource template %q needs a valid template, a name and a Read function: %v", t.URITemplate, err))
	}
	e := &templateEntry{t, pattern, names}
	s.add(func() bool {
		var ok bool
		s.templates, ok = insertSorted(s.templates, e, templateURI)
		return ok
	}, fmt.Sprintf("mcp: resource template %q registered twice", t.URITemplate), "notifications/resources/list_changed")
}

var templateVar = regexp.MustCompile(`\{(\+?)([A-Za-z0-9_.]+)\}`)

// compileTemplate turns a URI template into a regular expression matching its URIs.
func compileTemplate(tmpl string) (*regexp.Regexp, []string, error) {
	var b strings.Builder
	var names []string
	last := 0
	for _, m := range templateVar.FindAllStringSubmatchIndex(tmpl, -1) {
		b.WriteString(regexp.QuoteMeta(tmpl[last:m[0]]))
		if tmpl[m[2]:m[3]] == "+" {
			b.WriteString("(.+)")
		} else {
			b.WriteString("([^/?#]+)")
		}
		names = append(names, tmpl[m[4]:m[5]])
		last = m[1]
	}
	rest := tmpl[last:]
	if strings.ContainsAny(rest, "{}") || strings.ContainsAny(tmpl[:last], "}") && len(names) == 0 {
		return nil, nil, errors.New("only {name} and {+name} variables are supported")
	}
	b.WriteString(regexp.QuoteMeta(rest))
	re, err := regexp.Compile("^" + b.String() + "$")
	return re, names, err
}

// match reports whether uri is one of the template's, with its variables.
func (t *templateEntry) match(uri string) (map[string]string, bool) {
	m := t.pattern.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := make(map[string]string, len(t.names))
	for i, name := range t.names {
		v, err := url.PathUnescape(m[i+1])
		if err != nil {
			return nil, false
		}
		vars[name] = v
	}
	return vars, true
}

// NotifyResourceUpdated tells the sessions subscribed to uri that it changed.
func (s *Server) NotifyResourceUpdated(uri string) {
	s.mu.RLock()
	var subscribed []*session
	for ss := range s.sessions {
		ss.mu.Lock()
		if ss.subscriptions[uri] {
			subscribed = append(subscribed, ss)
		}
		ss.mu.Unlock()
	}
	s.mu.RUnlock()
	params := uriParams(uri)
	for _, ss := range subscribed {
		ss.notify(notificationResourceUpdated, params)
	}
	s.notifyListeners(notificationResourceUpdated, uri)
}

func (r *resourceEntry) render(d dialect) []byte {
	var e jsonwire.Encoder
	r.Resource.encode(&e, d)
	return e.Bytes()
}

func (t *templateEntry) render(d dialect) []byte {
	var e jsonwire.Encoder
	t.ResourceTemplate.encode(&e, d)
	return e.Bytes()
}

// resourceURI and templateURI are the keys resources and templates are sorted by.
func resourceURI(r *resourceEntry) string { return r.URI }
func templateURI(t *templateEntry) string { return t.URITemplate }

func listResources(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	return listPage(req, params, "resources/list", "resources", &req.srv.resources, resourceURI, (*resourceEntry).render)
}

func listResourceTemplates(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	return listPage(req, params, "resources/templates/list", "resourceTemplates", &req.srv.templates, templateURI, (*templateEntry).render)
}

// uriParam reads the uri parameter of resources/read and the subscriptions.
func uriParam(method string, params []byte) (string, *jsonrpc.Error) {
	if uri, _ := stringParam(params, "uri"); uri != "" {
		return uri, nil
	}
	return "", invalidParams("%s: a uri is required", method)
}

// CodeResourceNotFound is the JSON-RPC error code of a resource the server does not have,
// in the revisions up to 2025-11-25; revision 2026-07-28 answers invalid params (-32602)
// instead, with the same data.
const CodeResourceNotFound = -32002

func resourceNotFound(uri string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeResourceNotFound, Message: "resource not found: " + uri,
		Data: append(append([]byte(`{"uri":`), jsonwire.AppendString(nil, uri)...), '}')}
}

// readResource answers resources/read: a resource at that URI, or else the first template
// that matches it.
func readResource(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	uri, perr := uriParam("resources/read", params)
	if perr != nil {
		return nil, perr
	}
	var (
		contents []ResourceContents
		err      error
		mime     string
	)
	switch r, t, vars := req.srv.resolve(uri); {
	case r != nil:
		contents, err = r.Read(ctx, uri)
		mime = r.MIMEType
	case t != nil:
		contents, err = t.Read(ctx, uri, vars)
		mime = t.MIMEType
	default:
		return nil, resourceNotFound(uri)
	}
	switch {
	case errors.Is(err, ErrResourceNotFound):
		return nil, resourceNotFound(uri)
	case err != nil:
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return nil, rpcErr
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error())
	}
	var e jsonwire.Encoder
	encodeReadResult(&e, contents, uri, mime)
	return e.Bytes(), nil
}

// maxSubscriptions bounds the subscriptions of one session.
const maxSubscriptions = 10000

// subscribe answers resources/subscribe, for a resource the server has (a fixed one, or one
// of a template's).
func subscribe(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	uri, err := uriParam("resources/subscribe", params)
	if err != nil {
		return nil, err
	}
	if !req.srv.hasResource(uri) {
		return nil, resourceNotFound(uri)
	}
	ss := req.client.(*session) // a stateful method: its client is a session
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.subscriptions) >= maxSubscriptions && !ss.subscriptions[uri] {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a session may hold at most %d subscriptions", maxSubscriptions))
	}
	ss.subscriptions[uri] = true
	return []byte("{}"), nil
}

// hasResource reports whether uri names a resource: a fixed one, or a template's.
func (s *Server) hasResource(uri string) bool {
	r, t, _ := s.resolve(uri)
	return r != nil || t != nil
}

// resolve finds what serves uri: the resource at that URI, or else the first template that
// matches it, with its variables.
func (s *Server) resolve(uri string) (*resourceEntry, *templateEntry, map[string]string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if i := search(s.resources, []byte(uri), resourceURI); i >= 0 {
		return s.resources[i], nil, nil
	}
	for _, t := range s.templates {
		if vars, ok := t.match(uri); ok {
			return nil, t, vars
		}
	}
	return nil, nil, nil
}

func unsubscribe(ctx context.Context, req *Request, params []byte) ([]byte, *jsonrpc.Error) {
	uri, err := uriParam("resources/unsubscribe", params)
	if err != nil {
		return nil, err
	}
	ss := req.client.(*session) // a stateful method: its client is a session
	ss.mu.Lock()
	delete(ss.subscriptions, uri)
	ss.mu.Unlock()
	return []byte("{}"), nil
}
