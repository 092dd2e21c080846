package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/termtext"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"golang.org/x/term"
)

// isTerminal says whether w is a terminal: not merely a character device, which /dev/null
// is too (a service's or a CI job's stdin), for there is nobody to ask there.
func isTerminal(w any) bool {
	switch w := w.(type) {
	case *console:
		return w.tty
	case *termtext.Writer:
		return isTerminal(w.W)
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// console is stderr, which the progress bar shares with every other line mcpgen writes
// there: log messages, events, questions. The bar is the last line, redrawn in place; a
// line written while it is drawn takes its place and the bar is drawn again below it, so
// that the two never share a line. Everything written to it is shown as text
// (termtext): what servers say reaches stderr in mcpgen's lines, and none of it may move
// the cursor, redraw the screen, set the clipboard or make a link while a question waits
// for its answer. Only the bar's own redrawing writes escape sequences.
type console struct {
	w    io.Writer
	text *termtext.Writer // w, escaped
	tty  bool             // w is a terminal

	mu      sync.Mutex
	bar     string      // the bar's line; "" before its first update and once finished
	drawnAt time.Time   // when the bar was last drawn
	redraw  *time.Timer // draws the bar's latest line, when it changed too soon after a draw
	shown   bool        // the bar is drawn on the cursor's line
	midLine bool        // the last text written did not end its line: the bar waits for it
	held    int         // questions being asked: the bar waits for their answers
}

func newConsole(w io.Writer) *console {
	return &console{w: w, text: termtext.NewWriter(w), tty: isTerminal(w)}
}

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hideLocked()
	n, err := c.text.Write(p)
	if n > 0 {
		c.midLine = p[n-1] != '\n'
	}
	c.drawLocked()
	return n, err
}

// barInterval is the least time between two draws of the bar: a server that sends progress
// notifications without pause must not make mcpgen write to the terminal as fast, nor wait
// on it while the notifications queue up.
const barInterval = 50 * time.Millisecond

// status sets the bar's line and draws it, in place of the last one, or once barInterval
// has passed since the last draw. The line is shown as one line of text: it holds what a
// server said (a progress or task-status message).
func (c *console) status(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bar = termtext.Line(line)
	if wait := barInterval - time.Since(c.drawnAt); wait > 0 {
		if c.redraw == nil {
			c.redraw = time.AfterFunc(wait, c.drawLatest)
		}
		return
	}
	c.shown = false // it is redrawn from the line's start, over the last one
	c.drawLocked()
}

// drawLatest draws the bar's latest line, which came too soon after the last draw.
func (c *console) drawLatest() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drawLatestLocked()
}

func (c *console) drawLatestLocked() {
	if c.redraw == nil {
		return // finished meanwhile
	}
	c.redraw.Stop()
	c.redraw = nil
	c.shown = false
	c.drawLocked()
}

// finish ends the bar's line, leaving its last state on the screen.
func (c *console) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drawLatestLocked()
	if c.shown {
		io.WriteString(c.w, "\n")
	}
	c.bar, c.shown = "", false
}

// hold takes the bar off the screen while the person is asked something; release puts it
// back below the answer, whose Enter ended the line.
func (c *console) hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held++
	c.hideLocked()
}

func (c *console) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held--
	c.midLine = false
	c.drawLocked()
}

func (c *console) hideLocked() {
	if c.shown {
		io.WriteString(c.w, "\r\033[K")
		c.shown = false
	}
}

func (c *console) drawLocked() {
	if c.bar != "" && !c.shown && !c.midLine && c.held == 0 {
		io.WriteString(c.w, "\r\033[K"+c.bar)
		c.shown, c.drawnAt = true, time.Now()
	}
}

// progressBar draws a call's progress on the console's last line.
type progressBar struct {
	c     *console
	mu    sync.Mutex
	drawn int
}

const barWidth = 30

func (p *progressBar) update(n mcp.ProgressNotice) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var line string
	switch {
	case n.Status != "":
		// A task's status message: it has no numbers to draw a bar with.
		if n.Message == "" {
			return
		}
		line = n.Message
	case n.Total > 0:
		frac := min(max(n.Progress/n.Total, 0), 1)
		full := int(frac * barWidth)
		bar := strings.Repeat("=", full)
		if full < barWidth {
			bar += ">" + strings.Repeat(" ", barWidth-full-1)
		}
		line = fmt.Sprintf("[%s] %3.0f%% %s/%s", bar, frac*100, number(n.Progress), number(n.Total))
	default:
		pos := p.drawn % (barWidth - 3)
		line = fmt.Sprintf("[%s<=>%s] %s", strings.Repeat(" ", pos), strings.Repeat(" ", barWidth-3-pos), number(n.Progress))
	}
	if n.Message != "" && n.Status == "" {
		line += " " + n.Message
	}
	p.c.status(line)
	p.drawn++
}

// finish ends the bar's line, leaving its last state on the screen.
func (p *progressBar) finish() { p.c.finish() }

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
