package outcheck

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// General compiles a schema a server sent for the general validator, which checks what
// Compile cannot. A $ref is resolved only within the schema:
// a reference that points at the network is never followed (the server could make the
// client fetch anything).
func General(name string, schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	comp.UseLoader(noLoader{})
	url := "mem://tools/" + strings.ReplaceAll(name, "/", "_") + "/outputSchema.json"
	if err := comp.AddResource(url, doc); err != nil {
		return nil, err
	}
	return comp.Compile(url)
}

// noLoader refuses to load any schema by URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s, which a client does not fetch", url)
}
