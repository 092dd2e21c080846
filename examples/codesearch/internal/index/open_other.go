//go:build !unix

package index

// openNonBlock: no FIFOs to wait on.
const openNonBlock = 0
