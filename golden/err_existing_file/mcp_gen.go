package errexistingfile

// helper is hand-written: mcpgen must not overwrite this file.
func helper() error { return nil }
