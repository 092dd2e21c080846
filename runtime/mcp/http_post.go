package mcp

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The one preamble of every POST, to the MCP endpoint (sessions and stateless alike) and to
// the message endpoint of HTTP+SSE: what the endpoints serve is the message it hands them,
// so none can skip a check. In order: shutting down (503), Content-Type (415), Accept (406,
// not for HTTP+SSE, whose answers go on its stream), then the router finds the session the
// request names, without reading the body (404), then the body's share of the server's
// MaxBytesInFlight (503 with Retry-After), MaxBodySize (413), the JSON-RPC message (400),
// and last its era, decided once. Then the endpoint hands a request to the server's door
// (door.go), whose refusals it answers with their status (httpRefuse): a scope the
// caller's token lacks 403, a bound 503.

// post is a POST's message, with what the preamble and the router decided of it.
type post struct {
	m          jsonrpc.Message
	meta       *requestMeta // a request's _meta, read once; nil when it has none to read
	stateless  bool         // the era: the stateless revision's (2026-07-28), or a session's
	acceptJSON bool
	acceptSSE  bool
	legacy     bool         // to the message endpoint of HTTP+SSE
	hs         *httpSession // the Streamable HTTP session the POST names, if any
	ss         *sseSession  // the HTTP+SSE session the POST names
	// held is the body's bytes in the server's budget: handed to the request that serves
	// the message (take), or given back by release once the POST is answered.
	held   int64
	budget *budget
	tk     ticket // what the door read of a stateless request (http_stateless.go)
}

// take hands the body's bytes in the budget to the request that serves the message, which
// gives them back once answered (a request of HTTP+SSE is served on after its POST is).
func (p *post) take() int64 {
	n := p.held
	p.held = 0
	return n
}

// release gives back what of the body's bytes was not handed on.
func (p *post) release() { p.budget.give(p.take()) }

// startPost checks what a POST's headers say, before the router looks for its session.
func (h *HTTPHandler) startPost(w http.ResponseWriter, r *http.Request, legacy bool) (*post, bool) {
	if h.isClosing() {
		shuttingDown(w)
		return nil, false
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		what := "a POST to the MCP endpoint"
		if legacy {
			what = "a message"
		}
		httpError(w, http.StatusUnsupportedMediaType, jsonrpc.CodeInvalidRequest, "unsupported media type: "+what+" carries application/json")
		return nil, false
	}
	p := &post{legacy: legacy}
	if !legacy {
		p.acceptJSON, p.acceptSSE = accepts(r.Header.Values("Accept"), "application/json"), accepts(r.Header.Values("Accept"), "text/event-stream")
		if !p.acceptJSON && !p.acceptSSE {
			httpError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "not acceptable: the client must accept application/json or text/event-stream")
			return nil, false
		}
	}
	return p, true
}

// readPost reads and checks the message of a POST that startPost let through, and decides
// its era. It answers a refusal itself; else the caller calls p.release once the POST is
// answered.
func (h *HTTPHandler) readPost(w http.ResponseWriter, r *http.Request, p *post) bool {
	body, held := h.readBody(w, r)
	if body == nil {
		return false
	}
	p.held, p.budget = held, &h.srv.budget
	m, perr := parser.Parse(body)
	if perr != nil {
		// Nothing in a message we cannot read can be answered on a stream.
		p.release()
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, m.ID, perr))
		return false
	}
	p.m = m
	p.meta, p.stateless = eraOf(r.Header.Get("Mcp-Protocol-Version"), &p.m, p.legacy)
	return true
}

// eraOf decides the era of a POSTed message, once: the endpoints and the session serving
// it take the answer, and read no _meta again. A request is stateless by its _meta, or by
// a header that names the stateless revision (or one unknown, answered as a stateless
// request is), whatever other headers it carries. A notification or response is stateless
// only if the header names the stateless revision itself: a session's client's mistyped
// header gets the session's answer. HTTP+SSE carries sessions only: revision 2026-07-28
// defines its messages over stdio and Streamable HTTP alone, so a request there is the
// session's whatever its _meta says (before initialize it is refused as any request is,
// and server/discover is not found), and a client that probes falls back to initialize.
func eraOf(header string, m *jsonrpc.Message, legacy bool) (meta *requestMeta, stateless bool) {
	if legacy {
		return nil, false
	}
	if m.IsRequest() {
		meta, stateless = statelessMeta(m)
	}
	header = strings.TrimSpace(header)
	return meta, stateless || isStateless(header) || m.IsRequest() && isStatelessHeader(header)
}

// readBody reads the body of a POST within the bounds every endpoint shares: its bytes
// count against the server's MaxBytesInFlight from before it is read (503 with Retry-After
// past it), and it may be no larger than MaxBodySize (413). It answers a refusal itself and
// returns a nil body; else the bytes it holds in the budget.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) (body []byte, held int64) {
	// A body is one message: the server's MaxMessageSize bounds it too, as every transport's.
	limit := min(h.opts.MaxBodySize, int64(h.srv.opts.MaxMessageSize))
	reserved := r.ContentLength
	if reserved < 0 || reserved > limit {
		reserved = limit // unknown, or refused with 413 once read
	}
	if !h.srv.budget.take(reserved, 0) {
		w.Header().Set("Retry-After", "1")
		httpError(w, http.StatusServiceUnavailable, errBudget.Code, errBudget.Message)
		return nil, 0
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		h.srv.budget.give(reserved)
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			httpError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "request body too large: the limit is "+strconv.FormatInt(limit, 10)+" bytes")
			return nil, 0
		}
		httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: cannot read the body: "+err.Error())
		return nil, 0
	}
	if body == nil {
		body = []byte{} // read, and empty
	}
	return body, reserved
}

// isJSON reports whether a Content-Type is application/json, with or without parameters.
// The plain form, which nearly every client sends, is told without parsing.
func isJSON(contentType string) bool {
	if strings.EqualFold(contentType, "application/json") {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// accepts reports whether an Accept header admits a media type. No header admits anything;
// a quality of 0 refuses. It runs on every POST, so it reads the header in place (the
// common header, "application/json, text/event-stream", costs no allocation).
func accepts(header []string, mediaType string) bool {
	if len(header) == 0 {
		return true
	}
	major, _, _ := strings.Cut(mediaType, "/")
	for _, h := range header {
		for h != "" {
			var part string
			part, h, _ = strings.Cut(h, ",")
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.TrimSpace(mt)
			typ, sub, ok := strings.Cut(mt, "/")
			if !ok || typ == "" || sub == "" || refused(params) {
				continue
			}
			if mt == "*/*" || strings.EqualFold(mt, mediaType) || sub == "*" && strings.EqualFold(typ, major) {
				return true
			}
		}
	}
	return false
}

// refused reports whether the parameters of a media range give it a quality of 0.
func refused(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		if k, v, ok := strings.Cut(p, "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q <= 0
		}
	}
	return false
}

// httpRefuse answers a POST whose request the door refused (a): 403 and a challenge for a
// scope the caller's token lacks; 503 with Retry-After, and its answer, for a bound;
// otherwise its answer (resp), with status.
func (h *HTTPHandler) httpRefuse(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, a admission, why refusal, resp []byte, status int) {
	switch {
	case a.why == refusedScope:
		h.guard.challenge(w, r, http.StatusForbidden, "insufficient_scope", m.Method+" needs the scopes "+strings.Join(a.need, " "), a.need)
	case why == refusedBusy:
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, resp)
	default:
		writeJSON(w, status, resp)
	}
}

// httpError answers with an HTTP error status and a JSON-RPC error without an id.
func httpError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, jsonrpc.AppendError(nil, nil, jsonrpc.NewError(code, msg)))
}

func shuttingDown(w http.ResponseWriter) {
	httpError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the server is shutting down")
}

// writeJSON answers with one JSON-RPC message.
func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(msg)
}
