package schema

import (
	"bytes"
	"encoding/json"
)

// RenderForm writes the requested schema of an elicitation form: the flat subset of JSON
// Schema the protocol allows, an object of strings, numbers, booleans and enums. The
// generator has checked that the struct fits it. Enums whose values have titles (from their
// constants' comments) become titled selects: oneOf for one value, items.anyOf for several.
func RenderForm(t *Type) []byte {
	root := ordered{{"type", "object"}}
	props := ordered{}
	var required []any
	for _, f := range t.Object.Fields {
		props.add(f.Name, formField(f))
		if f.Required {
			required = append(required, f.Name)
		}
	}
	root.add("properties", props)
	if len(required) > 0 {
		root.add("required", required)
	}
	var compact, out bytes.Buffer
	root.write(&compact)
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		panic("schema: rendered invalid JSON: " + err.Error())
	}
	return out.Bytes()
}

func formField(f *Field) ordered {
	t := f.Type.Deref()
	rl := &t.Rules
	o := ordered{}
	switch t.Kind {
	case Slice:
		o.add("type", "array")
	case Text:
		o.add("type", "string")
	default:
		o.add("type", jsonType[t.Kind])
	}
	if rl.Title != "" {
		o.add("title", rl.Title)
	}
	if desc := Description(f); desc != "" {
		o.add("description", desc)
	}
	switch t.Kind {
	case String, Text:
		if len(rl.Enum) > 0 {
			if t.EnumTitles != nil {
				o.add("oneOf", titledOptions(t))
			} else {
				o.add("enum", values(rl.Enum))
			}
		}
		if rl.Format != "" {
			o.add("format", rl.Format)
		}
		addCount(&o, "minLength", rl.MinLength)
		addCount(&o, "maxLength", rl.MaxLength)
	case Int, Uint, Float:
		if rl.Minimum != nil {
			o.add("minimum", rl.Minimum)
		}
		if rl.Maximum != nil {
			o.add("maximum", rl.Maximum)
		}
	case Slice:
		addCount(&o, "minItems", rl.MinItems)
		addCount(&o, "maxItems", rl.MaxItems)
		if t.Elem.EnumTitles != nil {
			o.add("items", ordered{{"anyOf", titledOptions(t.Elem)}})
		} else {
			o.add("items", ordered{{"type", "string"}, {"enum", values(t.Elem.Rules.Enum)}})
		}
	}
	if rl.Default != nil {
		o.add("default", rawJSON(rl.Default.JSON))
	}
	if rl.Defaults != nil {
		o.add("default", values(rl.Defaults))
	}
	for _, x := range rl.Extras {
		o.add(x.Key, x.Value) // enumNames, for the legacy titled enum
	}
	return o
}

func titledOptions(t *Type) []any {
	opts := make([]any, len(t.Rules.Enum))
	for i, v := range t.Rules.Enum {
		opts[i] = ordered{{"const", rawJSON(v.JSON)}, {"title", t.EnumTitles[i]}}
	}
	return opts
}

func addCount(o *ordered, key string, n *uint64) {
	if n != nil {
		o.add(key, *n)
	}
}
