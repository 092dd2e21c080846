package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// form is the elicitation form of a Go type: its requested schema and the decoder that reads
// and checks an answer into a value of the type (decode's second argument is a *T).
type form struct {
	schema []byte
	// schema20250618 is the schema for clients before 2025-11-25, which know neither titled enums
	// (oneOf) nor multi-selects; err20250618 says why there is none.
	schema20250618 []byte
	err20250618    error
	decode         func(*jsonwire.Decoder, any)
}

// form20250618 rewrites a 2025-11-25 requested schema for the 2025-06-18 dialect: a titled
// single-select ({"oneOf": [{"const", "title"}]}) becomes "enum" with "enumNames"; a
// multi-select cannot be expressed. The schema is copied member by member, so the order of
// the fields, which clients show, is kept. It runs once, when the form is registered.
func form20250618(schema []byte) ([]byte, error) {
	var (
		e   jsonwire.Encoder
		err error
	)
	d := jsonwire.NewDecoder(schema)
	e.ObjectStart()
	for key := range d.Members {
		e.Key(string(key))
		if string(key) != "properties" {
			e.Raw(d.Raw())
			continue
		}
		e.ObjectStart()
		for name := range d.Members {
			e.Key(string(name))
			field, ferr := field20250618(string(name), d.Raw())
			if err == nil {
				err = ferr
			}
			e.Raw(field)
		}
		e.ObjectEnd()
	}
	e.ObjectEnd()
	if d.Finish(); d.Failed() {
		return nil, errors.New(d.Summary())
	}
	if err != nil {
		return nil, err
	}
	return e.Bytes(), nil
}

// field20250618 rewrites the schema of one field of a form for form20250618: a oneOf becomes
// enum and enumNames, in its place.
func field20250618(name string, field []byte) ([]byte, error) {
	var typ string
	var oneOf []byte
	d := jsonwire.NewDecoder(field)
	for key := range d.Members {
		switch {
		case string(key) == "type" && d.Peek() == jsonwire.String:
			typ, _ = d.String()
		case string(key) == "oneOf":
			oneOf = d.Raw()
		default:
			d.Skip()
		}
	}
	switch {
	case d.Failed():
		return nil, errors.New(d.Summary())
	case typ == "array":
		return nil, fmt.Errorf("field %s is a multi-select, which clients before 2025-11-25 do not know", name)
	case oneOf == nil:
		return field, nil
	}
	var options []struct {
		Const json.RawMessage `json:"const"`
		Title json.RawMessage `json:"title"`
	}
	if err := json.Unmarshal(oneOf, &options); err != nil {
		return nil, err
	}
	var values, titles []json.RawMessage
	for _, o := range options {
		values, titles = append(values, o.Const), append(titles, o.Title)
	}
	v, _ := json.Marshal(values)
	t, _ := json.Marshal(titles)
	var e jsonwire.Encoder
	d.Reset(field)
	e.ObjectStart()
	for key := range d.Members {
		if string(key) == "oneOf" {
			d.Skip()
			e.Key("enum")
			e.Raw(v)
			e.Key("enumNames")
			e.Raw(t)
			continue
		}
		e.Key(string(key))
		e.Raw(d.Raw())
	}
	e.ObjectEnd()
	return e.Bytes(), nil
}

// ElicitAction is what the user did with an elicitation.
type ElicitAction string

// The actions.
const (
	Accept  ElicitAction = "accept"  // the user submitted the form: it is filled in
	Decline ElicitAction = "decline" // the user refused
	Cancel  ElicitAction = "cancel"  // the user dismissed the request
)

// Elicit asks the client's user to fill in a form, the fields of struct T, explaining why in
// message, if the client declared the elicitation capability (form mode). On Accept it
// returns the user's answer, checked against the form's schema; on Decline or Cancel, the
// zero T. It waits for the user as long as ctx lets it.
//
// mcpgen generates the form of every T a package passes to Elicit; RegisterMCP registers it.
func Elicit[T any](ctx context.Context, message string) (T, ElicitAction, error) {
	var zero T
	r := RequestFrom(ctx)
	if r == nil {
		return zero, "", errors.New("mcp: elicitation/create needs the context of a request being served")
	}
	srv := r.srv
	srv.mu.RLock()
	f := srv.forms[(*T)(nil)]
	srv.mu.RUnlock()
	if f == nil {
		return zero, "", fmt.Errorf("mcp: no elicitation form for type %T is registered: run go generate, and call RegisterMCP of the package that calls Elicit (a type elicited from generic code needs //mcp:form)", zero)
	}
	req := ElicitRequest{Mode: "form", Message: message, RequestedSchema: f.schema}
	if !r.client.revision().elicitationModes() {
		if f.err20250618 != nil && r.ClientCapabilities().Elicitation {
			return zero, "", fmt.Errorf("mcp: cannot elicit %T from a client of protocol version %s: %w", zero, r.ProtocolVersion(), f.err20250618)
		}
		req = ElicitRequest{Message: message, RequestedSchema: f.schema20250618} // form mode, the only one: no mode
	}
	var e jsonwire.Encoder
	req.encode(&e)
	raw, err := ask(ctx, methodElicit, e.Bytes())
	if err != nil {
		return zero, "", err
	}
	action, content, err := readElicitResult(raw)
	if err != nil {
		return zero, "", err
	}
	if action != Accept {
		return zero, action, nil
	}
	if content == nil {
		content = []byte("{}")
	}
	var v T
	answer := newInput(content, formAnswer, "")
	f.decode(answer.decoder(), &v)
	if err := answer.Err(); err != nil {
		return zero, Accept, err
	}
	return v, Accept, nil
}
