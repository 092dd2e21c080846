package sse

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// What a Writer writes, a Reader reads back: the priming event's id and the retry interval,
// each event's name and data (line breaks in the data kept), and the last id.
func TestWrittenEventsReadBack(t *testing.T) {
	rec := httptest.NewRecorder()
	w := NewWriter(rec, time.Second)
	if err := w.Start(EventID(3, 0), 1500); err != nil {
		t.Fatal(err)
	}
	w.Event(EventID(3, 1), "", []byte(`{"jsonrpc":"2.0","method":"a"}`))
	w.Event(EventID(3, 2), "endpoint", []byte("two\r\nlines"))
	if err := w.Comment(); err != nil {
		t.Fatal(err)
	}
	if got := rec.Header().Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("Content-Type %q", got)
	}

	r := NewReader(bytes.NewReader(rec.Body.Bytes()), 1<<10)
	want := []Event{{Name: "message", Data: []byte(`{"jsonrpc":"2.0","method":"a"}`)}, {Name: "endpoint", Data: []byte("two\nlines")}}
	for _, w := range want {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("reading %q: %v", w.Data, err)
		}
		if ev.Name != w.Name || !bytes.Equal(ev.Data, w.Data) {
			t.Errorf("read %q %q, want %q %q", ev.Name, ev.Data, w.Name, w.Data)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last event: %v, want io.EOF", err)
	}
	if !r.HasID || r.LastID != "3-2" || r.Retry != 1500*time.Millisecond {
		t.Errorf("LastID %q (HasID %v), Retry %v; want 3-2, 1.5s", r.LastID, r.HasID, r.Retry)
	}
	if num, seq, ok := ParseEventID(r.LastID); !ok || num != 3 || seq != 2 {
		t.Errorf("ParseEventID(%q) = %d, %d, %v", r.LastID, num, seq, ok)
	}
}

// An event larger than the bound is an error, not memory: in one long line or many.
func TestEventsAreBounded(t *testing.T) {
	for name, stream := range map[string]string{
		"one line":   "data: " + strings.Repeat("x", 100<<10) + "\n\n",
		"many lines": strings.Repeat("data: "+strings.Repeat("x", 1000)+"\n", 100) + "\n",
	} {
		r := NewReader(strings.NewReader(stream), 64<<10)
		if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "larger than 65536 bytes") {
			t.Errorf("%s: %v, want an error naming the bound", name, err)
		}
	}
}

func TestParseEventIDRefusesOthers(t *testing.T) {
	for _, id := range []string{"", "3", "a-1", "1-b", "-1-2", "1--2"} {
		if _, _, ok := ParseEventID(id); ok {
			t.Errorf("ParseEventID(%q) accepted", id)
		}
	}
}
