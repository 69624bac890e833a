package mcpserver_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/mcpserver"
)

func TestOnlyLoopbackAddressesAreServed(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:8765", "[::1]:8765", "127.0.0.2:1"} {
		if err := mcpserver.CheckLoopback(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"0.0.0.0:8765", ":8765", "192.168.1.5:8765", "[::]:8765", "example.com:80", "127.0.0.1", ""} {
		if err := mcpserver.CheckLoopback(bad); !errs.Is(err, errs.Invalid) {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

func TestTheTokenIsMadeOnceAndPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp")
	a, err := mcpserver.Token(dir)
	if err != nil || len(a) != 64 {
		t.Fatalf("token %q, %v", a, err)
	}
	b, _ := mcpserver.Token(dir)
	st, err := os.Stat(filepath.Join(dir, mcpserver.TokenFile))
	if a != b || err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("second read %q, mode %v, %v", b, st.Mode(), err)
	}
}

// bearer adds the token to each request, as a configured client does.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func TestHTTPNeedsTheTokenAndServesTheSDKClient(t *testing.T) {
	f := newFixture(t, false)
	token, err := mcpserver.Token(f.cfg.MCPDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.server.ServeHTTP(ctx, ln, token) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	}()
	url := "http://" + ln.Addr().String() + "/"
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	post := func(auth, host string) int {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("", ""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code := post("Bearer "+strings.Repeat("0", 64), ""); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", code)
	}
	if code := post("Bearer "+token, "evil.example:80"); code != http.StatusForbidden {
		t.Errorf("a rebinding Host with the token: %d", code)
	}
	if code := post("Bearer "+token, ""); code != http.StatusOK {
		t.Errorf("with the token: %d", code)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out mcpserver.SearchOut
	if res, _ := call(t, cs, "search", map[string]any{"query": "compost"}, &out); res.IsError || len(out.Results) == 0 || out.Results[0].Source != "garden/compost.md" {
		t.Errorf("search over HTTP: %s %+v", errorText(res), out)
	}
}
