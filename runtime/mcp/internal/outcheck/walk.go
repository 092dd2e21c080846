package outcheck

import (
	"bytes"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Valid reports whether data (a whole JSON document) is valid against the schema, or false
// if the compiled check cannot tell.
func (oc *Check) Valid(data []byte) bool {
	var d jsonwire.Decoder
	d.Reset(data)
	w := walk{budget: 1024 + 16*len(data)}
	if !oc.root.check(&d, &w, 0) {
		return false
	}
	d.Finish()
	return !d.Failed()
}

// walk is what one check may still spend: the schemas it visits and the bytes it reads
// again for $ref, allOf and anyOf. A schema whose combinations refer to each other can ask
// for work that grows exponentially with its nesting; past the budget the check cannot tell,
// and the general validator decides.
type walk struct{ budget int }

// check reads one value from d and reports whether it is valid.
func (n *schemaNode) check(d *jsonwire.Decoder, w *walk, depth int) bool {
	if w.budget--; depth > maxCheckDepth || w.budget < 0 {
		return false
	}
	if n.always != nil {
		d.Skip()
		return *n.always && !d.Failed()
	}
	if n.ref == nil && n.allOf == nil && n.anyOf == nil {
		return n.checkOwn(d, w, depth)
	}
	raw := d.Raw()
	if raw == nil || !checkRaw(n, true, raw, w, depth) {
		return false
	}
	if n.ref != nil && !checkRaw(n.ref, false, raw, w, depth+1) {
		return false
	}
	for _, s := range n.allOf {
		if !checkRaw(s, false, raw, w, depth+1) {
			return false
		}
	}
	if n.anyOf == nil {
		return true
	}
	for _, s := range n.anyOf {
		if checkRaw(s, false, raw, w, depth+1) {
			return true
		}
	}
	return false
}

// checkRaw checks raw, one value, against n (its own keywords alone if own).
func checkRaw(n *schemaNode, own bool, raw []byte, w *walk, depth int) bool {
	if w.budget -= len(raw); w.budget < 0 {
		return false
	}
	var d jsonwire.Decoder
	d.Reset(raw)
	if own {
		return n.checkOwn(&d, w, depth) && !d.Failed()
	}
	return n.check(&d, w, depth) && !d.Failed()
}

// checkOwn checks the keywords of n other than $ref and the combinations.
func (n *schemaNode) checkOwn(d *jsonwire.Decoder, w *walk, depth int) bool {
	switch k := d.Peek(); k {
	case jsonwire.Null:
		return n.allows(typeNull) && d.Null() && n.inEnum(scalar{kind: k})
	case jsonwire.Bool:
		b, ok := d.Bool()
		return ok && n.allows(typeBool) && n.inEnum(scalar{kind: k, b: b})
	case jsonwire.Number:
		return n.checkNumber(d)
	case jsonwire.String:
		return n.checkString(d)
	case jsonwire.Array:
		return n.allows(typeArray) && n.enum == nil && n.checkArray(d, w, depth)
	case jsonwire.Object:
		return n.allows(typeObject) && n.enum == nil && n.checkObject(d, w, depth)
	}
	return false
}

func (n *schemaNode) allows(t uint8) bool { return n.types == 0 || n.types&t != 0 }

func (n *schemaNode) inEnum(v scalar) bool {
	if n.enum == nil {
		return true
	}
	for _, e := range n.enum {
		if e.kind == v.kind && e.s == v.s && e.f == v.f && e.b == v.b {
			return true
		}
	}
	return false
}

func (n *schemaNode) checkNumber(d *jsonwire.Decoder) bool {
	tok := d.Raw()
	if tok == nil {
		return false
	}
	if n.types != 0 && n.types&typeNumber == 0 {
		// An integer: a number without a fraction, or with a fraction of zeros; one with an
		// exponent is left to the general validator.
		if !n.allows(typeInteger) || bytes.ContainsAny(tok, "eE") || !integral(tok) {
			return false
		}
	}
	if n.min == nil && n.max == nil && n.exMin == nil && n.exMax == nil && n.enum == nil {
		return true // any number: its value is not needed
	}
	f, ok := exactFloat(tok)
	if !ok {
		return false
	}
	switch {
	case n.min != nil && f < *n.min, n.max != nil && f > *n.max,
		n.exMin != nil && f <= *n.exMin, n.exMax != nil && f >= *n.exMax:
		return false
	}
	return n.inEnum(scalar{kind: jsonwire.Number, f: f})
}

func (n *schemaNode) checkString(d *jsonwire.Decoder) bool {
	if !n.allows(typeString) {
		return false
	}
	if n.minLen == 0 && n.maxLen < 0 && n.pattern == nil && n.enum == nil {
		d.Skip()
		return true
	}
	text, ok := d.Text()
	if !ok || !utf8.Valid(text) { // not UTF-8: how the general validator counts it is its own
		return false
	}
	if n.minLen > 0 || n.maxLen >= 0 {
		runes := utf8.RuneCount(text)
		if runes < n.minLen || n.maxLen >= 0 && runes > n.maxLen {
			return false
		}
	}
	if n.pattern != nil && !n.pattern.Match(text) {
		return false
	}
	if n.enum != nil {
		for _, e := range n.enum {
			if e.kind == jsonwire.String && e.s == string(text) {
				return true
			}
		}
		return false
	}
	return true
}

func (n *schemaNode) checkArray(d *jsonwire.Decoder, w *walk, depth int) bool {
	ok, count := true, 0
	for i := range d.Elements {
		count++
		s := n.items
		if i < len(n.prefix) {
			s = n.prefix[i]
		}
		if s == nil {
			d.Skip()
		} else if !s.check(d, w, depth+1) {
			ok = false
			break
		}
	}
	return ok && !d.Failed() && count >= n.minItems && (n.maxItems < 0 || count <= n.maxItems)
}

func (n *schemaNode) checkObject(d *jsonwire.Decoder, w *walk, depth int) bool {
	ok, count := true, 0
	var seen uint64
	for key := range d.Members {
		count++
		if i, req := n.required[string(key)]; req {
			seen |= 1 << i
		}
		s, named := n.props[string(key)]
		if !named {
			s = n.addl
		}
		if s == nil {
			d.Skip()
		} else if !s.check(d, w, depth+1) {
			ok = false
			break
		}
	}
	return ok && !d.Failed() && seen == 1<<len(n.required)-1 && (n.maxProps < 0 || count <= n.maxProps)
}
