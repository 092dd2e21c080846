package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// parse2 reads a Swagger 2.0 document as OpenAPI 3.0 would say it: a body parameter is the
// request body, formData parameters a form (multipart when a file is among them or the
// operation consumes only multipart), a response's schema its JSON content, host, basePath
// and schemes the server, securityDefinitions the security schemes.
func parse2(location string, data []byte) (*Document, error) {
	data = normalize2(data)
	var raw struct {
		Info                info
		Host                string
		BasePath            string
		Schemes             []string
		Consumes            []string
		Produces            []string
		SecurityDefinitions map[string]struct {
			Type        string `json:"type"`
			In          string `json:"in"`
			Name        string `json:"name"`
			Flow        string `json:"flow"`
			TokenURL    string `json:"tokenUrl"`
			Description string `json:"description"`
		}
		Security []map[string][]string
	}
	top := topMembers(data)
	if err := decodeMembers(top, map[string]any{"info": &raw.Info, "host": &raw.Host, "basePath": &raw.BasePath, "schemes": &raw.Schemes,
		"consumes": &raw.Consumes, "produces": &raw.Produces, "securityDefinitions": &raw.SecurityDefinitions, "security": &raw.Security}); err != nil {
		return nil, fmt.Errorf("%s: %v", location, err)
	}
	paths, err := pathItems(location, top)
	if err != nil {
		return nil, err
	}
	doc := &Document{Version: "2.0", Title: raw.Info.Title, Description: raw.Info.Description, APIVersion: raw.Info.Version, Root: data}
	if raw.Host != "" {
		scheme := "https"
		if len(raw.Schemes) > 0 && !slices.Contains(raw.Schemes, "https") {
			scheme = raw.Schemes[0]
		}
		doc.Servers = []string{scheme + "://" + raw.Host + strings.TrimSuffix(raw.BasePath, "/")}
	} else if raw.BasePath != "" && raw.BasePath != "/" {
		doc.Servers = []string{strings.TrimSuffix(raw.BasePath, "/")}
	}
	doc.Security = requirements(raw.Security)
	for _, name := range sortedKeys(raw.SecurityDefinitions) {
		d := raw.SecurityDefinitions[name]
		s := &SecurityScheme{Name: name, Type: d.Type, In: d.In, ParamName: d.Name, Description: d.Description}
		switch d.Type {
		case "basic":
			s.Type, s.Scheme = "http", "basic"
		case "oauth2":
			if d.Flow == "application" {
				s.TokenURL = d.TokenURL
			}
		}
		doc.Schemes = append(doc.Schemes, s)
	}
	r := &resolver{root: data}
	for _, p := range paths {
		path := p.path
		item, itemPath, err := r.resolve(p.item, "/paths/"+escape(path))
		if err != nil {
			doc.Notes = append(doc.Notes, fmt.Sprintf("path %s: %v", path, err))
			continue
		}
		var members map[string]json.RawMessage
		json.Unmarshal(item, &members)
		var common []json.RawMessage
		json.Unmarshal(members["parameters"], &common)
		for _, m := range methods {
			opRaw, ok := members[m]
			if !ok {
				continue
			}
			op, err := r.operation2(strings.ToUpper(m), path, opRaw, itemPath+"/"+m, common, raw.Consumes, raw.Produces)
			if err != nil {
				doc.Notes = append(doc.Notes, fmt.Sprintf("%s %s: %v", strings.ToUpper(m), path, err))
				continue
			}
			doc.Operations = append(doc.Operations, op)
		}
	}
	return doc, nil
}

// param2 is a Swagger 2.0 parameter: a body's schema, or the schema keywords of its own.
type param2 struct {
	Name             string          `json:"name"`
	In               string          `json:"in"`
	Required         bool            `json:"required"`
	Description      string          `json:"description"`
	Schema           json.RawMessage `json:"schema"`
	Type             string          `json:"type"`
	CollectionFormat string          `json:"collectionFormat"`
}

// schemaKeys are the keywords a non-body Swagger 2.0 parameter shares with a schema.
var schemaKeys = []string{"type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
	"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf", "x-nullable"}

func (r *resolver) operation2(method, path string, raw json.RawMessage, pointer string, common []json.RawMessage, consumes, produces []string) (*Operation, error) {
	var o rawOperation
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, err
	}
	op := &Operation{Method: method, Path: path, ID: o.OperationID, Summary: o.Summary, Description: o.Description,
		Tags: o.Tags, Deprecated: o.Deprecated, Pointer: pointer}
	if o.Security != nil {
		op.Security, op.HasSecurity = requirements(*o.Security), true
	}
	if o.Consumes != nil {
		consumes = o.Consumes
	}
	if o.Produces != nil {
		produces = o.Produces
	}
	type entry struct {
		p    param2
		raw  json.RawMessage
		path string
	}
	params := map[string]entry{}
	var order []string
	add := func(list []json.RawMessage, at string) error {
		for i, p := range list {
			pr, ppath, err := r.resolve(p, fmt.Sprintf("%s/parameters/%d", at, i))
			if err != nil {
				return err
			}
			var q param2
			if err := json.Unmarshal(pr, &q); err != nil {
				return err
			}
			key := q.In + "\x00" + q.Name
			if _, ok := params[key]; !ok {
				order = append(order, key)
			}
			params[key] = entry{q, pr, ppath}
		}
		return nil
	}
	var own []json.RawMessage
	json.Unmarshal(raw, &struct {
		P *[]json.RawMessage `json:"parameters"`
	}{&own})
	if err := add(common, strings.TrimSuffix(pointer, "/"+strings.ToLower(method))); err != nil {
		return nil, err
	}
	if err := add(own, pointer); err != nil {
		return nil, err
	}
	var form []entry
	for _, k := range order {
		e := params[k]
		switch e.p.In {
		case "body":
			mt := "application/json"
			if len(consumes) > 0 {
				mt = preferJSON(consumes)
			}
			op.Body = &Body{Required: e.p.Required, Description: e.p.Description, MediaType: mt, Kind: mediaKind(mt),
				Schema: e.p.Schema, SchemaPath: e.path + "/schema"}
		case "formData":
			form = append(form, e)
		default:
			p := &Param{Name: e.p.Name, In: e.p.In, Required: e.p.Required || e.p.In == "path", Description: e.p.Description,
				Schema: schemaOf2(e.raw), SchemaPath: e.path}
			switch e.p.CollectionFormat {
			case "multi":
				p.Style, p.Explode = "form", true
			case "ssv":
				p.Style = "spaceDelimited"
			case "pipes":
				p.Style = "pipeDelimited"
			default: // csv
				p.Style = map[bool]string{true: "form", false: "simple"}[p.In == "query"]
			}
			op.Params = append(op.Params, p)
		}
	}
	if len(form) > 0 {
		// The form's fields as one object schema.
		var props bytes.Buffer
		var required []string
		multipart := slices.ContainsFunc(consumes, func(c string) bool { return mediaKind(c) == BodyMultipart }) &&
			!slices.ContainsFunc(consumes, func(c string) bool { return mediaKind(c) == BodyForm })
		props.WriteByte('{')
		for i, e := range form {
			if i > 0 {
				props.WriteByte(',')
			}
			writeString(&props, e.p.Name)
			props.WriteByte(':')
			props.Write(schemaOf2(e.raw))
			if e.p.Required {
				required = append(required, e.p.Name)
			}
			multipart = multipart || e.p.Type == "file"
		}
		props.WriteByte('}')
		req, _ := json.Marshal(required)
		schema := fmt.Sprintf(`{"type":"object","properties":%s,"required":%s}`, props.String(), req)
		mt := "application/x-www-form-urlencoded"
		if multipart {
			mt = "multipart/form-data"
		}
		op.Body = &Body{Required: len(required) > 0, MediaType: mt, Kind: mediaKind(mt), Schema: json.RawMessage(schema), SchemaPath: pointer + "/x-mcpgen-form"}
	}
	status := successStatus(sortedKeys(o.Responses))
	if status != "" {
		resp, rpath, err := r.resolve(o.Responses[status], pointer+"/responses/"+escape(status))
		if err != nil {
			return nil, err
		}
		var rr struct {
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
		}
		json.Unmarshal(resp, &rr)
		op.Response = &Response{Status: status, Description: rr.Description}
		if rr.Schema != nil {
			mt := "application/json"
			if len(produces) > 0 {
				mt = preferJSON(produces)
			}
			op.Response.MediaType, op.Response.Kind = mt, mediaKind(mt)
			op.Response.Schema, op.Response.SchemaPath = rr.Schema, rpath+"/schema"
		}
	}
	return op, nil
}

// schemaOf2 is the schema of a non-body parameter: its schema keywords; a file is a string
// of binary data.
func schemaOf2(raw json.RawMessage) json.RawMessage {
	var all map[string]json.RawMessage
	json.Unmarshal(raw, &all)
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, k := range schemaKeys {
		v, ok := all[k]
		if !ok {
			continue
		}
		if k == "type" && string(v) == `"file"` {
			v = json.RawMessage(`"string","format":"binary"`)
		}
		if k == "x-nullable" {
			k = "nullable"
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeString(&b, k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// normalize2 rewrites what Swagger 2.0's schemas say otherwise than 3.0's: a discriminator
// is a property's name (3.0: an object naming it), x-nullable is nullable, a file a binary
// string.
func normalize2(data []byte) []byte {
	if !bytes.Contains(data, []byte(`"discriminator"`)) && !bytes.Contains(data, []byte(`"x-nullable"`)) && !bytes.Contains(data, []byte(`"file"`)) {
		return data
	}
	// Member order matters (properties): rewrite the text instead of re-encoding a map.
	var out bytes.Buffer
	rewrite2(&out, json.RawMessage(data))
	return out.Bytes()
}

// rewrite2 writes raw with Swagger 2.0's words replaced, keeping the order of members.
func rewrite2(out *bytes.Buffer, raw json.RawMessage) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '{':
		keys := orderedKeys(raw)
		var m map[string]json.RawMessage
		json.Unmarshal(raw, &m)
		out.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				out.WriteByte(',')
			}
			v := m[k]
			switch {
			case k == "discriminator" && len(bytes.TrimSpace(v)) > 0 && bytes.TrimSpace(v)[0] == '"':
				writeString(out, k)
				out.WriteString(`:{"propertyName":`)
				out.Write(bytes.TrimSpace(v))
				out.WriteByte('}')
				continue
			case k == "x-nullable":
				writeString(out, "nullable")
			case k == "type" && string(bytes.TrimSpace(v)) == `"file"`:
				out.WriteString(`"type":"string","format":"binary"`)
				continue
			default:
				writeString(out, k)
			}
			out.WriteByte(':')
			rewrite2(out, v)
		}
		out.WriteByte('}')
	case len(raw) > 0 && raw[0] == '[':
		var list []json.RawMessage
		json.Unmarshal(raw, &list)
		out.WriteByte('[')
		for i, v := range list {
			if i > 0 {
				out.WriteByte(',')
			}
			rewrite2(out, v)
		}
		out.WriteByte(']')
	default:
		out.Write(raw)
	}
}
