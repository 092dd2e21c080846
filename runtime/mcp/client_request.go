package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// An OutgoingRequest describes a request the client sends, for a RequestConn: what a
// transport may carry beside the message (Streamable HTTP's headers), and the way to hand
// the client its outcome. The client makes one for each request on the wire.
type OutgoingRequest struct {
	c      *Client // that sends it (a sender: client.go)
	id     []byte
	rev    revision // the revision it speaks
	method string
	name   string      // Mcp-Name: params.name or params.uri, if the method has one
	params [][2]string // Mcp-Param-{name}: value, from the tool's x-mcp-header annotations
	long   bool        // a subscription: no response until it ends
	// acknowledged, for a subscriptions/listen request, is handed the params of its
	// acknowledgement (notifications/subscriptions/acknowledged).
	acknowledged func(params []byte)
	// task: a tools/call of revision 2025-11-25 that asked for a task (params.task).
	task bool
}

// ID is the request's id, as JSON; nil for a notification (a cancellation).
func (rq *OutgoingRequest) ID() []byte { return rq.id }

// Method is the request's method.
func (rq *OutgoingRequest) Method() string { return rq.method }

// ProtocolVersion is the revision the request is sent in. A stateless request carries it
// (and its server expects it in MCP-Protocol-Version); any other is of the session's
// revision, which initialize settles (RequestConn.Negotiated).
func (rq *OutgoingRequest) ProtocolVersion() string { return rq.rev.String() }

// Stateless reports whether the request is of a stateless revision (2026-07-28).
func (rq *OutgoingRequest) Stateless() bool { return rq.rev.stateless() }

// Name is what the request acts on, for a method that names it (Mcp-Name): params.name
// (tools/call, prompts/get) or params.uri (resources/read); "" for other methods.
func (rq *OutgoingRequest) Name() string { return rq.name }

// ParamHeaders are the headers a tools/call mirrors its arguments into, as the tool's
// x-mcp-header annotations ask (Mcp-Param-{name}, and the value as the transport page
// encodes it); none unless the connection CarriesHeaders and the call is stateless.
func (rq *OutgoingRequest) ParamHeaders() [][2]string { return rq.params }

// Answer hands the client msg, which the connection read on the caller's goroutine (an
// HTTP POST answered with JSON), if it is the response to this request, and reports
// whether it was: the caller has its answer without waiting for the goroutine that reads
// the connection. If it was not, the connection hands msg to Read as any other. Call it
// only while nothing read before msg waits for Read.
func (rq *OutgoingRequest) Answer(msg []byte) bool {
	return rq.id != nil && rq.c.answered(msg, rq.id)
}

// Fail tells the client the request will get no response (an HTTP POST answered without
// it, a stream that ended first): its caller gets err. Call it where Read would have
// returned the response, after the messages read before.
func (rq *OutgoingRequest) Fail(err error) {
	if rq.id != nil {
		rq.c.p.fail(rq.id, err)
	}
}

// The revision a client speaks is settled by Connect: negotiate probes for the stateless
// revision and falls back to a session, as the versioning page describes, and says how it
// chose (ServerInfo.Negotiation).

// The newest revision of each kind: the one the client probes for, and the one it begins
// a session in when it knows no better.
var (
	newestStateless, _ = parseRevision(StatelessProtocolVersion)
	newestStateful, _  = parseRevision(StatefulProtocolVersion)
)

// negotiate settles the revision the client speaks with the server. The client speaks only
// revisions it knows: a version the server names that it does not know is passed over, as
// if the server had not named it.
func (c *Client) negotiate(ctx context.Context) error {
	if v := c.opts.ProtocolVersion; v != "" {
		rev, ok := parseRevision(v)
		switch {
		case !ok:
			return fmt.Errorf("mcp: protocol version %q is not one this client speaks (%v)", v, allVersions)
		case rev.stateless():
			return c.discover(ctx, rev, "pinned by ClientOptions.ProtocolVersion")
		}
		return c.initialize(ctx, rev, "pinned by ClientOptions.ProtocolVersion")
	}
	p, err := c.probe(ctx, newestStateless)
	switch {
	case err != nil:
		return err
	case !p.rev.stateless():
		return c.initialize(ctx, p.rev, p.how)
	case p.res != nil && p.rev == newestStateless:
		// The probe's answer is the DiscoverResult of the revision the client speaks: no
		// need to ask again.
		c.adopt(p.res, p.rev, p.how)
		return nil
	}
	return c.discover(ctx, p.rev, p.how)
}

// probed is what the probe learnt: the revision to speak, and the DiscoverResult when the
// server answered the probe with one.
type probed struct {
	rev revision
	res *discoverResult
	how string // how the revision was chosen, for ServerInfo.Negotiation
}

// probe asks a server whether it speaks the stateless revision (server/discover). It
// returns the revision to speak: a stateless one, or the newest revision with sessions
// both sides know when the server has no sessionless revision in common with us, or
// answers as a server of the revisions with sessions does (with any error that is not one
// of the stateless revision's, or not at all).
//
// "Not at all" must not depend on how busy the machine is: a server whose runtime is
// still loading answers late, yet it answers. So a probe unanswered after ProbeTimeout is
// followed by a ping, which every server of the revisions with sessions answers before
// initialize and any other answers with an error. A server that answers the ping but
// still not the probe (within as long again as the ping took, for a server that answers
// concurrently) ignores what it does not know: it speaks a revision with sessions. A server
// that answers neither is still starting, and the probe waits for it within ctx.
func (c *Client) probe(ctx context.Context, rev revision) (probed, error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		res *discoverResult
		err error
	}
	discovered, sent := make(chan answer, 1), time.Now()
	go func() {
		res, err := c.discoverRequest(pctx, rev)
		discovered <- answer{res, err}
	}()
	var (
		pinged    chan error // set once the ping is sent
		pingSent  time.Time
		grace     <-chan time.Time // set once the ping is answered
		slow      = time.NewTimer(c.opts.ProbeTimeout)
		discovery answer
	)
	defer slow.Stop()
wait:
	for {
		select {
		case discovery = <-discovered:
			break wait
		case <-slow.C:
			pinged, pingSent = make(chan error, 1), time.Now()
			// A ping of the revisions with sessions: before initialize, it carries no version.
			go func() { pinged <- c.call(pctx, newestStateful, methodPing, nil, nil, nil) }()
		case err := <-pinged:
			pinged = nil
			if errors.Is(err, ErrTransport) || pctx.Err() != nil {
				continue // no sign of life; the probe's own answer says what went wrong
			}
			grace = time.After(max(250*time.Millisecond, time.Since(pingSent)))
		case <-grace:
			cancel()
			<-discovered
			return probed{rev: newestStateful, how: fmt.Sprintf(
				"initialize, after server/discover went unanswered for %s though the server answered a ping",
				time.Since(sent).Round(time.Millisecond))}, nil
		case <-ctx.Done():
			cancel()
			<-discovered
			if pinged != nil {
				<-pinged
			}
			return probed{}, ctx.Err()
		}
	}
	cancel()
	if pinged != nil {
		<-pinged // the ping is cancelled: the server has answered
	}
	res, err := discovery.res, discovery.err
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		p, err := pick(res.SupportedVersions)
		p.res = res
		p.how = "offered in server/discover"
		if !p.rev.stateless() {
			p.how = "initialize, as server/discover offered no stateless revision this client speaks"
		}
		return p, err
	case errors.As(err, &rpcErr) && rpcErr.Code == CodeUnsupportedProtocolVersion:
		p, err := pick(supportedVersions(rpcErr.Data))
		p.how = "named by the server when it refused server/discover in " + rev.String()
		if !p.rev.stateless() {
			p.how = "initialize, as the server named no stateless revision this client speaks"
		}
		return p, err
	case ctx.Err() != nil:
		return probed{}, ctx.Err() // Connect's own deadline
	case errors.Is(err, ErrTransport):
		return probed{}, err
	}
	// A server of the revisions with sessions.
	return probed{rev: newestStateful, how: "initialize, after server/discover was refused (" + oneLine(err.Error(), 120) + ")"}, nil
}

// pick chooses the revision to speak from those a stateless server lists: the newest
// stateless one the client knows, else the newest with sessions.
func pick(supported []string) (probed, error) {
	for _, v := range allVersions { // stateless first, newest first
		if slices.Contains(supported, v) {
			rev, _ := parseRevision(v)
			return probed{rev: rev}, nil
		}
	}
	return probed{}, fmt.Errorf("mcp: the server speaks none of this client's protocol revisions: it offers %v, the client %v", supported, allVersions)
}

func (c *Client) discoverRequest(ctx context.Context, rev revision) (*discoverResult, error) {
	res := &discoverResult{}
	err := c.call(ctx, rev, methodDiscover, nil, codecResult("DiscoverResult", res.decode), nil)
	return res, err
}

// discover begins speaking a stateless revision.
func (c *Client) discover(ctx context.Context, rev revision, how string) error {
	res, err := c.discoverRequest(ctx, rev)
	if err != nil {
		return err
	}
	c.adopt(res, rev, how)
	return nil
}

// adopt speaks a stateless revision with a server that answered server/discover with res.
func (c *Client) adopt(res *discoverResult, rev revision, how string) {
	c.speak(rev, ServerInfo{Implementation: res.ServerInfo, Negotiation: how,
		Capabilities: res.Capabilities, Instructions: res.Instructions})
}

// initialize begins a session: the server answers with the revision it speaks.
func (c *Client) initialize(ctx context.Context, rev revision, how string) error {
	var e jsonwire.Encoder
	(&initializeParams{version: rev.String(), caps: c.declaredCapabilities(false), info: c.opts.Info}).encode(&e, rev.dialect())
	var res initializeResult
	if err := c.call(ctx, rev, methodInitialize, json.RawMessage(e.Bytes()), codecResult("InitializeResult", res.decode), nil); err != nil {
		return err
	}
	answered, ok := parseRevision(res.ProtocolVersion)
	if !ok || answered.stateless() {
		return fmt.Errorf("mcp: the server answered initialize with protocol version %q, which this client does not speak (%v)", res.ProtocolVersion, statefulVersions)
	}
	c.speak(answered, ServerInfo{Implementation: res.ServerInfo, Negotiation: how,
		Capabilities: res.Capabilities, Instructions: res.Instructions})
	return c.notify(ctx, notificationInitialized, nil)
}

// speak settles the revision the client speaks, with what the server said of itself, and
// tells the connection. A session begins now.
func (c *Client) speak(rev revision, info ServerInfo) {
	info.ProtocolVersion, info.Stateless = rev.String(), rev.stateless()
	c.mu.Lock()
	c.rev, c.server = rev, info
	if !rev.stateless() {
		c.began = time.Now()
	}
	c.mu.Unlock()
	c.negotiated(rev)
}

// oneLine is the first line of s, at most n bytes of it, for a message of one line.
func oneLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// ErrTransport marks the errors of the transport itself (a process that died, a refused
// connection, a stream that broke), as opposed to the server's answers: errors.Is(err,
// ErrTransport) tells a program that the server may be back after a reconnection, while an
// answer will not change by asking again.
var ErrTransport = errors.New("transport failure")

// transportFailure marks err as the transport's, without changing what it says.
func transportFailure(err error) error { return &transportError{err} }

type transportError struct{ err error }

func (e *transportError) Error() string        { return e.err.Error() }
func (e *transportError) Unwrap() error        { return e.err }
func (e *transportError) Is(target error) bool { return target == ErrTransport }

// httpFailure is an error of an HTTP exchange, without net/http's repetition of the method
// and URL the caller already names.
func httpFailure(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// request sends a request in the revision the client speaks and decodes its result into
// result (anything encoding/json decodes into; nil to ignore it). params is anything
// encoding/json encodes as an object, or nil.
func (c *Client) request(ctx context.Context, method string, params, result any) error {
	return c.call(ctx, c.revision(), method, params, result, nil)
}

// maxInputRounds bounds the retries of one stateless request: a server that keeps asking
// for input is broken.
const maxInputRounds = 16

// call sends a request as a client of rev speaks it: a stateless request carries the
// client's version, info and capabilities in _meta, and is retried with the client's answers
// while the server answers with an InputRequiredResult. rq, if set, says what the request's
// headers carry (tools/call fills in its Mcp-Param headers).
func (c *Client) call(ctx context.Context, rev revision, method string, params, result any, rq *OutgoingRequest) error {
	if row := methods[method]; c.opts.Timeout > 0 && (row == nil || !row.long) { // a subscription lasts as long as it is wanted
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
			defer cancel()
		}
	}
	body, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: params: %w", method, err)
	}
	if rq == nil {
		rq = &OutgoingRequest{}
	}
	rq.method, rq.rev = method, rev
	if row := methods[method]; row != nil {
		if rq.name == "" && row.nameParam != "" {
			rq.name, _ = stringParam(body, row.nameParam)
		}
		rq.long = row.long
	}
	var token []byte
	var onProgress func([]byte)
	if fn, ok := ctx.Value(progressKey{}).(func(ProgressNotice)); ok {
		token = strconv.AppendQuote(nil, "p-"+strconv.FormatInt(progressTokens.Add(1), 10))
		onProgress = func(params []byte) {
			var n ProgressNotice
			d := jsonwire.NewDecoder(params)
			n.decode(d)
			if d.Finish(); !d.Failed() {
				fn(n)
			}
		}
	}
	var extra []byte // the members a retry adds: inputResponses, requestState
	retriedVersion := false
	for round := 0; ; round++ {
		p := withMeta(body, c.requestMeta(rev, token), extra)
		rq.id = c.p.newID()
		if rq.acknowledged != nil {
			c.mu.Lock()
			c.acks[string(rq.id)] = rq.acknowledged
			c.mu.Unlock()
		}
		raw, err := c.roundTrip(ctx, rq, method, p, token, onProgress)
		if rq.acknowledged != nil {
			c.mu.Lock()
			delete(c.acks, string(rq.id))
			c.mu.Unlock()
		}
		if other, ok := c.otherVersion(err, rev); ok && !retriedVersion {
			retriedVersion = true
			// The server does not take this revision but names one the client speaks: the
			// request goes again in that one, and so do the client's later requests.
			rev, rq.rev = other, other
			c.mu.Lock()
			settled := c.server.Stateless // else this is the probe, and adopt says it
			if settled {
				c.rev, c.server.ProtocolVersion = other, other.String()
			}
			c.mu.Unlock()
			if settled {
				c.negotiated(other)
			}
			continue
		}
		if err != nil {
			return err
		}
		if rev.stateless() && method == methodToolsCall && isTaskHandle(raw) {
			// The server runs the call as a task: its result comes from following it.
			if raw, err = c.awaitTask(ctx, rev, raw); err != nil {
				return fmt.Errorf("mcp: %s: %w", method, err)
			}
		}
		if !rev.stateless() && rq.task && rawParam(raw, "task") != nil {
			// The call asked for a task, and the server made one (a server that answered
			// at once has answered).
			t, err := legacyTaskHandle(raw)
			if err == nil {
				raw, err = c.awaitLegacyTask(ctx, rev, t, token, onProgress)
			}
			if err != nil {
				return fmt.Errorf("mcp: %s: %w", method, err)
			}
		}
		if !rev.stateless() || !isInputRequired(raw) {
			if result == nil {
				return nil
			}
			if r, ok := result.(resultDecoder); ok {
				if err := r.decodeResult(raw); err != nil {
					return fmt.Errorf("mcp: %s: the server's result: %w", method, err)
				}
				return nil
			}
			if err := json.Unmarshal(raw, result); err != nil {
				return fmt.Errorf("mcp: %s: the server's result: %w", method, err)
			}
			return nil
		}
		if round == maxInputRounds {
			return fmt.Errorf("mcp: %s: the server still asks for input after %d rounds", method, round)
		}
		if extra, err = c.answerInputs(ctx, raw); err != nil {
			return fmt.Errorf("mcp: %s: %w", method, err)
		}
	}
}

var progressTokens atomic.Int64

// A resultDecoder reads a result with its codec rather than encoding/json. The bytes are
// the call's own: it may keep them.
type resultDecoder interface{ decodeResult(raw []byte) error }

// otherVersion reads an UnsupportedProtocolVersionError to a stateless request: the
// stateless revision to speak instead, if the server names one the client speaks (the
// same one, even: a server may have refused it for a while, and says it takes it now).
// Versions the client does not know are passed over.
func (c *Client) otherVersion(err error, rev revision) (revision, bool) {
	if err == nil || !rev.stateless() {
		return 0, false // without declaring rpcErr, which escapes: one allocation per call
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeUnsupportedProtocolVersion {
		return 0, false
	}
	supported := supportedVersions(rpcErr.Data)
	for _, v := range statelessVersions { // newest first
		if slices.Contains(supported, v) {
			return parseRevision(v)
		}
	}
	return 0, false
}

// supportedVersions reads the versions an UnsupportedProtocolVersionError's data lists
// (data.supported, as unsupportedVersion writes it); none if it lists none it can read.
func supportedVersions(data []byte) []string {
	var versions []string
	d := jsonwire.NewDecoder(data)
	for key := range d.Members {
		switch {
		case string(key) != "supported":
			d.Skip()
		case !d.Null():
			for range d.Elements {
				versions = append(versions, readString(d))
			}
		}
	}
	return versions
}

// isInputRequired reports whether a stateless result is an InputRequiredResult.
func isInputRequired(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`"input_required"`)) {
		return false // the common case, decided without decoding
	}
	v, _ := stringParam(raw, "resultType")
	return v == "input_required"
}

// answerInputs answers the input requests of an InputRequiredResult with the client's
// handlers, and returns the members its retry adds: inputResponses, and the requestState
// the server gave, unchanged.
func (c *Client) answerInputs(ctx context.Context, raw []byte) ([]byte, error) {
	var ir inputRequiredResult
	d := jsonwire.NewDecoder(raw)
	if ir.decode(d); d.Failed() {
		return nil, errors.New("the server's InputRequiredResult does not read:\n" + d.Summary())
	}
	responses := make(inputResponses, len(ir.requests))
	for _, in := range ir.requests {
		answer, err := c.answerRequest(ctx, in.method, nil, in.params)
		if err != nil {
			return nil, fmt.Errorf("answering input request %s (%s): %w", in.key, in.method, err)
		}
		responses[in.key] = answer
	}
	var e jsonwire.Encoder
	e.Key("inputResponses")
	responses.encode(&e)
	if ir.hasState {
		e.Key("requestState")
		e.String(ir.state)
	}
	return e.Bytes(), nil
}

// ProgressNotice is one notifications/progress of a request of the client's, or a new
// status message of the task the server made of it.
type ProgressNotice struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`   // 0 when unknown
	Message  string  `json:"message"` // may be empty
	// Status is set when the notice is a task's status message: the status of revision
	// 2026-07-28's tasks carries a message and no numbers (Progress and Total are 0, and
	// mean nothing), and so does that of 2025-11-25's (whose progress comes as
	// notifications/progress besides).
	Status TaskStatus `json:"-"`
}

type progressKey struct{}

// WithProgress returns a context whose requests ask the server for progress, and hand each
// notice to fn, one at a time, on the goroutine that reads the connection or on the
// caller's (the status messages of a task the server made of the call): fn must not block.
func WithProgress(ctx context.Context, fn func(ProgressNotice)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}
