// Package outcheck checks a tool's structured content against its output schema, compiled
// once into a tree that reads the content's tokens as they come, with no allocation: the
// check mcpgen's client runs on every call's result.
package outcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// A client checks a tool's structured content against its output schema on every call. The
// general validator (santhosh-tekuri/jsonschema) first decodes the content into a tree of
// any and then interprets the schema over it: hundreds of allocations a call. Check is
// the same schema compiled once into a tree of nodes that reads the content's tokens as they
// come, with no allocation, for the keywords tool schemas use (those mcpgen generates, and
// most others): type, properties, required, additionalProperties, maxProperties, items,
// prefixItems, minItems, maxItems, enum, const (of scalars), minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, allOf, anyOf and $ref to
// a JSON Pointer of the same document; annotations are ignored, as the general validator
// ignores them. A schema with any other keyword is not compiled, and the general validator
// checks every result.
//
// The compiled check only ever says "valid" when the general validator would: whatever it
// cannot decide exactly (a number compared with a bound or an enum that has an exponent or
// more than 15 significant digits, an integer written with an exponent, a string that is not
// UTF-8, a value nested too deep, malformed JSON) it reports as not
// valid, and the client then asks the general validator, whose verdict and message stand.
// So a valid result costs the compiled walk alone, and an invalid one is reported exactly
// as before. Keywords whose verdict a "not valid" that means "cannot tell" would turn
// around (oneOf, not), and minProperties (a duplicate key, which the general validator
// counts once, would be counted twice) are left out for that reason. FuzzOutputCheck checks
// the compiled check against the general validator.

// Check is one tool's output schema, compiled.
type Check struct{ root *schemaNode }

// schemaNode is one schema of the document, compiled.
type schemaNode struct {
	// always is set for the boolean schemas: true allows everything, false nothing.
	always *bool
	// types are the JSON types allowed (typeBit), 0 for any; integer is its own bit.
	types uint8

	props    map[string]*schemaNode
	required map[string]int // property -> its bit in the mask of required properties
	addl     *schemaNode    // additionalProperties; nil allows any
	maxProps int            // -1: no bound

	prefix   []*schemaNode
	items    *schemaNode // nil allows any
	minItems int
	maxItems int

	minLen  int
	maxLen  int
	pattern *regexp.Regexp

	min, max, exMin, exMax *float64

	enum []scalar // nil: no enum (const is an enum of one)

	ref          *schemaNode
	allOf, anyOf []*schemaNode
}

// scalar is a value of an enum or a const: a string, a number, a boolean or null.
type scalar struct {
	kind jsonwire.Kind
	s    string
	f    float64
	b    bool
}

const (
	typeNull uint8 = 1 << iota
	typeBool
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{"null": typeNull, "boolean": typeBool, "number": typeNumber | typeInteger,
	"integer": typeInteger, "string": typeString, "array": typeArray, "object": typeObject}

// annotations are the keywords that do not constrain values (for the general validator, as
// configured: format is not asserted).
var annotations = map[string]bool{"title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true, "format": true,
	"contentMediaType": true, "contentEncoding": true, "$defs": true, "definitions": true, "$anchor": true}

// maxCheckDepth bounds the nesting the compiled check follows (values, and $ref to $ref):
// deeper, it leaves the verdict to the general validator.
const maxCheckDepth = 64

var errUnsupported = errors.New("a keyword the compiled check does not implement")

// Compile compiles an output schema, or returns an error if it uses what the
// compiled check does not implement (the general validator then checks every result).
func Compile(schema []byte) (*Check, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	c := &schemaCompiler{doc: doc, refs: map[string]*schemaNode{}}
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"]; ok && s != "https://json-schema.org/draft/2020-12/schema" && s != "https://json-schema.org/draft/2020-12/schema#" {
			return nil, fmt.Errorf("$schema %v: %w", s, errUnsupported)
		}
	}
	root, err := c.node(doc, true)
	if err != nil {
		return nil, err
	}
	return &Check{root: root}, nil
}

type schemaCompiler struct {
	doc  any
	refs map[string]*schemaNode // by JSON Pointer, so that recursive schemas compile once
}

func (c *schemaCompiler) node(v any, root bool) (*schemaNode, error) {
	switch v := v.(type) {
	case bool:
		return &schemaNode{always: &v}, nil
	case map[string]any:
		n := &schemaNode{maxProps: -1, maxItems: -1, maxLen: -1}
		return n, c.fill(n, v, root)
	}
	return nil, errors.New("a schema is an object or a boolean")
}

func (c *schemaCompiler) fill(n *schemaNode, m map[string]any, root bool) error {
	var err error
	for key, v := range m {
		switch {
		case annotations[key] || strings.HasPrefix(key, "x-"):
		case key == "$schema" || key == "$id":
			if !root {
				return fmt.Errorf("%s below the root: %w", key, errUnsupported)
			}
		case key == "type":
			err = n.setTypes(v)
		case key == "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return errors.New("properties is not an object")
			}
			n.props = make(map[string]*schemaNode, len(props))
			for name, s := range props {
				if n.props[name], err = c.node(s, false); err != nil {
					return err
				}
			}
		case key == "required":
			list, ok := v.([]any)
			if !ok || len(list) > 64 {
				return fmt.Errorf("required: %w", errUnsupported)
			}
			n.required = make(map[string]int, len(list))
			for _, name := range list {
				s, ok := name.(string)
				if !ok {
					return errors.New("required lists a name that is not a string")
				}
				if _, dup := n.required[s]; !dup {
					n.required[s] = len(n.required)
				}
			}
		case key == "additionalProperties":
			n.addl, err = c.node(v, false)
		case key == "items":
			n.items, err = c.node(v, false)
		case key == "prefixItems":
			n.prefix, err = c.list(v)
		case key == "allOf":
			n.allOf, err = c.list(v)
		case key == "anyOf":
			n.anyOf, err = c.list(v)
		case key == "$ref":
			n.ref, err = c.ref(v)
		case key == "enum":
			list, ok := v.([]any)
			if !ok {
				return errors.New("enum is not an array")
			}
			n.enum = make([]scalar, 0, len(list))
			for _, e := range list {
				s, err := toScalar(e)
				if err != nil {
					return err
				}
				n.enum = append(n.enum, s)
			}
		case key == "const":
			var s scalar
			s, err = toScalar(v)
			n.enum = []scalar{s}
		case key == "minimum":
			n.min, err = schemaBound(v)
		case key == "maximum":
			n.max, err = schemaBound(v)
		case key == "exclusiveMinimum":
			n.exMin, err = schemaBound(v)
		case key == "exclusiveMaximum":
			n.exMax, err = schemaBound(v)
		case key == "minLength":
			n.minLen, err = schemaCount(v)
		case key == "maxLength":
			n.maxLen, err = schemaCount(v)
		case key == "minItems":
			n.minItems, err = schemaCount(v)
		case key == "maxItems":
			n.maxItems, err = schemaCount(v)
		case key == "maxProperties":
			n.maxProps, err = schemaCount(v)
		case key == "pattern":
			s, ok := v.(string)
			if !ok {
				return errors.New("pattern is not a string")
			}
			n.pattern, err = regexp.Compile(s)
		default:
			return fmt.Errorf("%s: %w", key, errUnsupported)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (n *schemaNode) setTypes(v any) error {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	for _, name := range names {
		s, _ := name.(string)
		bit, ok := typeBits[s]
		if !ok {
			return fmt.Errorf("type %v is not a JSON Schema type", name)
		}
		n.types |= bit
	}
	return nil
}

func (c *schemaCompiler) list(v any) ([]*schemaNode, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, errors.New("a list of schemas is a non-empty array")
	}
	nodes := make([]*schemaNode, len(list))
	for i, s := range list {
		var err error
		if nodes[i], err = c.node(s, false); err != nil {
			return nil, err
		}
	}
	return nodes, nil
}

// ref compiles a $ref to a JSON Pointer within the document ("#", "#/$defs/a").
func (c *schemaCompiler) ref(v any) (*schemaNode, error) {
	s, _ := v.(string)
	if s != "#" && !strings.HasPrefix(s, "#/") || strings.Contains(s, "%") {
		return nil, fmt.Errorf("$ref %q: %w", s, errUnsupported)
	}
	if n := c.refs[s]; n != nil {
		return n, nil
	}
	target := c.doc
	if s != "#" {
		for _, tok := range strings.Split(s[2:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch t := target.(type) {
			case map[string]any:
				target = t[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(t) {
					return nil, fmt.Errorf("$ref %q points at nothing", s)
				}
				target = t[i]
			default:
				return nil, fmt.Errorf("$ref %q points at nothing", s)
			}
		}
	}
	switch t := target.(type) {
	case bool:
		n := &schemaNode{always: &t}
		c.refs[s] = n
		return n, nil
	case map[string]any:
		// Registered before it is filled in: a schema that refers to itself gets this node.
		n := &schemaNode{maxProps: -1, maxItems: -1, maxLen: -1}
		c.refs[s] = n
		return n, c.fill(n, t, s == "#")
	}
	return nil, fmt.Errorf("$ref %q points at nothing", s)
}

func toScalar(v any) (scalar, error) {
	switch v := v.(type) {
	case nil:
		return scalar{kind: jsonwire.Null}, nil
	case bool:
		return scalar{kind: jsonwire.Bool, b: v}, nil
	case string:
		return scalar{kind: jsonwire.String, s: v}, nil
	case json.Number:
		f, ok := exactFloat([]byte(v))
		if !ok {
			return scalar{}, fmt.Errorf("the number %s: %w", v, errUnsupported)
		}
		return scalar{kind: jsonwire.Number, f: f}, nil
	}
	return scalar{}, fmt.Errorf("an enum or const of objects or arrays: %w", errUnsupported)
}

func schemaBound(v any) (*float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, errors.New("a bound is a number")
	}
	f, ok := exactFloat([]byte(n))
	if !ok {
		return nil, fmt.Errorf("the bound %s: %w", n, errUnsupported)
	}
	return &f, nil
}

func schemaCount(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, errors.New("a count is a number")
	}
	i, err := strconv.Atoi(string(n))
	if err != nil || i < 0 {
		return 0, fmt.Errorf("the count %s: %w", n, errUnsupported)
	}
	return i, nil
}

// exactFloat parses a JSON number that compares exactly as a float64: no exponent, at most
// 15 significant digits and 24 bytes, so that two such numbers compare as floats as they do
// as decimals (any two of them that differ are different float64s, in the same order).
func exactFloat(tok []byte) (float64, bool) {
	if len(tok) > 24 {
		return 0, false
	}
	digits := 0
	for _, c := range tok {
		switch {
		case c == 'e' || c == 'E':
			return 0, false
		case c >= '1' && c <= '9', c == '0' && digits > 0:
			digits++
		}
	}
	if digits > 15 {
		return 0, false
	}
	var d jsonwire.Decoder
	d.Reset(tok)
	f, ok := d.Float(64)
	return f, ok && !math.IsInf(f, 0)
}

// integral reports whether a number's token (with no exponent) is an integer: no fraction,
// or one of zeros.
func integral(tok []byte) bool {
	i := bytes.IndexByte(tok, '.')
	if i < 0 {
		return true
	}
	for _, c := range tok[i+1:] {
		if c != '0' {
			return false
		}
	}
	return true
}
