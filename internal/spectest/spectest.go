// Package spectest checks messages a server sends against the normative JSON Schema of the
// protocol revision in use (schema.json of each revision in the MCP specification), for the
// end-to-end tests: the envelope must be a JSONRPCMessage, each result must be the result
// type of the request it answers, and each request and notification the server sends must
// be one of the revision's ServerRequest and ServerNotification messages.
package spectest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SpecDir finds the specification copy: $MCP_SPEC_DIR, or ../shared/mcp-spec beside the
// repository root (the directory holding go.mod) that contains dir.
func SpecDir(dir string) (string, error) {
	if d := os.Getenv("MCP_SPEC_DIR"); d != "" {
		return d, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			spec := filepath.Join(filepath.Dir(d), "shared", "mcp-spec")
			if _, err := os.Stat(filepath.Join(spec, "schema")); err != nil {
				return "", fmt.Errorf("no MCP specification at %s (set MCP_SPEC_DIR to its location): %w", spec, err)
			}
			return spec, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", abs)
		}
	}
}

// resultTypes names the result definition of each request method.
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
}

// Referee validates messages. It is safe for concurrent use.
type Referee struct {
	dir     string
	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema // "version#definition" -> compiled
}

// NewReferee reads schemas from a specification directory (see SpecDir).
func NewReferee(specDir string) *Referee {
	return &Referee{dir: specDir, schemas: map[string]*jsonschema.Schema{}}
}

func (r *Referee) schema(version, def string) (*jsonschema.Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := version + "#" + def
	if s, ok := r.schemas[key]; ok {
		return s, nil
	}
	path := filepath.Join(r.dir, "schema", version, "schema.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defs := "$defs"
	if m, ok := doc.(map[string]any); ok && m["definitions"] != nil {
		defs = "definitions"
	}
	c := jsonschema.NewCompiler()
	url := "file://" + filepath.ToSlash(path)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url + "#/" + defs + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("compiling %s of %s: %w", def, version, err)
	}
	r.schemas[key] = s
	return s, nil
}

// Check validates one message the server sent under protocol version. method is the method
// of the request the message answers, if it is a response and the method is known.
func (r *Referee) Check(version string, msg []byte, method string) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	envelope, err := r.schema(version, "JSONRPCMessage")
	if err != nil {
		return err
	}
	if err := envelope.Validate(doc); err != nil {
		return fmt.Errorf("not a valid JSONRPCMessage of %s: %w", version, err)
	}
	m, _ := doc.(map[string]any)
	if _, isCall := m["method"]; isCall {
		def := "ServerNotification"
		if _, hasID := m["id"]; hasID {
			def = "ServerRequest"
		}
		s, err := r.schema(version, def)
		if err != nil {
			return err
		}
		if err := s.Validate(doc); err != nil {
			return fmt.Errorf("not a valid %s of %s: %w", def, version, err)
		}
		return nil
	}
	result, isResult := m["result"]
	def, known := resultTypes[method]
	if !isResult || !known {
		return nil
	}
	s, err := r.schema(version, def)
	if err != nil {
		return err
	}
	if err := s.Validate(result); err != nil {
		return fmt.Errorf("result of %s is not a valid %s of %s: %w", method, def, version, err)
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
