package termtext

import (
	"strings"
	"testing"
)

// What a server could send to take a terminal over, and what is shown instead.
var attacks = []struct{ name, in, text, line string }{
	{"clear the screen (CSI)", "a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
	{"set the clipboard (OSC 52)", "\x1b]52;c;ZWNobyBwd25lZA==\a", `\x1b]52;c;ZWNobyBwd25lZA==\a`, `\x1b]52;c;ZWNobyBwd25lZA==\a`},
	{"a link whose target is not its text (OSC 8)", "\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example\x1b\docs\x1b]8;;\x1b\`, `\x1b]8;;https://evil.example\x1b\docs\x1b]8;;\x1b\`},
	{"CSI in one character (C1)", "a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
	{"OSC in one character (C1)", "\u009d52;c;eA==\u009c", `\u009d52;c;eA==\u009c`, `\u009d52;c;eA==\u009c`},
	{"write over the line", "safe\rdanger\b\b", `safe\rdanger\b\b`, `safe\rdanger\b\b`},
	{"delete", "a\x7fb", `a\x7fb`, `a\x7fb`},
	{"bell", "ding\a", `ding\a`, `ding\a`},
	{"reorder what is shown (bidi override)", "file\u202egnp.exe", `file\u202egnp.exe`, `file\u202egnp.exe`},
	{"bytes that are not UTF-8", "a\xff\xc0b", `a\xff\xc0b`, `a\xff\xc0b`},
	{"newlines and tabs", "one\n\ttwo", "one\n\ttwo", `one\n\ttwo`},
	{"text as it is", "Grüße, 世界 — ok… 🙂 \ufffd", "Grüße, 世界 — ok… 🙂 \ufffd", "Grüße, 世界 — ok… 🙂 \ufffd"},
}

func TestEscapes(t *testing.T) {
	for _, a := range attacks {
		if got := Text(a.in); got != a.text {
			t.Errorf("%s: Text(%q) = %q, want %q", a.name, a.in, got, a.text)
		}
		if got := Line(a.in); got != a.line {
			t.Errorf("%s: Line(%q) = %q, want %q", a.name, a.in, got, a.line)
		}
		for _, s := range []string{Text(a.in), Line(a.in)} {
			for _, r := range s {
				if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || r == 0x202e {
					t.Errorf("%s: %q reaches the terminal", a.name, r)
				}
			}
		}
	}
}

// A Writer escapes what passes through it; a character split between two writes is
// escaped whole, not as two broken halves.
func TestWriter(t *testing.T) {
	var out strings.Builder
	w := NewWriter(&out)
	in := "é\u009b2J\x1b[31mred\n"
	for i := range len(in) { // one byte at a time
		if n, err := w.Write([]byte{in[i]}); n != 1 || err != nil {
			t.Fatalf("Write: %d %v", n, err)
		}
	}
	if want := "é\\u009b2J\\x1b[31mred\n"; out.String() != want {
		t.Errorf("byte by byte: %q, want %q", out.String(), want)
	}
	out.Reset()
	w.Write([]byte("ab\xe2\x80")) // the start of "…", and no more
	w.Flush()
	if want := `ab\xe2\x80`; out.String() != want {
		t.Errorf("an unfinished character, flushed: %q, want %q", out.String(), want)
	}
}

func BenchmarkTextPlain(b *testing.B) {
	s := strings.Repeat("a plain line of a tool's description ", 4)
	b.ReportAllocs()
	for b.Loop() {
		Text(s)
	}
}
