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
)

// Streamable HTTP in revision 2026-07-28 (basic/transports/streamable-http.mdx): no
// sessions, no GET stream, no resumption. Each POST is one request, answered with JSON or
// with an SSE stream of its own that ends with the response; headers mirror the body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*), and must agree with it.

// isModernHeader reports whether an MCP-Protocol-Version header names a revision that is
// not a legacy one: the modern revision, or one unknown to us, answered as modern.
func isModernHeader(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && !slices.Contains(supportedVersions, v)
}

// modernStatus is the HTTP status of a modern request's JSON answer, by the code of the
// error it holds (0 for a result).
func modernStatus(code int) int {
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

// checkHeaders checks the headers that mirror a modern request's body. It returns the
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
		return headerMismatch("the Mcp-Name header is required for " + m.Method)
	case !ok:
		return headerMismatch("the Mcp-Name header holds characters a header may not, or bad base64")
	case name != body:
		return headerMismatch("Mcp-Name header value '" + name + "' does not match body value '" + body + "'")
	}
	if m.Method == "tools/call" {
		if t := h.srv.lookupTool([]byte(body)); t != nil && len(t.headerParams) > 0 {
			if msg := t.checkParamHeaders(r.Header, m.Params); msg != "" {
				return headerMismatch(msg)
			}
		}
	}
	return nil
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
		err := errMetaVersionRequired
		if v := strings.TrimSpace(r.Header.Get("Mcp-Protocol-Version")); !slices.Contains(modernVersions, v) {
			err = unsupportedVersion(v)
		}
		writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, m.ID, err))
		return
	}
	if err := h.checkHeaders(r, m, meta); err != nil {
		writeJSON(w, modernStatus(err.Code), jsonrpc.AppendError(nil, m.ID, err))
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
		resp, code := h.srv.serveModern(ctx, m, meta, st)
		st.respond(resp, modernStatus(code))
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
				writeJSON(w, st.jsonStatus(), msgs[len(msgs)-1])
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
	status int // of the response, when it goes as JSON; set with it
	closed bool
	wake   chan struct{}
}

var errStreamClosed = errors.New("mcp: the client closed the response stream")

// add adds a message; final marks the response, and status is then its HTTP status.
func (st *responseStream) add(msg []byte, final bool, status int) error {
	st.mu.Lock()
	if st.closed || st.final {
		st.mu.Unlock()
		return errStreamClosed
	}
	st.msgs = append(st.msgs, msg)
	st.size += len(msg)
	st.final, st.status = final, status
	// A client that does not read loses the oldest notifications, never the response, as
	// a legacy stream does: the server's memory is not the client's buffer.
	st.msgs, st.size = bound(st.msgs, st.size, 0, func(msg []byte) int { return len(msg) })
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
	return nil
}

func (st *responseStream) send(msg []byte) error  { return st.add(msg, false, 0) }
func (st *responseStream) reply(msg []byte) error { return st.add(msg, true, http.StatusOK) }

// respond adds the response, which goes with status when it goes as JSON.
func (st *responseStream) respond(msg []byte, status int) error { return st.add(msg, true, status) }

// jsonStatus is the HTTP status of the response, once take has returned it.
func (st *responseStream) jsonStatus() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.status
}

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
	sw.writeHeader()
	return sw.rc.Flush()
}
