package jsonwire

import (
	"strconv"
	"strings"
)

// Problems: where a value is wrong (a JSON Pointer kept as the decoder goes) and what is
// wrong with it, collected rather than stopping at the first.

// maxProblems bounds how many problems one decode reports; a value with thousands of bad
// elements gets a readable message, not a megabyte of them.
const maxProblems = 50

// Problem is one reason a value was rejected, at a JSON Pointer (RFC 6901) into the input.
// The empty pointer is the whole value.
type Problem struct {
	Path    string
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// segment is one step of the path to the value being decoded: an object key or an array index.
type segment struct {
	key   []byte // nil for an index
	index int
}

// path is the path to the value being decoded, one segment per container entered: its
// length is the nesting depth. The first segments are held in the Decoder itself, since
// most documents nest shallowly, and no slice points at them: a pointer from a Decoder into
// itself would make every Decoder escape to the heap, even one a function keeps to itself.
type path struct {
	len    int
	inline [8]segment
	more   []segment // the segments beyond inline, kept from one document to the next
}

// push adds a segment and returns its index.
func (p *path) push() int {
	if p.len >= len(p.inline) {
		p.more = append(p.more[:p.len-len(p.inline)], segment{})
	}
	p.len++
	return p.len - 1
}

// at returns the segment at index i.
func (p *path) at(i int) *segment {
	if i < len(p.inline) {
		return &p.inline[i]
	}
	return &p.more[i-len(p.inline)]
}

// Failed reports whether any problem was found.
func (d *Decoder) Failed() bool { return len(d.problems) > 0 }

// SyntaxError reports whether the input was not valid JSON.
func (d *Decoder) SyntaxError() bool { return d.syntax }

// Problems returns the problems found so far, in input order.
func (d *Decoder) Problems() []Problem { return d.problems }

// Summary joins all problems into one message, one per line.
func (d *Decoder) Summary() string { return summary(d.problems, d.omitted) }

func summary(problems []Problem, omitted int) string {
	var b strings.Builder
	for i, p := range problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	if omitted > 0 {
		b.WriteString("\n(" + strconv.Itoa(omitted) + " more problems not shown)")
	}
	return b.String()
}

// Finish checks that nothing but whitespace follows the value just decoded.
func (d *Decoder) Finish() {
	if d.syntax {
		return
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		d.syntaxError("unexpected data after the JSON value")
	}
}

// Report records a problem with the value at the current path.
func (d *Decoder) Report(message string) {
	if len(d.problems) >= maxProblems {
		d.omitted++
		return
	}
	d.problems = append(d.problems, Problem{Path: d.pointer(""), Message: message})
}

// ReportMissing records that the current object lacks the required property key.
func (d *Decoder) ReportMissing(key string) {
	if len(d.problems) >= maxProblems {
		d.omitted++
		return
	}
	d.problems = append(d.problems, Problem{Path: d.pointer(key), Message: "missing required property"})
}

// reportType records that the next value has the wrong JSON type and skips it.
func (d *Decoder) reportType(want string, got Kind) {
	d.Report("expected " + want + ", got " + got.String())
	d.Skip()
}

// pointer renders the current path, plus an extra key if one is given, as a JSON Pointer.
func (d *Decoder) pointer(extra string) string {
	var b strings.Builder
	for i := range d.path.len {
		s := d.path.at(i)
		b.WriteByte('/')
		if s.key == nil {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			writePointerToken(&b, string(s.key))
		}
	}
	if extra != "" {
		b.WriteByte('/')
		writePointerToken(&b, extra)
	}
	return b.String()
}

func writePointerToken(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(s[i])
		}
	}
}

func (d *Decoder) syntaxError(msg string) {
	if d.syntax {
		return
	}
	d.syntax = true
	// A syntax error makes everything else moot: report only it.
	d.problems = append(d.problems[:0], Problem{Message: "invalid JSON at offset " + strconv.Itoa(d.pos) + ": " + msg})
	d.omitted = 0
	d.pos = len(d.data)
}
