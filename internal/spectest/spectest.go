// Package spectest checks messages a server sends against the normative JSON Schema of the
// protocol revision in use (schema.json of each revision in the MCP specification), for the
// end-to-end tests: the envelope must be a JSONRPCMessage, each result must be the result
// type of the request it answers (or an InputRequiredResult, from revision 2026-07-28 on),
// each error whose code the revision defines must match that definition, and each request
// and notification the server sends must be one of the revision's ServerRequest and
// ServerNotification messages.
package spectest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemas holds each revision's schema.json (schema/README.md says where they come from).
//
//go:embed schema/*/schema.json
var schemas embed.FS

// resultTypes names the result definition of each request method of the revisions with
// sessions (2025-11-25 and older).
var resultTypes = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
	"logging/setLevel":         "EmptyResult",
	// The experimental tasks of 2025-11-25 (revisions before have no such definitions).
	TaskAugmented:  "CreateTaskResult",
	"tasks/get":    "GetTaskResult",
	"tasks/result": "GetTaskPayloadResult",
	"tasks/cancel": "CancelTaskResult",
}

// TaskAugmented is the method to give Check for the answer to a tools/call that asked for
// a task (params.task, revision 2025-11-25): a CreateTaskResult, not a CallToolResult.
const TaskAugmented = "tools/call (task-augmented)"

// FirstStateless is the first revision without sessions (2026-07-28): no initialize, a
// resultType on every result, and server/discover and subscriptions/listen. Revisions are
// dates, so they compare as strings.
const FirstStateless = "2026-07-28"

// statelessResultTypes names the result definition of each request method of the revisions
// without sessions. initialize, ping, logging/setLevel and resources/(un)subscribe are gone:
// a result for one of them is a violation in itself.
var statelessResultTypes = map[string]string{
	"server/discover":          "DiscoverResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
	"subscriptions/listen":     "SubscriptionsListenResult",
}

// inputRequiredMethods are the requests that may answer with an InputRequiredResult
// (basic/patterns/mrtr.mdx); any other method must answer with its own result.
var inputRequiredMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// errorDefs names the definitions of error responses by code, where a revision has them:
// whole messages (the errors of 2026-07-28 with required data) or the error object.
var errorDefs = map[int]struct {
	def     string
	message bool // the definition is of the whole response, not of its error member
}{
	-32020: {"HeaderMismatchError", true},
	-32021: {"MissingRequiredClientCapabilityError", true},
	-32022: {"UnsupportedProtocolVersionError", true},
	-32042: {"URLElicitationRequiredError", true},
	-32700: {"ParseError", false},
	-32600: {"InvalidRequestError", false},
	-32601: {"MethodNotFoundError", false},
	-32602: {"InvalidParamsError", false},
	-32603: {"InternalError", false},
}

// Referee validates messages. It is safe for concurrent use.
type Referee struct {
	mu      sync.Mutex
	docs    map[string]*schemaDoc         // by version
	schemas map[string]*jsonschema.Schema // "version#definition" -> compiled
}

// schemaDoc is one revision's schema.json, read.
type schemaDoc struct {
	url  string          // where the compiler knows it
	defs string          // "$defs" or "definitions"
	has  map[string]bool // the names of its definitions
	c    *jsonschema.Compiler
}

// NewReferee returns a referee for the revisions of the embedded schemas.
func NewReferee() *Referee {
	return &Referee{docs: map[string]*schemaDoc{}, schemas: map[string]*jsonschema.Schema{}}
}

// doc reads a revision's schema.json; r.mu is held.
func (r *Referee) doc(version string) (*schemaDoc, error) {
	if d, ok := r.docs[version]; ok {
		return d, nil
	}
	path := "schema/" + version + "/schema.json"
	raw, err := schemas.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("no schema of revision %q: %w", version, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &schemaDoc{url: "mem://" + path, defs: "$defs", has: map[string]bool{}, c: jsonschema.NewCompiler()}
	m, _ := doc.(map[string]any)
	if m["definitions"] != nil {
		d.defs = "definitions"
	}
	defs, _ := m[d.defs].(map[string]any)
	for name := range defs {
		d.has[name] = true
	}
	if err := d.c.AddResource(d.url, doc); err != nil {
		return nil, err
	}
	r.docs[version] = d
	return d, nil
}

// Has reports whether a revision's schema defines a definition.
func (r *Referee) Has(version, def string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, err := r.doc(version)
	if err != nil {
		return false, err
	}
	return d.has[def], nil
}

func (r *Referee) schema(version, def string) (*jsonschema.Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := version + "#" + def
	if s, ok := r.schemas[key]; ok {
		return s, nil
	}
	d, err := r.doc(version)
	if err != nil {
		return nil, err
	}
	if !d.has[def] {
		return nil, fmt.Errorf("revision %s has no definition %s", version, def)
	}
	s, err := d.c.Compile(d.url + "#/" + d.defs + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("compiling %s of %s: %w", def, version, err)
	}
	r.schemas[key] = s
	return s, nil
}

// validate checks a value against a definition of a revision.
func (r *Referee) validate(version, def string, v any) error {
	s, err := r.schema(version, def)
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// Check validates one message the server sent under protocol version. method is the method
// of the request the message answers, if it is a response and the method is known
// (TaskAugmented for a tools/call that asked for a task).
//
// Beyond the envelope (JSONRPCMessage), a request or notification must be one of the
// revision's ServerRequest or ServerNotification messages (revision 2026-07-28 has no
// ServerRequest: a server that sends a request there breaks it), a result must be the
// result definition of its method, and an error whose code the revision defines must match
// that definition (HeaderMismatchError, MissingRequiredClientCapabilityError with its
// required data, and so on). From revision 2026-07-28 on, a result of tools/call,
// prompts/get or resources/read whose resultType is "input_required" must be an
// InputRequiredResult, and a result for a method the revision does not have is refused.
func (r *Referee) Check(version string, msg []byte, method string) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := r.validate(version, "JSONRPCMessage", doc); err != nil {
		return fmt.Errorf("not a valid JSONRPCMessage of %s: %w", version, err)
	}
	m, _ := doc.(map[string]any)
	if _, isCall := m["method"]; isCall {
		def := "ServerNotification"
		if _, hasID := m["id"]; hasID {
			def = "ServerRequest"
		}
		if ok, err := r.Has(version, def); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("a server sends no requests in revision %s, but it sent %v", version, m["method"])
		}
		if err := r.validate(version, def, doc); err != nil {
			return fmt.Errorf("not a valid %s of %s: %w", def, version, err)
		}
		return nil
	}
	if e, isError := m["error"].(map[string]any); isError {
		return r.checkError(version, doc, e)
	}
	result, isResult := m["result"]
	if !isResult || method == "" {
		return nil
	}
	stateless := version >= FirstStateless
	def, known := resultTypes[method]
	if stateless {
		def, known = statelessResultTypes[method]
		if !known && resultTypes[method] != "" {
			return fmt.Errorf("%s has no result in revision %s: the method was removed", method, version)
		}
		if res, _ := result.(map[string]any); res["resultType"] == "input_required" && inputRequiredMethods[method] {
			def = "InputRequiredResult"
		}
	}
	if !known {
		return nil
	}
	if has, err := r.Has(version, def); err != nil || !has {
		return err // a revision without the definition (tasks before 2025-11-25)
	}
	if err := r.validate(version, def, result); err != nil {
		return fmt.Errorf("result of %s is not a valid %s of %s: %w", method, def, version, err)
	}
	return nil
}

// checkError validates an error response against the definition of its code, if the
// revision has one.
func (r *Referee) checkError(version string, doc any, e map[string]any) error {
	code, ok := e["code"].(json.Number)
	if !ok {
		return nil // the envelope has already checked that it is an integer
	}
	n, err := code.Int64()
	if err != nil {
		return nil
	}
	ed, known := errorDefs[int(n)]
	if !known {
		return nil
	}
	if ok, err := r.Has(version, ed.def); err != nil || !ok {
		return err
	}
	v := any(e)
	if ed.message {
		v = doc
	}
	if err := r.validate(version, ed.def, v); err != nil {
		return fmt.Errorf("error %d is not a valid %s of %s: %w", n, ed.def, version, err)
	}
	return nil
}

// Validate checks a JSON document against a JSON Schema given as JSON, as a client would
// check structured content against a tool's outputSchema.
func Validate(schemaJSON, doc json.RawMessage) error {
	sch, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://schema.json", sch); err != nil {
		return err
	}
	s, err := c.Compile("mem://schema.json")
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
