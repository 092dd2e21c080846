package mcp

import (
	"context"
	"encoding/json"
	"fmt"
)

// Roots asks the client for its roots: the directories or files it lets the server work in.
func Roots(ctx context.Context) ([]Root, error) {
	raw, err := ask(ctx, "roots", func(c ClientCapabilities) bool { return c.Roots }, "roots/list", []byte("{}"))
	if err != nil {
		return nil, err
	}
	var res struct {
		Roots []Root `json:"roots"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcp: the client's roots/list result: %w", err)
	}
	return res.Roots, nil
}

// Root is a root the client offers.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}
