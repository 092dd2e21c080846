package mcp

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Multi round-trip requests (basic/patterns/mrtr.mdx). In revision 2026-07-28 a server asks
// its client for nothing on its own: a tool, prompt or resource that needs an elicitation,
// a sampling or the roots answers with an InputRequiredResult, and the client retries the
// request with the answers. The body calls Elicit, Sample or Roots as it does in a
// session; here, the first time, the call returns ErrInputRequired, the body returns it (or
// goes on to ask for more), and the runtime answers with what was asked. On the retry the
// body runs again from the start, and each call finds its answer.
//
// The answers of earlier rounds travel in requestState, sealed with AES-GCM under a key of
// the server's and bound to the method, a digest of the request's parameters and an expiry,
// so that a client can neither alter the answers of earlier rounds nor replay them on
// another request. (The answers themselves are the client's, in any round: a client may
// also answer at once, without a state.)

// ErrInputRequired is returned by Elicit, Sample and Roots in a request of revision
// 2026-07-28 when the client has yet to answer: return it (or any error wrapping it), and
// the client is asked; the body runs again, from the start, with the answer. A body may
// also go on and ask for more first: everything asked in one run is asked at once.
var ErrInputRequired = errors.New("mcp: the client's input is required; return this error, and the request is retried with it")

// WithInputKey names the request to the client made with the returned context (by Elicit,
// Sample or Roots) in revision 2026-07-28's InputRequiredResult: the key of the request in
// inputRequests, and of its answer in the retry's inputResponses. A key names one question:
// asking two different questions under one key is an error. Without a key, the key is the
// method and a digest of the question ("elicitation-3f2a9c1e"), so that the same question
// finds its answer in every run of the body, whatever order questions are asked in.
func WithInputKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, inputKeyCtx{}, key)
}

type inputKeyCtx struct{}

// defaultStateTTL bounds how long a requestState is honoured, unless ServerOptions.StateTTL
// says otherwise.
const defaultStateTTL = 30 * time.Minute

// round is a stateless request's part in a multi round-trip request.
type round struct {
	mu        sync.Mutex
	answers   map[string]json.RawMessage // by input request key: earlier rounds' and this one's
	used      map[string]string          // keys the body asked for in this run, with its question's digest
	asked     inputRequestList           // unanswered, in this run, in order
	missing   []string                   // capabilities a request to the client lacked
	caller    string                     // the callerKey the state is bound to: it opens for that caller only
	anonymous *jsonrpc.Error             // errAnonymousCaller: the caller may have no state
	failure   []string                   // the errors the body got for them
}

// lacking records that the body wanted a capability the client did not declare: if the
// body then fails, the answer is MissingRequiredClientCapability.
func (rd *round) lacking(capability, failure string) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if !slices.Contains(rd.missing, capability) {
		rd.missing = append(rd.missing, capability)
		rd.failure = append(rd.failure, failure)
	}
}

// failedFor reports whether a tool's error result says what the body was told when it
// lacked a capability: a body that caught that error and failed for another reason gets
// its own error result.
func (rd *round) failedFor(result []byte) bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	for _, f := range rd.failure {
		if bytes.Contains(result, []byte(f)) {
			return true
		}
	}
	return false
}

// missingCapability is the MissingRequiredClientCapability error for what the body lacked.
func (rd *round) missingCapability() *jsonrpc.Error {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key("requiredCapabilities")
	e.ObjectStart()
	var sampling []string // what sampling lacked (context, tools), said in one member
	for _, c := range rd.missing {
		if sub, ok := strings.CutPrefix(c, "sampling."); ok {
			sampling = append(sampling, `"`+sub+`":{}`)
			continue
		}
		e.Key(c)
		if c == "elicitation" {
			e.Raw([]byte(`{"form":{}}`))
		} else {
			e.Raw([]byte(`{}`))
		}
	}
	if sampling != nil {
		e.Key("sampling")
		e.Raw([]byte("{" + strings.Join(sampling, ",") + "}"))
	}
	e.ObjectEnd()
	e.ObjectEnd()
	return &jsonrpc.Error{Code: CodeMissingRequiredClientCapability,
		Message: "Missing required client capability: " + strings.Join(rd.missing, ", "), Data: e.Bytes()}
}

// lacked reports whether a request to the client lacked a capability, and none was asked.
func (rd *round) lacked() bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return len(rd.missing) > 0 && len(rd.asked) == 0
}

// begin reads the answers a retry carries: the sealed ones of earlier rounds and the
// client's new ones. Only answers to what was asked count; others are ignored.
func (rd *round) begin(s *Server, meta *requestMeta, m *jsonrpc.Message) *jsonrpc.Error {
	if meta.hasState || meta.inputResponses != nil {
		rd.answers = map[string]json.RawMessage{}
	}
	if meta.hasState {
		if rd.anonymous != nil {
			return rd.anonymous
		}
		st, err := s.openState(meta.requestState, m, rd.caller)
		if err != nil {
			return invalidParams("requestState: %v", err)
		}
		for k, v := range st.Answers {
			rd.answers[k] = v
		}
	}
	if meta.inputResponses != nil {
		var responses inputResponses
		d := jsonwire.NewDecoder(meta.inputResponses)
		if responses.decode(d); d.Failed() {
			return invalidParams("%s", problemsUnder("/inputResponses", d))
		}
		// Answers come from the client either way: the sealed state keeps earlier rounds'
		// and binds them to this request. Keys the body never asks for are ignored.
		for k, v := range responses {
			if _, done := rd.answers[k]; !done {
				rd.answers[k] = v
			}
		}
	}
	return nil
}

// inputRequired reports whether the body asked the client for something it has not answered.
func (rd *round) inputRequired() bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return len(rd.asked) > 0
}

// ask is a stateless request's question to its client: the answer, if the client gave it,
// or ErrInputRequired after recording the question.
func (rd *round) ask(method, key string, params []byte) ([]byte, error) {
	sum := sha256.Sum256(append([]byte(method+"\x00"), params...))
	question := hex.EncodeToString(sum[:8])
	if key == "" {
		key = inputKey(method) + "-" + question
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.used == nil {
		rd.used = map[string]string{}
	}
	switch q, ok := rd.used[key]; {
	case ok && q != question:
		return nil, fmt.Errorf("mcp: input key %q names two different requests to the client; give each its own with WithInputKey", key)
	case ok:
		// The same question again (from another goroutine, say): the same answer.
		if a, ok := rd.answers[key]; ok {
			return a, nil
		}
		return nil, ErrInputRequired
	}
	rd.used[key] = question
	if a, ok := rd.answers[key]; ok {
		return a, nil
	}
	rd.asked = append(rd.asked, inputRequest{key: key, method: method, params: params})
	return nil, ErrInputRequired
}

func inputKey(method string) string {
	switch method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return method
}

// inputRequiredResponse answers with the InputRequiredResult of this run: what the body
// asked, and the sealed state with the answers so far.
func (rd *round) inputRequiredResponse(s *Server, m *jsonrpc.Message) ([]byte, *jsonrpc.Error) {
	if rd.anonymous != nil {
		return nil, rd.anonymous // no state for a caller it could not be bound to
	}
	rd.mu.Lock()
	// Only the answers the body used travel on: what it never asked for is dropped.
	st := sealedState{Answers: map[string]json.RawMessage{}, Caller: rd.caller}
	for k := range rd.used {
		if a, ok := rd.answers[k]; ok {
			st.Answers[k] = a
		}
	}
	res := inputRequiredResult{requests: rd.asked}
	rd.mu.Unlock()
	state, err := s.sealState(&st, m)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: "+err.Error())
	}
	res.state, res.hasState = state, true
	var e jsonwire.Encoder
	res.encode(&e)
	return appendResult(nil, m.ID, "input_required", e.Bytes(), nil, nil, s.infoJSON), nil
}

// sealedState is what requestState holds, sealed.
type sealedState struct {
	Method  string                     `json:"m"`
	Digest  []byte                     `json:"d"`           // of the request's parameters that matter
	Expires int64                      `json:"e"`           // Unix seconds
	Caller  string                     `json:"c,omitempty"` // its caller's callerKey, on a protected server
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

// requestDigest identifies a request across its retries: its method, and the parameters
// that make it this request (name, arguments, uri), in canonical form so that spacing,
// member order, and an empty or null "arguments" in place of none do not count.
func requestDigest(m *jsonrpc.Message) []byte {
	parts := map[string][]byte{}
	var d jsonwire.Decoder
	d.Reset(m.Params)
	if m.Params != nil && d.Peek() == jsonwire.Object {
		for key := range d.Members {
			switch k := string(key); k {
			case "name", "arguments", "uri":
				parts[k] = canonicalJSON(d.Raw())
				if k == "arguments" && (string(parts[k]) == "{}" || string(parts[k]) == "null") {
					delete(parts, k) // no arguments, however the client says so
				}
			default:
				d.Skip()
			}
		}
	}
	h := sha256.New()
	h.Write([]byte(m.Method))
	for _, k := range []string{"name", "arguments", "uri"} { // in this order, whatever the client's
		h.Write([]byte{0})
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(parts[k])
	}
	return h.Sum(nil)
}

// canonicalJSON rewrites a JSON value with its object members sorted and no spacing, so
// that a client may echo a request in another form.
func canonicalJSON(raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

func (s *Server) stateAEAD() (cipher.AEAD, error) {
	block, err := aes.NewCipher(s.stateKey)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func (s *Server) sealState(st *sealedState, m *jsonrpc.Message) (string, error) {
	ttl := s.opts.StateTTL
	if ttl <= 0 {
		ttl = defaultStateTTL
	}
	st.Method, st.Digest, st.Expires = m.Method, requestDigest(m), time.Now().Add(ttl).Unix()
	plain, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	aead, err := s.stateAEAD()
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	rand.Read(nonce)
	return encodeState(aead.Seal(nonce, nonce, plain, nil)), nil
}

func encodeState(sealed []byte) string { return base64.RawURLEncoding.EncodeToString(sealed) }

var errStateNotOurs = errors.New("not a state this server issued, or it was altered")

// openState opens a requestState of the request m and the caller (a callerKey). Another
// caller's state is answered as one this server never issued, whatever else is wrong with it.
func (s *Server) openState(text string, m *jsonrpc.Message, caller string) (*sealedState, error) {
	sealed, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return nil, errors.New("not a state this server issued")
	}
	aead, err := s.stateAEAD()
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize() {
		return nil, errors.New("not a state this server issued")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], nil)
	if err != nil {
		return nil, errStateNotOurs
	}
	var st sealedState
	if err := json.Unmarshal(plain, &st); err != nil {
		return nil, err
	}
	switch {
	case st.Caller != caller:
		return nil, errStateNotOurs
	case st.Method != m.Method || !bytes.Equal(st.Digest, requestDigest(m)):
		return nil, errors.New("it belongs to another request")
	case time.Now().Unix() > st.Expires:
		return nil, errors.New("it has expired; send the request again without it")
	}
	return &st, nil
}
