package jsonwire

import (
	"encoding/base64"
	"unicode/utf16"
	"unicode/utf8"
)

// Strings: JSON string syntax, escapes and UTF-8, decoded without allocating when the
// input needs no unescaping; base64.

// String decodes a string; ok is false (and a problem recorded) for any other type.
// Invalid UTF-8 and lone surrogates become U+FFFD, as with encoding/json.
func (d *Decoder) String() (string, bool) {
	if k := d.Peek(); k != String {
		d.reportType("string", k)
		return "", false
	}
	b, _, ok := d.stringBytes()
	if !ok {
		return "", false
	}
	return string(b), true
}

// stringBytes consumes a string. One without escapes or non-ASCII bytes is returned as a
// sub-slice of the input; any other is unescaped into d.scratch (inScratch is then true), which
// the next string overwrites.
func (d *Decoder) stringBytes() (b []byte, inScratch, ok bool) {
	d.pos++ // opening quote
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return d.data[start : d.pos-1], false, true
		case c == '\\' || c >= utf8.RuneSelf:
			b, ok := d.slowString(start)
			return b, true, ok
		case c < 0x20:
			d.syntaxError("control character in string")
			return nil, false, false
		}
		d.pos++
	}
	d.syntaxError("unterminated string")
	return nil, false, false
}

func (d *Decoder) slowString(start int) ([]byte, bool) {
	// The unescaped string is at most as long as the escaped one (but for invalid UTF-8,
	// rare): room for that is one allocation, rather than one per doubling.
	if n := d.stringEnd() - start; cap(d.scratch) < n {
		d.scratch = make([]byte, 0, n)
	}
	out := append(d.scratch[:0], d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			d.scratch = out
			return out, true
		case c < 0x20:
			d.syntaxError("control character in string")
			return nil, false
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				d.syntaxError("unterminated string")
				return nil, false
			}
			e := d.data[d.pos+1]
			d.pos += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return nil, false
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
						save := d.pos
						d.pos += 2
						if r2, ok = d.hex4(); !ok {
							return nil, false
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							r = dec
						} else {
							// Not a pair: the first is a lone surrogate, the second is read on its own.
							d.pos = save
							r = utf8.RuneError
						}
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				d.syntaxError("invalid escape in string")
				return nil, false
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, d.data[d.pos:d.pos+size]...)
			}
			d.pos += size
		}
	}
	d.syntaxError("unterminated string")
	return nil, false
}

func (d *Decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		d.syntaxError("invalid \\u escape")
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			d.syntaxError("invalid \\u escape")
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.pos += 4
	return r, true
}

// Text decodes a string like String but without allocating: the bytes are valid only until
// the next call on d.
func (d *Decoder) Text() ([]byte, bool) {
	if k := d.Peek(); k != String {
		d.reportType("string", k)
		return nil, false
	}
	b, _, ok := d.stringBytes()
	return b, ok
}

// stringEnd is the offset of the quote that ends the string d is in, or of the end of the
// input if none does.
func (d *Decoder) stringEnd() int {
	for i := d.pos; i < len(d.data); i++ {
		switch d.data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(d.data)
}

// skipString consumes a string, checking its syntax as stringBytes does, without unescaping
// it: skipping costs no allocation.
func (d *Decoder) skipString() {
	d.pos++ // opening quote
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; {
		case c == '"':
			d.pos++
			return
		case c < 0x20:
			d.syntaxError("control character in string")
			return
		case c != '\\':
			d.pos++
		case d.pos+1 >= len(d.data):
			d.syntaxError("unterminated string")
			return
		default:
			switch d.data[d.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos += 2
			case 'u':
				d.pos += 2
				if _, ok := d.hex4(); !ok {
					return
				}
			default:
				d.syntaxError("invalid escape in string")
				return
			}
		}
	}
	d.syntaxError("unterminated string")
}

// Base64 decodes a string holding standard base64, as encoding/json does for []byte.
func (d *Decoder) Base64() ([]byte, bool) {
	text, ok := d.Text()
	if !ok {
		return nil, false
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(out, text)
	if err != nil {
		d.Report("must be base64-encoded (standard alphabet, with padding)")
		return nil, false
	}
	return out[:n], true
}
