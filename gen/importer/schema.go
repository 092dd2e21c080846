package importer

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// schema is the part of a JSON Schema the mapping reads.
type schema struct {
	Ref                  string                     `json:"$ref"`
	Type                 json.RawMessage            `json:"type"`
	Format               string                     `json:"format"`
	ContentEncoding      string                     `json:"contentEncoding"`
	Title                string                     `json:"title"`
	Description          string                     `json:"description"`
	Enum                 []json.RawMessage          `json:"enum"`
	Const                json.RawMessage            `json:"const"`
	Default              json.RawMessage            `json:"default"`
	Properties           map[string]json.RawMessage `json:"properties"`
	Required             []string                   `json:"required"`
	Items                json.RawMessage            `json:"items"`
	AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	OneOf                []json.RawMessage          `json:"oneOf"`
	AnyOf                []json.RawMessage          `json:"anyOf"`
	AllOf                []json.RawMessage          `json:"allOf"`
	// OpenAPI's words, which schemas derived from an OpenAPI document keep.
	Nullable      bool           `json:"nullable"` // OpenAPI 3.0: null too, as "type": [T, "null"]
	Discriminator *discriminator `json:"discriminator"`
	ReadOnly      bool           `json:"readOnly"`  // the server sets it: callers do not send it
	WriteOnly     bool           `json:"writeOnly"` // callers send it: the server never returns it

	order []string // the properties, in the order the schema wrote them
}

// discriminator names the property whose value tells the branches of a oneOf or anyOf apart,
// and (mapping) which branch each value chooses: a $ref, or the name of a schema.
type discriminator struct {
	PropertyName string            `json:"propertyName"`
	Mapping      map[string]string `json:"mapping"`
}

func parseSchema(raw json.RawMessage) (*schema, error) {
	var s schema
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "true" {
		return &s, nil
	}
	if s.read(raw) {
		return &s, nil
	}
	s = schema{}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if len(s.Properties) > 0 {
		var holder struct {
			Properties json.RawMessage `json:"properties"`
		}
		json.Unmarshal(raw, &holder)
		s.order = objectKeys(holder.Properties)
	}
	return &s, nil
}

// read reads the schema's members as json.Unmarshal would (see members), and says whether
// it could: false for what it leaves to json.Unmarshal (a member written twice, a key in
// other capitals than the field's, a value not of the field's type).
func (s *schema) read(raw []byte) bool {
	seen := map[string]bool{}
	return members(raw, func(key string, v []byte) bool {
		if seen[key] {
			return false
		}
		seen[key] = true
		null := string(v) == "null"
		switch key {
		case "$ref":
			return null || readString(v, &s.Ref)
		case "type":
			s.Type = v
		case "format":
			return null || readString(v, &s.Format)
		case "contentEncoding":
			return null || readString(v, &s.ContentEncoding)
		case "title":
			return null || readString(v, &s.Title)
		case "description":
			return null || readString(v, &s.Description)
		case "enum":
			return null || rawList(v, &s.Enum)
		case "const":
			s.Const = v
		case "default":
			s.Default = v
		case "properties":
			if null {
				return true
			}
			s.Properties = map[string]json.RawMessage{}
			return members(v, func(k string, p []byte) bool {
				if _, twice := s.Properties[k]; twice {
					return false
				}
				s.Properties[k] = p
				s.order = append(s.order, k)
				return true
			})
		case "required":
			if null {
				return true
			}
			s.Required = []string{} // [] is not null
			return elements(v, func(e []byte) bool {
				var r string
				ok := readString(e, &r)
				s.Required = append(s.Required, r)
				return ok
			})
		case "items":
			s.Items = v
		case "additionalProperties":
			s.AdditionalProperties = v
		case "oneOf":
			return null || rawList(v, &s.OneOf)
		case "anyOf":
			return null || rawList(v, &s.AnyOf)
		case "allOf":
			return null || rawList(v, &s.AllOf)
		case "nullable":
			return readBool(v, &s.Nullable)
		case "readOnly":
			return readBool(v, &s.ReadOnly)
		case "writeOnly":
			return readBool(v, &s.WriteOnly)
		case "discriminator":
			return json.Unmarshal(v, &s.Discriminator) == nil
		default:
			// encoding/json matches a field's name in any capitals.
			for _, k := range schemaKeys {
				if strings.EqualFold(key, k) {
					return false
				}
			}
		}
		return true
	})
}

// schemaKeys are the members schema reads.
var schemaKeys = []string{"$ref", "type", "format", "contentEncoding", "title", "description", "enum", "const", "default", "properties",
	"required", "items", "additionalProperties", "oneOf", "anyOf", "allOf", "nullable", "discriminator", "readOnly", "writeOnly"}

// rawList reads an array's elements; [] is an empty list, not nil, as json.Unmarshal has it.
func rawList(v []byte, into *[]json.RawMessage) bool {
	*into = []json.RawMessage{}
	return elements(v, func(e []byte) bool { *into = append(*into, e); return true })
}

func readString(v []byte, into *string) bool {
	s, ok := jsonString(v)
	*into = s
	return ok
}

func readBool(v []byte, into *bool) bool {
	switch string(v) {
	case "true":
		*into = true
	case "false":
		*into = false
	case "null":
	default:
		return false
	}
	return true
}

// ObjectKeys is the keys of the object member of raw (a JSON object), in the order they are
// written: the order of a schema's properties.
func ObjectKeys(raw json.RawMessage, member string) []string {
	var holder map[string]json.RawMessage
	if json.Unmarshal(raw, &holder) != nil {
		return nil
	}
	return objectKeys(holder[member])
}

// Keys is the keys of a JSON object in the order they are written.
func Keys(raw json.RawMessage) []string { return objectKeys(raw) }

// Members calls yield with each member of the JSON object raw, in order, without decoding
// it (see members); false when raw is not an object it could read to its end.
func Members(raw []byte, yield func(key string, value []byte) bool) bool { return members(raw, yield) }

// objectKeys is the keys of a JSON object in the order they are written.
func objectKeys(raw json.RawMessage) []string {
	var keys []string
	if members(raw, func(k string, _ []byte) bool { keys = append(keys, k); return true }) {
		return keys
	}
	keys = nil
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// types is the schema's type keyword as a list, and whether it admits null: in the list, or
// by OpenAPI 3.0's "nullable": true.
func (s *schema) types() (types []string, null bool) {
	types, null = s.typeList()
	return types, null || s.Nullable
}

// required says whether an object's property is required of what a client sends and reads
// alike: listed in required, and neither readOnly nor writeOnly (OpenAPI requires a read-only
// property of responses only, a write-only one of requests only; one Go type serves both).
func (s *schema) required(key string) bool {
	if !slices.Contains(s.Required, key) {
		return false
	}
	ps, err := parseSchema(s.Properties[key])
	return err != nil || !ps.ReadOnly && !ps.WriteOnly
}

// typeList is the type keyword as a list, and whether null is in it.
func (s *schema) typeList() (types []string, null bool) {
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		types = []string{one}
	} else {
		json.Unmarshal(s.Type, &types)
	}
	if i := slices.Index(types, "null"); i >= 0 {
		return slices.Delete(slices.Clone(types), i, i+1), true
	}
	return types, false
}

// shapeless says whether a schema only constrains a value without saying what it is (no type,
// properties, items, $ref, const or enum; {"required": ["phone"]}, {"minLength": 1}): a
// oneOf, anyOf or allOf of such schemas leaves the Go type as the rest of the schema makes it,
// and the server checks the constraint.
func shapeless(raw json.RawMessage) bool {
	s, err := parseSchema(raw)
	if err != nil {
		return false
	}
	if s.Ref != "" || len(s.Type) > 0 || len(s.Properties) > 0 || len(s.Items) > 0 || len(s.Enum) > 0 || len(s.Const) > 0 || len(s.AdditionalProperties) > 0 {
		return false
	}
	for _, sub := range slices.Concat(s.OneOf, s.AnyOf, s.AllOf) {
		if !shapeless(sub) {
			return false
		}
	}
	return true
}

// allShapeless says whether every schema of a composition is shapeless.
func allShapeless(alts []json.RawMessage) bool {
	for _, a := range alts {
		if !shapeless(a) {
			return false
		}
	}
	return true
}

// isNull says whether the schema allows null alone.
func isNull(s *schema) bool {
	types, null := s.typeList() // {"nullable": true} alone is anything or null
	switch {
	case null && len(types) == 0:
		return true
	case string(bytes.TrimSpace(s.Const)) == "null":
		return true
	}
	return len(s.Enum) == 1 && string(bytes.TrimSpace(s.Enum[0])) == "null"
}

// fixedValue is the one string a schema allows (const, or an enum of one value), if so.
func fixedValue(s *schema) (string, bool) {
	raw := s.Const
	if len(raw) == 0 && len(s.Enum) == 1 {
		raw = s.Enum[0]
	}
	var v string
	if !isString(raw) || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// splitTypes makes one schema per type of a type list: the schema with that type alone.
func splitTypes(raw json.RawMessage, types []string) []json.RawMessage {
	var members map[string]json.RawMessage
	json.Unmarshal(raw, &members)
	var out []json.RawMessage
	for _, t := range types {
		members["type"], _ = json.Marshal(t)
		one, _ := json.Marshal(members)
		out = append(out, one)
	}
	return out
}

func allStrings(vals []json.RawMessage) bool {
	for _, v := range vals {
		if !isString(v) {
			return false
		}
	}
	return true
}

func isString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// kindOf is the JSON type a schema of one type allows ("" for any).
func kindOf(s *schema) string {
	types, _ := s.types()
	switch {
	case len(types) == 1:
		return types[0]
	case len(s.Properties) > 0:
		return "object"
	case len(s.Enum) > 0 && allStrings(s.Enum), isString(s.Const):
		return "string"
	}
	return ""
}
