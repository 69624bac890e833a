// Package iostreams carries a command's standard streams so commands can be
// run against buffers in tests.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IO is the set of streams a command reads and writes.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Color: Out is a terminal that shows bold text (not NO_COLOR, not a
	// dumb terminal), so search matches can be marked.
	Color bool
	// Terminal: In is a terminal a person types on, so the command may ask
	// them (ask-before-sending); piped input never answers a question.
	Terminal bool
}

// System returns the process's streams.
func System() *IO {
	color := term.IsTerminal(int(os.Stdout.Fd())) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	return &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Color: color, Terminal: term.IsTerminal(int(os.Stdin.Fd()))}
}

// Test returns streams backed by buffers.
func Test() (*IO, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errb := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IO{In: in, Out: out, Err: errb}, in, out, errb
}
