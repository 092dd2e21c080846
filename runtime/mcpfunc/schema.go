package mcpfunc

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/invopop/jsonschema"
)

// The JSON Schema of a Go type, derived at run time for AddTool: invopop/jsonschema's
// reflector, in the tag dialect mcpgen's generator reads (json names and omitempty,
// jsonschema:"minimum=1,enum=a,description=..."), made to say what the generator says of
// the same type where the type alone tells (golden/zoo's oracle test lists the
// differences; AddTool's test holds it to the generated schemas), and what encoding/json,
// which decodes and encodes AddTool's values, accepts and writes:
//
//   - no $schema or $id; schemas inline, with $defs only for recursive types;
//   - integers narrower than 64 bits carry their type's range, unsigned ones a minimum of 0,
//     float32 its range (encoding/json refuses what does not fit);
//   - pointer fields are optional unless tagged jsonschema:"required";
//   - a json.Number is a number, a type with its own text form (encoding.TextUnmarshaler,
//     such as netip.Addr) a string, a value of any type {} rather than true;
//   - a field with json's ,string option is a string holding the value, with a pattern;
//   - a map with integer keys says so with propertyNames;
//   - in an output schema, what encoding/json writes as null (a nil slice, map or pointer
//     without omitempty) may be null.
//
// Unlike generated schemas, there are no descriptions from doc comments (a running program
// has none: use jsonschema:"description=..."), no enums from a type's constants (use
// jsonschema:"enum=..."), and a time.Duration is an integer of nanoseconds, as
// encoding/json has it.

// funcSchema returns the schema of t, the input or the output of a tool.
func funcSchema(t reflect.Type, output bool) (schema string, err error) {
	defer func() {
		if v := recover(); v != nil { // invopop panics on types it cannot describe
			err = fmt.Errorf("%v", v)
		}
	}()
	names := map[string]reflect.Type{}
	r := &jsonschema.Reflector{
		Anonymous: true,
		Mapper:    specialSchema,
		// Definitions are named by the type, made unique and safe in a JSON Pointer.
		Namer: func(t reflect.Type) string {
			if t.Name() == "" {
				return "" // not defined, but described where it is used
			}
			base := strings.Map(func(r rune) rune {
				if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
					return r
				}
				return '_'
			}, t.Name())
			name := base
			for i := 2; names[name] != nil && names[name] != t; i++ {
				name = base + strconv.Itoa(i)
			}
			names[name] = t
			return name
		},
	}
	root := r.ReflectFromType(t)
	a := &adjuster{defs: root.Definitions, done: map[string]bool{}, output: output}
	root.Version, root.ID, root.Definitions = "", "", nil
	a.walk(t, root)
	a.cyclic = cyclic(a.defs)
	root = a.inline(root, true)
	if len(a.kept) > 0 {
		root.Definitions = jsonschema.Definitions{}
		for i := 0; i < len(a.kept); i++ { // inlining one may keep another
			name := a.kept[i]
			root.Definitions[name] = a.inline(a.defs[name], false)
		}
	}
	out, err := json.MarshalIndent(root, "", "  ")
	return string(out), err
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
	numberType      = reflect.TypeFor[json.Number]()
	rawType         = reflect.TypeFor[json.RawMessage]()
	schemer         = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
)

// specialSchema is the schema of a type described whole rather than by its Go fields, or
// nil.
func specialSchema(t reflect.Type) *jsonschema.Schema {
	switch {
	case t.Implements(schemer) || reflect.PointerTo(t).Implements(schemer):
		return nil // it describes itself (invopop's JSONSchema method)
	case t == numberType:
		return &jsonschema.Schema{Type: "number"}
	case t == timeType || t == rawType:
		return nil // invopop's own: a date-time string, any value
	case reflect.PointerTo(t).Implements(jsonUnmarshaler):
		return &jsonschema.Schema{} // its UnmarshalJSON decides
	case reflect.PointerTo(t).Implements(textUnmarshaler):
		return &jsonschema.Schema{Type: "string"}
	}
	return nil
}

func special(t reflect.Type) bool {
	return specialSchema(t) != nil || t == timeType || t == rawType || t.Implements(schemer) || reflect.PointerTo(t).Implements(schemer)
}

// adjuster walks a schema of invopop's beside the Go type it describes.
type adjuster struct {
	defs   jsonschema.Definitions
	done   map[string]bool // definitions walked
	output bool
	cyclic map[string]bool // definitions that refer to themselves, directly or not
	kept   []string        // the definitions the schema refers to
}

func (a *adjuster) walk(t reflect.Type, s *jsonschema.Schema) {
	if s.Ref != "" {
		name := strings.TrimPrefix(s.Ref, "#/$defs/")
		if def, ok := a.defs[name]; ok && !a.done[name] {
			a.done[name] = true
			a.walk(t, def)
		}
		return
	}
	if len(s.OneOf) == 2 && s.OneOf[1].Type == "null" { // nullable: the value or null
		a.walk(t, s.OneOf[0])
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if special(t) {
		return
	}
	typeRange(t, s)
	switch t.Kind() {
	case reflect.Struct:
		a.object(t, s)
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return // []byte: a base64 string
		}
		if s.Items != nil {
			s.Items = a.sub(t.Elem(), s.Items, false)
		}
	case reflect.Map:
		if len(s.PatternProperties) == 1 {
			for _, v := range s.PatternProperties { // integer keys: the values' schema, and the keys' form
				s.AdditionalProperties = v
			}
			s.PatternProperties = nil
		}
		switch t.Key().Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			s.PropertyNames = &jsonschema.Schema{Pattern: "^[+-]?[0-9]+$"}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			s.PropertyNames = &jsonschema.Schema{Pattern: "^[0-9]+$"}
		}
		if s.AdditionalProperties != nil {
			s.AdditionalProperties = a.sub(t.Elem(), s.AdditionalProperties, false)
		}
	}
}

// sub walks the schema of a value inside another (a property, an item), returning it as
// it is to be written: {} for true, and, in an output schema, null allowed when nullable.
func (a *adjuster) sub(t reflect.Type, s *jsonschema.Schema, nullable bool) *jsonschema.Schema {
	if s == jsonschema.TrueSchema {
		return &jsonschema.Schema{}
	}
	if s == jsonschema.FalseSchema {
		return s
	}
	a.walk(t, s)
	if nullable && a.output && !isNullable(s) {
		return &jsonschema.Schema{OneOf: []*jsonschema.Schema{s, {Type: "null"}}}
	}
	return s
}

// isNullable reports whether a schema allows null already: nullable, or any value.
func isNullable(s *jsonschema.Schema) bool {
	empty := s.Ref == "" && s.Type == "" && s.OneOf == nil && s.AnyOf == nil && s.AllOf == nil && s.Enum == nil && s.Const == nil && s.Not == nil
	return empty || len(s.OneOf) == 2 && s.OneOf[1].Type == "null"
}

// object adjusts a struct's properties to the fields encoding/json reads and writes.
func (a *adjuster) object(t reflect.Type, s *jsonschema.Schema) {
	if s.Properties == nil {
		s.Properties = jsonschema.NewProperties()
	}
	fields := jsonFields(t, a.output)
	// invopop's names follow Go's selector rules and its reading of tags; encoding/json's
	// cancel out names at the same depth, fall back to the Go name for a tag it rejects,
	// and name a field "-" for the tag "-,".
	for pair := s.Properties.Oldest(); pair != nil; {
		next := pair.Next()
		if _, ok := fields[pair.Key]; !ok {
			s.Properties.Delete(pair.Key)
			s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == pair.Key })
		}
		pair = next
	}
	for _, f := range sortedFields(fields) {
		if _, ok := s.Properties.Get(f.name); !ok || f.contested {
			s.Properties.Set(f.name, fieldSchema(f.StructField))
			s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == f.name })
			if opts := tagOptions(f.Tag.Get("json")); !opts["omitempty"] && !opts["omitzero"] {
				s.Required = append(s.Required, f.name)
			}
		}
	}
	for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
		name := pair.Key
		f := fields[name]
		opts := tagOptions(f.Tag.Get("json"))
		if opts["string"] {
			quoted(f.Type, pair.Value)
			continue
		}
		tags := tagItems(f.Tag.Get("jsonschema"))
		if h, ok := strings.CutPrefix(f.Tag.Get("mcp"), "header="); ok {
			if pair.Value.Extras == nil {
				pair.Value.Extras = map[string]any{}
			}
			pair.Value.Extras["x-mcp-header"] = h
		}
		// Tags invopop leaves: const, enum on booleans, minProperties and maxProperties on maps.
		if c := tags["const"]; c != nil {
			setConst(deref(f.Type), pair.Value, first(c))
		}
		switch deref(f.Type).Kind() {
		case reflect.Bool:
			for _, v := range tags["enum"] {
				pair.Value.Enum = append(pair.Value.Enum, v == "true")
			}
		case reflect.Map:
			if v, err := strconv.ParseUint(first(tags["minProperties"]), 10, 64); err == nil {
				pair.Value.MinProperties = &v
			}
			if v, err := strconv.ParseUint(first(tags["maxProperties"]), 10, 64); err == nil {
				pair.Value.MaxProperties = &v
			}
		}
		// What encoding/json writes as null: nil slices, maps, pointers and interfaces
		// not left out when empty.
		k := f.Type.Kind()
		nullable := !opts["omitempty"] && !opts["omitzero"] &&
			(k == reflect.Pointer || k == reflect.Slice || k == reflect.Map || k == reflect.Interface)
		pair.Value = a.sub(f.Type, pair.Value, nullable)
		// A pointer, or a field promoted through an embedded pointer, may be left out of
		// the arguments; encoding/json leaves out of a result what omitempty says.
		if (k == reflect.Pointer || f.viaPointer) && tags["required"] == nil || a.output && (opts["omitempty"] || opts["omitzero"]) {
			s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == name })
		}
	}
	if len(s.Required) == 0 {
		s.Required = nil
	}
}

// setConst sets the const of a scalar, or of a list's items as the generator does, read as the
// value's type reads it; a value that is none is left out, as invopop leaves bad values out.
func setConst(t reflect.Type, s *jsonschema.Schema, v string) {
	if (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && s.Items != nil {
		t, s = deref(t.Elem()), s.Items
	}
	switch t.Kind() {
	case reflect.String:
		s.Const = v
	case reflect.Bool:
		if v == "true" || v == "false" {
			s.Const = v == "true"
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(v, 64); err == nil && json.Valid([]byte(v)) {
			s.Const = json.Number(v)
		}
	}
}

// fieldSchema is invopop's schema of one field, reflected alone.
func fieldSchema(f reflect.StructField) *jsonschema.Schema {
	_, opts, ok := strings.Cut(f.Tag.Get("json"), ",")
	name := "x"
	if ok {
		name += "," + opts
	}
	tag := "json:" + strconv.Quote(name)
	for _, key := range []string{"jsonschema", "jsonschema_extras", "jsonschema_description"} {
		if v, ok := f.Tag.Lookup(key); ok && !(key == "jsonschema" && strings.HasPrefix(v, "-")) {
			tag += " " + key + ":" + strconv.Quote(v)
		}
	}
	one := reflect.StructOf([]reflect.StructField{{Name: "X", Type: f.Type, Tag: reflect.StructTag(tag)}})
	s := (&jsonschema.Reflector{Anonymous: true, DoNotReference: true, Mapper: specialSchema}).ReflectFromType(one)
	if p, ok := s.Properties.Get("x"); ok {
		return p
	}
	return &jsonschema.Schema{}
}

// tagItems reads a jsonschema tag as invopop does: items split on unescaped commas, by key.
func tagItems(tag string) map[string][]string {
	out := map[string][]string{}
	for item := range strings.SplitSeq(strings.ReplaceAll(tag, `\,`, "\x00"), ",") {
		k, v, _ := strings.Cut(strings.ReplaceAll(item, "\x00", ","), "=")
		out[k] = append(out[k], v)
	}
	return out
}

func first(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

// quoted is the schema of a value written inside a JSON string (the ,string option).
func quoted(t reflect.Type, s *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	patterns := map[reflect.Kind]string{
		reflect.Int: `^-?(0|[1-9][0-9]*)$`, reflect.Uint: `^(0|[1-9][0-9]*)$`, reflect.Bool: `^(true|false)$`,
		reflect.Float64: `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`,
		reflect.String:  `^"([^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$`,
	}
	k := t.Kind()
	switch k {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		k = reflect.Int
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		k = reflect.Uint
	case reflect.Float32:
		k = reflect.Float64
	}
	if p, ok := patterns[k]; ok {
		s.Type, s.Pattern = "string", p
		typeRange(t, s)
	}
}

// typeRange narrows an integer's or a float32's bounds to its type's.
func typeRange(t reflect.Type, s *jsonschema.Schema) {
	tighten := func(bound *json.Number, limit float64, lower bool) {
		cur, err := bound.Float64()
		if err != nil || lower && cur < limit || !lower && cur > limit {
			*bound = json.Number(strconv.FormatFloat(limit, 'g', -1, 64))
		}
	}
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32:
		bits := float64(t.Bits())
		tighten(&s.Minimum, -math.Pow(2, bits-1), true)
		tighten(&s.Maximum, math.Pow(2, bits-1)-1, false)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		tighten(&s.Minimum, 0, true)
		tighten(&s.Maximum, math.Pow(2, float64(t.Bits()))-1, false)
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		tighten(&s.Minimum, 0, true)
	case reflect.Float32:
		tighten(&s.Minimum, -math.MaxFloat32, true)
		tighten(&s.Maximum, math.MaxFloat32, false)
	}
}

// jsonField is a field encoding/json reads and writes.
type jsonField struct {
	reflect.StructField
	name       string // its JSON name
	viaPointer bool   // promoted through an embedded pointer
	contested  bool   // other fields had the name, and lost it
}

// jsonFields are the fields of t encoding/json uses, by name, by its rules: exported
// fields, and those of embedded structs, level by level, where names at the same depth
// cancel out unless one is tagged. Those tagged jsonschema:"-" are only in an output.
func jsonFields(t reflect.Type, output bool) map[string]jsonField {
	type candidate struct {
		f      jsonField
		depth  int
		tagged bool
	}
	byName := map[string][]candidate{}
	var visit func(t reflect.Type, index []int, viaPointer bool)
	visit = func(t reflect.Type, index []int, viaPointer bool) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			// A field out of the schema is refused as an argument, but encoding/json
			// writes it in a result.
			if tag == "-" || !output && strings.HasPrefix(sf.Tag.Get("jsonschema"), "-") {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if !validTagName(name) {
				name = ""
			}
			sf.Index = append(slices.Clone(index), i)
			ft := deref(sf.Type)
			if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				if len(index) < 16 { // embedded cycles through pointers
					visit(ft, sf.Index, viaPointer || sf.Type.Kind() == reflect.Pointer)
				}
				continue
			}
			if !sf.IsExported() {
				continue
			}
			tagged := name != ""
			if !tagged {
				name = sf.Name
			}
			byName[name] = append(byName[name], candidate{jsonField{sf, name, viaPointer, false}, len(index), tagged})
		}
	}
	visit(t, nil, false)
	out := map[string]jsonField{}
	for name, cs := range byName {
		slices.SortStableFunc(cs, func(a, b candidate) int {
			if a.depth != b.depth {
				return a.depth - b.depth
			}
			if a.tagged != b.tagged {
				if a.tagged {
					return -1
				}
				return 1
			}
			return 0
		})
		if len(cs) > 1 && cs[0].depth == cs[1].depth && cs[0].tagged == cs[1].tagged {
			continue // they cancel out
		}
		f := cs[0].f
		f.contested = len(cs) > 1
		out[name] = f
	}
	return out
}

// sortedFields are fields in the order of their declaration.
func sortedFields(fields map[string]jsonField) []jsonField {
	list := slices.Collect(maps.Values(fields))
	slices.SortFunc(list, func(a, b jsonField) int { return slices.Compare(a.Index, b.Index) })
	return list
}

// validTagName reports whether encoding/json takes name from a tag.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// tagOptions are the options of a json tag: omitempty, omitzero, string.
func tagOptions(tag string) map[string]bool {
	opts := map[string]bool{}
	_, rest, _ := strings.Cut(tag, ",")
	for o := range strings.SplitSeq(rest, ",") {
		opts[o] = true
	}
	return opts
}

// cyclic are the definitions that refer to themselves, directly or through others.
func cyclic(defs jsonschema.Definitions) map[string]bool {
	refs := map[string][]string{}
	for name, def := range defs {
		visitSchemas(def, func(s *jsonschema.Schema) {
			if s.Ref != "" {
				refs[name] = append(refs[name], strings.TrimPrefix(s.Ref, "#/$defs/"))
			}
		})
	}
	out := map[string]bool{}
	for name := range defs {
		seen := map[string]bool{}
		todo := slices.Clone(refs[name])
		for len(todo) > 0 {
			n := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			if n == name {
				out[name] = true
				break
			}
			if !seen[n] {
				seen[n] = true
				todo = append(todo, refs[n]...)
			}
		}
	}
	return out
}

// visitSchemas calls fn on s and every schema inside it, but those behind references.
func visitSchemas(s *jsonschema.Schema, fn func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems, {s.Not, s.Items, s.Contains, s.AdditionalProperties, s.PropertyNames}} {
		for _, x := range list {
			visitSchemas(x, fn)
		}
	}
	if s.Properties != nil {
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			visitSchemas(pair.Value, fn)
		}
	}
	for _, x := range s.PatternProperties {
		visitSchemas(x, fn)
	}
}

// inline replaces each reference to a definition by a copy of it, as some clients
// mishandle references, but for a recursive type's: a reference to it stays (top: unless
// it is the whole schema), and its definition is kept.
func (a *adjuster) inline(s *jsonschema.Schema, top bool) *jsonschema.Schema {
	if s == nil || s == jsonschema.TrueSchema || s == jsonschema.FalseSchema {
		return s
	}
	if s.Ref != "" {
		name := strings.TrimPrefix(s.Ref, "#/$defs/")
		def, ok := a.defs[name]
		switch {
		case !ok:
			return s
		case a.cyclic[name]:
			if !slices.Contains(a.kept, name) {
				a.kept = append(a.kept, name)
			}
			if !top {
				return s
			}
		}
		out := a.inline(def, false)
		if s.Description != "" { // the field's own description wins the type's
			c := *out
			c.Description = s.Description
			out = &c
		}
		return out
	}
	c := *s
	subs := func(list []*jsonschema.Schema) []*jsonschema.Schema {
		if list == nil {
			return nil
		}
		out := make([]*jsonschema.Schema, len(list))
		for i, x := range list {
			out[i] = a.inline(x, false)
		}
		return out
	}
	c.AllOf, c.AnyOf, c.OneOf, c.PrefixItems = subs(s.AllOf), subs(s.AnyOf), subs(s.OneOf), subs(s.PrefixItems)
	c.Not, c.Items, c.Contains = a.inline(s.Not, false), a.inline(s.Items, false), a.inline(s.Contains, false)
	c.AdditionalProperties, c.PropertyNames = a.inline(s.AdditionalProperties, false), a.inline(s.PropertyNames, false)
	if s.Properties != nil {
		c.Properties = jsonschema.NewProperties()
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			c.Properties.Set(pair.Key, a.inline(pair.Value, false))
		}
	}
	if s.PatternProperties != nil {
		c.PatternProperties = map[string]*jsonschema.Schema{}
		for k, v := range s.PatternProperties {
			c.PatternProperties[k] = a.inline(v, false)
		}
	}
	return &c
}
