package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Error bodies are read whole (up to errorBodyRead), redacted, and only then
// shortened to errorBodyShown: cutting first could split a key and leave all
// but its last characters in the message, where redaction no longer sees it.
const (
	errorBodyRead  = 1 << 20
	errorBodyShown = 8192
	// maxSecretSpan bounds a credential's length; a body longer than
	// errorBodyRead loses this much before the cut so no key straddles it.
	maxSecretSpan = 4096
)

// wireRequest is one streamed POST to a model service and how to report its
// failures: the service's own words, redacted, with a hint where one helps.
type wireRequest struct {
	op      string
	service string // "Anthropic", "OpenRouter", "Ollama": shown in status lines
	url     string
	headers map[string]string
	body    any
	accept  string // "text/event-stream" or "application/x-ndjson"
	redact  func(string) string
	hint    func(message string) string // a provider's advice for a message; may be nil
}

func (w *wireRequest) scrub(s string) string {
	if w.redact == nil {
		return s
	}
	return w.redact(s)
}

// post sends the request. Every failure before the answer starts is an LLM
// error with the service's message; busy or unreachable services come back
// as *transientError for withRetries.
func (w *wireRequest) post(ctx context.Context, client *http.Client) (*http.Response, error) {
	payload, err := json.Marshal(w.body)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, w.op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(payload))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, w.op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", w.accept)
	for k, v := range w.headers {
		req.Header.Set(k, v)
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errs.Wrap(errs.Cancelled, w.op, ctx.Err())
		}
		return nil, &transientError{err: &unreachableError{err: errs.New(errs.LLM, w.op, "%s", w.scrub(err.Error()))}, reason: "is unreachable"}
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, w.statusError(resp.StatusCode, w.scrub(resp.Status), readErrorBody(resp.Body), resp.Header)
	}
	if w.accept == "text/event-stream" && isJSON(resp.Header.Get("Content-Type")) {
		// OpenRouter answers some failures with 200 and a JSON error body
		// instead of a stream (no endpoint matches the routing policy).
		defer resp.Body.Close()
		return nil, w.bodyError(readErrorBody(resp.Body))
	}
	return resp, nil
}

// unreachableError marks a request that got no answer at all (refused,
// no route, DNS): no model exists to ask, as opposed to one that answered
// with an error.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// Unreachable reports whether err means the model's service could not be
// reached at all.
func Unreachable(err error) bool {
	var u *unreachableError
	return errors.As(err, &u)
}

func isJSON(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json"
}

// statusError reports a non-2xx answer: the status line and the service's
// message, both redacted, plus any hint. Statuses the services document as
// passing are transient.
func (w *wireRequest) statusError(status int, statusLine string, body []byte, h http.Header) error {
	msg := w.shown(serviceMessage(body))
	e := w.withHint(errs.New(errs.LLM, w.op, "%s: %s", statusLine, msg), msg)
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		e = errs.WithHint(e, "check the API key")
	}
	if reason := transientReason(status); reason != "" {
		return &transientError{err: e, reason: reason, wait: retryAfter(h)}
	}
	return e
}

// bodyError reports an error that arrived as the body of a 2xx answer, or
// any body that was not the stream asked for.
func (w *wireRequest) bodyError(body []byte) error {
	var e struct {
		Error struct {
			Code any `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e) // a body that is not JSON is shown as text below
	if code, ok := e.Error.Code.(float64); ok && code >= 400 {
		return w.statusError(int(code), fmt.Sprintf("%s error %d", w.service, int(code)), body, nil)
	}
	msg := w.shown(serviceMessage(body))
	if msg == "" {
		msg = "the service answered without a stream"
	}
	return w.withHint(errs.New(errs.LLM, w.op, "%s", msg), msg)
}

// streamError reports an error event inside a stream (already redacted).
func (w *wireRequest) streamError(kind, message string) error {
	msg := w.shown(message)
	if kind != "" {
		msg = kind + ": " + msg
	}
	return w.withHint(errs.New(errs.LLM, w.op, "%s", msg), msg)
}

func (w *wireRequest) withHint(e error, msg string) error {
	if w.hint != nil {
		if h := w.hint(msg); h != "" {
			return errs.WithHint(e, h)
		}
	}
	return e
}

// shown redacts a message whole, then shortens it for display.
func (w *wireRequest) shown(msg string) string {
	return clip(w.scrub(msg), errorBodyShown)
}

// readErrorBody reads an error body (best effort: a broken body still leaves
// the status to report). A body past the read cap loses a tail longer than
// any key, so the cut cannot split one.
func readErrorBody(r io.Reader) []byte {
	raw, _ := io.ReadAll(io.LimitReader(r, errorBodyRead+1))
	if len(raw) > errorBodyRead {
		raw = raw[:errorBodyRead-maxSecretSpan]
	}
	return raw
}

// clip shortens text to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// serviceMessage extracts {"error":{"type":...,"message":...}} from an error
// body, the shape Anthropic, OpenAI-compatible services and Ollama
// ({"error":"..."}) use; anything else is shown as text.
func serviceMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return s
		}
		var obj struct {
			Type     string `json:"type"`
			Message  string `json:"message"`
			Metadata struct {
				ProviderName string `json:"provider_name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			msg := obj.Message
			if obj.Type != "" {
				msg = obj.Type + ": " + msg
			}
			if obj.Metadata.ProviderName != "" {
				msg += " (upstream " + obj.Metadata.ProviderName + ")"
			}
			return msg
		}
	}
	return strings.TrimSpace(string(body))
}
