package lines

import (
	"io"
	"strings"
	"testing"
)

// Both sides read lines with a Reader: white space around a message goes, a line over
// the limit is skipped whole (and said, with its start, which names its id), the reading
// goes on after it, and a last line without a newline comes with the end.
func TestReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer, and than max
	in := "{\"a\":1}\n  {\"b\":2}\r\n\n" + long + "\n{\"c\":3}\n" + long + "{\"d\":4}"
	lr := NewReader(strings.NewReader(in), 100<<10, 512)
	type read struct {
		msg string
		err error
	}
	want := []read{{`{"a":1}`, nil}, {`{"b":2}`, nil}, {"", nil}, {long[:512], ErrTooLong}, {`{"c":3}`, nil}, {"", io.EOF}}
	for i, w := range want {
		msg, err := lr.ReadMessage()
		if string(msg) != w.msg || err != w.err {
			t.Fatalf("read %d: %.40q, %v; want %q, %v", i, msg, err, w.msg, w.err)
		}
	}

	lr = NewReader(strings.NewReader(`{"e":5}`), 100, 512)
	if msg, err := lr.ReadMessage(); string(msg) != `{"e":5}` || err != io.EOF {
		t.Fatalf("a last line without a newline: %q, %v", msg, err)
	}
}

// A Writer writes each message as a line, gathers what is buffered until a flush (the
// reader's FlushFirst flushes before it reads), and after Stop fails every message with the
// error Stop was given.
func TestWriter(t *testing.T) {
	var out strings.Builder
	lw := NewWriter(&out)
	if err := lw.Send([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := lw.Buffer([]byte(`{"b":2}`)); err != nil || !lw.NoteLater([]byte(`{"c":3}`)) {
		t.Fatal("buffering refused", err)
	}
	if out.String() != "{\"a\":1}\n" || lw.Unread() != 16 {
		t.Fatalf("before the flush: %q written, %d unread", out.String(), lw.Unread())
	}
	r := NewReader(FlushFirst{R: strings.NewReader("{\"in\":1}\n"), Out: lw}, 100, 10)
	if msg, err := r.ReadMessage(); string(msg) != `{"in":1}` || err != nil {
		t.Fatalf("read %q, %v", msg, err)
	}
	if want := "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"; out.String() != want || lw.Unread() != 0 {
		t.Fatalf("after the read: %q written (want %q), %d unread", out.String(), want, lw.Unread())
	}
	stopped := io.ErrClosedPipe
	if lw.Stop(stopped) {
		t.Error("Stop says a write is in progress")
	}
	if err := lw.Send([]byte(`{"d":4}`)); err != stopped {
		t.Errorf("Send after Stop: %v, want %v", err, stopped)
	}
}
