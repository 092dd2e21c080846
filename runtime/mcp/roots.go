package mcp

import "context"

// Roots asks the client for its roots: the directories or files it lets the server work in.
func Roots(ctx context.Context) ([]Root, error) {
	raw, err := ask(ctx, methodListRoots, []byte("{}"))
	if err != nil {
		return nil, err
	}
	return readRoots(raw)
}

// Root is a root the client offers.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}
