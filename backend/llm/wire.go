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
	"github.com/jarvis-kb/jarvis/backend/ledger"
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

	// The ledger record: which service and model, and whether it runs on
	// this machine. A nil ledger records nothing (providers built by hand
	// in tests); MakeProvider always sets one.
	ledger   *ledger.Ledger
	provider string
	model    string
	local    bool
}

// answered is what a provider's stream reader learnt, for the record.
type answered struct {
	stop         StopReason
	inputTokens  int
	outputTokens int
	costUSD      float64
}

// maxRecordedBody caps the request body kept in a record; longer ones
// (a figure's image) are cut with a marker.
const maxRecordedBody = 1 << 20

// send is the one way a request reaches a model service: it writes the
// ledger record first (no record, no request), posts, hands the answer to
// read, and completes the record with how it ended. Each attempt of a
// retried request is its own record: each one sent the text.
func (w *wireRequest) send(ctx context.Context, client *http.Client, read func(body io.Reader) (answered, error)) error {
	payload, err := json.Marshal(w.body)
	if err != nil {
		return errs.Wrap(errs.Internal, w.op, err)
	}
	id, err := w.begin(ctx, payload)
	if err != nil {
		return err
	}
	resp, err := w.post(ctx, client, payload)
	if err != nil {
		return w.finish(id, 0, answered{}, err)
	}
	defer resp.Body.Close()
	body := &countingReader{r: resp.Body}
	a, err := read(body)
	return w.finish(id, body.n, a, err)
}

func (w *wireRequest) begin(ctx context.Context, payload []byte) (int64, error) {
	if w.ledger == nil {
		return 0, nil
	}
	about := ledger.AboutFrom(ctx)
	purpose := about.Purpose
	if purpose == "" {
		purpose = w.op
	}
	var sources []ledger.Source
	if about.Sources != nil {
		sources = about.Sources()
	}
	// A local request's body stays off the record: nothing left the
	// machine, and it may hold private text.
	body := ""
	if !w.local {
		body = w.scrub(string(payload))
	}
	if len(body) > maxRecordedBody {
		body = strings.ToValidUTF8(body[:maxRecordedBody], "") + "…[cut: " + fmt.Sprint(len(body)) + " bytes in all]"
	}
	rec := ledger.Record{Purpose: purpose, Provider: w.provider, Model: w.model, Local: w.local,
		Session: about.Session, Sources: sources, RequestBytes: int64(len(payload)), Body: body}
	id, err := w.ledger.Begin(context.WithoutCancel(ctx), rec)
	if err != nil {
		return 0, errs.WithHint(errs.Wrapf(errs.Internal, w.op, err, "the request could not be recorded in the ledger, so it was not sent"),
			"Jarvis records every request before sending it: check the free space and permissions of the data folder")
	}
	if about.Recorded != nil {
		rec.ID = id
		about.Recorded(rec)
	}
	return id, nil
}

// finish completes the record and returns err (or the ledger's failure,
// when the request itself went well: an unfinished record must not pass
// silently).
func (w *wireRequest) finish(id int64, n int64, a answered, err error) error {
	if w.ledger == nil {
		return err
	}
	r := ledger.Result{ResponseBytes: n, InputTokens: a.inputTokens, OutputTokens: a.outputTokens, CostUSD: a.costUSD, Outcome: ledger.OK}
	switch {
	case errs.Is(err, errs.Cancelled):
		r.Outcome = ledger.Cancelled
	case err != nil:
		r.Outcome, r.Error = ledger.Failed, w.scrub(err.Error())
	case a.stop == StopLength:
		r.Outcome = ledger.CutOff
	case a.stop == StopRefusal || a.stop == StopContentFilter:
		r.Outcome = ledger.Refused
	}
	if ferr := w.ledger.Finish(id, r); ferr != nil && err == nil {
		return errs.Wrap(errs.Internal, w.op, ferr)
	}
	return err
}

// countingReader counts the bytes of an answer.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (w *wireRequest) scrub(s string) string {
	if w.redact == nil {
		return s
	}
	return w.redact(s)
}

// post sends the request (send's part: call send). Every failure before the answer starts is an LLM
// error with the service's message; busy or unreachable services come back
// as *transientError for withRetries.
func (w *wireRequest) post(ctx context.Context, client *http.Client, payload []byte) (*http.Response, error) {
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
