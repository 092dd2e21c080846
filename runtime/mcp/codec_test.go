package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The codecs against the specification's own examples (testdata/spec, see its README): each
// example of a type this package codes is read as a receiver reads it and written again as a
// sender writes it in revision 2026-07-28, and must come out as it went in.

// A codec reads one example of its wire type and writes the value back.
type codec func(data []byte) ([]byte, error)

// codecs are the wire types with a codec, by the schema's name.
var codecs = map[string]codec{}

// notCoded are the wire types of the schema's examples that have no codec, and why.
var notCoded = map[string]string{}

func init() {
	const (
		message  = "a JSON-RPC message: runtime/jsonrpc frames it; what it carries is coded as its params or result type"
		rpcError = "a JSON-RPC error: runtime/jsonrpc writes and reads it"
		element  = "an element of an elicitation form's schema: written by the generator from Go types (gen/), read by no one here"
		tools    = "sampling with tools, which mcpgen does not speak yet"
		pending  = "no codec yet: issue 26, steps C2a-d"
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
	notCoded["ToolUseContent"], notCoded["ToolResultContent"] = tools, tools
	for _, name := range []string{"AudioContent", "BlobResourceContents", "CallToolRequestParams",
		"CallToolResult", "CancelledNotificationParams", "ClientCapabilities", "CompleteRequestParams",
		"CompleteResult", "CreateMessageRequestParams", "CreateMessageResult", "DiscoverResult",
		"ElicitRequestFormParams", "ElicitRequestURLParams", "ElicitResult", "EmbeddedResource",
		"GetPromptRequestParams", "GetPromptResult", "ImageContent", "InputRequests",
		"InputRequiredResult", "InputResponses", "ListPromptsResult", "ListResourceTemplatesResult",
		"ListResourcesResult", "ListRootsResult", "ListToolsResult", "LoggingMessageNotificationParams",
		"ModelPreferences", "PaginatedRequestParams", "ProgressNotificationParams", "ReadResourceResult",
		"Resource", "ResourceLink", "ResourceUpdatedNotificationParams", "Root", "SamplingMessage",
		"ServerCapabilities", "SubscriptionsListenResult", "TextContent", "TextResourceContents", "Tool"} {
		notCoded[name] = pending
	}
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
		c := codecs[name]
		switch reason := notCoded[name]; {
		case c != nil && reason != "":
			t.Errorf("%s has a codec and is in notCoded (%s): take it out", name, reason)
		case c == nil && reason == "":
			t.Errorf("%s has examples and no codec: write one, or say in notCoded why it has none", name)
		}
		if c == nil {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, name, "*.json"))
		for _, file := range files {
			t.Run(name+"/"+filepath.Base(file), func(t *testing.T) {
				in, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				out, err := c(in)
				if err != nil {
					t.Fatalf("decoding the example: %v", err)
				}
				if want, got := withoutEnvelope(t, in), withoutEnvelope(t, out); !bytes.Equal(want, got) {
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

// withoutEnvelope is data canonical (members sorted, no spaces), its envelope members taken
// out if it is an object.
func withoutEnvelope(t *testing.T, data []byte) []byte {
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
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
