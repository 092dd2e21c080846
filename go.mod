module github.com/mcpgen/mcpgen

go 1.25.0
