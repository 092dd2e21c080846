// Package errtags has jsonschema tags that mcpgen rejects, each at its position.
package errtags

// In has one mistake per field.
type In struct {
	A string   `json:"a" jsonschema:"minLenght=1"`
	B int      `json:"b" jsonschema:"minLength=1"`
	C int      `json:"c" jsonschema:"minimum=abc"`
	D string   `json:"d,omitempty" jsonschema:"enum=x,enum=y,default=z"`
	E string   `json:"e" jsonschema:"default=x"`
	F string   `json:"f" jsonschema:"pattern=(unclosed"`
	G uint8    `json:"g" jsonschema:"enum=300"`
	H []string `json:"h" jsonschema:"minItems=-1"`
	I bool     `json:"i" jsonschema:"default=yes"`
	J float64  `json:"j" jsonschema:"uniqueItems"`
	K string   `json:"k" jsonschema:"maxLength"`
	L string   `json:"l" jsonschema:"readOnly=sometimes"`
	M int      `json:"m" jsonschema:"multipleOf=2"`
	N string   `json:"n" jsonschema_extras:"novalue"`
	O string   `json:"o,omitempty" jsonschema:"minLength=5,default=abc"`
	P int      `json:"p" jsonschema:"minimum=1,example=5,example=0"`
	Q []string `json:"q" jsonschema:"pattern=^[a-z]+$,example=abc,example=ABC"`
	R []string `json:"r,omitempty" jsonschema:"uniqueItems,default=a,default=b,default=a"`
	S string   `json:"s,omitempty" jsonschema:"const=a,default=b"`
	T int      `json:"t" jsonschema:"const=x"`
}

// Check takes a struct full of tag mistakes.
//
//mcp:tool
func Check(in In) error { return nil }

// Misspelled holds keys misspelled near a keyword of another type: the hint offers only
// keys that apply.
type Misspelled struct {
	A int      `json:"a" jsonschema:"minLenght=1"`
	B []string `json:"b" jsonschema:"minLenght=1"`
	C int      `json:"c" jsonschema:"maximun=3"`
	D float64  `json:"d" jsonschema:"uniqeItems"`
}

// CheckMisspelled takes them.
//
//mcp:tool
func CheckMisspelled(in Misspelled) error { return nil }
