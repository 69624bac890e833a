package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// readSSE reads a Server-Sent Events stream, calling fn for each event with
// its name (empty when the stream sends none) and data. It checks ctx between
// events; returning from here closes nothing — the caller's deferred
// Body.Close and the request context do that.
func readSSE(ctx context.Context, op string, body io.Reader, redact func(string) string, fn func(event string, data []byte) (done bool, err error)) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	var event string
	var data bytes.Buffer
	dispatch := func() (bool, error) {
		if data.Len() == 0 {
			event = ""
			return false, nil
		}
		d := bytes.TrimSuffix(data.Bytes(), []byte("\n"))
		done, err := fn(event, d)
		event = ""
		data.Reset()
		return done, err
	}
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return errs.Wrap(errs.Cancelled, op, err)
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
		}
	}
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Cancelled, op, err)
	}
	if err := sc.Err(); err != nil {
		return errs.New(errs.LLM, op, "stream broke: %s", redact(err.Error()))
	}
	if done, err := dispatch(); err != nil || done {
		return err
	}
	return errs.New(errs.LLM, op, "stream ended before the response was complete")
}

// postStream sends a JSON request and returns the response for streaming. A
// non-2xx answer becomes an LLM error carrying the service's own message,
// redacted.
func postStream(ctx context.Context, client *http.Client, op, url string, headers map[string]string, body any, redact func(string) string) (*http.Response, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errs.Wrap(errs.Cancelled, op, ctx.Err())
		}
		return nil, errs.New(errs.LLM, op, "%s", redact(err.Error()))
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		detail, _ := io.ReadAll(io.LimitReader(resp.Body, 8192)) // best effort: the status is reported regardless
		msg := serviceMessage(detail)
		e := errs.New(errs.LLM, op, "%s: %s", resp.Status, redact(msg))
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return nil, errs.WithHint(e, "check the API key")
		}
		return nil, e
	}
	return resp, nil
}

// serviceMessage extracts {"error":{"message":...}} from an error body, the
// shape both Anthropic and OpenAI-compatible services use.
func serviceMessage(body []byte) string {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		if e.Error.Type != "" {
			return fmt.Sprintf("%s: %s", e.Error.Type, e.Error.Message)
		}
		return e.Error.Message
	}
	return strings.TrimSpace(string(body))
}
