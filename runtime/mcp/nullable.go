package mcp

import (
	"bytes"
	"encoding/json"
)

// Nullable is a property that may be left out and may be null, as a typed client generated
// by mcpgen import declares an optional property whose schema allows null: three states,
// where a pointer has two. GitHub's "milestone": null removes an issue's milestone, while
// leaving "milestone" out keeps it.
//
// The zero value is left out; Null[T]() is null; NotNull(v) is v:
//
//	in := repo.IssuesUpdateInput{Milestone: mcp.Null[repo.Milestone]()} // remove it
//	if body, ok := issue.Body.Get(); ok {                            // neither left out nor null
//		fmt.Println(body)
//	}
//
// Generated code encodes and decodes it without reflection. With encoding/json, tag the
// field omitzero so that the zero value is left out (MarshalJSON writes null for it
// otherwise).
type Nullable[T any] struct {
	value T
	state nullState
}

type nullState uint8

const (
	nullableLeftOut nullState = iota
	nullableNull
	nullableValue
)

// Null is a Nullable that is null.
func Null[T any]() Nullable[T] { return Nullable[T]{state: nullableNull} }

// NotNull is a Nullable that is v.
func NotNull[T any](v T) Nullable[T] { return Nullable[T]{value: v, state: nullableValue} }

// Get returns the value and true, or T's zero value and false when n is null or left out.
func (n Nullable[T]) Get() (T, bool) { return n.value, n.state == nullableValue }

// IsNull says whether n is null.
func (n Nullable[T]) IsNull() bool { return n.state == nullableNull }

// IsZero says whether n is left out: encoding/json's omitzero leaves such a field out.
func (n Nullable[T]) IsZero() bool { return n.state == nullableLeftOut }

// MarshalJSON writes the value, or null when n is null or left out.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != nullableValue {
		return []byte("null"), nil
	}
	return json.Marshal(n.value)
}

// UnmarshalJSON reads null or a value (a member that is not there leaves n as it is: left
// out, if it was).
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*n = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*n = NotNull(v)
	return nil
}
