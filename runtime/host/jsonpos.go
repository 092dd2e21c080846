package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
)

// A JSON document read with the position of every value, so that a mistake in a
// configuration file is reported at its line and column.

// value is one JSON value of a document.
type value struct {
	off   int // offset of its first byte
	kind  byte
	str   string      // kindString
	num   json.Number // kindNumber
	bool  bool        // kindBool
	keys  []member    // kindObject, in order
	items []*value    // kindArray
}

type member struct {
	key    string
	keyOff int
	val    *value
}

const (
	kindObject = 'o'
	kindArray  = 'a'
	kindString = 's'
	kindNumber = 'n'
	kindBool   = 'b'
	kindNull   = 'z'
)

func (v *value) kindName() string {
	return map[byte]string{kindObject: "an object", kindArray: "an array", kindString: "a string",
		kindNumber: "a number", kindBool: "a boolean", kindNull: "null"}[v.kind]
}

// field returns the member of an object with key, or nil.
func (v *value) field(key string) *member {
	for i := range v.keys {
		if v.keys[i].key == key {
			return &v.keys[i]
		}
	}
	return nil
}

// parseJSON reads one JSON document. A syntax error comes with its offset.
func parseJSON(data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &jsonReader{data: data, dec: dec}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &syntaxError{off: p.next(), msg: "more than one value in the file"}
	}
	return v, nil
}

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

type jsonReader struct {
	data []byte
	dec  *json.Decoder
}

// next is the offset of the next token: past whitespace and separators.
func (p *jsonReader) next() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (p *jsonReader) token() (json.Token, int, error) {
	off := p.next()
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, int(se.Offset), &syntaxError{off: int(se.Offset), msg: se.Error()}
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, len(p.data), &syntaxError{off: len(p.data), msg: "unexpected end of the file"}
		}
		return nil, off, &syntaxError{off: off, msg: err.Error()}
	}
	return tok, off, nil
}

func (p *jsonReader) value() (*value, error) {
	tok, off, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.valueFrom(tok, off)
}

func (p *jsonReader) valueFrom(tok json.Token, off int) (*value, error) {
	v := &value{off: off}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v.kind = kindObject
			for p.dec.More() {
				ktok, koff, err := p.token()
				if err != nil {
					return nil, err
				}
				key, _ := ktok.(string)
				val, err := p.value()
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, member{key: key, keyOff: koff, val: val})
			}
		case '[':
			v.kind = kindArray
			for p.dec.More() {
				item, err := p.value()
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, item)
			}
		}
		if _, _, err := p.token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		v.kind, v.str = kindString, t
	case json.Number:
		v.kind, v.num = kindNumber, t
	case bool:
		v.kind, v.bool = kindBool, t
	case nil:
		v.kind = kindNull
	}
	return v, nil
}

// lineIndex turns offsets into lines and columns (both from 1; columns count bytes, as Go's
// tools do).
type lineIndex []int // offsets at which lines start

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, b := range data {
		if b == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (idx lineIndex) position(off int) (line, col int) {
	i := sort.Search(len(idx), func(i int) bool { return idx[i] > off }) - 1
	return i + 1, off - idx[i] + 1
}
