package mcp

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of the multi round-trip's types (revision 2026-07-28, basic/patterns/mrtr.mdx):
// the requests a server makes of its client inside a result (InputRequests, in an
// InputRequiredResult or a task's inputRequests) and the client's answers (InputResponses,
// on the retry or in tasks/update). See codec_content.go for the convention. The params of
// a request and each answer stay raw JSON objects here: they are read by the codec of the
// request they belong to (elicitation, sampling, roots) where they are answered.

// inputRequest is one request of a server's to its client: its key in inputRequests (and
// of its answer in inputResponses), its method and params (a raw JSON object, or nil).
type inputRequest struct {
	key, method string
	params      []byte
}

// inputRequestList are the requests of an InputRequiredResult, in the order they were asked
// (or, read, by key: the order the client answers them in).
type inputRequestList []inputRequest

// encode writes the requests as an object by key.
func (rs inputRequestList) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	for _, r := range rs {
		e.Key(r.key)
		e.ObjectStart()
		e.Key("method")
		e.String(r.method)
		if r.params != nil {
			e.Key("params")
			e.Raw(r.params)
		}
		e.ObjectEnd()
	}
	e.ObjectEnd()
}

// decode reads the requests, sorted by key: each an object with a method and, if it has
// any, params, an object (null as absent); other members are skipped.
func (rs *inputRequestList) decode(d *jsonwire.Decoder) {
	*rs = (*rs)[:0]
	for key := range d.Members {
		r := inputRequest{key: string(key)}
		if d.Null() {
			continue // no request under this key: nothing to answer
		}
		hasMethod := false
		object := d.Peek() == jsonwire.Object
		for member := range d.Members {
			switch string(member) {
			case "method":
				r.method, hasMethod = d.String()
			case "params":
				if !d.Null() && d.Expect(jsonwire.Object) {
					r.params = d.RawCopy()
				}
			default:
				d.Skip()
			}
		}
		if object && !hasMethod {
			d.ReportMissing("method")
		}
		*rs = append(*rs, r)
	}
	slices.SortFunc(*rs, func(a, b inputRequest) int { return strings.Compare(a.key, b.key) })
}

// inputRequiredResult is an InputRequiredResult: what the server asks, and the state the
// client hands back unchanged on its retry. Its resultType and _meta are the envelope, which
// the server writes as for any stateless result.
type inputRequiredResult struct {
	requests inputRequestList
	state    string
	hasState bool
}

// encode writes the result's members: inputRequests when it has any, requestState when set.
func (r *inputRequiredResult) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	if len(r.requests) > 0 {
		e.Key("inputRequests")
		r.requests.encode(e)
	}
	if r.hasState {
		e.Key("requestState")
		e.String(r.state)
	}
	e.ObjectEnd()
}

// decode reads the result; null reads as absent.
func (r *inputRequiredResult) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "inputRequests":
			if !d.Null() {
				r.requests.decode(d)
			}
		case "requestState":
			if !d.Null() {
				r.state, r.hasState = d.String()
			}
		default:
			d.Skip()
		}
	}
}

// inputResponses are the client's answers by key, each the result of the request it
// answers, a raw JSON object.
type inputResponses map[string]json.RawMessage

// encode writes the answers, sorted by key.
func (rs inputResponses) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	var room [16]string
	for _, k := range sortedKeys(room[:0], rs) {
		e.Key(k)
		e.Raw(rs[k])
	}
	e.ObjectEnd()
}

// decode reads the answers into a new map (not nil, even for none): each must be an object;
// a null is no answer.
func (rs *inputResponses) decode(d *jsonwire.Decoder) {
	*rs = inputResponses{}
	for key := range d.Members {
		switch k := d.Peek(); k {
		case jsonwire.Null:
			d.Skip()
		case jsonwire.Object:
			(*rs)[string(key)] = d.RawCopy()
		case jsonwire.Invalid:
			d.Expect(jsonwire.Object) // the syntax error
		default:
			d.Report("expected an object (the result of the request it answers), got " + k.String())
			d.Skip()
		}
	}
}

// problemsUnder is what a decoder of a member's value found, each problem's JSON Pointer
// under the member's (parent): the problems of a value read apart from its message.
func problemsUnder(parent string, d *jsonwire.Decoder) string {
	var b strings.Builder
	for i, p := range d.Problems() {
		if i > 0 {
			b.WriteByte('\n')
		}
		p.Path = parent + p.Path
		b.WriteString(p.String())
	}
	return b.String()
}
