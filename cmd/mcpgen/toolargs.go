package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// toolArguments builds a call's arguments: the object of --args (JSON, @file or - for
// stdin), then each key=value, typed by the input schema's property.
func toolArguments(flag string, stdin io.Reader, schema json.RawMessage, pairs []string) (map[string]any, error) {
	args := map[string]any{}
	if flag != "" {
		var data []byte
		var err error
		source := "--args"
		switch {
		case flag == "-":
			data, err = io.ReadAll(stdin)
			source = "--args - (standard input)"
		case strings.HasPrefix(flag, "@"):
			data, err = os.ReadFile(flag[1:])
			source = "--args " + flag
		default:
			data = []byte(flag)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := d.Decode(&args); err != nil || args == nil {
			return nil, fmt.Errorf("%s is not a JSON object of arguments: %v", source, orNull(err))
		}
	}
	props := properties(schema)
	for _, p := range pairs {
		key, raw, ok := strings.Cut(p, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("argument %q: write key=value (or give --args JSON)", p)
		}
		prop, known := props.byName[key]
		if !known && props.closed {
			return nil, fmt.Errorf("the tool has no argument %q; its arguments are %s", key, strings.Join(slices.Sorted(maps.Keys(props.byName)), ", "))
		}
		v, err := typed(raw, prop.types())
		if err != nil {
			return nil, fmt.Errorf("argument %s: %v", key, err)
		}
		args[key] = v
	}
	return args, nil
}

func orNull(err error) any {
	if err == nil {
		return "it is null"
	}
	return err
}

type property struct {
	Type json.RawMessage `json:"type"`
	Enum []any           `json:"enum"`
}

// types is the property's JSON types ("type": "x" or ["x", "null"]).
func (p property) types() []string {
	var one string
	if json.Unmarshal(p.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	json.Unmarshal(p.Type, &many)
	return many
}

type schemaProps struct {
	byName map[string]property
	closed bool // additionalProperties: false
}

func properties(schema json.RawMessage) schemaProps {
	var s struct {
		Properties           map[string]property `json:"properties"`
		AdditionalProperties json.RawMessage     `json:"additionalProperties"`
	}
	json.Unmarshal(schema, &s)
	return schemaProps{byName: s.Properties, closed: string(s.AdditionalProperties) == "false" && len(s.Properties) > 0}
}

// typed reads a value given on the command line as the schema's type says: a string as
// it is, numbers and booleans parsed, arrays and objects as JSON. Without a type, what
// parses as JSON is JSON, and anything else a string.
func typed(raw string, types []string) (any, error) {
	has := func(t string) bool { return slices.Contains(types, t) }
	if has("null") && raw == "null" {
		return nil, nil
	}
	switch {
	case len(types) == 0:
		var v any
		if json.Unmarshal([]byte(raw), &v) == nil {
			return json.RawMessage(raw), nil
		}
		return raw, nil
	case has("string"):
		return raw, nil
	case has("integer"):
		if _, err := strconv.ParseInt(raw, 10, 64); err != nil {
			return nil, fmt.Errorf("%q is not an integer", raw)
		}
		return json.Number(raw), nil
	case has("number"):
		if _, err := strconv.ParseFloat(raw, 64); err != nil || !json.Valid([]byte(raw)) {
			return nil, fmt.Errorf("%q is not a number", raw)
		}
		return json.Number(raw), nil
	case has("boolean"):
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", raw)
		}
		return b, nil
	case has("array"), has("object"):
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			want := "[...]"
			if has("object") {
				want = "{...}"
			}
			return nil, fmt.Errorf("%q is not JSON; write the %s as JSON: %s", raw, types[0], want)
		}
		return json.RawMessage(raw), nil
	}
	return raw, nil
}
