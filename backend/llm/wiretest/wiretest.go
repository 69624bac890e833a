// Package wiretest is the model adapters' conformance suite: scripted wire
// transcripts, one YAML file per case under cases/<provider>/, written from
// each provider's streaming documentation, and a loopback server that plays
// them byte for byte and records what the client sent. The llm adapters and
// `jarvis-cli ask` both run every case against it.
package wiretest

import (
	"bufio"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"
)

//go:embed cases
var cases embed.FS

// Keys are the credentials the cases run with. A case may echo its key back
// ({{KEY}} in a status line, header or body); no error, event or stored file
// may then contain it.
var Keys = map[string]string{
	"anthropic":  "sk-ant-api03-conformance-Kq7vX2mP9wR4tY8uZ1nB5cD3fG6hJ0kL",
	"openrouter": "sk-or-v1-conformance-3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a",
	"ollama":     "",
}

// Case is one scripted conversation with a provider.
type Case struct {
	Name     string `yaml:"name"`
	Provider string `yaml:"provider"`
	Doc      string `yaml:"doc"`  // the documentation the transcript follows
	Call     string `yaml:"call"` // "turn" (default: the tool loop) or "complete"
	// Tools offered to the model; the suite's dispatcher answers each call
	// with "result of <name>".
	Tools     []string   `yaml:"tools"`
	Exchanges []Exchange `yaml:"exchanges"`
	Expect    Expect     `yaml:"expect"`
	// Ask, when set, also runs the case through `jarvis-cli ask` with the
	// agent's real tools.
	Ask *AskExpect `yaml:"ask"`
	// File is the case's path inside the suite.
	File string `yaml:"-"`
}

// Exchange is one HTTP request and the scripted answer to it.
type Exchange struct {
	Status int `yaml:"status"` // 200 when zero
	// StatusLine replaces the whole status line ("403 Forbidden key ..."),
	// written raw as a server may.
	StatusLine string            `yaml:"status_line"`
	Headers    map[string]string `yaml:"headers"`
	// Body is written as it stands; for streams, each blank-line separated
	// event (SSE) or line (NDJSON) is flushed on its own.
	Body string `yaml:"body"`
	// Hold keeps the connection open after the body until the client goes
	// away (a model that is still writing when the user presses Stop).
	Hold bool `yaml:"hold"`
	// Cut closes the connection mid-body, without the chunked terminator.
	Cut bool `yaml:"cut"`
	// Sent are checks on the request this exchange answers.
	Sent []Check `yaml:"sent"`
}

// Check compares one value of a request body, addressed by a dotted path
// ("messages.2.reasoning_details"; numbers index lists, -1 the last item).
type Check struct {
	Path     string `yaml:"path"`
	Equals   any    `yaml:"equals"`   // JSON-equal
	Contains string `yaml:"contains"` // substring of the value's JSON
	Absent   bool   `yaml:"absent"`
}

// Expect is what the adapter must return.
type Expect struct {
	Stop     string     `yaml:"stop"`     // llm.StopReason
	Reply    *string    `yaml:"reply"`    // exact
	Streamed *string    `yaml:"streamed"` // the text deltas joined, exact
	Calls    []CallSpec `yaml:"calls"`    // dispatched tool calls, in order
	Error    string     `yaml:"error"`    // substring of the error
	Hint     string     `yaml:"hint"`     // substring of the error's hint
	Code     string     `yaml:"code"`     // errs code of the error
	Status   []string   `yaml:"status"`   // substrings of status lines, in order
	Requests int        `yaml:"requests"` // requests made (0: one per exchange)
	Cancel   bool       `yaml:"cancel"`   // the client stops once the held stream is open
}

// CallSpec is one expected tool call.
type CallSpec struct {
	Name string         `yaml:"name"`
	Args map[string]any `yaml:"args"`
}

// AskExpect is what `jarvis-cli ask` must print and return.
type AskExpect struct {
	Stdout    *string  `yaml:"stdout"`     // exact, trimmed
	Stderr    []string `yaml:"stderr"`     // substrings
	NotStdout []string `yaml:"not_stdout"` // must not appear on stdout
	Code      string   `yaml:"code"`       // errs code; "" for success
	// Display is the text of the stored session's last assistant item
	// (substring); Notice its label.
	Display string `yaml:"display"`
	Notice  string `yaml:"notice"`
	NoReply bool   `yaml:"no_reply"` // the stored session holds no assistant answer
}

// Load returns the cases for a provider, in file order.
func Load(provider string) ([]Case, error) {
	dir := path.Join("cases", provider)
	entries, err := fs.ReadDir(cases, dir)
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		raw, err := cases.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var c Case
		dec := yaml.NewDecoder(strings.NewReader(string(raw)))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		c.File = path.Join(provider, e.Name())
		if c.Provider != provider {
			return nil, fmt.Errorf("%s: provider %q in the %s folder", c.File, c.Provider, provider)
		}
		out = append(out, c)
	}
	return out, nil
}

// Key is the credential the case runs with.
func (c Case) Key() string { return Keys[c.Provider] }

// Server plays a case's exchanges in order and records every request.
type Server struct {
	*httptest.Server
	c Case

	mu       sync.Mutex
	requests []map[string]any
}

// Serve starts a loopback server for the case, closed with the test.
func Serve(t testing.TB, c Case) *Server {
	s := &Server{c: c}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the decoded request bodies so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/tags" { // Ollama's health probe
		io.WriteString(w, `{"models":[]}`)
		return
	}
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body) // an undecodable body fails the Sent checks
	s.mu.Lock()
	s.requests = append(s.requests, body)
	n := len(s.requests)
	s.mu.Unlock()
	if n > len(s.c.Exchanges) {
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"the script has no exchange left"}}`, http.StatusBadRequest)
		return
	}
	x := s.c.Exchanges[n-1]
	body2 := s.expand(x.Body)
	if x.StatusLine != "" || x.Cut {
		s.raw(w, x, body2)
		return
	}
	for k, v := range x.Headers {
		w.Header().Set(k, s.expand(v))
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", s.contentType())
	}
	status := x.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	for _, piece := range s.pieces(body2) {
		io.WriteString(w, piece)
		w.(http.Flusher).Flush()
	}
	if x.Hold {
		<-r.Context().Done()
	}
}

// raw writes the response by hand: a status line net/http would not send,
// or a chunked body that stops without its terminator.
func (s *Server) raw(w http.ResponseWriter, x Exchange, body string) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	line := s.expand(x.StatusLine)
	if line == "" {
		status := x.Status
		if status == 0 {
			status = http.StatusOK
		}
		line = strconv.Itoa(status) + " " + http.StatusText(status)
	}
	fmt.Fprintf(buf, "HTTP/1.1 %s\r\n", line)
	ct := s.contentType()
	for k, v := range x.Headers {
		if strings.EqualFold(k, "content-type") {
			ct = v
			continue
		}
		fmt.Fprintf(buf, "%s: %s\r\n", k, s.expand(v))
	}
	fmt.Fprintf(buf, "Content-Type: %s\r\nConnection: close\r\n", ct)
	if x.Cut {
		fmt.Fprintf(buf, "Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(body), body)
		buf.Flush()
		closeHard(conn)
		return
	}
	fmt.Fprintf(buf, "Content-Length: %d\r\n\r\n%s", len(body), body)
	buf.Flush()
}

// closeHard resets the connection so the client reads an abrupt end.
func closeHard(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	conn.Close()
}

func (s *Server) contentType() string {
	if s.c.Provider == "ollama" {
		return "application/x-ndjson"
	}
	return "text/event-stream"
}

func (s *Server) expand(text string) string {
	return strings.ReplaceAll(text, "{{KEY}}", s.c.Key())
}

// pieces splits a body into what is flushed at once: SSE events (ending in
// a blank line) or NDJSON lines.
func (s *Server) pieces(body string) []string {
	var out []string
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		cur.WriteString(sc.Text())
		cur.WriteByte('\n')
		if sc.Text() == "" || s.c.Provider == "ollama" {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// CheckSent verifies every exchange's Sent checks against the recorded
// requests.
func (s *Server) CheckSent(t testing.TB) {
	t.Helper()
	reqs := s.Requests()
	for i, x := range s.c.Exchanges {
		for _, ch := range x.Sent {
			if i >= len(reqs) {
				t.Errorf("%s: request %d was never sent (check %s)", s.c.File, i+1, ch.Path)
				continue
			}
			got, ok := Lookup(reqs[i], ch.Path)
			switch {
			case ch.Absent:
				if ok {
					t.Errorf("%s: request %d: %s should be absent, is %s", s.c.File, i+1, ch.Path, jsonOf(got))
				}
			case !ok:
				t.Errorf("%s: request %d: %s is missing", s.c.File, i+1, ch.Path)
			case ch.Contains != "":
				if !strings.Contains(jsonOf(got), ch.Contains) {
					t.Errorf("%s: request %d: %s = %s, lacks %q", s.c.File, i+1, ch.Path, jsonOf(got), ch.Contains)
				}
			default:
				if !JSONEqual(got, ch.Equals) {
					t.Errorf("%s: request %d: %s = %s, want %s", s.c.File, i+1, ch.Path, jsonOf(got), jsonOf(ch.Equals))
				}
			}
		}
	}
}

// Lookup follows a dotted path through decoded JSON.
func Lookup(v any, p string) (any, bool) {
	if p == "" {
		return v, true
	}
	for _, part := range strings.Split(p, ".") {
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[part]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(part)
			if i < 0 {
				i += len(node)
			}
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// JSONEqual compares two values as JSON (YAML and JSON decoders differ in
// number and map types).
func JSONEqual(a, b any) bool {
	var x, y any
	if json.Unmarshal([]byte(jsonOf(a)), &x) != nil || json.Unmarshal([]byte(jsonOf(b)), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// Leaks reports whether text holds the key or any 8-byte piece of it: a key
// cut at a limit must not survive minus a few characters.
func Leaks(text, key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i+8 <= len(key); i++ {
		if strings.Contains(text, key[i:i+8]) {
			return true
		}
	}
	return false
}
