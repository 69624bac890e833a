package llm

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// readSSE reads a Server-Sent Events stream, calling fn for each event with
// its name (empty when the stream sends none) and data. It checks ctx between
// events; returning from here closes nothing — the caller's deferred
// Body.Close and the request context do that. Lines that are no SSE field
// are kept: a body that held no event at all is the service's error, shown
// as it wrote it.
func (w *wireRequest) readSSE(ctx context.Context, body io.Reader, fn func(event string, data []byte) (done bool, err error)) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	var event string
	var data, stray bytes.Buffer
	events := 0
	dispatch := func() (bool, error) {
		if data.Len() == 0 {
			event = ""
			return false, nil
		}
		events++
		d := bytes.TrimSuffix(data.Bytes(), []byte("\n"))
		done, err := fn(event, d)
		event = ""
		data.Reset()
		return done, err
	}
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return errs.Wrap(errs.Cancelled, w.op, err)
		}
		line := sc.Text()
		switch {
		case line == "":
			done, err := dispatch()
			if err != nil || done {
				return err
			}
		case strings.HasPrefix(line, ":"): // comment / keep-alive
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			data.WriteByte('\n')
		case strings.HasPrefix(line, "id:"), strings.HasPrefix(line, "retry:"):
		default:
			if stray.Len() < errorBodyRead {
				stray.WriteString(line)
				stray.WriteByte('\n')
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Cancelled, w.op, err)
	}
	if err := sc.Err(); err != nil {
		return errs.New(errs.LLM, w.op, "stream broke: %s", w.scrub(err.Error()))
	}
	if done, err := dispatch(); err != nil || done {
		return err
	}
	if events == 0 && stray.Len() > 0 {
		return w.bodyError(readErrorBody(&stray))
	}
	return errs.New(errs.LLM, w.op, "stream ended before the response was complete")
}
