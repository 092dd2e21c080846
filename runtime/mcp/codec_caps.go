package mcp

import (
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// The codec of what the two sides say of themselves: Implementation, the capabilities each
// declares, and the results that carry them, InitializeResult and DiscoverResult (see
// codec_content.go for the convention).

// encode writes an Implementation; its title only for a dialect that has titles.
func (i *Implementation) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	e.Key("name")
	e.String(i.Name)
	if d.titles() {
		optionalString(e, "title", i.Title)
	}
	e.Key("version")
	e.String(i.Version)
	if d.icons() {
		optionalString(e, "description", i.Description)
		writeIcons(e, d, i.Icons)
		optionalString(e, "websiteUrl", i.WebsiteURL)
	}
	e.ObjectEnd()
}

func (i *Implementation) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "name":
			i.Name = readString(d)
		case "title":
			i.Title = readString(d)
		case "version":
			i.Version = readString(d)
		case "description":
			i.Description = readString(d)
		case "icons":
			i.Icons = readIcons(d)
		case "websiteUrl":
			i.WebsiteURL = readString(d)
		default:
			d.Skip()
		}
	}
}

// encodeInfo is the identity of an Implementation as JSON (name, title, version), written
// once for the _meta of every stateless message: its description, icons and website, which
// may be large, go only where one side introduces itself (encodeAbout).
func encodeInfo(info Implementation) []byte {
	return encodeAbout(Implementation{Name: info.Name, Title: info.Title, Version: info.Version})
}

// encodeAbout is a whole Implementation as JSON: a server's, for server/discover.
func encodeAbout(info Implementation) []byte {
	var e jsonwire.Encoder
	info.encode(&e, dialect20260728)
	return e.Bytes()
}

// encode writes the capabilities a client declares: sampling (with context, tools), elicitation
// (form, and URL), roots (with listChanged), and with Tasks the tasks extension, which only
// stateless requests name.
func (c *ClientCapabilities) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	if c.Sampling {
		e.Key("sampling")
		e.ObjectStart()
		if c.SamplingContext {
			e.Key("context")
			e.Raw([]byte(`{}`))
		}
		if c.SamplingTools {
			e.Key("tools")
			e.Raw([]byte(`{}`))
		}
		e.ObjectEnd()
	}
	if c.Elicitation || c.ElicitationURL {
		e.Key("elicitation")
		switch {
		case c.Elicitation && c.ElicitationURL:
			e.Raw([]byte(`{"form":{},"url":{}}`))
		case c.ElicitationURL:
			e.Raw([]byte(`{"url":{}}`))
		default:
			e.Raw([]byte(`{"form":{}}`))
		}
	}
	if c.Roots {
		e.Key("roots")
		if c.RootsListChange {
			e.Raw([]byte(`{"listChanged":true}`))
		} else {
			e.Raw([]byte(`{}`))
		}
	}
	if c.Tasks {
		e.Key("extensions")
		e.Raw([]byte(`{"` + ExtensionTasks + `":{}}`))
	}
	e.ObjectEnd()
}

// readCapabilities reads a ClientCapabilities object, as a client of version declares it:
// in initialize, or in a stateless request's _meta. problem names a capability that is not
// an object (initialize refuses it; a stateless request's is ignored, as unknown ones are).
func readCapabilities(d *jsonwire.Decoder, rev revision) (c ClientCapabilities, problem string) {
	for key := range d.Members {
		name := string(key)
		switch k := d.Peek(); {
		case k == jsonwire.Null:
			d.Skip()
			continue
		case k != jsonwire.Object:
			if name == "sampling" || name == "elicitation" || name == "roots" {
				problem = "capabilities." + name + " must be an object"
			}
			d.Skip()
			continue
		}
		switch name {
		case "extensions":
			for key := range d.Members {
				c.Tasks = c.Tasks || string(key) == ExtensionTasks && d.Peek() == jsonwire.Object
				d.Skip()
			}
		case "sampling":
			c.Sampling = true
			for key := range d.Members {
				c.SamplingContext = c.SamplingContext || string(key) == "context"
				c.SamplingTools = c.SamplingTools || string(key) == "tools"
				d.Skip()
			}
			// Before 2025-11-25, sampling included context without a capability of its own.
			c.SamplingContext = c.SamplingContext || !rev.samplingContextDeclared()
		case "elicitation":
			form, url := false, false
			for key := range d.Members {
				form = form || string(key) == "form"
				url = url || string(key) == "url"
				d.Skip()
			}
			// An empty elicitation object means form mode (the only mode before 2025-11-25).
			c.Elicitation, c.ElicitationURL = form || !url, url
		case "roots":
			c.Roots = true
			for key := range d.Members {
				if string(key) != "listChanged" {
					d.Skip()
				} else if v, ok := d.Bool(); ok {
					c.RootsListChange = v
				} else {
					problem = "capabilities.roots.listChanged must be a boolean"
				}
			}
		default:
			d.Skip()
		}
	}
	return c, problem
}

// encode writes the capabilities a server declares, as dialect d has them: the tasks
// extension only in the stateless revision (mcpgen's servers speak no other tasks).
func (c *ServerCapabilities) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	capability := func(key string, declared bool, flags ...string) {
		if !declared {
			return
		}
		e.Key(key)
		e.ObjectStart()
		for _, f := range flags {
			if f != "" {
				e.Key(f)
				e.Bool(true)
			}
		}
		e.ObjectEnd()
	}
	flag := func(set bool, name string) string {
		if set {
			return name
		}
		return ""
	}
	capability("tools", c.Tools, flag(c.ToolsListChanged, "listChanged"))
	capability("resources", c.Resources, flag(c.ResourcesSubscribe, "subscribe"), flag(c.ResourcesListChanged, "listChanged"))
	capability("prompts", c.Prompts, flag(c.PromptsListChanged, "listChanged"))
	capability("completions", c.Completions)
	capability("logging", c.Logging)
	if c.Tasks && d == dialect20260728 {
		e.Key("extensions")
		e.Raw([]byte(`{"` + ExtensionTasks + `":{}}`))
	}
	e.ObjectEnd()
}

// decode reads what a server declared, forgiving what real servers write: a capability is
// declared when its member is there and neither null nor false ("tools": true counts), and
// a member of it of the wrong type is taken as not set; nothing is reported. Raw keeps the
// object as it came.
func (c *ServerCapabilities) decode(d *jsonwire.Decoder) {
	c.Raw = d.RawCopy()
	caps := jsonwire.NewDecoder(c.Raw)
	if caps.Peek() != jsonwire.Object {
		return
	}
	for key := range caps.Members {
		switch string(key) {
		case "tools":
			c.Tools = readFlags(caps, map[string]*bool{"listChanged": &c.ToolsListChanged})
		case "prompts":
			c.Prompts = readFlags(caps, map[string]*bool{"listChanged": &c.PromptsListChanged})
		case "resources":
			c.Resources = readFlags(caps, map[string]*bool{"subscribe": &c.ResourcesSubscribe, "listChanged": &c.ResourcesListChanged})
		case "completions":
			c.Completions = declared(caps)
		case "logging":
			c.Logging = declared(caps)
		case "tasks":
			// 2025-11-25's: tasks.requests.tools.call (a tools/call may run as a task) and
			// tasks.cancel.
			raw := caps.Raw()
			c.Tasks = c.Tasks || declaredAt(raw, "requests", "tools", "call")
			c.TasksCancel = c.TasksCancel || declaredAt(raw, "cancel")
		case "extensions":
			if declaredAt(caps.Raw(), ExtensionTasks) {
				c.Tasks, c.TasksCancel = true, true
			}
		default:
			caps.Skip()
		}
	}
}

// declared reads a capability's value: declared unless null or false.
func declared(d *jsonwire.Decoder) bool {
	switch d.Peek() {
	case jsonwire.Null:
		d.Skip()
		return false
	case jsonwire.Bool:
		v, _ := d.Bool()
		return v
	}
	d.Skip()
	return true
}

// readFlags reads a capability (declared as declared says) whose members are flags: each
// member of flags that is true sets its bool.
func readFlags(d *jsonwire.Decoder, flags map[string]*bool) bool {
	if d.Peek() != jsonwire.Object {
		return declared(d)
	}
	for key := range d.Members {
		if f := flags[string(key)]; f != nil && d.Peek() == jsonwire.Bool {
			*f, _ = d.Bool()
		} else {
			d.Skip()
		}
	}
	return true
}

// declaredAt reports whether the object raw has a declared member (declared says) at path.
func declaredAt(raw []byte, path ...string) bool {
	d := jsonwire.NewDecoder(raw)
	for _, name := range path {
		if d.Peek() != jsonwire.Object {
			return false
		}
		found := false
		for key := range d.Members {
			if string(key) == name {
				raw, found = d.Raw(), true
			} else {
				d.Skip()
			}
		}
		if !found {
			return false
		}
		d = jsonwire.NewDecoder(raw)
	}
	return declared(d)
}

// initializeResult is the result of initialize.
type initializeResult struct {
	ProtocolVersion string
	Capabilities    ServerCapabilities
	ServerInfo      Implementation
	Instructions    string
}

// encode writes the result as dialect d has it (the server's title from 2025-06-18 on).
func (r *initializeResult) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	e.Key("protocolVersion")
	e.String(r.ProtocolVersion)
	e.Key("capabilities")
	r.Capabilities.encode(e, d)
	e.Key("serverInfo")
	r.ServerInfo.encode(e, d)
	optionalString(e, "instructions", r.Instructions)
	e.ObjectEnd()
}

func (r *initializeResult) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "protocolVersion":
			r.ProtocolVersion = readString(d)
		case "capabilities":
			r.Capabilities.decode(d)
		case "serverInfo":
			if !d.Null() {
				r.ServerInfo.decode(d)
			}
		case "instructions":
			r.Instructions = readString(d)
		default:
			d.Skip()
		}
	}
}

// discoverResult is the result of server/discover.
type discoverResult struct {
	SupportedVersions []string
	Capabilities      ServerCapabilities
	Instructions      string
	ServerInfo        Implementation // in _meta
}

// encode writes the result but its _meta (the server's info, which every stateless result
// carries: the server adds it to each).
func (r *discoverResult) encode(e *jsonwire.Encoder) {
	e.ObjectStart()
	e.Key("supportedVersions")
	e.ArrayStart()
	for _, v := range r.SupportedVersions {
		e.Elem()
		e.String(v)
	}
	e.ArrayEnd()
	e.Key("capabilities")
	r.Capabilities.encode(e, dialect20260728)
	optionalString(e, "instructions", r.Instructions)
	e.ObjectEnd()
}

func (r *discoverResult) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "supportedVersions":
			if d.Null() {
				continue
			}
			for range d.Elements {
				r.SupportedVersions = append(r.SupportedVersions, readString(d))
			}
		case "capabilities":
			r.Capabilities.decode(d)
		case "instructions":
			r.Instructions = readString(d)
		case "_meta":
			if d.Null() {
				continue
			}
			for key := range d.Members {
				if string(key) == metaServerInfo && !d.Null() {
					r.ServerInfo.decode(d)
				} else if string(key) != metaServerInfo {
					d.Skip()
				}
			}
		default:
			d.Skip()
		}
	}
}

// initializeParams are initialize's params: the revision a client of a session asks for,
// the capabilities it declares and what it says of itself.
type initializeParams struct {
	version string
	caps    []byte // the capabilities object, raw: read once the revision is settled
	info    Implementation
}

// encode writes the params; the client's info as the revision asked for has it.
func (p *initializeParams) encode(e *jsonwire.Encoder, d dialect) {
	e.ObjectStart()
	e.Key("protocolVersion")
	e.String(p.version)
	e.Key("capabilities")
	e.Raw(p.caps)
	e.Key("clientInfo")
	p.info.encode(e, d)
	e.ObjectEnd()
}

// decode reads the params; null reads as absent. The capabilities are left raw, for
// readCapabilities with the negotiated revision.
func (p *initializeParams) decode(d *jsonwire.Decoder) {
	for key := range d.Members {
		switch string(key) {
		case "protocolVersion":
			p.version = readString(d)
		case "capabilities":
			if !d.Null() && d.Expect(jsonwire.Object) {
				p.caps = d.Raw()
			}
		case "clientInfo":
			if !d.Null() && d.Expect(jsonwire.Object) {
				p.info.decode(d)
			}
		default:
			d.Skip()
		}
	}
}
