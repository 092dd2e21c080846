package mcp

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Roots asks the client for its roots: the directories or files it lets the server work in.
func Roots(ctx context.Context) ([]Root, error) {
	raw, err := ask(ctx, methodListRoots, []byte("{}"))
	if err != nil {
		return nil, err
	}
	return readRoots(raw)
}

// readRoots reads the client's answer to roots/list, a ListRootsResult. An answer of another
// shape is an error that says, in the protocol's words, where, what was expected and what
// came.
func readRoots(raw []byte) ([]Root, error) {
	var roots []Root
	d := jsonwire.NewDecoder(raw)
	for key := range d.Members {
		if string(key) != "roots" {
			d.Skip()
			continue
		}
		roots = []Root{}
		for range d.Elements {
			var r Root
			for key := range d.Members {
				switch string(key) {
				case "uri":
					r.URI, _ = d.String()
				case "name":
					r.Name, _ = d.String()
				default:
					d.Skip()
				}
			}
			roots = append(roots, r)
		}
	}
	if d.Finish(); d.Failed() {
		return nil, fmt.Errorf("mcp: the client's answer to roots/list is not a ListRootsResult (an object with roots, an array of objects with uri and name):\n%s", d.Summary())
	}
	return roots, nil
}

// Root is a root the client offers.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}
