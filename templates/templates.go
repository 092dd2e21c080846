// Package templates holds the files `mcpgen new` renders into a new project, embedded in the
// mcpgen binary. Each file under project/ is a text/template; the name "gitignore" stands
// for .gitignore and "github" for .github (dot files are awkward to embed and to browse).
package templates

import "embed"

// Project is the tree of a new project's files.
//
//go:embed all:project
var Project embed.FS

// Data is what the templates are rendered with.
type Data struct {
	Module    string // the Go module path
	Name      string // the MCP server name, also the binary's
	GoVersion string // the go directive
	// MCPGenVersion is the version of mcpgen the project requires, and MCPGenDir, when set,
	// the checkout it is replaced by (a development build of mcpgen wrote the project).
	MCPGenVersion string
	MCPGenDir     string
	// Telemetry adds OpenTelemetry and Prometheus to the server (runtime/otelmcp), and
	// their modules to go.mod; without it, the project requires no module of theirs.
	Telemetry bool
	// OpenAPI: the project serves an API's operations too, from package api, which mcpgen
	// openapi generates from the document in openapi.json (or .yaml); OpenAPIEnv is the
	// prefix of the environment variables of its credentials and base URL.
	OpenAPI    bool
	OpenAPIEnv string
}
