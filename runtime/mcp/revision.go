package mcp

import "slices"

// Protocol revisions. MCP names its revisions by date, and a revision either has sessions
// (begun with initialize: 2024-11-05 to 2025-11-25) or has none (2026-07-28: every request
// carries its version and the client's capabilities). This runtime serves both kinds at
// once, deciding per request (see stateless.go).
//
// Code asks a revision what it has through the predicates below, never by comparing dates:
// a new revision is a constant, its name, and the predicates that change with it.

// StatefulProtocolVersion is the newest revision with sessions this runtime speaks.
const StatefulProtocolVersion = "2025-11-25"

// StatelessProtocolVersion is the newest stateless revision this runtime speaks.
const StatelessProtocolVersion = "2026-07-28"

// revision is a protocol revision this runtime speaks, oldest first: the order is the
// protocol's, so later revisions compare greater.
type revision uint8

const (
	rev20241105 revision = iota
	rev20250326
	rev20250618
	rev20251125
	rev20260728
	numRevisions
)

var revisionNames = [numRevisions]string{
	rev20241105: "2024-11-05",
	rev20250326: "2025-03-26",
	rev20250618: "2025-06-18",
	rev20251125: StatefulProtocolVersion,
	rev20260728: StatelessProtocolVersion,
}

// parseRevision finds the revision a version string names.
func parseRevision(v string) (revision, bool) {
	for r := numRevisions - 1; r < numRevisions; r-- { // newest first: the common case
		if revisionNames[r] == v {
			return r, true
		}
	}
	return 0, false
}

// String is the revision's date, as the protocol writes it.
func (r revision) String() string { return revisionNames[r] }

// stateless: no initialize and no sessions; every request carries its version and the
// client's capabilities in _meta, and results carry resultType.
func (r revision) stateless() bool { return r >= rev20260728 }

// toolAnnotations: tools have annotations, and content may be audio (2025-03-26).
func (r revision) toolAnnotations() bool { return r >= rev20250326 }

// titleInAnnotations: a tool's title travels in its annotations (2025-03-26 only; a field
// of its own from 2025-06-18).
func (r revision) titleInAnnotations() bool { return r == rev20250326 }

// titles: tools, prompts and resources have titles, tools an outputSchema and results
// structuredContent, and content may be a resource link (2025-06-18).
func (r revision) titles() bool { return r >= rev20250618 }

// icons: servers, tools, resources, templates and prompts may have icons, and an
// Implementation a description and a website (2025-11-25).
func (r revision) icons() bool { return r >= rev20251125 }

// elicitationModes: elicitation has URL mode, and form schemas titled enums (2025-11-25).
func (r revision) elicitationModes() bool { return r >= rev20251125 }

// samplingContextDeclared: a client declares sampling.context to be asked for
// includeContext other than "none"; before 2025-11-25 every sampling client took it.
func (r revision) samplingContextDeclared() bool { return r >= rev20251125 }

// samplingTools: a sampling request may offer the client's model tools, and its messages
// and result hold tool uses and results, and several blocks (2025-11-25).
func (r revision) samplingTools() bool { return r >= rev20251125 }

// primingEvents: an SSE stream begins with an event that has an id and no data, so that a
// client can resume it from the start (2025-11-25).
func (r revision) primingEvents() bool { return r >= rev20251125 }

// tasks: the tasks extension (io.modelcontextprotocol/tasks) exists (2026-07-28).
func (r revision) tasks() bool { return r >= rev20260728 }

// statefulVersions are the revisions with sessions, newest first. The first is offered to a
// client that asks for a revision we do not know.
var statefulVersions = versions(func(r revision) bool { return !r.stateless() })

// statelessVersions are the stateless revisions, newest first.
var statelessVersions = versions(revision.stateless)

// allVersions lists every revision served, stateless first, for server/discover and
// UnsupportedProtocolVersion.
var allVersions = slices.Concat(statelessVersions, statefulVersions)

// versions lists the names of the revisions that keep says, newest first.
func versions(keep func(revision) bool) []string {
	var vs []string
	for r := numRevisions - 1; r < numRevisions; r-- {
		if keep(r) {
			vs = append(vs, r.String())
		}
	}
	return vs
}

// SupportedProtocolVersions returns the revisions with sessions this runtime speaks, newest
// first: those a client may ask for in initialize.
func SupportedProtocolVersions() []string {
	return append([]string(nil), statefulVersions...)
}

// negotiate picks the revision to answer an initialize request with: the client's own if we
// speak it, otherwise our newest (the client then decides whether it can go on).
func negotiate(requested string) revision {
	if r, ok := parseRevision(requested); ok && !r.stateless() {
		return r
	}
	r, _ := parseRevision(statefulVersions[0])
	return r
}

// isStateful reports whether a version names a revision with sessions that we speak.
func isStateful(version string) bool {
	r, ok := parseRevision(version)
	return ok && !r.stateless()
}

// isStateless reports whether a version names a stateless revision that we speak.
func isStateless(version string) bool {
	r, ok := parseRevision(version)
	return ok && r.stateless()
}

// revisions is a set of revisions: those that have a method.
type revisions uint16

// allRevisions is every revision.
const allRevisions = revisions(1<<numRevisions - 1)

// from is the set of r and the revisions after it.
func from(r revision) revisions { return allRevisions &^ (1<<r - 1) }

// until is the set of the revisions before r.
func until(r revision) revisions { return 1<<r - 1 }

// has reports whether r is in the set.
func (s revisions) has(r revision) bool { return s&(1<<r) != 0 }

// dialect says which optional message fields a revision knows: what a server writes for a
// client depends on it, and listings are rendered once per dialect.
type dialect uint8

const (
	dialect20241105 dialect = iota // name, description, inputSchema
	dialect20250326                // + tool annotations, audio content
	dialect20250618                // + titles, outputSchema, structuredContent, resource links
	dialect20251125                // + icons; an Implementation's description and websiteUrl; tools in sampling
	dialect20260728                // the same fields; results get resultType and _meta
	numDialects
)

// dialect is the dialect a client of the revision reads.
func (r revision) dialect() dialect {
	switch {
	case r.stateless():
		return dialect20260728
	case r.icons():
		return dialect20251125
	case r.titles():
		return dialect20250618
	case r.toolAnnotations():
		return dialect20250326
	}
	return dialect20241105
}

// The dialect's fields, as the revisions' predicates say them.

func (d dialect) toolAnnotations() bool    { return d >= dialect20250326 }
func (d dialect) titleInAnnotations() bool { return d == dialect20250326 }
func (d dialect) titles() bool             { return d >= dialect20250618 }
func (d dialect) icons() bool              { return d >= dialect20251125 }
func (d dialect) samplingTools() bool      { return d >= dialect20251125 }

// completionContext: completion/complete carries the values of the other arguments.
func (d dialect) completionContext() bool { return d >= dialect20250618 }
