package jsonwire

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Decoding and encoding of values encoding/json treats specially: types with their own
// text or JSON form, durations, raw JSON, integer map keys, and fields with the ",string"
// option.

// ReportError records err's text as a problem with the current value; generated code uses
// it when a type's own UnmarshalText or UnmarshalJSON rejects a value.
func (d *Decoder) ReportError(err error) {
	d.Report("invalid value: " + err.Error())
}

// RawCopy consumes the next value and returns a copy of its bytes, for json.RawMessage and
// types that decode themselves with UnmarshalJSON.
func (d *Decoder) RawCopy() []byte {
	raw := d.Raw()
	if raw == nil {
		return nil
	}
	return append([]byte(nil), raw...)
}

// Duration decodes a string in the syntax of time.ParseDuration ("1h30m", "250ms").
func (d *Decoder) Duration() (time.Duration, bool) {
	text, ok := d.Text()
	if !ok {
		return 0, false
	}
	v, err := time.ParseDuration(string(text))
	if err != nil {
		d.Report(`must be a duration such as "1h30m" or "250ms"`)
		return 0, false
	}
	return v, true
}

// IntKey parses an object key as a signed integer of the given size, as encoding/json does
// for maps with integer keys.
func (d *Decoder) IntKey(key []byte, bits int) (int64, bool) {
	n, err := strconv.ParseInt(string(key), 10, bits)
	if err != nil {
		d.Report("invalid key: must be an integer that fits in " + strconv.Itoa(bits) + " bits")
		return 0, false
	}
	return n, true
}

// UintKey parses an object key as an unsigned integer of the given size.
func (d *Decoder) UintKey(key []byte, bits int) (uint64, bool) {
	n, err := strconv.ParseUint(string(key), 10, bits)
	if err != nil {
		d.Report("invalid key: must be a non-negative integer that fits in " + strconv.Itoa(bits) + " bits")
		return 0, false
	}
	return n, true
}

// quoted reads a string and decodes the JSON value it holds with read, for fields with the
// ",string" option. want names the expected content for the problem message.
func quoted[T any](d *Decoder, want string, read func(*Decoder) (T, bool)) (T, bool) {
	var zero T
	text, ok := d.Text()
	if !ok {
		return zero, false
	}
	var inner Decoder
	inner.Reset(text)
	v, ok := read(&inner)
	inner.Finish()
	if !ok || inner.Failed() {
		// A range problem ("must be <= 255") says more than the generic message.
		if p := inner.Problems(); !inner.SyntaxError() && len(p) == 1 && strings.HasPrefix(p[0].Message, "must be") {
			d.Report(p[0].Message)
		} else {
			d.Report("must be a string holding " + want)
		}
		return zero, false
	}
	return v, true
}

// QuotedInt decodes a string holding an integer ("42").
func (d *Decoder) QuotedInt() (int64, bool) {
	return quoted(d, "an integer", func(in *Decoder) (int64, bool) {
		if k := in.Peek(); k != Number {
			return 0, false
		}
		tok := in.number()
		if tok == nil || !isIntegerToken(tok) {
			return 0, false
		}
		in.pos -= len(tok)
		return in.Int()
	})
}

// QuotedUint decodes a string holding a non-negative integer.
func (d *Decoder) QuotedUint() (uint64, bool) {
	return quoted(d, "a non-negative integer", func(in *Decoder) (uint64, bool) {
		if k := in.Peek(); k != Number {
			return 0, false
		}
		tok := in.number()
		if tok == nil || !isIntegerToken(tok) {
			return 0, false
		}
		in.pos -= len(tok)
		return in.Uint()
	})
}

// QuotedFloat decodes a string holding a number.
func (d *Decoder) QuotedFloat(bits int) (float64, bool) {
	return quoted(d, "a number", func(in *Decoder) (float64, bool) {
		if in.Peek() != Number {
			return 0, false
		}
		return in.Float(bits)
	})
}

// QuotedBool decodes a string holding true or false.
func (d *Decoder) QuotedBool() (bool, bool) {
	return quoted(d, "true or false", func(in *Decoder) (bool, bool) {
		if in.Peek() != Bool {
			return false, false
		}
		return in.Bool()
	})
}

// QuotedString decodes a string holding a JSON string ("\"text\"").
func (d *Decoder) QuotedString() (string, bool) {
	return quoted(d, "a JSON string", func(in *Decoder) (string, bool) {
		if in.Peek() != String {
			return "", false
		}
		return in.String()
	})
}

// isIntegerToken reports whether a number token has no fraction or exponent: encoding/json
// reads ",string" integers with strconv, which accepts nothing else.
func isIntegerToken(tok []byte) bool {
	return indexAny(tok, ".eE") < 0
}

// Duration writes a duration as time.Duration.String does ("1h30m0s").
func (e *Encoder) Duration(v time.Duration) { e.String(v.String()) }

// MarshaledText writes what a type's MarshalText returned, as a string.
func (e *Encoder) MarshaledText(text []byte, err error) {
	if err != nil {
		e.Fail(err)
		e.Null()
		return
	}
	e.StringBytes(text)
}

// MarshaledJSON writes what a type's MarshalJSON returned, after checking that it is one
// valid JSON value, compacted as encoding/json does.
func (e *Encoder) MarshaledJSON(raw []byte, err error) {
	if err != nil {
		e.Fail(err)
		e.Null()
		return
	}
	e.RawJSON(raw)
}

// RawJSON writes a json.RawMessage: null when empty, otherwise the value, which must be
// valid JSON.
func (e *Encoder) RawJSON(raw []byte) {
	if len(raw) == 0 {
		e.Null()
		return
	}
	var d Decoder
	d.Reset(raw)
	d.Skip()
	d.Finish()
	if d.SyntaxError() {
		e.Fail(errInvalidJSON)
		e.Null()
		return
	}
	e.Raw(raw)
}

var errInvalidJSON = errors.New("jsonwire: a MarshalJSON method or json.RawMessage holds invalid JSON")

// IntKey writes an integer object key, as encoding/json writes keys of integer-keyed maps.
func (e *Encoder) IntKey(n int64) { e.Key(strconv.FormatInt(n, 10)) }

// UintKey writes an unsigned integer object key.
func (e *Encoder) UintKey(n uint64) { e.Key(strconv.FormatUint(n, 10)) }

// QuotedInt writes an integer inside a string, for the ",string" option.
func (e *Encoder) QuotedInt(n int64) { e.quoted(func() { e.Int(n) }) }

// QuotedUint writes an unsigned integer inside a string.
func (e *Encoder) QuotedUint(n uint64) { e.quoted(func() { e.Uint(n) }) }

// QuotedFloat writes a float inside a string.
func (e *Encoder) QuotedFloat(f float64, bits int) { e.quoted(func() { e.Float(f, bits) }) }

// QuotedBool writes a boolean inside a string.
func (e *Encoder) QuotedBool(b bool) { e.quoted(func() { e.Bool(b) }) }

// QuotedString writes a string as a JSON string inside a string ("\"text\""), as
// encoding/json does for string fields with the ",string" option.
func (e *Encoder) QuotedString(s string) {
	e.StringBytes(appendString(nil, s))
}

func (e *Encoder) quoted(write func()) {
	e.buf = append(e.buf, '"')
	write()
	e.buf = append(e.buf, '"')
}

// Integer is the set of Go integer types, for map keys.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// IntKeys returns the keys of an integer-keyed map in the order encoding/json writes them:
// sorted by their decimal text, not by value.
func IntKeys[M ~map[K]V, K Integer, V any](m M) []K {
	type keyText struct {
		key  K
		text string
	}
	pairs := make([]keyText, 0, len(m))
	for k := range m {
		text := strconv.FormatUint(uint64(k), 10)
		if k < 0 {
			text = strconv.FormatInt(int64(k), 10)
		}
		pairs = append(pairs, keyText{k, text})
	}
	slices.SortFunc(pairs, func(a, b keyText) int { return cmp.Compare(a.text, b.text) })
	keys := make([]K, len(pairs))
	for i, p := range pairs {
		keys[i] = p.key
	}
	return keys
}
