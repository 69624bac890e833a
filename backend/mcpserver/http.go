package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// TokenFile holds the HTTP bearer token under the MCP dir.
const TokenFile = "http-token"

// Token returns the HTTP bearer token stored in dir, making one (0600) on
// first use. It stays the same across runs, so a client configured once
// keeps working.
func Token(dir string) (string, error) {
	const op = "mcp.token"
	p := filepath.Join(dir, TokenFile)
	data, err := os.ReadFile(p)
	if err == nil && len(strings.TrimSpace(string(data))) >= 32 {
		return strings.TrimSpace(string(data)), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	tok := hex.EncodeToString(b)
	if err := fsutil.WriteFileAtomic(p, []byte(tok+"\n"), 0o600); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	return tok, nil
}

// CheckLoopback refuses a listen address that is not a loopback IP with
// a port: the server hands out the user's notes, and another machine must
// never reach it.
func CheckLoopback(addr string) error {
	const op = "mcp.http"
	host, port, err := net.SplitHostPort(addr)
	hint := "use 127.0.0.1:PORT (or [::1]:PORT); the MCP server only listens on this computer"
	if err != nil || port == "" {
		return errs.WithHint(errs.New(errs.Invalid, op, "bad listen address %q", addr), hint)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return errs.WithHint(errs.New(errs.Invalid, op, "refusing to listen on %q: not a loopback address", addr), hint)
	}
	return nil
}

// Handler serves Streamable HTTP, one protocol server per client session,
// to requests bearing the token. The SDK's DNS-rebinding protection stays
// on: a loopback request naming another host is refused too.
func (s *Server) Handler(token string) http.Handler {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() }, nil)
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="jarvis"`)
			http.Error(w, "Jarvis MCP: missing or wrong bearer token; send the header Authorization: Bearer <token> (jarvis-cli mcp token prints it)", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
}

// ServeHTTP serves ln until ctx ends. Requests run under ctx, so stopping
// the server cancels calls in flight and closes the clients' event streams
// (which would otherwise hold the shutdown open).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	hs := &http.Server{Handler: s.Handler(token), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return errs.Wrap(errs.Internal, "mcp.http", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		err := hs.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			// A connection still busy after the grace period (a client
			// that stopped reading its stream) must not keep Jarvis from
			// stopping: cut it.
			err = hs.Close()
		}
		<-done
		return errs.Wrap(errs.Internal, "mcp.http", err)
	}
}
