package mcp

import (
	"cmp"
	"encoding/base64"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/jsonwire"
)

// Every list result (tools, resources, templates, prompts) is paginated the same way: the
// list is sorted by a key (a name or URI), a page holds PageSize items, and the cursor is the
// key of the last item of the previous page, so pages stay right while items come and go.

const cursorPrefix = "after:"

func encodeCursor(last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + last))
}

func decodeCursor(c string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) <= len(cursorPrefix) || string(b[:len(cursorPrefix)]) != cursorPrefix {
		return "", false
	}
	return string(b[len(cursorPrefix):]), true
}

// page finds the page params ask for in list, sorted by key: the bounds of its items, and
// the cursor of the next page ("" on the last).
func page[T any](method string, list []T, key func(T) string, params []byte, size int) (start, end int, next string, err *jsonrpc.Error) {
	after := ""
	if params != nil {
		var p paginatedParams
		d := jsonwire.NewDecoder(params)
		p.decode(d)
		ok := true
		if p.hasCursor {
			after, ok = decodeCursor(p.cursor)
		}
		switch d.Finish(); {
		case d.Failed():
			return 0, 0, "", invalidParams("%s: %s", method, d.Summary())
		case !ok:
			return 0, 0, "", invalidParams("%s: invalid cursor", method)
		}
	}
	if after != "" {
		var found bool
		start, found = slices.BinarySearchFunc(list, after, func(item T, k string) int { return cmp.Compare(key(item), k) })
		if found {
			start++
		}
	}
	end = min(start+size, len(list))
	if end < len(list) {
		next = encodeCursor(key(list[end-1]))
	}
	return start, end, next, nil
}

// insertSorted adds an item to a list sorted by key, reporting false if the key is taken.
func insertSorted[T any](list []T, item T, key func(T) string) ([]T, bool) {
	i, found := slices.BinarySearchFunc(list, key(item), func(x T, k string) int { return cmp.Compare(key(x), k) })
	if found {
		return list, false
	}
	return slices.Insert(list, i, item), true
}

// removeSorted removes the item with key k from a list sorted by key, reporting false if
// there is none.
func removeSorted[T any](list []T, k string, key func(T) string) ([]T, bool) {
	i, found := slices.BinarySearchFunc(list, k, func(x T, k string) int { return cmp.Compare(key(x), k) })
	if !found {
		return list, false
	}
	return slices.Delete(list, i, i+1), true
}

// listPage answers a list request (tools/list, prompts/list, ...): the page of list that
// params ask for, each item as render writes it for the request's dialect, under field.
// list is one of the server's registries, read under its lock.
func listPage[T any](req *Request, params []byte, method, field string, list *[]T, key func(T) string, render func(T, dialect) []byte) ([]byte, *jsonrpc.Error) {
	srv := req.srv
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	start, end, next, err := page(method, *list, key, params, srv.opts.PageSize)
	if err != nil {
		return nil, err
	}
	d := req.client.revision().dialect()
	items := make([][]byte, 0, end-start)
	for _, it := range (*list)[start:end] {
		items = append(items, render(it, d))
	}
	return listResult(field, items, next), nil
}
