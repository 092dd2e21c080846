package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/httptoken"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// headerParam is a tool argument mirrored into an HTTP header, Mcp-Param-{name}, as its
// input schema says with x-mcp-header (server/tools.mdx, revision 2026-07-28).
type headerParam struct {
	name string   // as the schema spells it
	path []string // property names from the arguments' root
	kind string   // "string", "integer" or "boolean"
}

// headerParams finds the x-mcp-header annotations of an input schema, and checks them as
// clients will: a tool whose annotations break the rules is one clients drop. httptoken finds
// them, and says which are where clients look and which names are tokens used once, for the
// generator too, so that what mcpgen generates the runtime registers.
func headerParams(schema []byte) ([]headerParam, error) {
	if !strings.Contains(string(schema), `"`+httptoken.Keyword+`"`) {
		return nil, nil
	}
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, err
	}
	var params []headerParam
	for _, h := range httptoken.Headers(root) {
		if !h.OnPath {
			continue // clients ignore it there, and so does the runtime
		}
		at := strings.Join(h.Path, ".")
		kind, _ := h.Schema["type"].(string)
		switch {
		case h.Name == "":
			return nil, fmt.Errorf("property %s: x-mcp-header %q is not an HTTP header name", at, h.Value)
		case kind != "string" && kind != "integer" && kind != "boolean":
			return nil, fmt.Errorf("property %s: x-mcp-header needs a string, integer or boolean, not %q", at, kind)
		case h.Same != nil:
			return nil, fmt.Errorf("property %s: x-mcp-header %q is already used by %s", at, h.Name, strings.Join(h.Same.Path, "."))
		}
		params = append(params, headerParam{name: h.Name, path: h.Path, kind: kind})
	}
	return params, nil
}

// checkParamHeaders compares the Mcp-Param-* headers of a tools/call with the arguments in
// its body. It returns what does not match, or "".
func (t *toolEntry) checkParamHeaders(header http.Header, params []byte) string {
	args := argumentsOf(params)
	for _, hp := range t.headerParams {
		name := "Mcp-Param-" + hp.name
		values := header.Values(name)
		value, found := valueAt(args, hp.path)
		switch {
		case !found && len(values) == 0:
			continue
		case !found:
			return fmt.Sprintf("the %s header is present, but the arguments have no %s", name, strings.Join(hp.path, "."))
		case len(values) == 0:
			return fmt.Sprintf("the %s header is missing; the arguments have %s", name, strings.Join(hp.path, "."))
		case len(values) > 1:
			return fmt.Sprintf("the %s header is given more than once", name)
		}
		got, ok := headerValue(values[0])
		if !ok {
			return fmt.Sprintf("the %s header holds characters a header may not, or bad base64", name)
		}
		if !sameValue(hp.kind, got, value) {
			return fmt.Sprintf("%s header value '%s' does not match body value %s", name, got, value)
		}
	}
	return ""
}

// argumentsOf returns the raw arguments object of tools/call params, or nil.
func argumentsOf(params []byte) []byte {
	var d jsonwire.Decoder
	d.Reset(params)
	var args []byte
	if params == nil || d.Peek() != jsonwire.Object {
		return nil
	}
	for key := range d.Members {
		if string(key) == "arguments" && d.Peek() == jsonwire.Object {
			args = d.Raw()
		} else {
			d.Skip()
		}
	}
	return args
}

// valueAt returns the raw JSON value at a property path; null counts as absent.
func valueAt(obj []byte, path []string) ([]byte, bool) {
	for _, name := range path {
		if obj == nil {
			return nil, false
		}
		var d jsonwire.Decoder
		d.Reset(obj)
		if d.Peek() != jsonwire.Object {
			return nil, false
		}
		var next []byte
		for key := range d.Members {
			if string(key) == name {
				next = d.Raw()
			} else {
				d.Skip()
			}
		}
		obj = next
	}
	if obj == nil || string(obj) == "null" {
		return nil, false
	}
	return obj, true
}

// sameValue compares a header's text with a JSON value of the annotated kind: strings
// exactly, integers as numbers (42 and 42.0 are equal), booleans as true or false.
func sameValue(kind, header string, value []byte) bool {
	switch kind {
	case "string":
		var s string
		return json.Unmarshal(value, &s) == nil && s == header
	case "integer":
		// Exactly when both are integers (beyond 2^53 a float64 would round); 42 and 42.0
		// are equal.
		if h, err := strconv.ParseInt(header, 10, 64); err == nil {
			if v, err := strconv.ParseInt(string(value), 10, 64); err == nil {
				return h == v
			}
		}
		h, err1 := strconv.ParseFloat(header, 64)
		v, err2 := strconv.ParseFloat(string(value), 64)
		return err1 == nil && err2 == nil && h == v && !math.IsInf(h, 0) && math.Abs(h) < 1<<53
	case "boolean":
		return (header == "true" || header == "false") && header == string(value)
	}
	return false
}
