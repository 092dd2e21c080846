//go:build !cgo

package chunk

// sitterOK: without cgo (CGO_ENABLED=0, or no C compiler) there is no tree-sitter, and the
// scanners cut every language.
func sitterOK(name string, src []byte, r *Result) bool { return false }
