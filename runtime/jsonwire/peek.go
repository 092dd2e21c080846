package jsonwire

// Looking ahead: what the next value holds, read without consuming it, so that generated code
// can choose the branch of a union (by a property of an object, by the properties it has, or
// integer against number) before it decodes the value into that branch's type, with the
// problems of that decoding at their real paths.

// PeekMember returns the bytes of the member key of the object that is the next value, and
// consumes nothing. It returns nil when the next value is not an object, has no such member,
// or is not valid JSON as far as it was read. When the key occurs more than once, the last
// one counts, as it does when the object is decoded.
func (d *Decoder) PeekMember(key string) []byte {
	look := d.lookahead()
	if look.Peek() != Object {
		return nil
	}
	var found []byte
	for k := range look.Members {
		if string(k) == key {
			found = look.Raw()
		} else {
			look.Skip()
		}
	}
	if look.syntax {
		return nil
	}
	return found
}

// PeekString returns the member key of the object that is the next value when it is a string,
// consuming nothing: the discriminator of a union of objects.
func (d *Decoder) PeekString(key string) (string, bool) {
	raw := d.PeekMember(key)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	look := Decoder{data: raw}
	s, ok := look.String()
	return s, ok && !look.Failed()
}

// PeekInteger reports whether the next value is a number that Int accepts (a whole number
// within the range of int64), consuming nothing: for a union of an integer and a number.
func (d *Decoder) PeekInteger() bool {
	look := d.lookahead()
	if look.Peek() != Number {
		return false
	}
	_, ok := look.Int()
	return ok && !look.Failed()
}

// lookahead is a decoder of the rest of the input, whose reading leaves d as it is.
func (d *Decoder) lookahead() Decoder {
	return Decoder{data: d.data[d.pos:]}
}
