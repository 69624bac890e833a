// Package iostreams carries a command's standard streams so commands can be
// run against buffers in tests.
package iostreams

import (
	"bytes"
	"io"
	"os"
)

// IO is the set of streams a command reads and writes.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// System returns the process's streams.
func System() *IO { return &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// Test returns streams backed by buffers.
func Test() (*IO, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errb := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IO{In: in, Out: out, Err: errb}, in, out, errb
}
