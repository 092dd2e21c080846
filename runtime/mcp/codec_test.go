package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codecs against the specification's own examples (testdata/spec, see its README): each
// example of a type this package codes is read as a receiver reads it and written again as a
// sender writes it in revision 2026-07-28, and must come out as it went in.

// A codec reads one example of its wire type and writes the value back. unkept are the
// members of the type that its Go value does not keep, as JSON Pointers ("*" for any member
// or index), each with the reason in a comment; defaults are members the encoder leaves out
// when they hold their default value (false). The comparison leaves both out.
type codec struct {
	roundTrip func(data []byte, d dialect) ([]byte, error)
	unkept    []string
	defaults  []string
	// skip are the examples of the type that use what mcpgen does not speak, by file name,
	// and why.
	skip map[string]string
	// stateless is set for a type only the stateless revision has (the multi round-trip's):
	// no older revision's dialect writes it.
	stateless bool
}

// codecs are the wire types with a codec, by the schema's name.
var codecs = map[string]codec{
	"TextContent":          {roundTrip: contentRoundTrip},
	"ImageContent":         {roundTrip: contentRoundTrip},
	"AudioContent":         {roundTrip: contentRoundTrip},
	"ResourceLink":         {roundTrip: contentRoundTrip},
	"EmbeddedResource":     {roundTrip: contentRoundTrip},
	"TextResourceContents": {roundTrip: roundTrip[ResourceContents]((*ResourceContents).decode, encodeContents)},
	"BlobResourceContents": {roundTrip: roundTrip[ResourceContents]((*ResourceContents).decode, encodeContents)},
	"Tool":                 {roundTrip: toolRoundTrip, unkept: toolUnkept("")},
	"ListToolsResult": {roundTrip: func(data []byte, d dialect) ([]byte, error) {
		return pageRoundTrip(data, d, "tools", toolRoundTrip)
	}, unkept: toolUnkept("/tools/*")},
	"Resource": {roundTrip: roundTrip[Resource]((*Resource).decode, (*Resource).encode)},
	"ListResourcesResult": {roundTrip: func(data []byte, d dialect) ([]byte, error) {
		return pageRoundTrip(data, d, "resources", roundTrip[Resource]((*Resource).decode, (*Resource).encode))
	}},
	"ListResourceTemplatesResult": {roundTrip: func(data []byte, d dialect) ([]byte, error) {
		return pageRoundTrip(data, d, "resourceTemplates", roundTrip[ResourceTemplate]((*ResourceTemplate).decode, (*ResourceTemplate).encode))
	}},
	"ListPromptsResult": {roundTrip: func(data []byte, d dialect) ([]byte, error) {
		return pageRoundTrip(data, d, "prompts", roundTrip[Prompt]((*Prompt).decode, (*Prompt).encode))
	}},
	"GetPromptResult": {roundTrip: roundTrip[GetPromptResult]((*GetPromptResult).decode, (*GetPromptResult).encode)},
	"CompleteResult": {roundTrip: roundTrip[CompleteResult]((*CompleteResult).decode, func(r *CompleteResult, e *jsonwire.Encoder, _ dialect) {
		r.encode(e)
	})},
	"ReadResourceResult": {roundTrip: roundTrip[[]ResourceContents](func(c *[]ResourceContents, d *jsonwire.Decoder) { *c = readReadResult(d) },
		func(c *[]ResourceContents, e *jsonwire.Encoder, _ dialect) { encodeReadResult(e, *c, "", "") })},
	"ToolUseContent":             {roundTrip: samplingContentRoundTrip},
	"ToolResultContent":          {roundTrip: samplingContentRoundTrip},
	"CreateMessageRequestParams": {roundTrip: roundTrip[CreateMessageRequest]((*CreateMessageRequest).decode, (*CreateMessageRequest).encode)},
	"CreateMessageResult":        {roundTrip: roundTrip[CreateMessageResult]((*CreateMessageResult).decode, (*CreateMessageResult).encode)},
	"SamplingMessage": {roundTrip: roundTrip[SamplingMessage](func(m *SamplingMessage, d *jsonwire.Decoder) {
		r := CreateMessageRequest{}
		raw := d.Raw()
		if d.Failed() {
			return
		}
		inner := jsonwire.NewDecoder(append(append([]byte(`{"messages":[`), raw...), "]}"...))
		if r.decode(inner); inner.Failed() {
			d.Report(inner.Summary())
			return
		}
		*m = r.Messages[0]
	}, (*SamplingMessage).encode)},
	"ModelPreferences":        {roundTrip: roundTrip[ModelPreferences]((*ModelPreferences).decode, func(p *ModelPreferences, e *jsonwire.Encoder, _ dialect) { p.encode(e) })},
	"ElicitRequestFormParams": {roundTrip: roundTrip[ElicitRequest]((*ElicitRequest).decode, encodeElicitRequest)},
	"ElicitRequestURLParams":  {roundTrip: roundTrip[ElicitRequest]((*ElicitRequest).decode, encodeElicitRequest)},
	"ElicitResult":            {roundTrip: elicitResultRoundTrip},
	"ListRootsResult": {roundTrip: roundTrip[[]Root](func(r *[]Root, d *jsonwire.Decoder) { *r = readRootList(d) },
		func(r *[]Root, e *jsonwire.Encoder, _ dialect) { encodeRoots(e, *r) })},
	"Root": {roundTrip: roundTrip[[]Root](func(r *[]Root, d *jsonwire.Decoder) {
		raw := d.Raw()
		if d.Failed() {
			return
		}
		inner := jsonwire.NewDecoder(append(append([]byte(`{"roots":[`), raw...), "]}"...))
		if *r = readRootList(inner); inner.Failed() {
			d.Report(inner.Summary())
		}
	}, func(r *[]Root, e *jsonwire.Encoder, _ dialect) {
		var list jsonwire.Encoder
		encodeRoots(&list, *r)
		e.Raw(bytes.TrimSuffix(bytes.TrimPrefix(list.Bytes(), []byte(`{"roots":[`)), []byte("]}")))
	})},
	"ClientCapabilities": {roundTrip: roundTrip[ClientCapabilities](func(c *ClientCapabilities, d *jsonwire.Decoder) {
		*c, _ = readCapabilities(d, rev20260728)
	}, func(c *ClientCapabilities, e *jsonwire.Encoder, _ dialect) { c.encode(e) }),
		skip: map[string]string{
			"elicitation-form-only-implicit.json": `{"elicitation":{}} is form mode: mcpgen's client says so, {"form":{}}`,
			"extensions-ui-mime-types.json":       "extensions other than tasks: mcpgen's client speaks none",
		}},
	"ServerCapabilities": {roundTrip: roundTrip[ServerCapabilities]((*ServerCapabilities).decode, (*ServerCapabilities).encode)},
	"DiscoverResult": {roundTrip: roundTrip[discoverResult]((*discoverResult).decode, func(r *discoverResult, e *jsonwire.Encoder, _ dialect) { r.encode(e) }),
		unkept: []string{"/_meta"}}, // the server's info: the envelope of every stateless result
	"LoggingMessageNotificationParams": {roundTrip: roundTrip[LogMessage]((*LogMessage).decode, func(m *LogMessage, e *jsonwire.Encoder, _ dialect) {
		m.encode(e, json.RawMessage(m.Data))
	})},
	"ProgressNotificationParams": {roundTrip: func(data []byte, _ dialect) ([]byte, error) {
		var n ProgressNotice
		d := jsonwire.NewDecoder(data)
		n.decode(d)
		if d.Finish(); d.Failed() {
			return nil, errors.New(d.Summary())
		}
		token := rawParam(data, "progressToken")
		if token == nil {
			return nil, errors.New("no progressToken") // a sender always has one
		}
		var e jsonwire.Encoder
		n.encode(&e, token)
		return e.Bytes(), e.Err()
	}},
	"CancelledNotificationParams": {roundTrip: func(data []byte, _ dialect) ([]byte, error) {
		id := rawParam(data, "requestId")
		if id == nil {
			return nil, errors.New("no requestId") // a sender always has one
		}
		reason, _ := stringParam(data, "reason")
		return cancelledParams(id, reason), nil
	}},
	"ResourceUpdatedNotificationParams": {roundTrip: func(data []byte, _ dialect) ([]byte, error) {
		uri, _ := stringParam(data, "uri")
		return uriParams(uri), nil
	}},
	"InputRequests": {roundTrip: roundTrip[inputRequestList]((*inputRequestList).decode, func(r *inputRequestList, e *jsonwire.Encoder, _ dialect) {
		r.encode(e)
	}), stateless: true},
	"InputRequiredResult": {roundTrip: roundTrip[inputRequiredResult]((*inputRequiredResult).decode, func(r *inputRequiredResult, e *jsonwire.Encoder, _ dialect) {
		r.encode(e)
	}), stateless: true},
	"InputResponses": {roundTrip: roundTrip[inputResponses]((*inputResponses).decode, func(r *inputResponses, e *jsonwire.Encoder, _ dialect) {
		r.encode(e)
	}), stateless: true},
	"CallToolRequestParams": {roundTrip: roundTrip[callToolParams]((*callToolParams).decode, func(p *callToolParams, e *jsonwire.Encoder, _ dialect) {
		p.encode(e)
	})},
	"GetPromptRequestParams": {roundTrip: roundTrip[getPromptParams]((*getPromptParams).decode, func(p *getPromptParams, e *jsonwire.Encoder, _ dialect) {
		p.encode(e)
	})},
	"CompleteRequestParams": {roundTrip: roundTrip[completeParams]((*completeParams).decode, (*completeParams).encode)},
	"PaginatedRequestParams": {roundTrip: roundTrip[paginatedParams]((*paginatedParams).decode, func(p *paginatedParams, e *jsonwire.Encoder, _ dialect) {
		p.encode(e)
	})},
	"CallToolResult": {roundTrip: roundTrip[CallToolResult]((*CallToolResult).decode, func(r *CallToolResult, e *jsonwire.Encoder, d dialect) {
		encodeToolResult(e, d, r.Content, r.StructuredContent, r.IsError)
	}), defaults: []string{"/isError"}},
}

// toolUnkept are the members of a tool (at path) that mcpgen's Tool does not have.
func toolUnkept(path string) []string {
	return []string{
		path + "/execution", // taskSupport: read into Tool.Task; mcpgen's server does not list it
		path + "/_meta",     // a tool's _meta: not kept
	}
}

func encodeElicitRequest(r *ElicitRequest, e *jsonwire.Encoder, _ dialect) { r.encode(e) }

// elicitResultRoundTrip reads an ElicitResult as a server does (its content as it came) and
// writes it as a client does (its content from the values the user gave).
func elicitResultRoundTrip(data []byte, _ dialect) ([]byte, error) {
	action, content, err := readElicitResult(data)
	if err != nil {
		return nil, err
	}
	r := ElicitResult{Action: action}
	if content != nil {
		if err := json.Unmarshal(content, &r.Content); err != nil {
			return nil, err
		}
	}
	var e jsonwire.Encoder
	r.encode(&e)
	return e.Bytes(), e.Err()
}

// encodeContents writes resource contents, which every revision has alike.
func encodeContents(r *ResourceContents, e *jsonwire.Encoder, _ dialect) { r.encode(e) }

// roundTrip reads data with decode and writes it back with encode.
func roundTrip[T any](decode func(*T, *jsonwire.Decoder), encode func(*T, *jsonwire.Encoder, dialect)) func([]byte, dialect) ([]byte, error) {
	return func(data []byte, dialect dialect) ([]byte, error) {
		var v T
		d := jsonwire.NewDecoder(data)
		decode(&v, d)
		if d.Finish(); d.Failed() {
			return nil, errors.New(d.Summary())
		}
		var e jsonwire.Encoder
		encode(&v, &e, dialect)
		return e.Bytes(), e.Err()
	}
}

func contentRoundTrip(data []byte, d dialect) ([]byte, error) {
	c, err := decodeContent(data)
	if err != nil {
		return nil, err
	}
	var e jsonwire.Encoder
	c.encodeContent(&e, d)
	return e.Bytes(), e.Err()
}

// samplingContentRoundTrip reads a block as a sampling message's, which may be a tool's use
// or result, and writes it back.
func samplingContentRoundTrip(data []byte, dialect dialect) ([]byte, error) {
	d := jsonwire.NewDecoder(data)
	c := readBlock(d, true)
	if d.Finish(); d.Failed() {
		return nil, errors.New(d.Summary())
	}
	var e jsonwire.Encoder
	c.encodeContent(&e, dialect)
	return e.Bytes(), e.Err()
}

func toolRoundTrip(data []byte, dialect dialect) ([]byte, error) {
	var t Tool
	d := jsonwire.NewDecoder(data)
	t.decode(d)
	if d.Finish(); d.Failed() {
		return nil, errors.New(d.Summary())
	}
	var out []byte
	if t.OutputSchema != "" {
		out = []byte(t.OutputSchema)
	}
	return t.encode(dialect, []byte(t.InputSchema), out), nil
}

// pageRoundTrip reads a list result and writes it back, each item through item.
func pageRoundTrip(data []byte, dialect dialect, field string, item func([]byte, dialect) ([]byte, error)) ([]byte, error) {
	d := jsonwire.NewDecoder(data)
	raws, next := readPage(d, field)
	if d.Finish(); d.Failed() {
		return nil, errors.New(d.Summary())
	}
	items := make([][]byte, len(raws))
	for i, raw := range raws {
		var err error
		if items[i], err = item(raw, dialect); err != nil {
			return nil, err
		}
	}
	return listResult(field, items, next), nil
}

// notCoded are the wire types of the schema's examples that have no codec, and why.
var notCoded = map[string]string{}

func init() {
	const (
		message  = "a JSON-RPC message: runtime/jsonrpc frames it; what it carries is coded as its params or result type"
		rpcError = "a JSON-RPC error: runtime/jsonrpc writes and reads it"
		element  = "an element of an elicitation form's schema: written by the generator from Go types (gen/), read by no one here"
	)
	for _, name := range []string{"CallToolRequest", "CallToolResultResponse", "CancelledNotification",
		"CompleteRequest", "CompleteResultResponse", "CreateMessageRequest", "DiscoverRequest",
		"DiscoverResultResponse", "ElicitRequest", "GetPromptRequest", "GetPromptResultResponse",
		"ListPromptsRequest", "ListPromptsResultResponse", "ListResourceTemplatesRequest",
		"ListResourceTemplatesResultResponse", "ListResourcesRequest", "ListResourcesResultResponse",
		"ListRootsRequest", "ListToolsRequest", "ListToolsResultResponse", "LoggingMessageNotification",
		"ProgressNotification", "PromptListChangedNotification", "ReadResourceRequest",
		"ReadResourceResultResponse", "ResourceListChangedNotification", "ResourceUpdatedNotification",
		"SubscriptionsAcknowledgedNotification", "SubscriptionsListenRequest",
		"SubscriptionsListenResultResponse", "ToolListChangedNotification"} {
		notCoded[name] = message
	}
	for _, name := range []string{"HeaderMismatchError", "InternalError", "InvalidParamsError",
		"MethodNotFoundError", "MissingRequiredClientCapabilityError", "ParseError",
		"UnsupportedProtocolVersionError"} {
		notCoded[name] = rpcError
	}
	for _, name := range []string{"BooleanSchema", "NumberSchema", "StringSchema",
		"TitledMultiSelectEnumSchema", "TitledSingleSelectEnumSchema",
		"UntitledMultiSelectEnumSchema", "UntitledSingleSelectEnumSchema"} {
		notCoded[name] = element
	}
	notCoded["SubscriptionsListenResult"] = "an empty result: what it says (the subscription's id) is in its _meta, the envelope"
}

// envelope are the members a result's envelope adds, which the codecs of its types leave to
// the code that sends it (resultType, cache hints, _meta).
var envelope = []string{"resultType", "ttlMs", "cacheScope", "_meta"}

func TestSpecExamples(t *testing.T) {
	const dir = "testdata/spec/2026-07-28"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, entry := range entries {
		if !entry.IsDir() {
			continue
		}
		name := entry.Name()
		seen[name] = true
		c, coded := codecs[name]
		switch reason := notCoded[name]; {
		case coded && reason != "":
			t.Errorf("%s has a codec and is in notCoded (%s): take it out", name, reason)
		case !coded && reason == "":
			t.Errorf("%s has examples and no codec: write one, or say in notCoded why it has none", name)
		}
		if !coded {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, name, "*.json"))
		for _, file := range files {
			if c.skip[filepath.Base(file)] != "" {
				continue
			}
			t.Run(name+"/"+filepath.Base(file), func(t *testing.T) {
				in, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				out, err := c.roundTrip(in, dialect20260728)
				if err != nil {
					t.Fatalf("decoding the example: %v", err)
				}
				if want, got := comparable(t, in, c), comparable(t, out, c); !bytes.Equal(want, got) {
					t.Errorf("the example came back changed:\n got %s\nwant %s", got, want)
				}
			})
		}
	}
	for name := range codecs {
		if !seen[name] {
			t.Errorf("codec %s has no examples in %s", name, dir)
		}
	}
	for name := range notCoded {
		if !seen[name] {
			t.Errorf("notCoded lists %s, which has no examples in %s", name, dir)
		}
	}
}

// comparable is data canonical (members sorted, no spaces), without its envelope members if
// it is an object, nor the members at the unkept paths.
func comparable(t *testing.T, data []byte, c codec) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range envelope {
			delete(m, k)
		}
	}
	for _, p := range c.unkept {
		drop(v, strings.Split(strings.TrimPrefix(p, "/"), "/"), nil)
	}
	for _, p := range c.defaults {
		drop(v, strings.Split(strings.TrimPrefix(p, "/"), "/"), false)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// drop deletes the members at path (split JSON Pointer, "*" for any) from v: all of them
// if only is nil, else those whose value is only.
func drop(v any, path []string, only any) {
	if len(path) == 0 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			if only == nil || v[path[0]] == only {
				delete(v, path[0])
			}
			return
		}
		for k, child := range v {
			if path[0] == "*" || path[0] == k {
				drop(child, path[1:], only)
			}
		}
	case []any:
		for i, child := range v {
			if path[0] == "*" || path[0] == strconv.Itoa(i) {
				drop(child, path[1:], only)
			}
		}
	}
}

var update = flag.Bool("update", false, "rewrite testdata/dialects from what the codecs write")

// TestDialects writes the specification's examples of each coded type as a server writes
// them for the older revisions' clients, and compares that with testdata/dialects (go test
// -update rewrites it: review the diff): what a revision lacks left out or said in text.
// What the older dialect gets must read back as itself.
func TestDialects(t *testing.T) {
	for _, rev := range []revision{rev20241105, rev20250326, rev20250618} {
		for name, c := range codecs {
			if c.stateless {
				continue
			}
			files, _ := filepath.Glob(filepath.Join("testdata/spec/2026-07-28", name, "*.json"))
			for _, file := range files {
				if c.skip[filepath.Base(file)] != "" {
					continue
				}
				t.Run(rev.String()+"/"+name+"/"+filepath.Base(file), func(t *testing.T) {
					in, err := os.ReadFile(file)
					if err != nil {
						t.Fatal(err)
					}
					out, err := c.roundTrip(in, rev.dialect())
					if err != nil {
						t.Fatal(err)
					}
					var pretty bytes.Buffer
					if err := json.Indent(&pretty, out, "", "  "); err != nil {
						t.Fatalf("%v: %s", err, out)
					}
					pretty.WriteByte('\n')
					golden := filepath.Join("testdata/dialects", rev.String(), name, filepath.Base(file))
					if *update {
						os.MkdirAll(filepath.Dir(golden), 0o755)
						if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					want, err := os.ReadFile(golden)
					if err != nil {
						t.Fatalf("%v (go test -update writes it)", err)
					}
					if !bytes.Equal(pretty.Bytes(), want) {
						t.Errorf("%s is written differently now (go test -update, and review the diff):\n%s", golden, pretty.Bytes())
					}
					again, err := c.roundTrip(out, rev.dialect())
					if err != nil {
						t.Fatalf("what %s gets does not read back: %v", rev, err)
					}
					if !bytes.Equal(comparable(t, again, c), comparable(t, out, c)) {
						t.Errorf("what %s gets reads back as something else:\n got %s\nwant %s", rev, again, out)
					}
				})
			}
		}
	}
}

// FuzzCodecs reads anything with each codec (which the byte which picks): never a panic, and
// what reads without a problem writes a value that reads back as itself.
func FuzzCodecs(f *testing.F) {
	names := slices.Sorted(maps.Keys(codecs))
	for i, name := range names {
		files, _ := filepath.Glob(filepath.Join("testdata/spec/2026-07-28", name, "*.json"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(i), data) // a skipped example too: it must read as an error, not a panic
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		c := codecs[names[int(which)%len(names)]]
		out, err := c.roundTrip(data, dialect20260728)
		if err != nil {
			return
		}
		again, err := c.roundTrip(out, dialect20260728)
		if err != nil {
			t.Fatalf("what the codec wrote does not read back: %v\n%s", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("what the codec wrote reads back as something else:\n got %s\nwant %s", again, out)
		}
	})
}
