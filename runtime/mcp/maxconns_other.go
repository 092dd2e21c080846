//go:build !unix

package mcp

// defaultMaxConns is a fixed bound where the process has no limit of open files to size it
// by.
func defaultMaxConns() int { return fallbackMaxConns }
