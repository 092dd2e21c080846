package mcp

import (
	"bytes"
	"context"
	"runtime/debug"
	"slices"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Revision 2026-07-28 is stateless: no initialize, and every request carries its protocol
// version and the client's capabilities in _meta. A server serves it beside the legacy
// revisions, on the same transport, deciding per request (basic/versioning.mdx): a request
// whose _meta names a modern version is served on its own, with no session.

// ModernProtocolVersion is the stateless revision this runtime speaks.
const ModernProtocolVersion = "2026-07-28"

// modernVersions are the stateless revisions, newest first.
var modernVersions = []string{ModernProtocolVersion}

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

// allVersions lists every revision served, modern first, for UnsupportedProtocolVersion.
var allVersions = slices.Concat(modernVersions, supportedVersions)

// requestMeta is what a modern request says about itself.
type requestMeta struct {
	version        string
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
}

// modernMeta reads the _meta of a request (its progressToken too, so that serving the
// request reads its params no second time for it), and the fields of a multi round-trip
// retry. It reports whether the request is modern: its _meta names a protocol version other
// than a legacy one (an unknown version is answered as a modern request would be).
func modernMeta(m *jsonrpc.Message) (*requestMeta, bool) {
	if m.Method != "server/discover" && !bytes.Contains(m.Params, []byte(metaProtocolVersion)) {
		return nil, false // the common legacy case, decided without decoding
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
	if m.Method != "server/discover" && (!meta.hasVersion || slices.Contains(supportedVersions, meta.version)) {
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
			if string(v) == ModernProtocolVersion {
				meta.version = ModernProtocolVersion // the common case, without a copy
			} else {
				meta.version = string(v)
			}
		case metaClientCapabilities:
			if d.Peek() != jsonwire.Object {
				d.Skip()
				meta.problem = metaClientCapabilities + " must be an object"
				continue
			}
			meta.hasCaps = true
			meta.caps = readCapabilities(d)
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

// readCapabilities reads a ClientCapabilities object.
func readCapabilities(d *jsonwire.Decoder) ClientCapabilities {
	var c ClientCapabilities
	for key := range d.Members {
		if d.Peek() != jsonwire.Object {
			d.Skip()
			continue
		}
		switch string(key) {
		case "sampling":
			c.Sampling = true
			for key := range d.Members {
				c.SamplingContext = c.SamplingContext || string(key) == "context"
				d.Skip()
			}
		case "elicitation":
			form, url := false, false
			for key := range d.Members {
				form = form || string(key) == "form"
				url = url || string(key) == "url"
				d.Skip()
			}
			// An empty elicitation object means form mode.
			c.Elicitation, c.ElicitationURL = form || !url, url
		case "roots":
			c.Roots = true
			d.Skip()
		default:
			d.Skip()
		}
	}
	return c
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

// errMetaVersionRequired answers a modern request whose _meta names no protocol version.
var errMetaVersionRequired = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: _meta."+metaProtocolVersion+" is required")

// modernMethods are the requests of revision 2026-07-28 besides tools/call, server/discover
// and subscriptions/listen, which are served on their own.
var modernMethods = map[string]handler{
	"tools/list":               listTools,
	"resources/list":           listResources,
	"resources/templates/list": listResourceTemplates,
	"resources/read":           readResource,
	"prompts/list":             listPrompts,
	"prompts/get":              getPrompt,
	"completion/complete":      complete,
}

// serveModern serves one request of the stateless revision and returns its response
// message, and the code of the error it holds (0 for a result), from which HTTP takes its
// status. out receives the messages about the request (progress, log messages) and, for
// subscriptions/listen, the notifications of the subscription.
func (s *Server) serveModern(ctx context.Context, m *jsonrpc.Message, meta *requestMeta, out outbox) ([]byte, int) {
	resp, err := s.modernResponse(ctx, m, meta, out)
	if err != nil {
		return jsonrpc.AppendError(nil, m.ID, err), err.Code
	}
	return resp, 0
}

// modernResponse is serveModern's work: the response message of a result, or the error.
func (s *Server) modernResponse(ctx context.Context, m *jsonrpc.Message, meta *requestMeta, out outbox) (resp []byte, rpcErr *jsonrpc.Error) {
	switch {
	case meta.problem != "":
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+meta.problem)
	case !meta.hasVersion:
		return nil, errMetaVersionRequired
	case !slices.Contains(modernVersions, meta.version):
		return nil, unsupportedVersion(meta.version)
	case !meta.hasCaps:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: _meta."+metaClientCapabilities+" is required")
	}
	// The stand-in session, the request and its round, in one allocation.
	mr := &modernRequest{}
	mr.ss = session{
		srv: s, out: out, initialized: true, modern: true,
		version: meta.version, dialect: dialectModern, clientInfo: meta.clientInfo, caps: meta.caps,
		logLevel: meta.logLevel,
	}
	mr.req = Request{ss: &mr.ss, id: m.ID, method: m.Method, out: out, progressToken: meta.progressToken}
	req := &mr.req
	ctx = context.WithValue(ctx, requestKey{}, req)
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("mcp: panic while serving request", "method", m.Method, "panic", v, "stack", string(debug.Stack()))
			resp, rpcErr = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error")
		}
	}()

	switch m.Method {
	case "server/discover":
		return s.appendComplete(nil, m.ID, s.discover(), s.cacheHint(m.Method)), nil
	case "subscriptions/listen":
		return s.listen(ctx, m, out)
	case "tools/call", "prompts/get", "resources/read":
		if err := req.beginRound(meta, m, &mr.rd); err != nil {
			return nil, err
		}
	}
	if m.Method == "tools/call" {
		var asked, lacked bool
		msg, err := serveToolCall(ctx, req, m.Params, func(result []byte, isError bool) []byte {
			if asked = req.round.inputRequired(); asked {
				return nil
			}
			// A tool that failed for want of a capability the request did not declare.
			if lacked = isError && req.round.lacked() && req.round.failedFor(result); lacked {
				return nil
			}
			return s.appendComplete(nil, m.ID, result, nil)
		})
		switch {
		case err != nil:
			return nil, req.modernError(err)
		case asked:
			return req.inputRequiredResponse(m)
		case lacked:
			return nil, req.round.missingCapability()
		}
		return msg, nil
	}
	h := modernMethods[m.Method]
	if h == nil || !s.offers(m.Method) {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method)
	}
	result, err := h(ctx, req, m.Params)
	if req.round.inputRequired() {
		return req.inputRequiredResponse(m)
	}
	if err != nil {
		if req.round.lacked() {
			return nil, req.round.missingCapability()
		}
		return nil, req.modernError(err)
	}
	return s.appendComplete(nil, m.ID, result, s.cacheHint(m.Method)), nil
}

// modernRequest is what serving a modern request needs besides its message.
type modernRequest struct {
	ss  session
	req Request
	rd  round
}

// modernError turns the errors handlers share with the legacy revisions into this
// revision's: a resource that is not found is invalid params, with its URI.
func (r *Request) modernError(err *jsonrpc.Error) *jsonrpc.Error {
	if err.Code == CodeResourceNotFound {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Message, Data: err.Data}
	}
	return err
}

// appendComplete appends the response of a complete result: the handler's result object
// with resultType, the cache hint if the method is cacheable, and the server's identity.
func (s *Server) appendComplete(buf, id, result []byte, cache *CacheHint) []byte {
	if buf == nil {
		buf = make([]byte, 0, len(result)+len(id)+len(s.infoJSON)+160)
	}
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"result":{"resultType":"complete"`...)
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
	buf = append(buf, `,"_meta":{"`+metaServerInfo+`":`...)
	buf = append(buf, s.infoJSON...)
	return append(buf, "}}}"...)
}

// discover answers server/discover: the versions, capabilities and identity of the server.
func (s *Server) discover() []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("supportedVersions")
	e.ArrayStart()
	for _, v := range allVersions {
		e.Elem()
		e.String(v)
	}
	e.ArrayEnd()
	e.Key("capabilities")
	s.writeCapabilities(&e)
	optionalString(&e, "instructions", s.opts.Instructions)
	e.ObjectEnd()
	return e.Bytes()
}

// encodeInfo is the server's Implementation as JSON, written once.
func encodeInfo(info Implementation) []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("name")
	e.String(info.Name)
	optionalString(&e, "title", info.Title)
	e.Key("version")
	e.String(info.Version)
	e.ObjectEnd()
	return e.Bytes()
}
