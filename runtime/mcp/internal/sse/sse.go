// Package sse writes and reads Server-Sent Events as MCP's HTTP transports use them: a
// server's streams of JSON-RPC messages, resumable by event id, and a client's reading of
// them, bounded.
package sse

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Writer writes Server-Sent Events to a response.
type Writer struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	buf          bytes.Buffer
	writeTimeout time.Duration // bounds each flush (HTTPOptions.WriteTimeout)
}

// NewWriter writes events to w, each flush bounded by writeTimeout.
func NewWriter(w http.ResponseWriter, writeTimeout time.Duration) *Writer {
	return &Writer{w: w, rc: http.NewResponseController(w), writeTimeout: writeTimeout}
}

// Start sends the headers and, unless retryMillis is negative, the retry interval; when
// primingID is set, also the priming event: an id, with which the client can resume the
// stream from here, and no data.
func (sw *Writer) Start(primingID string, retryMillis int64) error {
	h := sw.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // keep proxies such as nginx from buffering the stream
	sw.w.WriteHeader(http.StatusOK)
	if primingID != "" {
		sw.buf.WriteString("id: " + primingID + "\n")
	}
	if retryMillis >= 0 {
		sw.buf.WriteString("retry: " + strconv.FormatInt(retryMillis, 10) + "\n")
	}
	if primingID != "" {
		sw.buf.WriteString("data: \n")
	}
	if sw.buf.Len() > 0 {
		sw.buf.WriteString("\n")
	}
	return sw.Flush()
}

// Event buffers one event: a message, unless name says another type.
func (sw *Writer) Event(id, name string, data []byte) {
	if id != "" {
		sw.buf.WriteString("id: " + id + "\n")
	}
	if name == "" {
		name = "message"
	}
	sw.buf.WriteString("event: " + name + "\n")
	// A message is one line of JSON, but one written by hand could hold line breaks: each
	// line becomes a data line, which the client joins back with newlines.
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	for line := range bytes.Lines(data) {
		sw.buf.WriteString("data: ")
		sw.buf.Write(bytes.TrimSuffix(line, []byte("\n")))
		sw.buf.WriteByte('\n')
	}
	sw.buf.WriteByte('\n')
}

// Comment sends a comment, which keeps a quiet stream from looking idle.
func (sw *Writer) Comment() error {
	sw.buf.WriteString(":\n\n")
	return sw.Flush()
}

// Flush writes what is buffered; a client that stops reading loses its connection after
// the write timeout instead of holding a goroutine and the stream.
func (sw *Writer) Flush() error {
	sw.rc.SetWriteDeadline(time.Now().Add(sw.writeTimeout))
	if _, err := sw.w.Write(sw.buf.Bytes()); err != nil {
		return err
	}
	sw.buf.Reset()
	return sw.rc.Flush()
}

// EventID names the position after event seq of stream num: "<num>-<seq>". It is what a
// client sends back as Last-Event-ID.
func EventID(num, seq int64) string {
	return strconv.FormatInt(num, 10) + "-" + strconv.FormatInt(seq, 10)
}

// ParseEventID reads an id EventID wrote.
func ParseEventID(id string) (num, seq int64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	num, err1 := strconv.ParseInt(a, 10, 64)
	seq, err2 := strconv.ParseInt(b, 10, 64)
	return num, seq, err1 == nil && err2 == nil && num >= 0 && seq >= 0
}

// Reader reads the events of an SSE stream, as a client does: data lines joined with
// newlines, the last event id kept (an event without data updates it too: the priming
// event), the server's retry interval noted, comments skipped.
type Reader struct {
	br     *bufio.Reader
	max    int // bytes one event's data may take
	LastID string
	HasID  bool          // the stream gave an id: it can be resumed
	Retry  time.Duration // as the server last asked; 0 if it did not
}

// Event is one dispatched event.
type Event struct {
	Name string // "" is message
	Data []byte
}

// NewReader reads the events of r, each event's data at most max bytes.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 32<<10), max: max}
}

// Next returns the next event with data; io.EOF when the stream ends.
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data []byte
	hasData := false
	for {
		line, err := r.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it, within the bound.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull && len(long) <= r.max {
				line, err = r.br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > r.max {
				return ev, fmt.Errorf("an SSE event larger than %d bytes", r.max)
			}
			line = long
		}
		if err != nil && len(line) == 0 {
			return ev, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if hasData {
				ev.Data = data
				return ev, nil
			}
			ev.Name = ""
			if err != nil {
				return ev, err
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "": // a comment
		case "event":
			ev.Name = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = len(data) > 0 || hasData
			if len(data) > r.max {
				return ev, fmt.Errorf("an SSE event larger than %d bytes", r.max)
			}
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.LastID, r.HasID = string(value), true
			}
		case "retry":
			if ms, perr := strconv.Atoi(string(value)); perr == nil && ms >= 0 {
				r.Retry = time.Duration(ms) * time.Millisecond
			}
		}
		if err != nil {
			if hasData {
				ev.Data = data
				return ev, nil
			}
			return ev, err
		}
	}
}
