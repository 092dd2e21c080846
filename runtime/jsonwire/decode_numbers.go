package jsonwire

import (
	"math"
	"strconv"
	"strings"
)

// Numbers: integers within a range, floats of a bit size, and numbers kept as text, read
// with encoding/json's rules for what each accepts.

// number consumes a JSON number and returns its text.
func (d *Decoder) number() []byte {
	start := d.pos
	data := d.data
	i := d.pos
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		d.syntaxError("invalid number")
		return nil
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.pos = i
			d.syntaxError("invalid number")
			return nil
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.pos = i
			d.syntaxError("invalid number")
			return nil
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	d.pos = i
	return data[start:i]
}

// Int decodes an integer that fits in an int64. A number with a fraction or exponent is
// accepted when its value is a whole number (JSON Schema's "integer" means exactly that).
func (d *Decoder) Int() (int64, bool) {
	return d.IntRange(math.MinInt64, math.MaxInt64, minInt64Msg, maxInt64Msg)
}

const (
	minInt64Msg  = "must be >= -9223372036854775808"
	maxInt64Msg  = "must be <= 9223372036854775807"
	minUintMsg   = "must be >= 0"
	maxUint64Msg = "must be <= 18446744073709551615"
)

// IntRange decodes an integer between lo and hi inclusive. A value below lo is reported
// with loMsg, one above hi with hiMsg, so generated code can name the limit its schema
// states, however far beyond it the value is.
func (d *Decoder) IntRange(lo, hi int64, loMsg, hiMsg string) (int64, bool) {
	tok, ok := d.integerToken()
	if !ok {
		return 0, false
	}
	n, side, ok := d.parseInt(tok)
	switch {
	case !ok:
		return 0, false
	case side < 0 || side == 0 && n < lo:
		d.Report(loMsg)
	case side > 0 || side == 0 && n > hi:
		d.Report(hiMsg)
	default:
		return n, true
	}
	return 0, false
}

// parseInt reads an integer token; side is -1 or +1 when it lies beyond the int64 range.
func (d *Decoder) parseInt(tok []byte) (n int64, side int, ok bool) {
	if n, ok := parseSmallInt(tok); ok {
		return n, 0, true
	}
	f, exact, ok := d.integral(tok)
	if !ok {
		return 0, 0, false
	}
	if exact != nil {
		if n, err := strconv.ParseInt(string(exact), 10, 64); err == nil {
			return n, 0, true
		}
		f = math.Copysign(math.Inf(1), f)
	}
	switch {
	case f < math.MinInt64:
		return 0, -1, true
	case f >= math.MaxInt64: // float64(MaxInt64) is 2^63, one past the largest int64
		return 0, 1, true
	}
	return int64(f), 0, true
}

// Uint decodes a non-negative integer that fits in a uint64, accepting whole numbers written
// with a fraction or exponent as Int does.
func (d *Decoder) Uint() (uint64, bool) {
	return d.UintRange(0, math.MaxUint64, minUintMsg, maxUint64Msg)
}

// UintRange decodes an unsigned integer between lo and hi, as IntRange does.
func (d *Decoder) UintRange(lo, hi uint64, loMsg, hiMsg string) (uint64, bool) {
	tok, ok := d.integerToken()
	if !ok {
		return 0, false
	}
	n, side, ok := d.parseUint(tok)
	switch {
	case !ok:
		return 0, false
	case side < 0 || side == 0 && n < lo:
		d.Report(loMsg)
	case side > 0 || side == 0 && n > hi:
		d.Report(hiMsg)
	default:
		return n, true
	}
	return 0, false
}

func (d *Decoder) parseUint(tok []byte) (n uint64, side int, ok bool) {
	if n, ok := parseSmallInt(tok); ok {
		if n < 0 {
			return 0, -1, true
		}
		return uint64(n), 0, true
	}
	f, exact, ok := d.integral(tok)
	if !ok {
		return 0, 0, false
	}
	if exact != nil && exact[0] != '-' {
		if n, err := strconv.ParseUint(string(exact), 10, 64); err == nil {
			return n, 0, true
		}
		f = math.Inf(1)
	}
	switch {
	case f < 0:
		return 0, -1, true
	case f >= math.MaxUint64: // float64(MaxUint64) is 2^64
		return 0, 1, true
	}
	return uint64(f), 0, true
}

func (d *Decoder) integerToken() ([]byte, bool) {
	if k := d.Peek(); k != Number {
		d.reportType("integer", k)
		return nil, false
	}
	tok := d.number()
	return tok, tok != nil
}

// parseSmallInt parses the common case, an integer of at most 18 digits, without allocating.
func parseSmallInt(tok []byte) (int64, bool) {
	neg := tok[0] == '-'
	digits := tok
	if neg {
		digits = tok[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// integral checks that a number token is a whole number. It returns the value as a float
// and, when the token is plain digits (possibly with a zero fraction), those digits exactly.
func (d *Decoder) integral(tok []byte) (f float64, exact []byte, ok bool) {
	text := tok
	if i := indexByte(tok, '.'); i >= 0 && indexAny(tok, "eE") < 0 {
		allZero := true
		for _, c := range tok[i+1:] {
			if c != '0' {
				allZero = false
				break
			}
		}
		if allZero {
			text = tok[:i]
		}
	}
	if indexAny(text, ".eE") < 0 {
		exact = text
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !isRangeErr(err) {
		d.Report("invalid number " + string(tok))
		return 0, nil, false
	}
	if exact == nil && f != math.Trunc(f) {
		d.Report("expected integer, got " + string(tok))
		return 0, nil, false
	}
	return f, exact, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func indexAny(b []byte, chars string) int {
	for i, x := range b {
		if strings.IndexByte(chars, x) >= 0 {
			return i
		}
	}
	return -1
}

// Float decodes a number for a float field of the given bit size (32 or 64). The value is
// returned at full float64 precision, so that bounds are checked against what the client
// sent; a float32 field then converts it. A number too large for the size is a problem, not
// an infinity.
func (d *Decoder) Float(bits int) (float64, bool) {
	if k := d.Peek(); k != Number {
		d.reportType("number", k)
		return 0, false
	}
	tok := d.number()
	if tok == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	switch {
	case err != nil:
		d.Report("must be between -1.7976931348623157e+308 and 1.7976931348623157e+308")
	case bits == 32 && math.Abs(f) > math.MaxFloat32:
		d.Report("must be between -3.4028234663852886e+38 and 3.4028234663852886e+38")
	default:
		return f, true
	}
	return 0, false
}

// Number decodes a number and returns its text unchanged, as json.Number holds it.
func (d *Decoder) Number() (string, bool) {
	if k := d.Peek(); k != Number {
		d.reportType("number", k)
		return "", false
	}
	tok := d.number()
	if tok == nil {
		return "", false
	}
	return string(tok), true
}
