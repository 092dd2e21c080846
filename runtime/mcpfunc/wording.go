package mcpfunc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// What is wrong with a value, worded as generated code words it (gen/internal/schema's
// validate.go, runtime/jsonwire): one line per problem, at its JSON Pointer, so that a tool
// on the quick path and its generated twin say the same mistake the same way:
//
//	/name: missing required property
//	/style: must be one of "formal", "casual"
//	/text: must be at least 1 character long

// problems lists what is wrong with a value, one line per problem, sorted by where. schema
// is the schema it was checked against, and doc the value (as jsonschema.UnmarshalJSON read
// it), for what the wording needs of them: the names an unknown property could have been,
// whether a property is required, a number as written.
func problems(err error, schema string, doc any) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		var lines []string
		var leaves func(e *jsonschema.ValidationError)
		leaves = func(e *jsonschema.ValidationError) {
			if k, ok := e.ErrorKind.(*kind.PropertyNames); ok { // an integer key (schema.go)
				what := "an integer"
				if len(e.Causes) == 1 && strings.Contains(e.Causes[0].ErrorKind.LocalizedString(english), "^[0-9]+$") {
					what = "a non-negative integer"
				}
				lines = append(lines, pointer(append(e.InstanceLocation, k.Property))+": invalid key: must be "+what)
				return
			}
			if len(e.Causes) > 0 {
				for _, c := range e.Causes {
					leaves(c)
				}
				return
			}
			lines = append(lines, worded(e, schema, doc)...)
		}
		leaves(ve)
		slices.Sort(lines) // by where, as the validator's order is its own
		return strings.Join(slices.Compact(withoutNullBranches(lines)), "\n")
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return "/" + strings.ReplaceAll(te.Field, ".", "/") + ": " + strings.TrimPrefix(err.Error(), "json: ")
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// worded is one error of the validator's, as generated code words it: the lines it makes.
func worded(e *jsonschema.ValidationError, schema string, doc any) []string {
	at := pointer(e.InstanceLocation)
	line := func(path, message string) string {
		if path == "" {
			return message
		}
		return path + ": " + message
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		var out []string
		for _, m := range k.Missing {
			out = append(out, line(at+pointer([]string{m}), "missing required property"))
		}
		return out
	case *kind.AdditionalProperties:
		names := propertyNames(schema, e.SchemaURL)
		message := "unknown property; this object has no properties"
		if len(names) > 0 {
			quoted := make([]string, len(names))
			for i, n := range names {
				quoted[i] = strconv.Quote(n)
			}
			message = "unknown property; expected one of " + strings.Join(quoted, ", ")
		}
		var out []string
		for _, p := range k.Properties {
			out = append(out, line(at+pointer([]string{p}), message))
		}
		return out
	case *kind.Type:
		switch {
		case k.Got == "null" && optional(schema, e.SchemaURL, e.InstanceLocation):
			return []string{line(at, "must not be null; leave the property out instead")}
		case k.Got == "number" && slices.Equal(k.Want, []string{"integer"}):
			if n, ok := valueAt(doc, e.InstanceLocation).(json.Number); ok {
				return []string{line(at, "expected integer, got "+n.String())} // as the decoder reads it
			}
		}
	case *kind.MinItems, *kind.MaxItems:
		// A fixed length (an array type's) is one rule.
		if s := schemaAt(schema, e.SchemaURL); s != nil && s["minItems"] != nil && string(s["minItems"]) == string(s["maxItems"]) {
			return []string{line(at, "must have exactly "+counted(atoi(s["minItems"]), "item"))}
		}
	case *kind.Pattern:
		if holding, ok := quotedPatterns[k.Want]; ok { // a field with json's ,string option
			return []string{line(at, "must be a string holding "+holding)}
		}
	}
	return []string{line(at, problemText(e.ErrorKind))}
}

// quotedPatterns are the patterns of values written in a JSON string (json's ,string
// option: see quoted in schema.go), and what generated code says such a string holds.
var quotedPatterns = map[string]string{
	`^-?(0|[1-9][0-9]*)$`: "an integer", `^(0|[1-9][0-9]*)$`: "a non-negative integer", `^(true|false)$`: "true or false",
	`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`:       "a number",
	`^"([^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$`: "a JSON string",
}

// withoutNullBranches drops "expected null" where another problem is at the same place: a
// value that may be null or something else is wrong as the something else, as generated
// code says.
func withoutNullBranches(lines []string) []string {
	out := lines[:0:0]
	for _, l := range lines {
		path, msg, _ := strings.Cut(l, ": ")
		if strings.HasPrefix(msg, "expected null, got ") && slices.ContainsFunc(lines, func(o string) bool {
			return o != l && strings.HasPrefix(o, path+": ") && !strings.Contains(o[len(path)+2:], ": ")
		}) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// problemText is a problem with a value, as generated code says it.
func problemText(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return "expected " + strings.Join(k.Want, " or ") + ", got " + k.Got
	case *kind.Enum:
		values := make([]string, len(k.Want))
		for i, v := range k.Want {
			values[i] = jsonText(v)
		}
		return "must be one of " + strings.Join(values, ", ")
	case *kind.Const:
		return "must be " + jsonText(k.Want)
	case *kind.MinLength:
		return "must be at least " + counted(k.Want, "character") + " long"
	case *kind.MaxLength:
		return "must be at most " + counted(k.Want, "character") + " long"
	case *kind.Pattern:
		return "must match the pattern " + k.Want
	case *kind.Minimum:
		if isFloat32Max(k.Want) {
			return float32Range
		}
		return "must be >= " + number(k.Want)
	case *kind.Maximum:
		if isFloat32Max(k.Want) {
			return float32Range
		}
		return "must be <= " + number(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be > " + number(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be < " + number(k.Want)
	case *kind.MultipleOf:
		return "must be a multiple of " + number(k.Want)
	case *kind.MinItems:
		return bound("at least", k.Want, "item")
	case *kind.MaxItems:
		return bound("at most", k.Want, "item")
	case *kind.MinProperties:
		return bound("at least", k.Want, "property")
	case *kind.MaxProperties:
		return bound("at most", k.Want, "property")
	case *kind.UniqueItems:
		return fmt.Sprintf("must not contain duplicates; items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	}
	return k.LocalizedString(english)
}

// float32Range is what generated code says of a float32 beyond its type's range.
const float32Range = "must be between -3.4028234663852886e+38 and 3.4028234663852886e+38"

// isFloat32Max says whether a limit is the largest float32, or its negative.
func isFloat32Max(r *big.Rat) bool {
	f, _ := r.Float64()
	return math.Abs(f) == math.MaxFloat32
}

func bound(how string, n int, noun string) string { return "must have " + how + " " + counted(n, noun) }

// counted is n things: "1 character", "2 characters", "3 properties".
func counted(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case noun == "property":
		return strconv.Itoa(n) + " properties"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// number is a limit as a schema writes it: 3, 0.5, 1e+30.
func number(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// jsonText is a value as JSON: "formal", 3, true.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// propertyNames are the properties, in the schema's order, of the object schema at url,
// whose additionalProperties refused one.
func propertyNames(schema, url string) []string {
	s := schemaAt(schema, url)
	if s == nil {
		return nil
	}
	return keys(s["properties"])
}

// optional says whether the value at location, whose schema is at url
// (mem://x.json#/.../properties/NAME), is a property its object does not require.
func optional(schema, url string, location []string) bool {
	if len(location) == 0 {
		return false
	}
	name := location[len(location)-1]
	parent, ok := strings.CutSuffix(url, "/properties"+pointer([]string{name}))
	s := schemaAt(schema, parent)
	if !ok || s == nil {
		return false
	}
	var required []string
	json.Unmarshal(s["required"], &required)
	return !slices.Contains(required, name)
}

// schemaAt is the object of the schema at a URL's fragment (a JSON Pointer into schema).
func schemaAt(schema, url string) map[string]json.RawMessage {
	_, fragment, ok := strings.Cut(url, "#")
	if !ok {
		return nil
	}
	raw := json.RawMessage(schema)
	if fragment != "" {
		for _, token := range strings.Split(strings.TrimPrefix(fragment, "/"), "/") {
			token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return nil
			}
			if raw, ok = obj[token]; !ok {
				return nil
			}
		}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj
}

// valueAt is the value at location in doc, or nil.
func valueAt(doc any, location []string) any {
	for _, token := range location {
		switch v := doc.(type) {
		case map[string]any:
			doc = v[token]
		case []any:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

func atoi(raw json.RawMessage) int {
	n, _ := strconv.Atoi(string(raw))
	return n
}

// keys are an object's keys, in the order written.
func keys(object json.RawMessage) []string {
	d := json.NewDecoder(bytes.NewReader(object))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []string
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return out
		}
		out = append(out, t.(string))
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return out
		}
	}
	return out
}
