package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
)

// Entry is one logged MCP call: what the client asked and what it got.
type Entry struct {
	Time          time.Time `json:"time"`
	Client        string    `json:"client,omitempty"` // from the handshake
	ClientVersion string    `json:"client_version,omitempty"`
	Method        string    `json:"method"`
	Name          string    `json:"name,omitempty"` // the tool, or the resource's URI
	Args          string    `json:"args,omitempty"` // JSON, secrets redacted
	Sources       []string  `json:"sources,omitempty"`
	Bytes         int       `json:"bytes"` // of the result sent
	// Withheld counts private matches kept from the client: for the
	// user's eyes, never the client's.
	Withheld int    `json:"withheld,omitempty"`
	Error    string `json:"error,omitempty"`
	Millis   int64  `json:"ms"`
}

// CallLog is the record of what MCP clients received, a JSON line per
// call, 0600 under the data dir. It is rotated at MaxBytes, keeping one
// older file.
type CallLog struct {
	Path     string
	MaxBytes int64               // 0: 1 MiB
	Redact   func(string) string // applied to every entry
	mu       sync.Mutex
}

// LogFile is the call log's name under the MCP dir.
const LogFile = "calls.jsonl"

// NewCallLog is the log in dir.
func NewCallLog(dir string, redact func(string) string) *CallLog {
	return &CallLog{Path: filepath.Join(dir, LogFile), Redact: redact}
}

// Append writes one entry. Several servers (one per client app) may share
// the file: each line is one write on an O_APPEND file.
func (l *CallLog) Append(e Entry) error {
	const op = "mcp.log"
	if l == nil {
		return nil
	}
	if l.Redact != nil {
		e.Args, e.Error = l.Redact(e.Args), l.Redact(e.Error)
		for i, s := range e.Sources {
			e.Sources[i] = l.Redact(s)
		}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := fsutil.EnsurePrivateDir(filepath.Dir(l.Path)); err != nil {
		return err
	}
	limit := l.MaxBytes
	if limit <= 0 {
		limit = 1 << 20
	}
	if st, err := os.Stat(l.Path); err == nil && st.Size()+int64(len(line)) > limit {
		if err := os.Rename(l.Path, l.Path+".1"); err != nil {
			return errs.Wrap(errs.Internal, op, err)
		}
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return errs.Wrap(errs.Internal, op, err)
	}
	return errs.Wrap(errs.Internal, op, f.Close())
}

// Tail returns the last n entries, oldest first (n <= 0: all kept).
// A line that does not parse (a write cut short) is skipped.
func (l *CallLog) Tail(n int) ([]Entry, error) {
	var out []Entry
	for _, p := range []string{l.Path + ".1", l.Path} {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "mcp.log", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			var e Entry
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				out = append(out, e)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "mcp.log", err)
		}
	}
	if n > 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out, nil
}

// call is what one request handed the client: the ledger the operations
// fill, read by the logging middleware.
type call struct {
	mu       sync.Mutex
	cites    []kbtools.Citation
	private  bool
	withheld int
}

func (r *call) Add(cs ...kbtools.Citation) {
	r.mu.Lock()
	r.cites = append(r.cites, cs...)
	r.mu.Unlock()
}

func (r *call) MarkPrivate() {
	r.mu.Lock()
	r.private = true
	r.mu.Unlock()
}

func (r *call) AddWithheld(n int) {
	r.mu.Lock()
	r.withheld += n
	r.mu.Unlock()
}

func (r *call) sources() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, c := range r.cites {
		if !seen[c.Source] {
			seen[c.Source] = true
			out = append(out, c.Source)
		}
	}
	return out
}

type callKey struct{}

// callOf is the request's record; outside the middleware (never in
// service) a throwaway one.
func callOf(ctx context.Context) *call {
	if r, ok := ctx.Value(callKey{}).(*call); ok {
		return r
	}
	return &call{}
}

// logged are the methods whose results carry the user's material.
var logged = map[string]bool{"tools/call": true, "resources/read": true, "resources/list": true}

// record is the middleware that gives each request its ledger, keeps the
// connection private once private material went out (allow_private only)
// and appends the call to the log.
func (c *conn) record(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !logged[method] {
			return next(ctx, method, req)
		}
		rec := &call{}
		start := time.Now()
		res, err := next(context.WithValue(ctx, callKey{}, rec), method, req)
		if rec.private {
			c.private.Store(true)
		}
		e := Entry{Time: start.UTC(), Method: method, Sources: rec.sources(), Withheld: rec.withheld, Millis: time.Since(start).Milliseconds()}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
			if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
				e.Client, e.ClientVersion = ip.ClientInfo.Name, ip.ClientInfo.Version
			}
		}
		switch p := req.GetParams().(type) {
		case *mcp.CallToolParamsRaw:
			e.Name, e.Args = p.Name, string(p.Arguments)
		case *mcp.ReadResourceParams:
			e.Name = p.URI
		}
		if err != nil {
			e.Error = err.Error()
		} else if res != nil {
			if b, merr := json.Marshal(res); merr == nil {
				e.Bytes = len(b)
			}
			if tr, ok := res.(*mcp.CallToolResult); ok && tr.IsError && len(tr.Content) > 0 {
				if t, ok := tr.Content[0].(*mcp.TextContent); ok {
					e.Error = t.Text
				}
			}
		}
		// A log that cannot be written must not fail the client's call;
		// it is reported on stderr, which is not the protocol's.
		if lerr := c.o.Log.Append(e); lerr != nil {
			logFailure(lerr)
		}
		return res, err
	}
}

// Line is the entry as a line for a person.
func (e Entry) Line() string {
	who := e.Client
	if who == "" {
		who = "client"
	}
	if e.ClientVersion != "" {
		who += " " + e.ClientVersion
	}
	line := fmt.Sprintf("%s  %s  %s", e.Time.Local().Format("2006-01-02 15:04:05"), who, e.Method)
	if e.Name != "" {
		line += " " + e.Name
	}
	if e.Args != "" && e.Args != "{}" {
		line += " " + e.Args
	}
	line += fmt.Sprintf(" → %d bytes, %d sources, %d ms", e.Bytes, len(e.Sources), e.Millis)
	if len(e.Sources) > 0 {
		line += ": " + strings.Join(e.Sources, ", ")
	}
	if e.Withheld > 0 {
		line += fmt.Sprintf(" (%d private matches withheld)", e.Withheld)
	}
	if e.Error != "" {
		line += " — error: " + e.Error
	}
	return line
}
