// Package errheaders has header tags (mcp:"header=...") that mcpgen rejects, each at its
// position: names, tag keys, field types, and uses where no header can be.
package errheaders

import (
	"encoding/json"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// Names has header names that are no HTTP header names, and tag keys mcpgen does not know.
type Names struct {
	Empty    string `json:"empty" mcp:"header="`
	Bare     string `json:"bare" mcp:"header"`
	Space    string `json:"space" mcp:"header=Re gion"`
	Colon    string `json:"colon" mcp:"header=Region:"`
	Unicode  string `json:"unicode" mcp:"header=Région"`
	Misspelt string `json:"misspelt" mcp:"haeder=Region"`
	Unknown  string `json:"unknown" mcp:"required"`
	Twice    string `json:"twice" mcp:"header=One,header=Two"`
	Both     string `json:"both" jsonschema_extras:"x-mcp-header=Both" mcp:"header=Both"`
	Boolean  string `json:"boolean" jsonschema_extras:"x-mcp-header=true"`
	Repeated string `json:"repeated" jsonschema_extras:"x-mcp-header=A,x-mcp-header=B"`
}

// Types has headers on fields whose values cannot be mirrored.
type Types struct {
	Float    float64              `json:"float" mcp:"header=Float"`
	Number   json.Number          `json:"number" mcp:"header=Number"`
	List     []string             `json:"list" mcp:"header=List"`
	Bytes    []byte               `json:"bytes" mcp:"header=Bytes"`
	Map      map[string]string    `json:"map" mcp:"header=Map"`
	Object   Inner                `json:"object" mcp:"header=Object"`
	When     time.Time            `json:"when" mcp:"header=When"`
	Wait     time.Duration        `json:"wait" mcp:"header=Wait"`
	Anything any                  `json:"anything" mcp:"header=Anything"`
	Quoted   string               `json:"quoted,string" mcp:"header=Quoted"`
	Nullable *string              `json:"nullable,omitempty" jsonschema:"nullable" mcp:"header=Nullable"`
	NullStr  string               `json:"nullStr" jsonschema:"nullable" mcp:"header=Null-Str"`
	Extras   float32              `json:"extras" jsonschema_extras:"x-mcp-header=Extras"`
	Three    mcp.Nullable[string] `json:"three,omitzero" mcp:"header=Three"`
}

// Inner is an object.
type Inner struct {
	A string `json:"a"`
}

// Integers have headers on integers that may be beyond ±(2^53-1).
type Integers struct {
	Int      int     `json:"int" mcp:"header=Int"`
	Int64    int64   `json:"int64" mcp:"header=Int64"`
	Uint     uint    `json:"uint" mcp:"header=Uint"`
	Uint64   uint64  `json:"uint64" mcp:"header=Uint64"`
	Half     int64   `json:"half" jsonschema:"maximum=100" mcp:"header=Half"`
	Beyond   int64   `json:"beyond" jsonschema:"minimum=0,maximum=9007199254740992" mcp:"header=Beyond"`
	Below    int64   `json:"below" jsonschema:"exclusiveMinimum=-9007199254740993,maximum=0" mcp:"header=Below"`
	Enum     int64   `json:"enum" jsonschema:"enum=1,enum=9007199254740992" mcp:"header=Enum"`
	Pointer  *uint64 `json:"pointer,omitempty" mcp:"header=Pointer"`
	Bounded  int64   `json:"bounded" jsonschema:"exclusiveMinimum=-9007199254740992,exclusiveMaximum=9007199254740992" mcp:"header=Bounded"`
	AsText   uint64  `json:"asText,string" mcp:"header=As-Text"`
	Narrow   int32   `json:"narrow" mcp:"header=Narrow"`
	Unsigned uint32  `json:"unsigned" mcp:"header=Unsigned"`
}

// Strays has mcp tags on fields that are no properties.
type Strays struct {
	hidden   string `mcp:"header=Hidden"`
	Skipped  string `json:"-" mcp:"header=Skipped"`
	Schema   string `json:"schema" jsonschema:"-" mcp:"header=Schema"`
	Embedded `mcp:"header=Embedded"`
	Kept     string `json:"kept"`
}

// Embedded is flattened into Strays.
type Embedded struct {
	E string `json:"e"`
}

// CheckNames takes header names mcpgen rejects.
//
//mcp:tool
func CheckNames(in Names) error { return nil }

// CheckTypes takes headers on types mcpgen rejects.
//
//mcp:tool
func CheckTypes(in Types) error { return nil }

// CheckIntegers takes headers on integers without bounds.
//
//mcp:tool
func CheckIntegers(in Integers) error { return nil }

// CheckStrays takes mcp tags on fields that are no properties.
//
//mcp:tool
func CheckStrays(in Strays) error { _ = in.hidden; return nil }
