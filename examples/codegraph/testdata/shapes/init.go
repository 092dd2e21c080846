package shapes

// Two init functions: a package may have several, all named init.
func init() { Unit = NewSquare(1) }

func init() { _ = NewSquare(2) }
