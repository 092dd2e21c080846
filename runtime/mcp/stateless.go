package mcp

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The stateless revision (2026-07-28) has no initialize: every request carries its protocol
// version and the client's capabilities in _meta. A server serves it beside the revisions
// with sessions, on the same transport, deciding per request (basic/versioning.mdx): a
// request whose _meta names a version that is not one with sessions is served on its own,
// and is its own client side (statelessRequest).

// Error codes of revision 2026-07-28.
const (
	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
)

// Reserved _meta keys.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// requestMeta is what a stateless request says about itself.
type requestMeta struct {
	version        string
	rev            revision // what version names, if this runtime speaks it (known)
	known          bool
	hasVersion     bool
	hasCaps        bool
	caps           ClientCapabilities
	clientInfo     []byte   // the raw Implementation object, read if the body asks for it
	logLevel       LogLevel // "": the client wants no log messages
	progressToken  []byte   // raw JSON, if the client asked for progress
	problem        string   // a malformed field, for an invalid-params error
	inputResponses []byte   // the raw object, on the retry of a multi round-trip request
	requestState   string
	hasState       bool
	// transport and peer say how the request came, for middleware (Message).
	transport, peer string
}

// containsMeta reports, without decoding, whether params may have a _meta.
func containsMeta(params []byte) bool { return bytes.Contains(params, []byte(`"_meta"`)) }

// statelessMeta reads the _meta of a request (its progressToken too, so that serving the
// request reads its params no second time for it), and the fields of a multi round-trip
// retry. It reports whether the request is stateless: its _meta names a protocol version
// other than one with sessions (an unknown version is answered as a stateless request
// would be), or it is server/discover.
func statelessMeta(m *jsonrpc.Message) (*requestMeta, bool) {
	if m.Method != methodDiscover && !bytes.Contains(m.Params, []byte(metaProtocolVersion)) {
		return nil, false // the common case of a session's request, decided without decoding
	}
	meta := &requestMeta{}
	var d jsonwire.Decoder
	d.Reset(m.Params)
	if m.Params != nil && d.Peek() == jsonwire.Object {
		for key := range d.Members {
			switch string(key) {
			case "_meta":
				if d.Peek() != jsonwire.Object {
					d.Skip()
					meta.problem = "_meta must be an object"
					continue
				}
				meta.readMeta(&d)
			case "inputResponses":
				if d.Peek() != jsonwire.Object {
					d.Skip()
					meta.problem = "inputResponses must be an object"
					continue
				}
				meta.inputResponses = append([]byte(nil), d.Raw()...)
			case "requestState":
				s, ok := d.String()
				if !ok {
					meta.problem = "requestState must be a string"
				}
				meta.requestState, meta.hasState = s, true
			default:
				d.Skip()
			}
		}
	}
	if d.Finish(); d.Failed() && meta.problem == "" {
		meta.problem = d.Summary()
	}
	if m.Method != methodDiscover && (!meta.hasVersion || meta.known && !meta.rev.stateless()) {
		return nil, false
	}
	return meta, true
}

func (meta *requestMeta) readMeta(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case metaProtocolVersion:
			meta.hasVersion = true
			if d.Peek() != jsonwire.String {
				d.Skip()
				meta.problem = metaProtocolVersion + " must be a string"
				continue
			}
			v, _ := d.Text()
			if string(v) == StatelessProtocolVersion {
				meta.version = StatelessProtocolVersion // the common case, without a copy
			} else {
				meta.version = string(v)
			}
			meta.rev, meta.known = parseRevision(meta.version)
		case metaClientCapabilities:
			if d.Peek() != jsonwire.Object {
				d.Skip()
				meta.problem = metaClientCapabilities + " must be an object"
				continue
			}
			meta.hasCaps = true
			meta.caps, _ = readCapabilities(d, rev20260728)
		case metaClientInfo:
			if d.Peek() != jsonwire.Object {
				d.Skip()
				continue
			}
			meta.clientInfo = d.Raw()
		case metaLogLevel:
			v, _ := d.String()
			if LogLevel(v).rank() < 0 {
				meta.problem = metaLogLevel + " must be one of debug, info, notice, warning, error, critical, alert, emergency"
			}
			meta.logLevel = LogLevel(v)
		case "progressToken":
			if t := d.Peek(); t == jsonwire.String || t == jsonwire.Number {
				meta.progressToken = append([]byte(nil), d.Raw()...)
			} else {
				d.Skip()
			}
		default:
			d.Skip()
		}
	}
}

// unsupportedVersion is the UnsupportedProtocolVersionError for a requested version.
func unsupportedVersion(requested string) *jsonrpc.Error {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("supported")
	e.ArrayStart()
	for _, v := range allVersions {
		e.Elem()
		e.String(v)
	}
	e.ArrayEnd()
	e.Key("requested")
	e.String(requested)
	e.ObjectEnd()
	return &jsonrpc.Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version: " + requested, Data: e.Bytes()}
}

// errMetaVersionRequired answers a stateless request whose _meta names no protocol version.
var errMetaVersionRequired = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: _meta."+metaProtocolVersion+" is required")

// statelessRequest is a request of the stateless revision as its own client side: what its
// _meta says of the client, and its part in a multi round-trip request. It holds its Request
// too, so that serving it takes one allocation.
type statelessRequest struct {
	req        Request
	meta       *requestMeta
	rd         round
	resultMeta []byte // members the result adds to its _meta (a subscription's id)
	code       int    // the code of the error it was answered with, 0 for a result
	resultType string // of its result: "" for complete, "task" for a task's handle
	mu         sync.Mutex
	who        *Implementation // the client's info, read from meta when first asked for
}

// serveStateless serves one request of the stateless revision and returns its response
// message, and the code of the error it holds (0 for a result), from which HTTP takes its
// status. The messages about the request (progress, log messages) are written to w; notes
// writes, for subscriptions/listen, the notifications of the subscription. tk is what the
// door read of the request, with its bytes in the server's budget (a task may take them
// over).
func (s *Server) serveStateless(ctx context.Context, m *jsonrpc.Message, meta *requestMeta, w messageWriter, notes *notifier, tk *ticket) ([]byte, int) {
	var err *jsonrpc.Error
	switch {
	case meta.problem != "":
		err = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+meta.problem)
	case !meta.hasVersion:
		err = errMetaVersionRequired
	case !meta.known || !meta.rev.stateless():
		err = unsupportedVersion(meta.version)
	case !meta.hasCaps:
		err = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: _meta."+metaClientCapabilities+" is required")
	}
	if err != nil {
		return jsonrpc.AppendError(nil, m.ID, err), err.Code
	}
	q := &statelessRequest{meta: meta}
	if row := methods[m.Method]; row != nil && row.asks {
		q.rd.caller, q.rd.anonymous = callerKey(ctx) // whose answers the sealed state holds
		// The answers a retry carries are read first: a state that is not the server's, or
		// is another request's, is refused whatever the request asks for.
		if err := q.rd.begin(s, meta, m); err != nil {
			return jsonrpc.AppendError(nil, m.ID, err), err.Code
		}
	}
	q.req = Request{srv: s, client: q, msg: m, w: w, notes: notes, progressToken: meta.progressToken, tk: tk}
	r := &q.req
	resp := s.serve(context.WithValue(ctx, requestKey{}, r), r, m)
	return resp, q.code
}

// The stateless request is its own client side.

func (q *statelessRequest) protocolVersion() string          { return q.meta.version }
func (q *statelessRequest) revision() revision               { return q.meta.rev }
func (q *statelessRequest) capabilities() ClientCapabilities { return q.meta.caps }
func (q *statelessRequest) logLevel() LogLevel               { return q.meta.logLevel }

// info reads the client's info from _meta when first asked for: most bodies never do.
func (q *statelessRequest) info() Implementation {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.who == nil {
		var who Implementation
		if q.meta.clientInfo != nil {
			who.decode(jsonwire.NewDecoder(q.meta.clientInfo))
		}
		q.who = &who
	}
	return *q.who
}

func (q *statelessRequest) ask(ctx context.Context, r *Request, method string, params []byte) ([]byte, error) {
	if r.row == nil || !r.row.asks {
		return nil, fmt.Errorf("mcp: %s: a request of revision %s can ask its client only while serving tools/call, prompts/get or resources/read", method, q.meta.version)
	}
	key, _ := ctx.Value(inputKeyCtx{}).(string)
	return q.rd.ask(method, key, params)
}

func (q *statelessRequest) describe(m *Message) {
	m.Transport, m.Peer, m.ProtocolVersion = q.meta.transport, q.meta.peer, q.meta.version
}

func (q *statelessRequest) lacking(capability, failure string) {
	if q.req.row != nil && q.req.row.asks {
		q.rd.lacking(capability, failure)
	}
}

// respond writes the response of a stateless request: an InputRequiredResult if the body
// asked the client for input it has yet to give; MissingRequiredClientCapability if the
// body failed for want of a capability the request did not declare; else the result, with
// resultType, the server's identity and, for a cacheable method, the cache hint.
func (q *statelessRequest) respond(r *Request, m *jsonrpc.Message, result []byte, err *jsonrpc.Error) []byte {
	rd := &q.rd
	switch {
	case rd.inputRequired():
		resp, ierr := rd.inputRequiredResponse(r.srv, m)
		if ierr == nil {
			return resp
		}
		err = ierr
	case rd.lacked() && (err != nil || r.tool != nil && r.tool.isError && rd.failedFor(result)):
		// A tool failed with the error it got for lacking the capability; a body that caught
		// that error and failed for another reason gets its own error.
		err = rd.missingCapability()
	case err != nil && err.Code == CodeResourceNotFound:
		// The stateless revision has no resource-not-found error: invalid params, with the URI.
		err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Message, Data: err.Data}
	}
	if err != nil {
		q.code = err.Code
		return jsonrpc.AppendError(nil, m.ID, err)
	}
	var hint *CacheHint
	if r.row.cacheable {
		hint = r.srv.cacheHints[m.Method]
	}
	info := r.srv.infoJSON
	if r.row.introduces {
		info = r.srv.aboutJSON
	}
	resultType := q.resultType
	if resultType == "" {
		resultType = "complete"
	}
	return appendResult(nil, m.ID, resultType, result, hint, q.resultMeta, info)
}

// appendResult appends the response of a stateless result: the handler's result object
// with resultType ("complete", "task"), the cache hint if the method is cacheable, and in
// _meta, the members of meta (raw JSON, or nil) and the server's info (its identity, or for
// server/discover all of it).
func appendResult(buf, id []byte, resultType string, result []byte, cache *CacheHint, meta, info []byte) []byte {
	if buf == nil {
		buf = make([]byte, 0, len(result)+len(id)+len(info)+160)
	}
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"result":{"resultType":"`...)
	buf = append(buf, resultType...)
	buf = append(buf, '"')
	if inner := bytes.TrimSpace(result[1 : len(result)-1]); len(inner) > 0 {
		buf = append(buf, ',')
		buf = append(buf, inner...)
	}
	if cache != nil {
		buf = append(buf, `,"ttlMs":`...)
		buf = strconv.AppendInt(buf, cache.TTL.Milliseconds(), 10)
		buf = append(buf, `,"cacheScope":`...)
		buf = jsonwire.AppendString(buf, string(cache.Scope))
	}
	buf = append(buf, `,"_meta":{`...)
	if meta != nil {
		buf = append(buf, meta...)
		buf = append(buf, ',')
	}
	buf = append(buf, `"`+metaServerInfo+`":`...)
	buf = append(buf, info...)
	return append(buf, "}}}"...)
}

// discover answers server/discover: the versions, capabilities and identity of the server.
func discover(ctx context.Context, r *Request, params []byte) ([]byte, *jsonrpc.Error) {
	s := r.srv
	res := discoverResult{SupportedVersions: allVersions, Capabilities: s.capabilities(true), Instructions: s.opts.Instructions}
	var e jsonwire.Encoder
	res.encode(&e)
	return e.Bytes(), nil
}
