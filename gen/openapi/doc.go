package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/importer"
)

// Document is an OpenAPI description (3.0, 3.1, or Swagger 2.0 read as 3.0 would say it)
// as the generator reads it: its operations, servers and security schemes.
type Document struct {
	Version     string // "2.0", "3.0.3", "3.1.0"...
	Title       string
	Description string
	APIVersion  string
	Servers     []string // base URLs, variables at their defaults
	Operations  []*Operation
	Schemes     []*SecurityScheme // by name
	Security    []Requirement     // the document's default
	// Root is the document as JSON (Swagger 2.0's schemas in 3.0's words), which $refs
	// are resolved in.
	Root json.RawMessage
	// Notes are what the generator left out, and why.
	Notes []string
}

// Requirement is one way of meeting a security requirement: every scheme named (an empty
// requirement is no authentication at all).
type Requirement []string

// Operation is one method of one path.
type Operation struct {
	Method      string // upper case
	Path        string
	ID          string // operationId, "" when the document gives none
	Summary     string
	Description string
	Tags        []string
	Deprecated  bool
	Params      []*Param
	Body        *Body     // nil when there is none
	Response    *Response // the success response; nil when it has no body worth typing
	Security    []Requirement
	HasSecurity bool   // the operation says its own (an empty list: none)
	Pointer     string // of the operation in Root: /paths/~1pets/get
}

// Param is a parameter: in path, query, header or cookie.
type Param struct {
	Name        string
	In          string
	Required    bool
	Description string
	Deprecated  bool
	Schema      json.RawMessage
	SchemaPath  string // the schema's pointer in Root, or a made-up one for Swagger 2.0's
	Explode     bool   // a list or object in the query: one member per value (form style's default)
	Style       string // form, simple, spaceDelimited, pipeDelimited, deepObject...
}

// Body kinds.
const (
	BodyJSON      = "json"
	BodyForm      = "form"      // application/x-www-form-urlencoded
	BodyMultipart = "multipart" // multipart/form-data
	BodyText      = "text"
	BodyBinary    = "binary"
)

// Body is a request body.
type Body struct {
	Required    bool
	Description string
	MediaType   string
	Kind        string
	Schema      json.RawMessage
	SchemaPath  string
}

// Response is the success response an operation's tool returns.
type Response struct {
	Status      string // "200", "201", "2XX", "default"
	Description string
	MediaType   string
	Kind        string // BodyJSON, BodyText or BodyBinary; "" for no body
	Schema      json.RawMessage
	SchemaPath  string
}

// SecurityScheme is a components.securitySchemes entry.
type SecurityScheme struct {
	Name        string
	Type        string // apiKey, http, oauth2, openIdConnect, mutualTLS
	In          string // apiKey: header, query or cookie
	ParamName   string // apiKey: the header, query parameter or cookie
	Scheme      string // http: bearer, basic...
	TokenURL    string // oauth2 client credentials
	Description string
}

// Parse reads a document.
func Parse(src *Source) (*Document, error) {
	data, err := toJSON(src.Location, src.Data)
	if err != nil {
		return nil, err
	}
	var head struct {
		OpenAPI string `json:"openapi"`
		Swagger string `json:"swagger"`
	}
	top := topMembers(data)
	if top == nil {
		if err := json.Unmarshal(data, &head); err != nil {
			return nil, fmt.Errorf("%s: %s", src.Location, jsonErrorAt(data, err))
		}
	}
	if err := decodeMembers(top, map[string]any{"openapi": &head.OpenAPI, "swagger": &head.Swagger}); err != nil {
		return nil, fmt.Errorf("%s: %v", src.Location, err)
	}
	switch {
	case strings.HasPrefix(head.OpenAPI, "3."):
		return parse3(src.Location, data, top, head.OpenAPI)
	case head.Swagger == "2.0":
		return parse2(src.Location, data)
	case head.OpenAPI != "":
		return nil, fmt.Errorf("%s: OpenAPI %s is not supported: give a document of 3.0, 3.1 or Swagger 2.0", src.Location, head.OpenAPI)
	}
	return nil, fmt.Errorf("%s: not an OpenAPI document: it has neither \"openapi\" nor \"swagger\": \"2.0\"", src.Location)
}

// methods are the operations of a path item, in the order a document usually has them.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

type info struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Version     string `json:"version"`
}

type rawOperation struct {
	OperationID string                     `json:"operationId"`
	Summary     string                     `json:"summary"`
	Description string                     `json:"description"`
	Tags        []string                   `json:"tags"`
	Deprecated  bool                       `json:"deprecated"`
	Parameters  []json.RawMessage          `json:"parameters"`
	RequestBody json.RawMessage            `json:"requestBody"`
	Responses   map[string]json.RawMessage `json:"responses"`
	Security    *[]map[string][]string     `json:"security"`
	Consumes    []string                   `json:"consumes"` // 2.0
	Produces    []string                   `json:"produces"` // 2.0
}

// resolver resolves $refs within the document.
type resolver struct {
	root json.RawMessage
}

// resolve follows a chain of $refs from raw, at path; it returns the object and its pointer.
func (r *resolver) resolve(raw json.RawMessage, path string) (json.RawMessage, string, error) {
	for range 32 {
		var ref struct {
			Ref string `json:"$ref"`
		}
		if json.Unmarshal(raw, &ref) != nil || ref.Ref == "" {
			return raw, path, nil
		}
		if !strings.HasPrefix(ref.Ref, "#") {
			return nil, path, fmt.Errorf("$ref %s is in another document, which mcpgen openapi does not read: bundle the document first", ref.Ref)
		}
		target, err := importer.ResolvePointer(r.root, ref.Ref)
		if err != nil {
			return nil, path, fmt.Errorf("$ref %s: %v", ref.Ref, err)
		}
		raw, path = target, strings.TrimPrefix(ref.Ref, "#")
	}
	return nil, path, fmt.Errorf("a chain of more than 32 $refs")
}

// requirements reads a security list.
func requirements(list []map[string][]string) []Requirement {
	out := []Requirement{}
	for _, m := range list {
		var names []string
		for name := range m {
			names = append(names, name)
		}
		slices.Sort(names)
		out = append(out, names)
	}
	return out
}

// escape is a JSON Pointer token.
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// orderedKeys are an object's keys in the order written.
func orderedKeys(raw json.RawMessage) []string {
	return importer.Keys(raw)
}

// topMembers are the document's members, raw: found by a scan that decodes none of them (the
// paths and components are nearly all of a large document, which encoding/json would check
// again for every struct decoded from it).
func topMembers(data []byte) map[string]json.RawMessage {
	top := map[string]json.RawMessage{}
	if !importer.Members(data, func(k string, v []byte) bool { top[k] = v; return true }) {
		top = nil
		json.Unmarshal(data, &top) // not an object: the caller's decoding says what is wrong
	}
	return top
}

// decodeMembers decodes the members of an object that are given a place in into.
func decodeMembers(members map[string]json.RawMessage, into map[string]any) error {
	for _, k := range sortedKeys(into) {
		if raw, ok := members[k]; ok {
			if err := json.Unmarshal(raw, into[k]); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	return nil
}

// mediaKind says what a media type holds, for a request or response body.
func mediaKind(mt string) string {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(mt)), ";")
	base = strings.TrimSpace(base)
	switch {
	case base == "application/json" || strings.HasSuffix(base, "+json") || base == "*/*" || base == "application/*" || base == "text/json":
		return BodyJSON
	case base == "application/x-www-form-urlencoded":
		return BodyForm
	case strings.HasPrefix(base, "multipart/"):
		return BodyMultipart
	case strings.HasPrefix(base, "text/"), base == "application/xml", strings.HasSuffix(base, "+xml"), base == "application/yaml":
		return BodyText
	}
	return BodyBinary
}

// preferJSON picks the media type of a content map: JSON first, then a form, text, binary.
func preferJSON(types []string) string {
	rank := map[string]int{BodyJSON: 0, BodyForm: 1, BodyMultipart: 2, BodyText: 3, BodyBinary: 4}
	best := ""
	for _, t := range types {
		if best == "" || rank[mediaKind(t)] < rank[mediaKind(best)] {
			best = t
		}
	}
	// application/json itself before vendor types and wildcards.
	for _, t := range types {
		if strings.EqualFold(strings.TrimSpace(strings.Split(t, ";")[0]), "application/json") && mediaKind(best) == BodyJSON {
			return t
		}
	}
	return best
}

// successStatus picks the success response: the lowest 2xx, else 2XX, else default.
func successStatus(codes []string) string {
	var best string
	for _, c := range codes {
		if len(c) == 3 && c[0] == '2' && c[1] >= '0' && c[1] <= '9' && c[2] >= '0' && c[2] <= '9' && (best == "" || c < best) {
			best = c
		}
	}
	switch {
	case best != "":
		return best
	case slices.Contains(codes, "2XX"), slices.Contains(codes, "2xx"):
		if slices.Contains(codes, "2XX") {
			return "2XX"
		}
		return "2xx"
	case slices.Contains(codes, "default"):
		return "default"
	}
	return ""
}

// serverURL substitutes a server's variables with their defaults.
func serverURL(raw string, vars map[string]struct {
	Default string `json:"default"`
}) string {
	for name, v := range vars {
		raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
	}
	return raw
}

// isAbsolute says whether a server URL has a scheme and host.
func isAbsolute(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// compactJSON is raw without insignificant space.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
