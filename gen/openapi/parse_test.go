package openapi

import (
	"strings"
	"testing"
)

// Swagger 2.0 read as OpenAPI 3.0 says it.
func TestSwagger2(t *testing.T) {
	doc, err := Parse(NewSource("pets.yaml", []byte(`swagger: "2.0"
info: {title: Pets, version: "1"}
host: pets.example.com
basePath: /v2/
schemes: [http, https]
consumes: [application/json]
securityDefinitions:
  key: {type: apiKey, in: query, name: key}
  login: {type: basic}
  app: {type: oauth2, flow: application, tokenUrl: https://pets.example.com/token}
security: [{key: []}]
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, type: integer, format: int64, minimum: 1}
    put:
      operationId: updatePet
      parameters:
        - {name: pet, in: body, required: true, schema: {$ref: '#/definitions/Pet'}}
        - {name: tags, in: query, type: array, items: {type: string}, collectionFormat: multi}
      responses:
        "200": {description: ok, schema: {$ref: '#/definitions/Pet'}}
  /pets/{id}/photo:
    post:
      operationId: uploadPhoto
      consumes: [multipart/form-data]
      parameters:
        - {name: id, in: path, required: true, type: integer}
        - {name: file, in: formData, type: file, required: true}
        - {name: caption, in: formData, type: string}
      responses:
        "204": {description: stored}
definitions:
  Pet:
    type: object
    discriminator: kind
    required: [kind]
    properties:
      kind: {type: string}
      name: {type: string, x-nullable: true}
`)))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2.0" || len(doc.Servers) != 1 || doc.Servers[0] != "https://pets.example.com/v2" {
		t.Errorf("version %s, servers %v", doc.Version, doc.Servers)
	}
	var kinds []string
	for _, s := range doc.Schemes {
		kinds = append(kinds, s.Name+"="+s.Type+"/"+s.Scheme+"/"+s.In+"/"+s.TokenURL)
	}
	if got := strings.Join(kinds, " "); got != "app=oauth2///https://pets.example.com/token key=apiKey//query/ login=http/basic//" {
		t.Errorf("schemes: %s", got)
	}
	if len(doc.Operations) != 2 {
		t.Fatalf("%d operations", len(doc.Operations))
	}
	put, post := doc.Operations[0], doc.Operations[1]
	if len(put.Params) != 2 || put.Params[0].Name != "id" || !put.Params[0].Required || string(put.Params[0].Schema) != `{"type":"integer","format":"int64","minimum":1}` ||
		put.Params[1].Style != "form" || !put.Params[1].Explode {
		t.Errorf("updatePet's parameters: %+v %+v", put.Params[0], put.Params[1])
	}
	if put.Body == nil || put.Body.Kind != BodyJSON || !put.Body.Required || put.Response == nil || put.Response.Kind != BodyJSON {
		t.Errorf("updatePet's body and response: %+v %+v", put.Body, put.Response)
	}
	if b := post.Body; b == nil || b.Kind != BodyMultipart || !strings.Contains(string(b.Schema), `"file":{"type":"string","format":"binary"}`) || !strings.Contains(string(b.Schema), `"required":["file"]`) {
		t.Errorf("uploadPhoto's form: %+v", post.Body)
	}
	// The schemas of the document are in 3.0's words.
	if !strings.Contains(string(doc.Root), `"discriminator":{"propertyName":"kind"}`) || !strings.Contains(string(doc.Root), `"nullable":true`) {
		t.Errorf("the document's schemas were not rewritten: %s", doc.Root)
	}
}

// Documents that are not what they say are refused with where.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"openapi": "3.0.0", "paths": {`, "x.json: not valid JSON: 1:"},
		{`openapi: 2.5.0`, "OpenAPI 2.5.0 is not supported"},
		{`{"info": {}}`, "not an OpenAPI document"},
		{"a: &a [*a, *a]\nb: [*a]", "x.json: "},
		{"\xef\xbb\xbf{\"openapi\": \"3.1.0\", \"paths\": {}}", ""},
		{`{"openapi": "3.0.0", "paths": []}`, "x.json: paths: not an object"},
		{`{"swagger": "2.0", "paths": 1}`, "x.json: paths: not an object"},
		{`{"openapi": "3.0.0", "servers": {}}`, "x.json: servers: json: cannot unmarshal object"},
		{`{"openapi": 3}`, "x.json: openapi: json: cannot unmarshal number"},
		{`{"openapi": "3.0.0", "paths": null}`, ""},
	} {
		_, err := Parse(NewSource("x.json", []byte(tc.doc)))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.doc, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.doc, err, tc.want)
		}
	}
}
