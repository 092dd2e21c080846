package mcp

import "slices"

// Protocol revisions. MCP names its revisions by date, and a revision either has sessions
// (begun with initialize: 2024-11-05 to 2025-11-25) or has none (2026-07-28: every request
// carries its version and the client's capabilities). This runtime serves both kinds at
// once, deciding per request (see stateless.go).

// StatefulProtocolVersion is the newest revision with sessions this runtime speaks.
const StatefulProtocolVersion = "2025-11-25"

// StatelessProtocolVersion is the newest stateless revision this runtime speaks.
const StatelessProtocolVersion = "2026-07-28"

// statefulVersions are the revisions with sessions, newest first. The first is offered to a
// client that asks for a revision we do not know.
var statefulVersions = []string{StatefulProtocolVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// statelessVersions are the stateless revisions, newest first.
var statelessVersions = []string{StatelessProtocolVersion}

// allVersions lists every revision served, stateless first, for server/discover and
// UnsupportedProtocolVersion.
var allVersions = slices.Concat(statelessVersions, statefulVersions)

// SupportedProtocolVersions returns the revisions with sessions this runtime speaks, newest
// first: those a client may ask for in initialize.
func SupportedProtocolVersions() []string {
	return append([]string(nil), statefulVersions...)
}

// negotiate picks the revision to answer an initialize request with: the client's own if we
// speak it, otherwise our newest (the client then decides whether it can go on).
func negotiate(requested string) string {
	if slices.Contains(statefulVersions, requested) {
		return requested
	}
	return statefulVersions[0]
}

// isStateful reports whether a version names a revision with sessions that we speak.
func isStateful(version string) bool { return slices.Contains(statefulVersions, version) }

// dialect says which optional message fields a protocol revision knows; what a server
// writes for a client depends on it. Revisions are dates, so string comparison orders them.
type dialect uint8

const (
	dialect20241105 dialect = iota // name, description, inputSchema
	dialect20250326                // + tool annotations, audio content
	dialect20250618                // + titles, outputSchema, structuredContent, resource links (2025-11-25 too)
	dialect20260728                // the same fields; results get resultType and _meta
	numDialects
)

func dialectOf(version string) dialect {
	switch {
	case version >= "2026-07-28":
		return dialect20260728
	case version >= "2025-06-18":
		return dialect20250618
	case version >= "2025-03-26":
		return dialect20250326
	}
	return dialect20241105
}
