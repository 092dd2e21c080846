package zoo

//go:generate go tool mcpgen

import "context"

// One echo tool per case: the argument is decoded and validated, the result checked and
// encoded, so every case exercises all of the generated code.

// EchoStrings returns its argument.
//
//mcp:tool echo_strings
func EchoStrings(ctx context.Context, in Strings) (Strings, error) { return in, nil }

// EchoBools returns its argument.
//
//mcp:tool echo_bools
func EchoBools(ctx context.Context, in Bools) (Bools, error) { return in, nil }

// EchoSignedInts returns its argument.
//
//mcp:tool echo_signed_ints
func EchoSignedInts(ctx context.Context, in SignedInts) (SignedInts, error) { return in, nil }

// EchoUnsignedInts returns its argument.
//
//mcp:tool echo_unsigned_ints
func EchoUnsignedInts(ctx context.Context, in UnsignedInts) (UnsignedInts, error) { return in, nil }

// EchoFloats returns its argument.
//
//mcp:tool echo_floats
func EchoFloats(ctx context.Context, in Floats) (Floats, error) { return in, nil }

// EchoIntRules returns its argument.
//
//mcp:tool echo_int_rules
func EchoIntRules(ctx context.Context, in IntRules) (IntRules, error) { return in, nil }

// EchoBytes returns its argument.
//
//mcp:tool echo_bytes
func EchoBytes(ctx context.Context, in Bytes) (Bytes, error) { return in, nil }

// EchoSlices returns its argument.
//
//mcp:tool echo_slices
func EchoSlices(ctx context.Context, in Slices) (Slices, error) { return in, nil }

// EchoArrays returns its argument.
//
//mcp:tool echo_arrays
func EchoArrays(ctx context.Context, in Arrays) (Arrays, error) { return in, nil }

// EchoStringMaps returns its argument.
//
//mcp:tool echo_string_maps
func EchoStringMaps(ctx context.Context, in StringMaps) (StringMaps, error) { return in, nil }

// EchoIntMaps returns its argument.
//
//mcp:tool echo_int_maps
func EchoIntMaps(ctx context.Context, in IntMaps) (IntMaps, error) { return in, nil }

// EchoAnything returns its argument.
//
//mcp:tool echo_anything
func EchoAnything(ctx context.Context, in Anything) (Anything, error) { return in, nil }

// EchoPointers returns its argument.
//
//mcp:tool echo_pointers
func EchoPointers(ctx context.Context, in Pointers) (Pointers, error) { return in, nil }

// EchoNullables returns its argument.
//
//mcp:tool echo_nullables
func EchoNullables(ctx context.Context, in Nullables) (Nullables, error) { return in, nil }

// EchoNested returns its argument.
//
//mcp:tool echo_nested
func EchoNested(ctx context.Context, in Nested) (Nested, error) { return in, nil }

// EchoEmbedded returns its argument.
//
//mcp:tool echo_embedded
func EchoEmbedded(ctx context.Context, in Embedded) (Embedded, error) { return in, nil }

// EchoConflicts returns its argument.
//
//mcp:tool echo_conflicts
func EchoConflicts(ctx context.Context, in Conflicts) (Conflicts, error) { return in, nil }

// EchoUnexported returns its argument.
//
//mcp:tool echo_unexported
func EchoUnexported(ctx context.Context, in Unexported) (Unexported, error) { return in, nil }

// EchoJSONTags returns its argument.
//
//mcp:tool echo_json_tags
func EchoJSONTags(ctx context.Context, in JSONTags) (JSONTags, error) { return in, nil }

// EchoSchemaHidden returns its argument.
//
//mcp:tool echo_schema_hidden
func EchoSchemaHidden(ctx context.Context, in SchemaHidden) (SchemaHidden, error) { return in, nil }

// EchoTree returns its argument.
//
//mcp:tool echo_tree
func EchoTree(ctx context.Context, in Tree) (Tree, error) { return in, nil }

// EchoFormula returns its argument.
//
//mcp:tool echo_formula
func EchoFormula(ctx context.Context, in Formula) (Formula, error) { return in, nil }

// EchoGenerics returns its argument.
//
//mcp:tool echo_generics
func EchoGenerics(ctx context.Context, in Generics) (Generics, error) { return in, nil }

// EchoAliases returns its argument.
//
//mcp:tool echo_aliases
func EchoAliases(ctx context.Context, in Aliases) (Aliases, error) { return in, nil }

// EchoTimes returns its argument.
//
//mcp:tool echo_times
func EchoTimes(ctx context.Context, in Times) (Times, error) { return in, nil }

// EchoDurations returns its argument.
//
//mcp:tool echo_durations
func EchoDurations(ctx context.Context, in Durations) (Durations, error) { return in, nil }

// EchoTextTypes returns its argument.
//
//mcp:tool echo_text_types
func EchoTextTypes(ctx context.Context, in TextTypes) (TextTypes, error) { return in, nil }

// EchoCustomJSON returns its argument.
//
//mcp:tool echo_custom_json
func EchoCustomJSON(ctx context.Context, in CustomJSON) (CustomJSON, error) { return in, nil }

// EchoRaw returns its argument.
//
//mcp:tool echo_raw
func EchoRaw(ctx context.Context, in Raw) (Raw, error) { return in, nil }

// EchoNumbers returns its argument.
//
//mcp:tool echo_numbers
func EchoNumbers(ctx context.Context, in Numbers) (Numbers, error) { return in, nil }

// EchoStringOption returns its argument.
//
//mcp:tool echo_string_option
func EchoStringOption(ctx context.Context, in StringOption) (StringOption, error) { return in, nil }

// EchoOmitZero returns its argument.
//
//mcp:tool echo_omit_zero
func EchoOmitZero(ctx context.Context, in OmitZero) (OmitZero, error) { return in, nil }

// EchoEnums returns its argument.
//
//mcp:tool echo_enums
func EchoEnums(ctx context.Context, in Enums) (Enums, error) { return in, nil }

// EchoDefaults returns its argument.
//
//mcp:tool echo_defaults
func EchoDefaults(ctx context.Context, in Defaults) (Defaults, error) { return in, nil }

// EchoAnnotations returns its argument.
//
//mcp:tool echo_annotations
func EchoAnnotations(ctx context.Context, in Annotations) (Annotations, error) { return in, nil }

// EchoDeepNesting returns its argument.
//
//mcp:tool echo_deep_nesting
func EchoDeepNesting(ctx context.Context, in DeepNesting) (DeepNesting, error) { return in, nil }

// EchoEmpty returns its argument.
//
//mcp:tool echo_empty
func EchoEmpty(ctx context.Context, in Empty) (Empty, error) { return in, nil }

// EchoEscapes returns its argument.
//
//mcp:tool echo_escapes
func EchoEscapes(ctx context.Context, in Escapes) (Escapes, error) { return in, nil }

// EchoRequired returns its argument.
//
//mcp:tool echo_required
func EchoRequired(ctx context.Context, in Required) (Required, error) { return in, nil }

// EchoExtremes returns its argument.
//
//mcp:tool echo_extremes
func EchoExtremes(ctx context.Context, in Extremes) (Extremes, error) { return in, nil }

// EchoBig returns its argument.
//
//mcp:tool echo_big
func EchoBig(ctx context.Context, in Big) (Big, error) { return in, nil }

// EchoMirrored returns its argument.
//
//mcp:tool echo_mirrored
func EchoMirrored(ctx context.Context, in Mirrored) (MirroredResult, error) {
	return MirroredResult(in), nil
}
