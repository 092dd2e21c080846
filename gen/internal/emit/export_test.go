package emit

// ChunkEveryDeclaration has files formatted in a chunk per top-level declaration, until the
// returned function restores the default.
func ChunkEveryDeclaration() (restore func()) {
	old := minChunkItems
	minChunkItems = 1
	return func() { minChunkItems = old }
}

// ChunkedFiles is how many files were formatted in chunks.
func ChunkedFiles() int64 { return chunkedFiles.Load() }
