package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/mcp/internal/outcheck"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// How a client reads what servers list and answer (encoding/json: these are not the hot
// path of a client, whose cost is the server's and the network's), and what it keeps of the
// tools it has seen.

// knownTool is what the client keeps of a tool from tools/list: the arguments its input
// schema mirrors into headers, and its output schema, compiled when first needed.
type knownTool struct {
	headers []headerParam
	output  json.RawMessage
	task    TaskSupport // execution.taskSupport (2025-11-25)

	once     sync.Once
	schema   *jsonschema.Schema
	schemaOK error           // why the output schema cannot be used, if it cannot
	compiled *outcheck.Check // the schema compiled, if it can be
}

// readTool reads a listed tool, and remembers what calling it takes. Over Streamable HTTP,
// a tool with broken x-mcp-header annotations is left out (with a warning), as the transport
// page requires of clients.
func (c *Client) readTool(d *jsonwire.Decoder) (*Tool, bool) {
	t := &Tool{}
	t.decode(d)
	if d.Failed() {
		return nil, false
	}
	kt := &knownTool{task: t.Task}
	if t.OutputSchema != "" {
		kt.output = json.RawMessage(t.OutputSchema)
	}
	if c.carriesHeaders() {
		hp, err := headerParams([]byte(t.InputSchema))
		if err != nil {
			c.logger.Warn("mcp: leaving out a tool whose x-mcp-header annotations break the rules", "tool", t.Name, "reason", err.Error())
			return nil, false
		}
		kt.headers = hp
	}
	c.mu.Lock()
	c.tools[t.Name] = kt
	c.mu.Unlock()
	return t, true
}

// knownTool returns what tools/list said of a tool, listing the tools first if the client
// has not seen it (or if refresh asks for a fresh list). It returns nil for a tool the
// server does not list.
func (c *Client) knownTool(ctx context.Context, name string, refresh bool) (*knownTool, error) {
	c.mu.Lock()
	t := c.tools[name]
	c.mu.Unlock()
	if t != nil && !refresh {
		return t, nil
	}
	if _, err := c.ListTools(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools[name], nil
}

// checkStructured checks a tool's structured content against its output schema, compiled
// once per tool, if the client has listed the tool.
func (c *Client) checkStructured(name string, structured []byte) error {
	c.mu.Lock()
	t := c.tools[name]
	c.mu.Unlock()
	if t == nil || t.output == nil {
		return nil
	}
	t.once.Do(func() {
		if t.schema, t.schemaOK = outcheck.General(name, t.output); t.schemaOK == nil {
			t.compiled, _ = outcheck.Compile(t.output)
		}
	})
	if t.schemaOK != nil {
		c.logger.Debug("mcp: a tool's output schema cannot be used; its results are not checked", "tool", name, "reason", t.schemaOK.Error())
		return nil
	}
	if t.compiled != nil && t.compiled.Valid(structured) {
		return nil
	}
	// Not valid, or the compiled check cannot tell: the general validator decides, and says
	// why.
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(structured))
	if err != nil {
		return fmt.Errorf("structured content is not JSON: %w", err)
	}
	if err := t.schema.Validate(v); err != nil {
		return fmt.Errorf("the structured content does not match the tool's output schema: %w", err)
	}
	return nil
}

// paramHeaders are the Mcp-Param headers of a tools/call: each argument the tool's schema
// mirrors, at its path, encoded as the transport page says; an argument that is absent or
// null has none.
func paramHeaders(params []headerParam, args []byte) [][2]string {
	var out [][2]string
	for _, hp := range params {
		raw, ok := valueAt(args, hp.path)
		if !ok {
			continue
		}
		var text string
		switch hp.kind {
		case "string":
			if json.Unmarshal(raw, &text) != nil {
				continue
			}
		case "integer":
			n, err := strconv.ParseFloat(string(raw), 64)
			if err != nil {
				continue
			}
			text = strconv.FormatFloat(n, 'f', -1, 64)
		case "boolean":
			text = string(raw)
		}
		out = append(out, [2]string{"Mcp-Param-" + hp.name, encodeHeaderValue(text)})
	}
	return out
}

// encodeHeaderValue writes a value for a header: as it is if it is plain visible ASCII
// (spaces inside allowed), else in the =?base64?...?= form, which a value that looks like
// that form takes too.
func encodeHeaderValue(v string) string {
	safe := v == strings.TrimSpace(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; safe && i < len(v); i++ {
		safe = v[i] >= 0x20 && v[i] < 0x7f
	}
	if safe {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}
