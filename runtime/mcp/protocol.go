package mcp

import "slices"

// Protocol revisions this runtime speaks, newest first. The first is offered to a client
// that asks for a revision we do not know.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// LatestProtocolVersion is the newest revision this runtime speaks.
const LatestProtocolVersion = "2025-11-25"

// SupportedProtocolVersions returns the revisions this runtime speaks, newest first.
func SupportedProtocolVersions() []string {
	return append([]string(nil), supportedVersions...)
}

// negotiate picks the revision to answer an initialize request with: the client's own if we
// speak it, otherwise our newest (the client then decides whether it can go on).
func negotiate(requested string) string {
	if slices.Contains(supportedVersions, requested) {
		return requested
	}
	return supportedVersions[0]
}

// dialect says which optional message fields a protocol revision knows. Revisions are
// dates, so string comparison orders them.
type dialect uint8

const (
	dialect2024   dialect = iota // 2024-11-05: name, description, inputSchema
	dialect2025a                 // 2025-03-26: + tool annotations, audio content
	dialect2025b                 // 2025-06-18 and later: + titles, outputSchema, structuredContent, resource links
	dialectModern                // 2026-07-28: the same fields; results get resultType and _meta
	numDialects
)

func dialectOf(version string) dialect {
	switch {
	case version >= ModernProtocolVersion:
		return dialectModern
	case version >= "2025-06-18":
		return dialect2025b
	case version >= "2025-03-26":
		return dialect2025a
	}
	return dialect2024
}
