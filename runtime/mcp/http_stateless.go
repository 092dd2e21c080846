package mcp

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The endpoint of Streamable HTTP in the stateless revision (2026-07-28,
// basic/transports/streamable-http.mdx): no sessions, no GET stream, no resumption. Each
// POST is one request, answered with JSON or with an SSE stream of its own that ends with the
// response; headers mirror the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-*), and must agree with it. The router sends here what the preamble found of
// this era (http_post.go).

// isStatelessHeader reports whether an MCP-Protocol-Version header names a revision without
// sessions: the stateless revision, or one unknown to us, answered as a stateless one.
func isStatelessHeader(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && !isStateful(v)
}

// statelessStatus is the HTTP status of a stateless request's JSON answer, by the code of
// the error it holds (0 for a result).
func statelessStatus(code int) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, jsonrpc.CodeInvalidRequest, jsonrpc.CodeParseError,
		CodeHeaderMismatch, CodeMissingRequiredClientCapability, CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// headerValue decodes a header that may carry the =?base64?...?= form. ok is false for a
// value with characters a header may not hold, or a sentinel that is not valid base64.
func headerValue(v string) (string, bool) {
	v = strings.Trim(v, " \t")
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f || c >= 0x80 {
			return "", false
		}
	}
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if inner, ok = strings.CutSuffix(inner, "?="); ok {
			// Padded standard base64, strictly: anything else is a malformed header.
			b, err := base64.StdEncoding.Strict().DecodeString(inner)
			if err != nil {
				return "", false
			}
			if !utf8.Valid(b) {
				return "", false
			}
			return string(b), true
		}
	}
	return v, true
}

// headerMismatch is a HeaderMismatch error.
func headerMismatch(msg string) *jsonrpc.Error {
	return jsonrpc.NewError(CodeHeaderMismatch, "Header mismatch: "+msg)
}

// checkHeaders checks the headers that mirror a stateless request's body. It returns the
// error, or nil.
func (h *HTTPHandler) checkHeaders(r *http.Request, m *jsonrpc.Message, meta *requestMeta) *jsonrpc.Error {
	version := r.Header.Get("Mcp-Protocol-Version")
	switch {
	case version == "":
		return headerMismatch("the MCP-Protocol-Version header is required")
	case meta != nil && meta.hasVersion && strings.TrimSpace(version) != meta.version:
		return headerMismatch("MCP-Protocol-Version header value '" + version + "' does not match body value '" + meta.version + "'")
	}
	// Mcp-Method has no base64 form: it is compared as sent, spaces trimmed.
	method, ok := headerValue(r.Header.Get("Mcp-Method"))
	switch {
	case r.Header.Get("Mcp-Method") == "":
		return headerMismatch("the Mcp-Method header is required")
	case !ok || strings.HasPrefix(strings.TrimSpace(r.Header.Get("Mcp-Method")), "=?base64?"):
		return headerMismatch("the Mcp-Method header holds characters a header may not, or an encoding it may not use")
	case method != m.Method:
		return headerMismatch("Mcp-Method header value '" + method + "' does not match body value '" + m.Method + "'")
	}
	row := methods[m.Method]
	if row == nil || row.nameParam == "" {
		return nil
	}
	field := row.nameParam
	body, _ := stringParam(m.Params, field)
	raw := r.Header.Get("Mcp-Name")
	name, ok := headerValue(raw)
	switch {
	case raw == "":
		return headerMismatch("the Mcp-Name header is required for " + m.Method)
	case !ok:
		return headerMismatch("the Mcp-Name header holds characters a header may not, or bad base64")
	case name != body:
		return headerMismatch("Mcp-Name header value '" + name + "' does not match body value '" + body + "'")
	}
	if m.Method == methodToolsCall {
		if t := h.srv.lookupTool([]byte(body)); t != nil && len(t.headerParams) > 0 {
			if msg := t.checkParamHeaders(r.Header, m.Params); msg != "" {
				return headerMismatch(msg)
			}
		}
	}
	return nil
}

// postStateless serves a POST of the stateless revision that passed the preamble.
func (h *HTTPHandler) postStateless(w http.ResponseWriter, r *http.Request, p *post) {
	m, meta := &p.m, p.meta
	if m.IsRequest() {
		// The door's check of the caller (door.go): each stateless request is a conversation
		// of its own, bounded by its body's share of the server's budget.
		p.tk = h.srv.readTicket(r.Context(), m, methods[m.Method])
		if need := h.srv.lacks(r.Context(), m, methods[m.Method], p.tk); need != nil {
			h.httpRefuse(w, r, m, admission{why: refusedScope, need: need}, refusedScope, nil, 0)
			return
		}
	}
	if !m.IsRequest() {
		if m.IsResponse() {
			httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: in revision "+StatelessProtocolVersion+" a client sends no responses")
			return
		}
		w.WriteHeader(http.StatusAccepted) // notifications need nothing of us
		return
	}
	if meta == nil {
		// The header names a revision without sessions; the body has no _meta
		// to say which.
		err := errMetaVersionRequired
		if v := strings.TrimSpace(r.Header.Get("Mcp-Protocol-Version")); !isStateless(v) {
			err = unsupportedVersion(v)
		}
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, m.ID, err))
		return
	}
	if err := h.checkHeaders(r, m, meta); err != nil {
		writeJSON(w, statelessStatus(err.Code), jsonrpc.AppendError(nil, m.ID, err))
		return
	}
	long := methods[m.Method] != nil && methods[m.Method].long
	if long && !p.acceptSSE {
		httpError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "not acceptable: "+m.Method+" answers with an SSE stream; accept text/event-stream")
		return
	}
	if !h.begin() {
		shuttingDown(w)
		return
	}
	meta.transport, meta.peer = TransportHTTP, r.RemoteAddr
	ctx, cancel := context.WithCancel(r.Context())
	if long {
		// Shutdown ends subscriptions at once; other requests get the shutdown's grace.
		stop := context.AfterFunc(h.stopping, cancel)
		defer stop()
	}
	st := newStatelessStream()
	// A client that goes away cannot resume: its request is cancelled, and what it would
	// still send goes nowhere.
	st.abandon = func() {
		cancel()
		st.finish()
	}
	var notes *notifier
	if long {
		notes = newNotifier(ctx, st, h.srv.logger, true) // for the subscription's notifications
	}
	// Served on a worker, while this goroutine writes the stream; the body's bytes are the
	// request's until it is answered, though its client may go first.
	tk := p.tk
	tk.held = p.take()
	h.workers.run(&statelessJob{h: h, ctx: ctx, cancel: cancel, m: m, meta: meta, st: st, notes: notes, tk: tk})
	h.writeStream(w, r, st, 0, false, p.acceptJSON, p.acceptSSE, nil)
	cancel() // closing the stream cancels the request (if it was still running)
}

// statelessJob is a stateless request being served on a worker.
type statelessJob struct {
	h      *HTTPHandler
	ctx    context.Context
	cancel context.CancelFunc
	m      *jsonrpc.Message
	meta   *requestMeta
	st     *stream
	notes  *notifier
	tk     ticket
}

func (j *statelessJob) work() {
	defer j.h.requests.Done()
	defer j.cancel()
	resp, code := j.h.srv.serveStateless(j.ctx, j.m, j.meta, j.st, j.notes, &j.tk)
	j.h.srv.budget.give(j.tk.held)
	if j.notes != nil {
		j.notes.close() // what it queued goes before the response
	}
	j.st.respond(resp, statelessStatus(code))
}
