package importer

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

// declared is what a generated package declares: each type's Go source (its fields, without
// comments), by name.
func declared(t *testing.T, src []byte) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0) // no comments: the shape alone
	if err != nil {
		t.Fatalf("the package does not parse: %v\n%s", err, src)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			var b strings.Builder
			printer.Fprint(&b, fset, ts.Type)
			out[ts.Name.Name] = strings.Join(strings.Fields(b.String()), " ")
		}
	}
	return out
}

func generate(t *testing.T, snap *Snapshot) (*Result, map[string]string) {
	t.Helper()
	res, err := Generate(snap, Options{Package: "x", Dir: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return res, declared(t, res.Files[0].Data)
}

const entity = `{"type":"object","properties":{"id":{"type":"integer","description":"%s"},"name":{"type":"string"},
"tags":{"type":"array","items":{"type":"string"}}},"required":["id","name"]}`

const options = `{"type":"object","description":"How to search.","properties":{"limit":{"type":"integer"},
"sort":{"type":"object","properties":{"by":{"type":"string","enum":["name","date"]},"desc":{"type":"boolean"}}}}}`

// Item 7 of issue 25: identical shapes are one type, named after their uses, whatever their
// descriptions or property order; different shapes stay apart.
func TestOneTypePerShape(t *testing.T) {
	user := strings.ReplaceAll(entity, "%s", "The user's id.")
	reordered := `{"type":"object","required":["name","id"],"properties":{"tags":{"type":"array","items":{"type":"string"}},"name":{"type":"string","description":"Another text."},"id":{"type":"integer"}}}`
	snap := &Snapshot{Tools: []Tool{
		{Name: "get_user", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"user":` + user + `}}`)},
		{Name: "list_users", InputSchema: json.RawMessage(`{"type":"object","properties":{"options":` + options + `}}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"users":{"type":"array","items":` + user + `}}}`)},
		{Name: "find_user", InputSchema: json.RawMessage(`{"type":"object","properties":{"options":` + options + `}}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"user":` + reordered + `,"nearest":` + strings.ReplaceAll(entity, "%s", "") + `}}`)},
		{Name: "search", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"options":` + strings.Replace(options, "How to search.", "Other words.", 1) + `}}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"owner":` + user + `,"author":` + user + `}}`)},
		{Name: "count", InputSchema: json.RawMessage(`{"type":"object","properties":{"options":` + options + `}}`),
			// Not the same shape: name is optional here.
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"user":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["id"]}}}`)},
	}}
	_, types := generate(t, snap)
	var entities, optionTrees []string
	for name, src := range types {
		if strings.Contains(src, `json:"tags`) {
			entities = append(entities, name)
		}
		if strings.Contains(src, `json:"limit`) {
			optionTrees = append(optionTrees, name)
		}
	}
	slices.Sort(entities)
	// The entity of get_user, list_users, find_user (twice) and search (twice) is one type,
	// named after the property most of its uses share; count's differs.
	if !slices.Equal(entities, []string{"CountOutputUser", "User"}) {
		t.Errorf("entity types %v, want [CountOutputUser User]\n%v", entities, types)
	}
	if !slices.Equal(optionTrees, []string{"Options"}) {
		t.Errorf("options types %v, want [Options]", optionTrees)
	}
	if n := strings.Count(strings.Join(mapValues(types), "\n"), `json:"desc`); n != 1 {
		t.Errorf("the options' sort tree is declared %d times", n)
	}
	for name, want := range map[string]string{"SearchOutput": "Owner *User", "ListUsersOutput": "Users []User", "FindUserOutput": "Nearest *User"} {
		if !strings.Contains(types[name], want) {
			t.Errorf("%s: %s, want a field %s", name, types[name], want)
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// Names come from the tools, not from their order in the snapshot nor from map order: the
// same server in any order gives the same package.
func TestGenerateDeterministic(t *testing.T) {
	for _, path := range []string{"../../golden/import/openapi/snapshot.json", "../../golden/import/memory/snapshot.json", "../../golden/import/constructs/snapshot.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := ReadSnapshot(data)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := generate(t, snap)
		r := rand.New(rand.NewPCG(1, 2))
		for range 5 {
			shuffled := *snap
			shuffled.Tools = slices.Clone(snap.Tools)
			r.Shuffle(len(shuffled.Tools), func(i, j int) { shuffled.Tools[i], shuffled.Tools[j] = shuffled.Tools[j], shuffled.Tools[i] })
			for i, tl := range shuffled.Tools {
				shuffled.Tools[i].InputSchema = shuffleMembers(t, r, tl.InputSchema)
				if tl.OutputSchema != nil {
					shuffled.Tools[i].OutputSchema = shuffleMembers(t, r, tl.OutputSchema)
				}
			}
			got, _ := generate(t, &shuffled)
			if string(got.Files[0].Data) != string(want.Files[0].Data) || !slices.Equal(got.Fallbacks, want.Fallbacks) {
				t.Fatalf("%s: another order of the tools and of the schemas' members gives another package:\n%s", path,
					udiff.Unified("in order", "shuffled", string(want.Files[0].Data), string(got.Files[0].Data)))
			}
		}
	}
}

// shuffleMembers writes a schema again with the members of its objects in another order,
// except those of properties (their order is the fields'), and its required lists shuffled.
func shuffleMembers(t *testing.T, r *rand.Rand, raw json.RawMessage) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var write func(b *strings.Builder, v any, keepOrder []string)
	write = func(b *strings.Builder, v any, keepOrder []string) {
		switch x := v.(type) {
		case map[string]any:
			original, _ := x[rawKey].(json.RawMessage)
			keys := keepOrder
			if keys == nil {
				for k := range x {
					if k != rawKey {
						keys = append(keys, k)
					}
				}
				slices.Sort(keys)
				r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			}
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				kb, _ := json.Marshal(k)
				b.Write(kb)
				b.WriteByte(':')
				var order []string
				if k == "properties" && original != nil {
					order = ObjectKeys(original, "properties")
				}
				if k == "required" {
					if list, ok := x[k].([]any); ok {
						r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
					}
				}
				write(b, x[k], order)
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				write(b, e, nil)
			}
			b.WriteByte(']')
		default:
			vb, _ := json.Marshal(x)
			b.Write(vb)
		}
	}
	// Property order must survive: read it from the original text, object by object.
	var b strings.Builder
	write(&b, orderedFrom(t, raw), nil)
	return json.RawMessage(b.String())
}

// orderedFrom decodes raw keeping, for each object with properties, the original text of that
// object, so that the order of its properties can be read again.
func orderedFrom(t *testing.T, raw json.RawMessage) any {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		m := map[string]any{}
		for k, v := range obj {
			m[k] = orderedFrom(t, v)
		}
		if _, ok := obj["properties"]; ok {
			m[rawKey] = raw
		}
		return m
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil && arr != nil {
		out := []any{}
		for _, v := range arr {
			out = append(out, orderedFrom(t, v))
		}
		return out
	}
	var v any
	json.Unmarshal(raw, &v)
	return v
}

const rawKey = "\x00raw"
