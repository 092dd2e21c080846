// Package termtext shows text another program controls (what an MCP server names,
// describes, logs or reports) on a person's terminal as text only. A terminal takes some
// characters as commands: ESC begins CSI sequences that move the cursor, clear the screen or
// recolour what follows ("\x1b[2J") and OSC sequences that set the clipboard (OSC 52) or
// make a link whose target is not its text (OSC 8); the C1 controls (U+0080-U+009F, CSI and
// OSC among them) do the same in one character; a carriage return or backspaces write over
// what was shown; BEL rings. Format characters such as the bidirectional overrides
// (U+202E) reorder what is shown. Every such character, and every byte that is not UTF-8,
// is written as an escape instead (\x1b, \r, \u009b, \u202e, \xff), so that no server
// redraws the screen while mcpgen asks a question, or hides what it shows.
//
// Text keeps newlines and tabs; Line, for what must stay on one line (a table's cell, the
// progress bar, a log line), escapes them too. A Writer escapes everything written through
// it as Text does: cmd/mcpgen's stderr is one, and its stdout is one at a terminal.
package termtext

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is s as a terminal may show it: every character that is not graphic escaped,
// newlines and tabs kept.
func Text(s string) string { return escape(s, true) }

// Line is s as one line of a terminal: as Text, with newlines and tabs escaped too.
func Line(s string) string { return escape(s, false) }

// escape returns s with what a terminal would take as a command escaped; s itself when
// there is none (no allocation).
func escape(s string, lines bool) string {
	i := unsafeAt(s, lines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	appendEscaped(&b, s[i:], lines)
	return b.String()
}

// unsafeAt is the index of the first byte of s a terminal would not show as text, or -1.
func unsafeAt(s string, lines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f { // printable ASCII, the common case
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !shown(r, size, lines) {
			return i
		}
		i += size
	}
	return -1
}

// shown reports whether a rune of size bytes is shown as itself.
func shown(r rune, size int, lines bool) bool {
	switch {
	case r == utf8.RuneError && size == 1: // a byte that is not UTF-8
		return false
	case r == '\n' || r == '\t':
		return lines
	}
	return unicode.IsGraphic(r)
}

func appendEscaped(b *strings.Builder, s string, lines bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case shown(r, size, lines):
			b.WriteString(s[i : i+size])
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[s[i]>>4])
			b.WriteByte("0123456789abcdef"[s[i]&15])
		default:
			q := strconv.QuoteRuneToGraphic(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
}

// Writer writes what is written to it to W as Text shows it. A character whose bytes come
// in two writes is escaped whole: the start of one that a write ends with waits for the
// next write (Flush writes it as it is, escaped).
type Writer struct {
	W    io.Writer
	part []byte // the start of a UTF-8 sequence the last write ended with
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{W: w} }

// Write writes p escaped. It reports len(p) written when the escaped text was written
// whole.
func (w *Writer) Write(p []byte) (int, error) {
	s := string(p)
	if len(w.part) > 0 {
		s = string(w.part) + s
		w.part = w.part[:0]
	}
	// Hold back an unfinished UTF-8 sequence at the end, for the next write.
	if tail := incomplete(s); tail > 0 {
		w.part = append(w.part, s[len(s)-tail:]...)
		s = s[:len(s)-tail]
	}
	if _, err := io.WriteString(w.W, Text(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a write left unfinished, escaped.
func (w *Writer) Flush() error {
	if len(w.part) == 0 {
		return nil
	}
	s := Text(string(w.part))
	w.part = w.part[:0]
	_, err := io.WriteString(w.W, s)
	return err
}

// incomplete is the length of the unfinished UTF-8 sequence s ends with: the start of a
// character whose other bytes may come next; 0 if there is none.
func incomplete(s string) int {
	for n := 1; n < utf8.UTFMax && n <= len(s); n++ {
		c := s[len(s)-n]
		if c < 0x80 {
			return 0 // ASCII: complete
		}
		if utf8.RuneStart(c) {
			if utf8.FullRuneInString(s[len(s)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}
