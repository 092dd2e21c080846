package jsonwire

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Encoder appends JSON to a byte slice. Commas are placed automatically: Key and Elem look at
// the last byte written, so generated code only says where objects, keys and values go.
//
// Output matches encoding/json with HTML escaping turned off: the same float formatting, the
// same string escapes (including U+2028 and U+2029), invalid UTF-8 replaced by U+FFFD.
type Encoder struct {
	buf []byte
	err error
}

// ErrUnsupportedValue is recorded when a value has no JSON form (NaN or an infinity).
var ErrUnsupportedValue = errors.New("jsonwire: NaN and infinities cannot be encoded as JSON")

// Reset makes e append to buf[:0].
func (e *Encoder) Reset(buf []byte) {
	e.buf = buf[:0]
	e.err = nil
}

// Bytes returns the JSON written so far.
func (e *Encoder) Bytes() []byte { return e.buf }

// Err returns the first error met, if any; the output is then not valid JSON.
func (e *Encoder) Err() error { return e.err }

// Fail records err as the encoder's error unless one is already recorded.
func (e *Encoder) Fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// ObjectStart writes '{'.
func (e *Encoder) ObjectStart() { e.buf = append(e.buf, '{') }

// ObjectEnd writes '}'.
func (e *Encoder) ObjectEnd() { e.buf = append(e.buf, '}') }

// ArrayStart writes '['.
func (e *Encoder) ArrayStart() { e.buf = append(e.buf, '[') }

// ArrayEnd writes ']'.
func (e *Encoder) ArrayEnd() { e.buf = append(e.buf, ']') }

// Key writes an object key and its colon, preceded by a comma unless it is the first.
func (e *Encoder) Key(k string) {
	buf := e.buf
	if n := len(buf); n > 0 && buf[n-1] != '{' {
		buf = append(buf, ',')
	}
	// Keys are short and almost always plain: written at once when they are.
	for i := 0; i < len(k); i++ {
		if !safe[k[i]] {
			e.buf = append(appendString(buf, k), ':')
			return
		}
	}
	buf = append(buf, '"')
	buf = append(buf, k...)
	e.buf = append(buf, '"', ':')
}

// Elem prepares for an array element: a comma unless it is the first.
func (e *Encoder) Elem() {
	if n := len(e.buf); n > 0 && e.buf[n-1] != '[' {
		e.buf = append(e.buf, ',')
	}
}

// Null writes null.
func (e *Encoder) Null() { e.buf = append(e.buf, "null"...) }

// Bool writes true or false.
func (e *Encoder) Bool(v bool) { e.buf = strconv.AppendBool(e.buf, v) }

// Int writes an integer.
func (e *Encoder) Int(v int64) { e.buf = strconv.AppendInt(e.buf, v, 10) }

// Uint writes an unsigned integer.
func (e *Encoder) Uint(v uint64) { e.buf = strconv.AppendUint(e.buf, v, 10) }

// Float writes a float of the given bit size (32 or 64) as encoding/json does: the shortest
// text that reads back to the same value, in exponent form only for very small or large values.
func (e *Encoder) Float(v float64, bits int) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		e.Fail(ErrUnsupportedValue)
		e.buf = append(e.buf, '0')
		return
	}
	// Whole numbers, the most common in results, are written as integers: the same text as
	// the shortest float form (exact below these bounds, where doubles and singles are
	// integers with every digit significant), for a fraction of the cost. -0 keeps its sign.
	if abs := math.Abs(v); abs == math.Trunc(abs) && (bits == 64 && abs < 1e15 || abs < 1<<24) && (v != 0 || !math.Signbit(v)) {
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
		return
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	e.buf = strconv.AppendFloat(e.buf, v, format, -1, bits)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(e.buf); n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
			e.buf[n-2] = e.buf[n-1]
			e.buf = e.buf[:n-1]
		}
	}
}

// Number writes the text of a json.Number; an empty one is written as 0, as encoding/json
// does, and one that is not a JSON number is an error.
func (e *Encoder) Number(v string) {
	if v == "" {
		v = "0"
	}
	var d Decoder
	d.Reset([]byte(v))
	if d.Peek() != Number || d.number() == nil || d.pos != len(v) {
		e.Fail(errInvalidNumber)
		e.buf = append(e.buf, '0')
		return
	}
	e.buf = append(e.buf, v...)
}

var errInvalidNumber = errors.New("jsonwire: a json.Number holds something that is not a JSON number")

// Any writes a value of unknown type through encoding/json: the one place where mcpgen's
// generated code relies on reflection, for fields typed any.
func (e *Encoder) Any(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		e.Fail(err)
		e.Null()
		return
	}
	e.buf = append(e.buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// Raw writes already-encoded JSON as it is.
func (e *Encoder) Raw(v []byte) { e.buf = append(e.buf, v...) }

// Base64 writes bytes as a standard base64 string, as encoding/json does for []byte.
func (e *Encoder) Base64(v []byte) {
	e.buf = append(e.buf, '"')
	e.buf = base64.StdEncoding.AppendEncode(e.buf, v)
	e.buf = append(e.buf, '"')
}

const hexDigits = "0123456789abcdef"

// safe marks the ASCII bytes that need no escape inside a JSON string (none of the others is
// marked: they start or continue a multi-byte sequence).
var safe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// String writes a quoted, escaped string.
func (e *Encoder) String(s string) {
	e.buf = appendString(e.buf, s)
}

// StringBytes writes the text in s as a quoted, escaped string, without converting it first.
func (e *Encoder) StringBytes(s []byte) {
	e.buf = appendString(e.buf, s)
}

// AppendString appends s to buf as a quoted JSON string.
func AppendString(buf []byte, s string) []byte { return appendString(buf, s) }

func appendString[T string | []byte](buf []byte, s T) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		// Eight bytes at a time: the word is stored whole, and kept up to the first byte that
		// needs a look (all of it, in most text).
		if i+8 <= len(s) {
			if cap(buf)-len(buf) < 8 {
				buf = slices.Grow(buf, len(s)-i+8)
			}
			x := load8(s[i : i+8])
			n := len(buf)
			binary.LittleEndian.PutUint64(buf[n:n+8], x)
			m := attention8(x)
			if m == 0 {
				buf = buf[:n+8]
				i += 8
				continue
			}
			k := bits.TrailingZeros64(m) >> 3
			buf = buf[:n+k]
			i += k
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case safe[c]:
				buf = append(buf, c)
			case c == '"', c == '\\':
				buf = append(buf, '\\', c)
			case c == '\b':
				buf = append(buf, '\\', 'b')
			case c == '\f':
				buf = append(buf, '\\', 'f')
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			continue
		}
		r, size := decodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			buf = append(buf, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON, but they end lines in JavaScript source.
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

func decodeRune[T string | []byte](s T) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v)
	default:
		return utf8.DecodeRune(v.([]byte))
	}
}

// load8 reads eight bytes as one little-endian word (one load: the compiler combines them).
func load8[T string | []byte](b T) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// attention8 marks with its high bit each byte of x that may need a look: a control
// character, '"', '\\', or a byte of a multi-byte UTF-8 sequence. Each subtraction sets a
// byte's high bit where that byte is below the bound (or equal to the character, after the
// XOR); a borrow can also set it, but only above a byte that is marked rightly. So 0 means
// none needs a look, and the lowest mark is a byte that does.
func attention8(x uint64) uint64 {
	quote := x ^ (lowBits * '"')
	backslash := x ^ (lowBits * '\\')
	return (x | (x - lowBits*0x20) | (quote - lowBits) | (backslash - lowBits)) & highBits
}
