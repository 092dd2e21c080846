package mcp

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// A request's params as the client writes them: the caller's params, encoded as a JSON
// object, and the _meta a request adds (its progress token and, in the stateless revision,
// what the client says of itself). These are on every call's path: the _meta of a stateless
// request is written once per (version, log level), and the common shapes of a caller's
// arguments (maps of strings, numbers, booleans, lists) are written without reflection.

// metaCache is the _meta of the client's stateless requests for one revision and log level,
// without a progress token: the same bytes for every request until either changes.
type metaCache struct {
	rev   revision
	level LogLevel
	meta  []byte // immutable: requests share it
}

// requestMeta is the _meta of a request: the progress token, and in a stateless request,
// the protocol version, the client's info and capabilities, and the log level it wants.
func (c *Client) requestMeta(rev revision, token []byte) []byte {
	if !rev.stateless() {
		if token == nil {
			return nil
		}
		return append(append([]byte(`{"progressToken":`), token...), '}')
	}
	c.mu.Lock()
	level := c.level
	m := c.meta
	if m == nil || m.rev != rev || m.level != level {
		var e jsonwire.Encoder
		e.ObjectStart()
		e.Key(metaProtocolVersion)
		e.String(rev.String())
		e.Key(metaClientInfo)
		e.Raw(c.info)
		e.Key(metaClientCapabilities)
		e.Raw(c.declaredCapabilities(true))
		if level != "" {
			e.Key(metaLogLevel)
			e.String(string(level))
		}
		e.ObjectEnd()
		m = &metaCache{rev: rev, level: level, meta: e.Bytes()}
		c.meta = m
	}
	c.mu.Unlock()
	if token == nil {
		return m.meta
	}
	out := make([]byte, 0, len(m.meta)+len(token)+20)
	out = append(append(append(out, `{"progressToken":`...), token...), ',')
	return append(out, m.meta[1:]...)
}

// encodeParams encodes a request's params as a JSON object.
func encodeParams(params any) ([]byte, error) {
	switch p := params.(type) {
	case nil:
		return []byte("{}"), nil
	case json.RawMessage:
		return p, nil
	case []byte:
		return p, nil
	}
	if m, ok := params.(map[string]any); ok {
		// Room for the arguments of most calls: growing from nothing took one allocation
		// per doubling.
		if b, ok := appendObject(make([]byte, 0, 256), m); ok {
			return b, nil
		}
	}
	b, err := json.Marshal(params)
	switch {
	case err != nil:
		return nil, err
	case string(b) == "null": // a nil map or pointer
		return []byte("{}"), nil
	case len(b) == 0 || b[0] != '{':
		return nil, errors.New("not a JSON object")
	}
	return b, nil
}

// appendObject appends m as encoding/json writes it (members sorted by key), if every value
// in it is of a type appendValue writes; ok is false otherwise, and for a nil map.
func appendObject(buf []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return buf, false
	}
	var e jsonwire.Encoder
	e.Reset(buf)
	if !writeObject(&e, m) || e.Err() != nil {
		return buf, false
	}
	return e.Bytes(), true
}

func writeObject(e *jsonwire.Encoder, m map[string]any) bool {
	e.ObjectStart()
	var room [16]string
	for _, k := range sortedKeys(room[:0], m) {
		e.Key(k)
		if !writeValue(e, m[k]) {
			return false
		}
	}
	e.ObjectEnd()
	return true
}

// sortedKeys appends m's keys to keys, sorted. Given room on the caller's stack, it
// allocates nothing for a map of a few keys (slices.Sorted(maps.Keys(m)) allocated the
// iterator and a slice per doubling).
func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// writeValue writes the values a caller's arguments commonly hold, as encoding/json does,
// and reports false for any other (which encoding/json then writes: a struct, a type with a
// MarshalJSON of its own, a map of other keys).
func writeValue(e *jsonwire.Encoder, v any) bool {
	switch v := v.(type) {
	case nil:
		e.Null()
	case string:
		e.String(v)
	case bool:
		e.Bool(v)
	case int:
		e.Int(int64(v))
	case int64:
		e.Int(v)
	case int32:
		e.Int(int64(v))
	case uint:
		e.Uint(uint64(v))
	case uint64:
		e.Uint(v)
	case float64:
		e.Float(v, 64)
	case float32:
		e.Float(float64(v), 32)
	case []string:
		if v == nil {
			e.Null()
			break
		}
		e.ArrayStart()
		for _, s := range v {
			e.Elem()
			e.String(s)
		}
		e.ArrayEnd()
	case []any:
		if v == nil {
			e.Null()
			break
		}
		e.ArrayStart()
		for _, x := range v {
			e.Elem()
			if !writeValue(e, x) {
				return false
			}
		}
		e.ArrayEnd()
	case map[string]any:
		if v == nil {
			e.Null()
			break
		}
		return writeObject(e, v)
	case map[string]string:
		if v == nil {
			e.Null()
			break
		}
		e.ObjectStart()
		var room [16]string
		for _, k := range sortedKeys(room[:0], v) {
			e.Key(k)
			e.String(v[k])
		}
		e.ObjectEnd()
	default:
		return false
	}
	return true
}

// withMeta returns params with _meta (if not nil) and the members of extra (a JSON object's
// members, without braces) added.
func withMeta(params, meta, extra []byte) []byte {
	if meta == nil && extra == nil {
		return params
	}
	inner := params[1 : len(params)-1]
	for len(inner) > 0 && (inner[0] == ' ' || inner[0] == '\n' || inner[0] == '\t' || inner[0] == '\r') {
		inner = inner[1:]
	}
	out := make([]byte, 0, len(params)+len(meta)+len(extra)+12)
	out = append(out, '{')
	sep := false
	if meta != nil {
		out = append(out, `"_meta":`...)
		out = append(out, meta...)
		sep = true
	}
	if extra != nil {
		if sep {
			out = append(out, ',')
		}
		out = append(out, extra...)
		sep = true
	}
	if len(inner) > 0 {
		if sep {
			out = append(out, ',')
		}
		out = append(out, inner...)
	}
	return append(out, '}')
}
