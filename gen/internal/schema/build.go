package schema

import (
	"cmp"
	"encoding/json"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"slices"
	"strconv"

	"github.com/mcpgen/mcpgen/gen/internal/diag"
	"golang.org/x/tools/go/types/typeutil"
)

// Source gives the builder what go/types does not carry: doc comments and where struct
// tags are written.
type Source interface {
	FieldDoc(v *types.Var) string
	TypeDoc(obj *types.TypeName) string
	ConstDoc(c *types.Const) string                     // the doc or line comment of a constant
	TagPos(v *types.Var) token.Pos                      // the position of the tag literal, or token.NoPos
	TypeSchema(obj *types.TypeName) (string, token.Pos) // the schema //mcp:schema declares for a type, or ""
}

// Builder turns Go types into Types, reporting what it cannot express. One Builder serves
// one generated file: it shares struct descriptions between uses and gives each struct a
// unique name.
type Builder struct {
	local   *types.Package // the package the generated code is in
	diags   *diag.List
	src     Source
	structs typeutil.Map // types.Type -> *Object
	// consts are the constants of each package block met, by the named type they are of:
	// read once, not for every use of an enum type (mcpgen openapi's GitHub package has
	// 2,600 types and a thousand constants).
	consts map[*types.Scope]map[*types.TypeName][]*types.Const
}

// NewBuilder returns a Builder for code generated in package local that records problems
// in diags.
func NewBuilder(diags *diag.List, src Source, local *types.Package) *Builder {
	return &Builder{diags: diags, src: src, local: local}
}

// Object builds the Type of a tool argument or result type, which must be a struct or a
// pointer to one. It returns nil (after recording diagnostics) if the type cannot be used.
func (b *Builder) Object(t types.Type, pos token.Pos) *Type {
	if p, ok := t.Underlying().(*types.Pointer); ok && !isNamed(t) {
		t = p.Elem()
	}
	if _, ok := t.Underlying().(*types.Struct); !ok {
		return nil
	}
	node := b.typeOf(t, pos, "")
	if node != nil && node.Kind != Struct {
		b.diags.Hintf(pos, "use a plain struct, whose fields become the properties; a field of the type can encode itself",
			"type %s has its own encoding (MarshalJSON or MarshalText), so its properties are not its fields", typeString(t))
		return nil
	}
	return node
}

// Argument builds the Type of a tool's argument: a struct, as Object builds it, or a type
// that reads its own JSON (UnmarshalJSON) and declares its schema with //mcp:schema. Such a
// type may use any JSON Schema keyword; it validates what its UnmarshalJSON accepts.
func (b *Builder) Argument(t types.Type, pos token.Pos) *Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem() // a tool may take a pointer to its argument
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && b.src != nil {
		if declared, at := b.src.TypeSchema(n.Obj()); declared != "" && methodsOf(t)["UnmarshalJSON"] {
			node := &Type{Go: t, Kind: Custom, CanDecode: true, CanEncode: methodsOf(t)["MarshalJSON"], Declared: declared, Doc: b.typeDoc(t)}
			var root struct {
				Type any `json:"type"`
			}
			if json.Unmarshal([]byte(declared), &root) != nil || root.Type != "object" {
				b.diags.Hintf(at, `an inputSchema is an object schema: {"type": "object", ...}`,
					"//mcp:schema of type %s, a tool's arguments, does not say \"type\": \"object\"", typeString(t))
				return nil
			}
			return node
		}
	}
	return b.Object(t, pos)
}

// CheckDirection reports the types with their own encoding that lack the method one
// direction needs: UnmarshalText or UnmarshalJSON for a tool's arguments (input), MarshalText
// or MarshalJSON for its result. Each problem is reported at the field that has the type.
func (b *Builder) CheckDirection(t *Type, input bool) {
	seen := map[*Object]bool{}
	var walk func(t *Type, pos token.Pos, where string)
	walk = func(t *Type, pos token.Pos, where string) {
		for ; t != nil; t = t.Elem {
			switch {
			case t.Kind == Struct && !seen[t.Object]:
				seen[t.Object] = true
				for _, f := range t.Object.Members() {
					walk(f.Type, f.Pos, "field "+t.Object.DisplayName()+"."+f.Path[len(f.Path)-1].Name)
				}
			case (t.Kind == Text || t.Kind == Custom) && input && !t.CanDecode:
				b.diags.Hintf(pos, "give it an Unmarshal"+methodKind(t)+" method, or use it only in results",
					"%s: type %s has Marshal%s but no Unmarshal%s, so it cannot be read from a tool's arguments", where, typeString(t.Go), methodKind(t), methodKind(t))
			case (t.Kind == Text || t.Kind == Custom) && !input && !t.CanEncode:
				b.diags.Hintf(pos, "give it a Marshal"+methodKind(t)+" method, or use it only in arguments",
					"%s: type %s has Unmarshal%s but no Marshal%s, so it cannot be written in a tool's result", where, typeString(t.Go), methodKind(t), methodKind(t))
			}
		}
	}
	walk(t, token.NoPos, "")
}

func methodKind(t *Type) string {
	if t.Kind == Text {
		return "Text"
	}
	return "JSON"
}

func isNamed(t types.Type) bool {
	switch types.Unalias(t).(type) {
	case *types.Named, *types.Basic:
		return true
	}
	return false
}

// typeOf builds the Type of one use of t. where names the use for diagnostics ("field
// Input.City"); it is empty for a tool's own argument or result.
func (b *Builder) typeOf(t types.Type, pos token.Pos, where string) *Type {
	if n, ok := types.Unalias(t).(*types.Named); ok && !n.Obj().Exported() && n.Obj().Pkg() != b.local && n.Obj().Pkg() != nil {
		b.diags.Errorf(pos, "%stype %s is not exported by package %s, so generated code cannot name it", prefix(where), n.Obj().Name(), n.Obj().Pkg().Path())
		return nil
	}
	if elem := nullableElem(t); elem != nil {
		return b.threeStates(t, elem, pos, where)
	}
	node := &Type{Go: t, Doc: b.typeDoc(t)}
	if b.special(node) {
		return node
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if !b.basic(node, u) {
			b.unsupported(t, pos, where, "")
			return nil
		}
		b.constEnum(node)
	case *types.Pointer:
		node.Kind = Pointer
		if node.Elem = b.typeOf(u.Elem(), pos, where); node.Elem == nil {
			return nil
		}
	case *types.Slice:
		if isByte(u.Elem()) {
			node.Kind = Bytes
			break
		}
		node.Kind = Slice
		if node.Elem = b.typeOf(u.Elem(), pos, where); node.Elem == nil {
			return nil
		}
	case *types.Array:
		node.Kind, node.Len = Array, u.Len()
		n := uint64(u.Len())
		node.Rules.MinItems, node.Rules.MaxItems = &n, &n
		if node.Elem = b.typeOf(u.Elem(), pos, where); node.Elem == nil {
			return nil
		}
	case *types.Map:
		node.Kind = Map
		if node.Key = b.mapKey(u.Key(), pos, where); node.Key == nil {
			return nil
		}
		if node.Elem = b.typeOf(u.Elem(), pos, where); node.Elem == nil {
			return nil
		}
	case *types.Struct:
		node.Kind = Struct
		node.Object = b.structOf(t, u, pos)
	case *types.Interface:
		if !u.Empty() {
			b.unsupported(t, pos, where, "only the empty interface (any) can hold arbitrary JSON")
			return nil
		}
		node.Kind = Any
	default:
		b.unsupported(t, pos, where, "")
		return nil
	}
	return node
}

// nullablePath is the runtime's mcp.Nullable, by its package path and name.
const nullablePath = "github.com/mcpgen/mcpgen/runtime/mcp.Nullable"

// nullableElem is T of an mcp.Nullable[T], nil for other types.
func nullableElem(t types.Type) types.Type {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || qualifiedName(t) != nullablePath || n.TypeArgs().Len() != 1 {
		return nil
	}
	return n.TypeArgs().At(0)
}

// threeStates builds an mcp.Nullable[T]: null is accepted, and so is a T, with the rules
// of T's use. T is a value, or a pointer to a struct (one that contains itself so, as typed
// clients write it); another pointer or mcp.Nullable in it would have no meaning.
func (b *Builder) threeStates(t, elem types.Type, pos token.Pos, where string) *Type {
	node := &Type{Go: t, Kind: ThreeStates, Nullable: true}
	if node.Elem = b.typeOf(elem, pos, where); node.Elem == nil {
		return nil
	}
	if e := node.Elem; e.Kind == ThreeStates || e.Kind == Pointer && (e.Elem.Kind != Struct || e.Nullable) {
		b.diags.Hintf(pos, "write mcp.Nullable[T] with the value's type: it is left out, null or a T",
			"%stype %s holds a pointer or another mcp.Nullable", prefix(where), typeString(t))
		return nil
	}
	return node
}

// durationPattern matches exactly what time.ParseDuration accepts (but for values too large
// for a time.Duration, about 290 years).
const durationPattern = `^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

// special fills in the types encoding/json treats specially, and the ones that encode
// themselves, reporting whether t is one of them.
func (b *Builder) special(node *Type) bool {
	t := node.Go
	switch qualifiedName(t) {
	case "time.Time":
		// Its MarshalJSON is its MarshalText (RFC 3339) in quotes: a text type.
		node.Kind, node.CanDecode, node.CanEncode = Text, true, true
		node.Rules.Format = "date-time"
		return true
	case "time.Duration":
		node.Kind = Duration
		node.Rules.Pattern = durationPattern
		return true
	case "encoding/json.RawMessage":
		node.Kind = RawJSON
		return true
	case "encoding/json.Number":
		node.Kind = JSONNumber
		return true
	}
	declared, at := "", token.NoPos
	if n, ok := types.Unalias(t).(*types.Named); ok && b.src != nil {
		declared, at = b.src.TypeSchema(n.Obj())
	}
	m := methodsOf(t)
	switch {
	case m["MarshalJSON"] || m["UnmarshalJSON"]:
		node.Kind, node.CanDecode, node.CanEncode = Custom, m["UnmarshalJSON"], m["MarshalJSON"]
	case m["MarshalText"] || m["UnmarshalText"]:
		node.Kind, node.CanDecode, node.CanEncode = Text, m["UnmarshalText"], m["MarshalText"]
	default:
		if declared != "" {
			b.diags.Hintf(at, "remove it: the schema is derived from the type's fields, which is how it is encoded",
				"//mcp:schema on type %s, which has no encoding of its own (MarshalJSON or MarshalText)", typeString(t))
		}
		return false
	}
	node.Declared = declared
	return true
}

// qualifiedName is a named type's package path and name, "" for other types.
func qualifiedName(t types.Type) string {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}

// methodsOf reports which of the encoding methods of encoding/json a type has, on the value
// or on the pointer, including methods promoted from embedded fields (encoding/json uses
// those too).
func methodsOf(t types.Type) map[string]bool {
	if _, ok := types.Unalias(t).(*types.Named); !ok {
		return nil
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	found := map[string]bool{}
	for _, name := range []string{"MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText"} {
		if ms.Lookup(nil, name) != nil {
			found[name] = true
		}
	}
	return found
}

// mapKey builds the key type of a map: any string type, or an integer type, which
// encoding/json writes as decimal text.
func (b *Builder) mapKey(k types.Type, pos token.Pos, where string) *Type {
	node := &Type{Go: k}
	if len(methodsOf(k)) == 0 {
		if u, ok := k.Underlying().(*types.Basic); ok && b.basic(node, u) && (node.Kind == String || node.Kind == Int || node.Kind == Uint) {
			return node
		}
	}
	b.diags.Hintf(pos, "use string or integer keys",
		"%smap key type %s is not supported: JSON object keys are strings, and mcpgen maps only string and integer keys to them", prefix(where), typeString(k))
	return nil
}

// constEnum makes a named string or integer type with constants of its own type, declared in
// its package, an enum of those constants, in the order they are declared.
func (b *Builder) constEnum(node *Type) {
	n, ok := types.Unalias(node.Go).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || (node.Kind != String && node.Kind != Int && node.Kind != Uint) {
		return
	}
	scope := n.Obj().Pkg().Scope()
	if b.consts == nil {
		b.consts = map[*types.Scope]map[*types.TypeName][]*types.Const{}
	}
	byType, ok := b.consts[scope]
	if !ok {
		byType = map[*types.TypeName][]*types.Const{}
		for _, name := range scope.Names() {
			if c, ok := scope.Lookup(name).(*types.Const); ok {
				if cn, ok := types.Unalias(c.Type()).(*types.Named); ok {
					byType[cn.Obj()] = append(byType[cn.Obj()], c)
				}
			}
		}
		b.consts[scope] = byType
	}
	var consts []*types.Const
	for _, c := range byType[n.Obj()] {
		if types.Identical(c.Type(), node.Go) {
			consts = append(consts, c)
		}
	}
	if len(consts) == 0 {
		return
	}
	fset := b.diags.FileSet()
	slices.SortFunc(consts, func(x, y *types.Const) int {
		px, py := fset.Position(x.Pos()), fset.Position(y.Pos())
		return cmp.Or(cmp.Compare(px.Filename, py.Filename), cmp.Compare(px.Offset, py.Offset), cmp.Compare(x.Name(), y.Name()))
	})
	seen := map[string]bool{}
	var titles []string
	for _, c := range consts {
		v := constValue(c.Val(), node.Kind)
		if !seen[v.JSON] { // two names for one value count once
			seen[v.JSON] = true
			node.Rules.Enum = append(node.Rules.Enum, v)
			titles = append(titles, b.src.ConstDoc(c))
		}
	}
	node.enumFromConsts = true
	if !slices.Contains(titles, "") {
		node.EnumTitles = titles // every constant has a comment: a title for its value
	}
}

func constValue(v constant.Value, k Kind) Value {
	switch k {
	case String:
		s := constant.StringVal(v)
		return Value{JSON: strconv.Quote(s), Lit: s}
	case Uint:
		u, _ := constant.Uint64Val(v)
		return Value{JSON: strconv.FormatUint(u, 10), Lit: u}
	}
	i, _ := constant.Int64Val(v)
	return Value{JSON: strconv.FormatInt(i, 10), Lit: i}
}

func prefix(where string) string {
	if where == "" {
		return ""
	}
	return where + ": "
}

func (b *Builder) unsupported(t types.Type, pos token.Pos, where, hint string) {
	what := "type"
	switch u := t.Underlying().(type) {
	case *types.Chan:
		what = "channel type"
	case *types.Signature:
		what = "function type"
	case *types.Interface:
		what = "interface type"
	case *types.Basic:
		switch {
		case u.Info()&types.IsComplex != 0:
			what = "complex number type"
		case u.Kind() == types.UnsafePointer:
			what = "unsafe pointer type"
		}
	}
	b.diags.Hintf(pos, hint, "%s%s %s has no JSON representation", prefix(where), what, typeString(t))
}

// basic fills in a basic type; it reports false for complex numbers, unsafe.Pointer and the like.
func (b *Builder) basic(node *Type, u *types.Basic) bool {
	switch k := u.Kind(); {
	case k == types.Bool:
		node.Kind = Bool
	case k == types.String:
		node.Kind = String
	case u.Info()&types.IsInteger != 0:
		// int, uint and uintptr are taken to be 64 bits wide, as on every 64-bit platform.
		bits := map[types.BasicKind]int{types.Int8: 8, types.Int16: 16, types.Int32: 32, types.Uint8: 8, types.Uint16: 16, types.Uint32: 32}[k]
		if bits == 0 {
			bits = 64
		}
		// The schema carries the type's range, but for 64-bit types only the lower limit of
		// unsigned ones: ±2^63 is noise to a model and beyond what most clients' JSON numbers
		// hold exactly. The decoder still rejects values beyond 64 bits.
		node.Bits = bits
		if u.Info()&types.IsUnsigned != 0 {
			node.Kind = Uint
			node.Rules.Minimum = UintNumber(0)
			if bits < 64 {
				node.Rules.Maximum = UintNumber(math.MaxUint64 >> (64 - bits))
			}
		} else {
			node.Kind = Int
			if bits < 64 {
				node.Rules.Minimum = IntNumber(math.MinInt64 >> (64 - bits))
				node.Rules.Maximum = IntNumber(math.MaxInt64 >> (64 - bits))
			}
		}
	case k == types.Float32:
		// The range of a float32, which the decoder enforces.
		node.Kind, node.Bits = Float, 32
		node.Rules.Minimum, _ = NewNumber("-3.4028234663852886e+38")
		node.Rules.Maximum, _ = NewNumber("3.4028234663852886e+38")
	case k == types.Float64:
		node.Kind, node.Bits = Float, 64
	default:
		return false
	}
	return true
}

func isByte(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Uint8 && len(methodsOf(t)) == 0
}

func (b *Builder) typeDoc(t types.Type) string {
	if n, ok := types.Unalias(t).(*types.Named); ok && b.src != nil {
		return b.src.TypeDoc(n.Obj())
	}
	return ""
}

// typeString writes a type the way its package would write it.
func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}
