//go:build !unix

package userfile

// openNonblock: elsewhere there are no FIFOs in the file system to wait on.
const openNonblock = 0
