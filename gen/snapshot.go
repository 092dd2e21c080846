package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpgen/mcpgen/gen/importer"
	"github.com/mcpgen/mcpgen/gen/internal/model"
	"github.com/mcpgen/mcpgen/gen/internal/schema"
)

// SnapshotFileName is the file in a server's package that holds the snapshot its schemas are
// checked against: what its callers were written for. mcpgen --snapshot writes it; mcpgen
// check fails when the package's tools changed from it in a way that breaks callers.
const SnapshotFileName = "mcp_snapshot.json"

// snapshot is what a package offers, as a client would list it: its tools with their
// schemas, its prompts with their arguments, its resource templates.
func snapshot(p *model.Package) *importer.Snapshot {
	s := &importer.Snapshot{}
	for _, d := range p.Decls {
		switch d := d.(type) {
		case *model.Tool:
			t := importer.Tool{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: json.RawMessage(d.InputSchema)}
			if d.Out == model.OutStruct {
				t.OutputSchema = json.RawMessage(d.OutputSchema)
			}
			s.Tools = append(s.Tools, t)
		case *model.Prompt:
			pr := importer.Prompt{Name: d.Name, Title: d.Title, Description: d.Description}
			if d.In != nil {
				var args struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
					Required []string `json:"required"`
				}
				raw := schema.Render(d.In)
				json.Unmarshal(raw, &args)
				for _, name := range importer.ObjectKeys(raw, "properties") {
					pr.Arguments = append(pr.Arguments, importer.PromptArgument{Name: name, Description: args.Properties[name].Description, Required: slices.Contains(args.Required, name)})
				}
			}
			s.Prompts = append(s.Prompts, pr)
		case *model.Resource:
			if len(d.Vars) > 0 {
				s.ResourceTemplates = append(s.ResourceTemplates, importer.ResourceTemplate{URITemplate: d.URI, Name: d.Name, Title: d.Title, Description: d.Description, MIMEType: d.MIMEType})
			}
		}
	}
	if len(s.Tools)+len(s.Prompts)+len(s.ResourceTemplates) == 0 {
		return nil
	}
	return s
}

// SnapshotPath is where the package of f keeps its snapshot.
func SnapshotPath(f File) string { return filepath.Join(filepath.Dir(f.Path), SnapshotFileName) }

// WriteSnapshot writes the snapshot of f's package (mcpgen --snapshot), if it offers
// anything, and says whether the file changed.
func WriteSnapshot(f File) (Change, error) {
	if f.Snapshot == nil {
		return Unchanged, nil
	}
	data, err := f.Snapshot.Marshal()
	if err != nil {
		return Unchanged, err
	}
	path := SnapshotPath(f)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, data):
		return Unchanged, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return Unchanged, err
	}
	change := Updated
	if err != nil {
		change = Created
	}
	return change, os.WriteFile(path, data, 0o644)
}

// CompareSnapshot compares the committed snapshot of f's package with what the package offers
// now. found is false when the package has no snapshot file.
func CompareSnapshot(f File) (changes []importer.Change, found bool, err error) {
	data, err := os.ReadFile(SnapshotPath(f))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	committed, err := importer.ReadSnapshot(data)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", SnapshotPath(f), err)
	}
	now := f.Snapshot
	if now == nil {
		now = &importer.Snapshot{}
	}
	return importer.Compare(committed, now), true, nil
}
