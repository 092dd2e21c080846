// Package waitread reads what a person types so that a question stops waiting for its
// answer when its context ends: mcpgen's prompts (sampling, elicitation) and host.AskAt's
// approval of a project's configuration. Nothing is read past the moment the context
// ended, and no goroutine is left blocked on the terminal.
package waitread

import (
	"context"
	"io"
	"os"
)

// Reader reads R, first waiting for input for as long as Ctx lets it when R is a file
// (Readable); with Ctx nil it reads at once. A reader that is not a file is read at once
// too, once Ctx has not ended.
type Reader struct {
	R   io.Reader
	Ctx context.Context
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.Ctx != nil {
		if f, ok := r.R.(*os.File); ok {
			if err := Readable(r.Ctx, f); err != nil {
				return 0, err
			}
		} else if err := r.Ctx.Err(); err != nil {
			return 0, err
		}
	}
	return r.R.Read(p)
}
