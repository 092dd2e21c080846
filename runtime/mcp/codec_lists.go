package mcp

import "github.com/mcpgen/mcpgen/runtime/jsonwire"

// The codec of list results' pages (tools/list, prompts/list, resources/list,
// resources/templates/list); the items have their own (see codec_content.go for the
// convention).

// listResult writes a list result: {"<field>":[items...],"nextCursor":...}.
func listResult(field string, items [][]byte, next string) []byte {
	var e jsonwire.Encoder
	e.ObjectStart()
	e.Key(field)
	e.ArrayStart()
	for _, it := range items {
		e.Elem()
		e.Raw(it)
	}
	e.ArrayEnd()
	optionalString(&e, "nextCursor", next)
	e.ObjectEnd()
	return e.Bytes()
}

// readPage reads a list result: the items under field, each as it came (its bytes alias the
// page's), for the caller to read one by one, and the cursor of the next page ("" on the
// last). A server that has no items may leave the list out or send null; a cursor that is
// not a string is no cursor.
func readPage(d *jsonwire.Decoder, field string) (items [][]byte, next string) {
	for key := range d.Members {
		switch string(key) {
		case field:
			if d.Null() {
				continue
			}
			for range d.Elements {
				items = append(items, d.Raw())
			}
		case "nextCursor":
			if d.Peek() == jsonwire.String {
				next, _ = d.String()
			} else {
				d.Skip()
			}
		default:
			d.Skip()
		}
	}
	return items, next
}
