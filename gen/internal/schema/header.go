package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"math/big"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/httptoken"
)

// HeaderKeyword is the keyword of revision 2026-07-28 that asks clients to mirror a tool
// argument into an HTTP header, Mcp-Param-{name}. Clients drop a tool whose annotations
// break the rules (server/tools.mdx), and the runtime refuses to register it.
const HeaderKeyword = httptoken.Keyword

// mcpKeys are the keys of the mcp struct tag.
var mcpKeys = []string{"header"}

// maxSafe, 2^53-1, is the largest integer that clients' JSON numbers (IEEE 754 doubles)
// hold exactly, and limit, 2^53, the first beyond it: a mirrored integer stays within
// ±maxSafe.
var (
	maxSafe = new(big.Rat).SetInt64(1<<53 - 1)
	limit   = new(big.Rat).SetInt64(1 << 53)
)

// mcpTag reads a field's mcp tag: header=Name.
func (b *Builder) mcpTag(f *Field, target *Type, value string, at func(int) token.Pos, where string) {
	for _, it := range splitTagItems(value) {
		pos := at(it.offset)
		switch {
		case it.key == "" && !it.hasValue:
			continue // an empty item, as in a trailing comma
		case it.key == "header":
			b.setHeader(f, target, it.value, pos, where)
		default:
			hint := "the mcp tag has one key: header=Name"
			if best := nearest(it.key, mcpKeys); best != "" {
				hint = fmt.Sprintf("did you mean %q?", best)
			}
			b.diags.Hintf(pos, hint, "%s: unknown mcp tag key %q", where, it.key)
		}
	}
}

// extrasHeader reads jsonschema_extras:"x-mcp-header=Name", the spelling invopop/jsonschema
// also understands, under the same rules as the mcp tag.
func (b *Builder) extrasHeader(f *Field, target *Type, value string, pos token.Pos, where string) {
	if value == "true" || value == "false" {
		// invopop, and mcpgen's extras with it, would make the value a boolean.
		b.diags.Hintf(pos, fmt.Sprintf(`write mcp:"header=%s", which keeps it a name`, value),
			"%s: jsonschema_extras makes x-mcp-header=%s the boolean %s, not a header name", where, value, value)
		if !f.HeaderPos.IsValid() {
			f.HeaderPos = pos
		}
		return
	}
	b.setHeader(f, target, value, pos, where)
}

// setHeader records the header a field is mirrored into, and puts the keyword in its schema.
func (b *Builder) setHeader(f *Field, target *Type, name string, pos token.Pos, where string) {
	if f.HeaderPos.IsValid() {
		first := ""
		if f.Header != "" {
			first = fmt.Sprintf(", which has %q", f.Header)
		}
		b.diags.Hintf(pos, `keep one: a property is mirrored into one header (mcp:"header=..." and jsonschema_extras:"x-mcp-header=..." are two spellings of it)`,
			"%s: header %q is a second header for the property%s", where, name, first)
		return
	}
	f.HeaderPos = pos
	switch {
	case name == "":
		b.diags.Hintf(pos, "name the header: header=Region sends the header Mcp-Param-Region",
			"%s: header needs a name", where)
		return
	case !httptoken.IsToken(name):
		b.diags.Hintf(pos, "use letters, digits and !#$%&'*+-.^_`|~ only (an HTTP token, RFC 9110): header=Region sends the header Mcp-Param-Region",
			"%s: header %q is not an HTTP header name", where, name)
		return
	}
	f.Header = name
	target.Rules.Extras = append(target.Rules.Extras, Extra{Key: HeaderKeyword, Value: name})
}

// checkHeaderType reports a header on a property whose values cannot be mirrored. MCP
// mirrors strings, integers within ±(2^53-1) and booleans, and clients look for the type and
// the keyword in the property's own schema, never inside a oneOf. mcpgen takes Go's string,
// integer and bool kinds: a type with its own text or JSON form (time.Time, netip.Addr)
// writes one value in several ways, which a header compared as exact text would not match.
func (b *Builder) checkHeaderType(f *Field, where string) {
	pos := f.HeaderPos
	label := "the header"
	if f.Header != "" {
		label = fmt.Sprintf("header %q", f.Header)
	}
	t, nullable := f.Type, false
	for ; t.Kind == Pointer || t.Kind == ThreeStates; t = t.Elem {
		nullable = nullable || t.Nullable
	}
	if nullable || t.Nullable {
		hint := "leave out nullable, or make the field a pointer: an absent property sends no header"
		if f.Type.Kind == ThreeStates {
			hint = "make the field a pointer: an mcp.Nullable may be null, and an absent property sends no header"
		} else if f.Type.Kind == Pointer {
			hint = "leave out nullable: the pointer makes the property optional already, and an absent property sends no header"
		}
		b.diags.Hintf(pos, hint, "%s: %s is on a nullable property, whose schema is a oneOf; clients look for the header only in a property's own schema", where, label)
	}
	switch t.Kind {
	case Bool:
	case String:
		if t.Quoted {
			b.diags.Hintf(pos, "remove ,string from the json tag",
				"%s: %s is on a string with the json option ,string, whose value is JSON text inside a string, quotes and all", where, label)
		}
	case Int, Uint:
		if t.Quoted || safeInteger(&t.Rules) {
			break // a ",string" integer travels as text, which a header holds exactly
		}
		bounds := `jsonschema:"minimum=-9007199254740991,maximum=9007199254740991"`
		if t.Kind == Uint {
			bounds = `jsonschema:"maximum=9007199254740991"`
		}
		b.diags.Hintf(pos, "add bounds: "+bounds+" (or tighter); or use a type of 32 bits or less, or the json option ,string to send the value as text",
			"%s: %s mirrors an integer of type %s, which may be beyond ±(2^53-1), more than clients' JSON numbers hold exactly", where, label, typeString(t.Go))
	default:
		what, hint := "type "+typeString(t.Go), "put the header on a field of a string, integer or bool type"
		switch t.Kind {
		case Float, JSONNumber:
			what += ", a JSON number"
			hint = "use an integer type or a string: MCP does not mirror numbers, which have many spellings"
		case Text, Custom, Duration:
			what = describe(t)
			if t.Kind == Duration {
				what += ", a string in Go's duration syntax"
			}
			hint = "use a string field, and convert it in the tool"
		case Struct:
			what += ", an object"
			hint = "tag the field inside it that the header mirrors"
		case Slice, Array, Bytes:
			what += ", a list"
			if t.Kind == Bytes {
				what = "type " + typeString(t.Go) + ", base64 text"
				hint = "use a string field"
			}
		case Map:
			what += ", an object"
		}
		b.diags.Hintf(pos, hint, "%s: %s needs a string, integer or boolean property, not %s", where, label, what)
	}
}

// safeInteger reports whether an integer's rules keep it within ±(2^53-1): bounds on both
// sides (an unsigned type has its minimum of 0), or an enum of such values.
func safeInteger(r *Rules) bool {
	if len(r.Enum) > 0 {
		for _, v := range r.Enum {
			n, ok := NewNumber(v.JSON)
			if !ok || new(big.Rat).Abs(n.Rat).Cmp(maxSafe) > 0 {
				return false
			}
		}
		return true
	}
	rat := func(n *Number) *big.Rat {
		if n == nil {
			return nil
		}
		return n.Rat
	}
	return boundsSafe(rat(r.Minimum), rat(r.Maximum), rat(r.ExclusiveMinimum), rat(r.ExclusiveMaximum))
}

// boundsSafe reports whether integers within the bounds (nil when absent) are within
// ±(2^53-1): a maximum below 2^53 or an exclusive maximum at most 2^53, and likewise below.
func boundsSafe(lo, hi, xlo, xhi *big.Rat) bool {
	neg := new(big.Rat).Neg(limit)
	hiOK := hi != nil && hi.Cmp(limit) < 0 || xhi != nil && xhi.Cmp(limit) <= 0
	loOK := lo != nil && lo.Cmp(neg) > 0 || xlo != nil && xlo.Cmp(neg) >= 0
	return hiOK && loOK
}

// strayMcpTag reports an mcp tag on a field that is no property of its own, which the tag
// would silently do nothing on.
func (b *Builder) strayMcpTag(v *types.Var, tag, where, why, hint string) {
	if _, off, ok := tagValue(tag, "mcp"); ok {
		pos := v.Pos()
		if b.src != nil {
			if base := b.src.TagPos(v); base.IsValid() {
				pos = base + 1 + token.Pos(off)
			}
		}
		b.diags.Hintf(pos, hint, "%s: mcp tag on %s", where, why)
	}
}

// CheckHeaders reports what makes the header annotations of a tool's argument unusable:
// clients mirror only properties reached from the arguments through object properties
// alone (not in a list or a map, not behind a oneOf or a $ref), and header names must be
// unique in the tool, compared case-insensitively. A struct type used twice in one argument
// carries its header twice. tool is the tool's name.
func (b *Builder) CheckHeaders(t *Type, tool string) {
	if t == nil || t.Kind != Struct {
		return
	}
	type use struct {
		f     *Field
		ptr   string
		where string
	}
	first := map[string]use{}     // lower-case name -> its first property
	reported := map[*Field]bool{} // one problem per field is enough
	dynamic := map[*Object]bool{} // objects visited off the static path
	cycles := map[*Object]bool{}
	onCycle := func(o *Object) bool {
		c, ok := cycles[o]
		if !ok {
			c = reaches(o, o, map[*Object]bool{})
			cycles[o] = c
		}
		return c
	}
	var visit func(o *Object, ptr, why string)
	var into func(t *Type, ptr, why string)
	visit = func(o *Object, ptr, why string) {
		if why == "" && onCycle(o) {
			why = fmt.Sprintf("in recursive type %s, whose schema is a definition under $defs", o.DisplayName())
		}
		if why != "" {
			if dynamic[o] {
				return
			}
			dynamic[o] = true
		}
		for _, f := range o.Fields {
			p := ptr + "/" + pointerToken(f.Name)
			where := "field " + o.DisplayName() + "." + f.Path[len(f.Path)-1].Name
			switch {
			case f.Header == "" || reported[f]:
			case why != "":
				reported[f] = true
				b.diags.Hintf(f.HeaderPos, "move the field to the argument struct, or to a struct it holds by value or by pointer; a list, a map or a recursive type cannot hold it",
					"%s: header %q is on property %s of tool %s's arguments, %s; clients mirror only properties reached from the arguments through object properties alone",
					where, f.Header, p, tool, why)
			default:
				key := strings.ToLower(f.Header)
				prev, dup := first[key]
				switch {
				case !dup:
					first[key] = use{f, p, where}
				case prev.f == f:
					reported[f] = true
					b.diags.Hintf(f.HeaderPos, "a header mirrors one property: give each use a type of its own, or tag a field that the arguments hold once",
						"%s: header %q is on two properties of tool %s's arguments, %s and %s, which hold the same type", where, f.Header, tool, prev.ptr, p)
				default:
					reported[f] = true
					b.diags.Hintf(f.HeaderPos, "give one of them another name",
						"%s: header %q of property %s is also the header of property %s (%s at %s) in tool %s's arguments; header names are compared case-insensitively",
						where, f.Header, p, prev.ptr, prev.where, b.shortPos(prev.f.HeaderPos), tool)
				}
			}
			into(f.Type, p, why)
		}
	}
	into = func(t *Type, ptr, why string) {
		for ; t != nil; t = t.Elem {
			if t.Nullable && why == "" {
				why = "inside a nullable value, whose schema is a oneOf"
			}
			switch t.Kind {
			case Struct:
				visit(t.Object, ptr, why)
				return
			case Slice, Array:
				if why == "" {
					why = "inside a list"
				}
				ptr += "/*"
			case Map:
				if why == "" {
					why = "inside a map"
				}
				ptr += "/*"
			}
		}
	}
	visit(t.Object, "", "")
}

// RejectHeaders reports header annotations in a type that is not a tool's argument, where
// they would mean nothing: use says what the type is ("the result of tool x"), hint how to
// do without.
func (b *Builder) RejectHeaders(t *Type, use, hint string) {
	seen := map[*Object]bool{}
	var walk func(t *Type)
	walk = func(t *Type) {
		for ; t != nil; t = t.Elem {
			if t.Kind != Struct {
				continue
			}
			if seen[t.Object] {
				return
			}
			seen[t.Object] = true
			for _, f := range t.Object.Fields {
				if f.Header != "" {
					b.diags.Hintf(f.HeaderPos, hint, "field %s.%s: header %q is on %s, but headers mirror only the arguments of tools",
						t.Object.DisplayName(), f.Path[len(f.Path)-1].Name, f.Header, use)
				}
				walk(f.Type)
			}
			return
		}
	}
	walk(t)
}

// shortPos writes a position as file:line, for messages that point at another place.
func (b *Builder) shortPos(pos token.Pos) string {
	at := b.diags.FileSet().Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(at.Filename), at.Line)
}

// tokenEscaper escapes a reference token, built once (building is most of a replacement's
// cost).
var tokenEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointerToken escapes a property name for a JSON Pointer (RFC 6901).
func pointerToken(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return tokenEscaper.Replace(name)
}

// HeaderProblems checks the x-mcp-header annotations of a rendered input schema as clients
// and the runtime do, whatever wrote them (tags, or a schema declared with //mcp:schema): on
// a property reached from the root through "properties" alone, an HTTP token, unique
// case-insensitively (these three as httptoken.Headers, which the runtime uses, tells), on a
// string, a boolean or an integer bounded within ±(2^53-1). It returns what is wrong, in the
// order of the schema's keys.
func HeaderProblems(schema []byte) []string {
	if !bytes.Contains(schema, []byte(`"`+HeaderKeyword+`"`)) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var root any
	if dec.Decode(&root) != nil {
		return nil
	}
	var problems []string
	for _, h := range httptoken.Headers(root) {
		at := h.Pointer
		if at == "" {
			at = "the root"
		}
		label := HeaderKeyword + " " + compactJSON(h.Value) + " at " + at
		switch {
		case !h.OnPath:
			problems = append(problems, label+" is not on a property reached from the root through \"properties\" alone")
			continue
		case h.Name == "":
			problems = append(problems, label+" is not an HTTP header name")
			continue
		}
		s := h.Schema
		switch typ, _ := s["type"].(string); typ {
		case "string", "boolean":
		case "integer":
			num := func(key string) *big.Rat {
				n, ok := s[key].(json.Number)
				if !ok {
					return nil
				}
				r, ok := new(big.Rat).SetString(n.String())
				if !ok {
					return nil
				}
				return r
			}
			safe := boundsSafe(num("minimum"), num("maximum"), num("exclusiveMinimum"), num("exclusiveMaximum"))
			if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
				safe = !slices.ContainsFunc(enum, func(v any) bool {
					n, ok := v.(json.Number)
					r, ok2 := new(big.Rat).SetString(n.String())
					return !ok || !ok2 || new(big.Rat).Abs(r).Cmp(maxSafe) > 0
				})
			}
			if !safe {
				problems = append(problems, label+" is on an integer without bounds within ±(2^53-1)")
			}
		default:
			problems = append(problems, fmt.Sprintf("%s is not on a string, integer or boolean (type %s)", label, compactJSON(s["type"])))
		}
		if h.Same != nil {
			problems = append(problems, fmt.Sprintf("%s names the header of %s too; names are compared case-insensitively", label, h.Same.Pointer))
		}
	}
	return problems
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
