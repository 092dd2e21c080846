package mcp

import "github.com/mcpgen/mcpgen/runtime/jsonwire"

// addForm, textContents and blobContents are package mcpgen's AddForm, TextContents and
// BlobContents, for this package's tests, which cannot import mcpgen (it imports mcp).
func addForm[T any](s *Server, schema string, decode func(*jsonwire.Decoder, *T)) {
	if err := s.addForm((*T)(nil), schema, func(d *jsonwire.Decoder, v any) { decode(d, v.(*T)) }); err != nil {
		panic(err)
	}
}

func textContents(uri, text string) []ResourceContents {
	return []ResourceContents{{URI: uri, Text: text}}
}

func blobContents(uri string, blob []byte) []ResourceContents {
	return []ResourceContents{{URI: uri, Blob: blob}}
}
