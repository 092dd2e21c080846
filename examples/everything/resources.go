package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// StaticText is a fixed text resource.
//
//mcp:resource test://static-text name=static-text mime=text/plain
func StaticText() string {
	return "This is the content of the static text resource."
}

// StaticBinary is a fixed binary resource: a PNG image.
//
//mcp:resource test://static-binary name=static-binary mime=image/png
func StaticBinary() []byte {
	return pngPixel
}

// TemplateParams are the variables of the template resource.
type TemplateParams struct {
	// ID of the data, a positive number.
	ID int `json:"id" jsonschema:"minimum=1"`
}

// TemplateData is the data of one ID, as JSON.
//
//mcp:resource test://template/{id}/data name=template mime=application/json
func TemplateData(p TemplateParams) string {
	return fmt.Sprintf(`{"id":"%d","templateTest":true,"data":"Data for ID: %d"}`, p.ID, p.ID)
}

// CompleteID suggests IDs for the template resource.
//
//mcp:complete resource="test://template/{id}/data" arg=id
func CompleteID(value string) []string {
	var out []string
	for _, id := range []string{"1", "12", "123", "1234"} {
		if strings.HasPrefix(id, value) {
			out = append(out, id)
		}
	}
	return out
}

// Watched is a text resource that changes: clients subscribe to it and are told when
// update_watched_resource changes it.
type Watched struct {
	srv  *mcp.Server
	mu   sync.Mutex
	text string
}

// Read returns the current text.
//
//mcp:resource test://watched-resource name=watched-resource mime=text/plain
func (w *Watched) Read(ctx context.Context) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text, nil
}

// UpdateInput is the new text of the watched resource.
type UpdateInput struct {
	// Text the resource holds from now on.
	Text string `json:"text"`
}

// Update changes the watched resource and tells its subscribers.
//
//mcp:tool update_watched_resource idempotent destructive=false
func (w *Watched) Update(in UpdateInput) {
	w.mu.Lock()
	w.text = in.Text
	w.mu.Unlock()
	w.srv.NotifyResourceUpdated("test://watched-resource")
}
