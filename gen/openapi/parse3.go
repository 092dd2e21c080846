package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/importer"
)

// parse3 reads an OpenAPI 3.0 or 3.1 document.
func parse3(location string, data []byte, top map[string]json.RawMessage, version string) (*Document, error) {
	var raw struct {
		Info    info
		Servers []struct {
			URL       string `json:"url"`
			Variables map[string]struct {
				Default string `json:"default"`
			} `json:"variables"`
		}
		SecuritySchemes map[string]json.RawMessage
		Security        []map[string][]string
	}
	components := map[string]json.RawMessage{}
	importer.Members(top["components"], func(k string, v []byte) bool { components[k] = v; return true })
	if err := decodeMembers(top, map[string]any{"info": &raw.Info, "servers": &raw.Servers, "security": &raw.Security}); err != nil {
		return nil, fmt.Errorf("%s: %v", location, err)
	}
	if err := decodeMembers(components, map[string]any{"securitySchemes": &raw.SecuritySchemes}); err != nil {
		return nil, fmt.Errorf("%s: components: %v", location, err)
	}
	doc := &Document{Version: version, Title: raw.Info.Title, Description: raw.Info.Description, APIVersion: raw.Info.Version, Root: data}
	for _, s := range raw.Servers {
		doc.Servers = append(doc.Servers, serverURL(s.URL, s.Variables))
	}
	doc.Security = requirements(raw.Security)
	r := &resolver{root: data}
	for _, name := range sortedKeys(raw.SecuritySchemes) {
		obj, _, err := r.resolve(raw.SecuritySchemes[name], "")
		if err != nil {
			doc.Notes = append(doc.Notes, fmt.Sprintf("security scheme %s: %v", name, err))
			continue
		}
		var s struct {
			Type        string `json:"type"`
			In          string `json:"in"`
			Name        string `json:"name"`
			Scheme      string `json:"scheme"`
			Description string `json:"description"`
			Flows       struct {
				ClientCredentials *struct {
					TokenURL string `json:"tokenUrl"`
				} `json:"clientCredentials"`
			} `json:"flows"`
		}
		json.Unmarshal(obj, &s)
		sc := &SecurityScheme{Name: name, Type: s.Type, In: s.In, ParamName: s.Name, Scheme: strings.ToLower(s.Scheme), Description: s.Description}
		if cc := s.Flows.ClientCredentials; cc != nil {
			sc.TokenURL = cc.TokenURL
		}
		doc.Schemes = append(doc.Schemes, sc)
	}
	paths, err := pathItems(location, top)
	if err != nil {
		return nil, err
	}
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
			op, err := r.operation3(doc, strings.ToUpper(m), path, opRaw, itemPath+"/"+m, common)
			if err != nil {
				doc.Notes = append(doc.Notes, fmt.Sprintf("%s %s: %v", strings.ToUpper(m), path, err))
				continue
			}
			doc.Operations = append(doc.Operations, op)
		}
	}
	return doc, nil
}

// pathItem is a member of the document's paths.
type pathItem struct {
	path string
	item json.RawMessage
}

// pathItems are the document's paths, in the order written.
func pathItems(location string, top map[string]json.RawMessage) ([]pathItem, error) {
	var paths []pathItem
	read := importer.Members(top["paths"], func(k string, v []byte) bool {
		paths = append(paths, pathItem{k, v})
		return true
	})
	if p, ok := top["paths"]; ok && !read && string(p) != "null" {
		return nil, fmt.Errorf("%s: paths: not an object", location)
	}
	return paths, nil
}

func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (r *resolver) operation3(doc *Document, method, path string, raw json.RawMessage, pointer string, common []json.RawMessage) (*Operation, error) {
	var o rawOperation
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, err
	}
	op := &Operation{Method: method, Path: path, ID: o.OperationID, Summary: o.Summary, Description: o.Description,
		Tags: o.Tags, Deprecated: o.Deprecated, Pointer: pointer}
	if o.Security != nil {
		op.Security, op.HasSecurity = requirements(*o.Security), true
	}
	// Parameters: the path item's, unless the operation has one of the same name and place.
	var own []json.RawMessage
	json.Unmarshal(raw, &struct {
		P *[]json.RawMessage `json:"parameters"`
	}{&own})
	params := map[string]*Param{}
	var order []string
	add := func(list []json.RawMessage, at string) error {
		for i, p := range list {
			pr, ppath, err := r.resolve(p, fmt.Sprintf("%s/parameters/%d", at, i))
			if err != nil {
				return err
			}
			var q struct {
				Name        string                     `json:"name"`
				In          string                     `json:"in"`
				Required    bool                       `json:"required"`
				Description string                     `json:"description"`
				Deprecated  bool                       `json:"deprecated"`
				Schema      json.RawMessage            `json:"schema"`
				Content     map[string]json.RawMessage `json:"content"`
				Style       string                     `json:"style"`
				Explode     *bool                      `json:"explode"`
			}
			if err := json.Unmarshal(pr, &q); err != nil {
				return err
			}
			param := &Param{Name: q.Name, In: q.In, Required: q.Required || q.In == "path", Description: q.Description,
				Deprecated: q.Deprecated, Schema: q.Schema, SchemaPath: ppath + "/schema", Style: q.Style}
			if q.Schema == nil {
				// A parameter of content: its one media type's schema (JSON in a query string).
				for _, mt := range sortedKeys(q.Content) {
					var m struct {
						Schema json.RawMessage `json:"schema"`
					}
					json.Unmarshal(q.Content[mt], &m)
					param.Schema, param.SchemaPath = m.Schema, ppath+"/content/"+escape(mt)+"/schema"
					break
				}
			}
			if param.Schema == nil {
				param.Schema, param.SchemaPath = json.RawMessage(`{"type":"string"}`), ppath+"/x-mcpgen-string"
			}
			if param.Style == "" {
				param.Style = map[string]string{"query": "form", "cookie": "form"}[param.In]
				if param.Style == "" {
					param.Style = "simple"
				}
			}
			param.Explode = param.Style == "form"
			if q.Explode != nil {
				param.Explode = *q.Explode
			}
			key := param.In + "\x00" + param.Name
			if _, ok := params[key]; !ok {
				order = append(order, key)
			}
			params[key] = param
		}
		return nil
	}
	if err := add(common, strings.TrimSuffix(pointer, "/"+strings.ToLower(method))); err != nil {
		return nil, err
	}
	if err := add(own, pointer); err != nil {
		return nil, err
	}
	for _, k := range order {
		op.Params = append(op.Params, params[k])
	}
	if o.RequestBody != nil {
		body, bpath, err := r.resolve(o.RequestBody, pointer+"/requestBody")
		if err != nil {
			return nil, err
		}
		var b struct {
			Required    bool                       `json:"required"`
			Description string                     `json:"description"`
			Content     map[string]json.RawMessage `json:"content"`
		}
		json.Unmarshal(body, &b)
		if len(b.Content) > 0 {
			mt := preferJSON(sortedKeys(b.Content))
			var m struct {
				Schema json.RawMessage `json:"schema"`
			}
			json.Unmarshal(b.Content[mt], &m)
			op.Body = &Body{Required: b.Required, Description: b.Description, MediaType: mt, Kind: mediaKind(mt),
				Schema: m.Schema, SchemaPath: bpath + "/content/" + escape(mt) + "/schema"}
		}
	}
	status := successStatus(sortedKeys(o.Responses))
	if status != "" {
		resp, rpath, err := r.resolve(o.Responses[status], pointer+"/responses/"+escape(status))
		if err != nil {
			return nil, err
		}
		var rr struct {
			Description string                     `json:"description"`
			Content     map[string]json.RawMessage `json:"content"`
		}
		json.Unmarshal(resp, &rr)
		op.Response = &Response{Status: status, Description: rr.Description}
		if len(rr.Content) > 0 {
			mt := preferJSON(sortedKeys(rr.Content))
			var m struct {
				Schema json.RawMessage `json:"schema"`
			}
			json.Unmarshal(rr.Content[mt], &m)
			op.Response.MediaType, op.Response.Kind = mt, mediaKind(mt)
			op.Response.Schema, op.Response.SchemaPath = m.Schema, rpath+"/content/"+escape(mt)+"/schema"
		}
	}
	return op, nil
}
