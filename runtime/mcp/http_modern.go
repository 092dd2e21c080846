package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Streamable HTTP in revision 2026-07-28 (basic/transports/streamable-http.mdx): no
// sessions, no GET stream, no resumption. Each POST is one request, answered with JSON or
// with an SSE stream of its own that ends with the response; headers mirror the body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*), and must agree with it.

// isModernHeader reports whether an MCP-Protocol-Version header names a revision that is
// not a legacy one: the modern revision, or one unknown to us, answered as modern.
func isModernHeader(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return false
	}
	for _, legacy := range supportedVersions {
		if v == legacy {
			return false
		}
	}
	return true
}

// modernStatus is the HTTP status of a modern request's JSON answer.
func modernStatus(resp []byte) int {
	code, ok := responseErrorCode(resp)
	switch {
	case !ok:
		return http.StatusOK
	case code == jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case code == jsonrpc.CodeInvalidParams || code == jsonrpc.CodeInvalidRequest || code == jsonrpc.CodeParseError ||
		code == CodeHeaderMismatch || code == CodeMissingRequiredClientCapability || code == CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// responseErrorCode reads the error code of a response message, if it is an error.
func responseErrorCode(resp []byte) (int, bool) {
	var d jsonwire.Decoder
	d.Reset(resp)
	code, found := 0, false
	for key := range d.Members {
		if string(key) != "error" || d.Peek() != jsonwire.Object {
			d.Skip()
			continue
		}
		for key := range d.Members {
			if string(key) == "code" {
				n, _ := d.Int()
				code, found = int(n), true
			} else {
				d.Skip()
			}
		}
	}
	return code, found
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

// headerMismatch is the HeaderMismatch error of a request.
func headerMismatch(id []byte, msg string) []byte {
	return modernError(id, CodeHeaderMismatch, "Header mismatch: "+msg, nil)
}

// checkHeaders checks the headers that mirror a modern request's body. It returns the
// error response, or nil.
func (h *HTTPHandler) checkHeaders(r *http.Request, m *jsonrpc.Message, meta *requestMeta) []byte {
	version := r.Header.Get("Mcp-Protocol-Version")
	switch {
	case version == "":
		return headerMismatch(m.ID, "the MCP-Protocol-Version header is required")
	case meta != nil && meta.hasVersion && strings.TrimSpace(version) != meta.version:
		return headerMismatch(m.ID, "MCP-Protocol-Version header value '"+version+"' does not match body value '"+meta.version+"'")
	}
	// Mcp-Method has no base64 form: it is compared as sent, spaces trimmed.
	method, ok := headerValue(r.Header.Get("Mcp-Method"))
	switch {
	case r.Header.Get("Mcp-Method") == "":
		return headerMismatch(m.ID, "the Mcp-Method header is required")
	case !ok || strings.HasPrefix(strings.TrimSpace(r.Header.Get("Mcp-Method")), "=?base64?"):
		return headerMismatch(m.ID, "the Mcp-Method header holds characters a header may not, or an encoding it may not use")
	case method != m.Method:
		return headerMismatch(m.ID, "Mcp-Method header value '"+method+"' does not match body value '"+m.Method+"'")
	}
	var field string
	switch m.Method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return nil
	}
	body, _ := stringParam(m.Params, field)
	raw := r.Header.Get("Mcp-Name")
	name, ok := headerValue(raw)
	switch {
	case raw == "":
		return headerMismatch(m.ID, "the Mcp-Name header is required for "+m.Method)
	case !ok:
		return headerMismatch(m.ID, "the Mcp-Name header holds characters a header may not, or bad base64")
	case name != body:
		return headerMismatch(m.ID, "Mcp-Name header value '"+name+"' does not match body value '"+body+"'")
	}
	if m.Method == "tools/call" {
		if t := h.srv.lookupTool([]byte(body)); t != nil && len(t.headerParams) > 0 {
			if msg := t.checkParamHeaders(r.Header, m.Params); msg != "" {
				return headerMismatch(m.ID, msg)
			}
		}
	}
	return nil
}

// stringParam reads a string member of a request's params.
func stringParam(params []byte, name string) (string, bool) {
	var d jsonwire.Decoder
	d.Reset(params)
	v, found := "", false
	if params == nil || d.Peek() != jsonwire.Object {
		return "", false
	}
	for key := range d.Members {
		if string(key) == name && d.Peek() == jsonwire.String {
			v, _ = d.String()
			found = true
		} else {
			d.Skip()
		}
	}
	return v, found
}

// postModern serves a POST of the stateless revision.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, meta *requestMeta, acceptJSON, acceptSSE bool) {
	if !m.IsRequest() {
		if m.IsResponse() {
			httpError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: in revision "+ModernProtocolVersion+" a client sends no responses")
			return
		}
		w.WriteHeader(http.StatusAccepted) // notifications need nothing of us
		return
	}
	if meta == nil {
		// The header names a revision that is not a legacy one; the body has no _meta
		// to say which.
		resp := modernError(m.ID, jsonrpc.CodeInvalidParams, "invalid params: _meta."+metaProtocolVersion+" is required", nil)
		if v := strings.TrimSpace(r.Header.Get("Mcp-Protocol-Version")); !slices.Contains(modernVersions, v) {
			resp = unsupportedVersion(m.ID, v)
		}
		writeJSON(w, http.StatusBadRequest, resp)
		return
	}
	if resp := h.checkHeaders(r, m, meta); resp != nil {
		writeJSON(w, modernStatus(resp), resp)
		return
	}
	if m.Method == "subscriptions/listen" && !acceptSSE {
		httpError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "not acceptable: subscriptions/listen answers with an SSE stream; accept text/event-stream")
		return
	}
	if !h.begin() {
		shuttingDown(w)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	if m.Method == "subscriptions/listen" {
		// Shutdown ends subscriptions at once; other requests get the shutdown's grace.
		stop := context.AfterFunc(h.stopping, cancel)
		defer stop()
	}
	st := &responseStream{wake: make(chan struct{}, 1)}
	go func() {
		defer h.requests.Done()
		defer cancel()
		st.reply(h.srv.serveModern(ctx, m, meta, st))
	}()
	h.writeResponseStream(w, r, st, acceptJSON, acceptSSE)
	cancel() // closing the stream cancels the request (if it was still running)
}

// writeJSON answers with one JSON-RPC message.
func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(msg)
}

// keepAliveInterval is how often a quiet SSE stream gets a comment, so that proxies and
// clients do not close it for idleness.
const keepAliveInterval = 25 * time.Second

// writeResponseStream writes a modern request's messages: the response alone as JSON when
// the client takes it, else an SSE stream from the first message on.
func (h *HTTPHandler) writeResponseStream(w http.ResponseWriter, r *http.Request, st *responseStream, acceptJSON, acceptSSE bool) {
	var sw *sseWriter
	tick := time.NewTicker(keepAliveInterval)
	defer tick.Stop()
	for {
		msgs, final := st.take()
		if sw == nil {
			// The response alone goes as JSON; with notifications before it, as SSE, unless
			// the client takes JSON only: then they are dropped.
			if final && (len(msgs) == 1 && acceptJSON || !acceptSSE) {
				resp := msgs[len(msgs)-1]
				writeJSON(w, modernStatus(resp), resp)
				return
			}
			if len(msgs) > 0 && acceptSSE {
				sw = newSSEWriter(w)
				if sw.startStream() != nil {
					return
				}
			}
		}
		if sw != nil && len(msgs) > 0 {
			for _, msg := range msgs {
				sw.event("", msg)
			}
			if sw.flush() != nil {
				return
			}
		}
		if final {
			return
		}
		select {
		case <-st.wake:
		case <-tick.C:
			if sw != nil {
				sw.buf.WriteString(":\n\n")
				if sw.flush() != nil {
					return
				}
			}
		case <-r.Context().Done():
			st.close()
			return
		}
	}
}

// responseStream is the outbox of one modern request over HTTP: its messages wait here
// for the connection to write them.
type responseStream struct {
	mu     sync.Mutex
	msgs   [][]byte
	size   int // of msgs, in bytes
	final  bool
	closed bool
	wake   chan struct{}
}

var errStreamClosed = errors.New("mcp: the client closed the response stream")

func (st *responseStream) add(msg []byte, final bool) error {
	st.mu.Lock()
	if st.closed || st.final {
		st.mu.Unlock()
		return errStreamClosed
	}
	st.msgs = append(st.msgs, msg)
	st.size += len(msg)
	st.final = final
	// A client that does not read loses the oldest notifications, never the response, as
	// a legacy stream does: the server's memory is not the client's buffer.
	for len(st.msgs) > 1 && (len(st.msgs) > maxStreamEvents || st.size > maxStreamBytes) {
		st.size -= len(st.msgs[0])
		st.msgs = st.msgs[1:]
	}
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
	return nil
}

func (st *responseStream) send(msg []byte) error  { return st.add(msg, false) }
func (st *responseStream) reply(msg []byte) error { return st.add(msg, true) }

// take returns the messages waiting, and whether the response is among them.
func (st *responseStream) take() ([][]byte, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	msgs := st.msgs
	st.msgs, st.size = nil, 0
	return msgs, st.final
}

func (st *responseStream) close() {
	st.mu.Lock()
	st.closed = true
	st.msgs = nil
	st.mu.Unlock()
}

// startStream sends the headers of an SSE stream without resumption: no event ids, no
// retry interval.
func (sw *sseWriter) startStream() error {
	hd := sw.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	sw.w.WriteHeader(http.StatusOK)
	return sw.rc.Flush()
}
