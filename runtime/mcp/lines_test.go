package mcp

import (
	"io"
	"strings"
	"testing"
)

// Both sides read lines with lineReader: white space around a message goes, a line over
// the limit is skipped whole (and said, with its start, which names its id), the reading
// goes on after it, and a last line without a newline comes with the end.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer, and than max
	in := "{\"a\":1}\n  {\"b\":2}\r\n\n" + long + "\n{\"c\":3}\n" + long + "{\"d\":4}"
	lr := newLineReader(strings.NewReader(in), 100<<10)
	type read struct {
		msg string
		err error
	}
	want := []read{{`{"a":1}`, nil}, {`{"b":2}`, nil}, {"", nil}, {long[:idPrefix], errTooLarge}, {`{"c":3}`, nil}, {"", io.EOF}}
	for i, w := range want {
		msg, err := lr.readMessage()
		if string(msg) != w.msg || err != w.err {
			t.Fatalf("read %d: %.40q, %v; want %q, %v", i, msg, err, w.msg, w.err)
		}
	}

	lr = newLineReader(strings.NewReader(`{"e":5}`), 100)
	if msg, err := lr.readMessage(); string(msg) != `{"e":5}` || err != io.EOF {
		t.Fatalf("a last line without a newline: %q, %v", msg, err)
	}
}
