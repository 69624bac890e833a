package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

type Greeter struct{}

func (Greeter) Hello(name string, n int) (string, error) {
	if name == "" {
		return "", errs.WithHint(errs.New(errs.Invalid, "greet", "no name"), "give a name")
	}
	return strings.Repeat("hi "+name+" ", n), nil
}
func (Greeter) Nothing() error { return nil }

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	res, err := http.Post(url+"/bridge/call", "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func TestCallsEventsAndFiles(t *testing.T) {
	b := New(Greeter{})
	srv := httptest.NewServer(b.Handler(fstest.MapFS{"index.html": {Data: []byte("<html>jarvis</html>")}}))
	defer srv.Close()

	code, out := post(t, srv.URL, `{"service":"Greeter","method":"Hello","args":["ada",2]}`)
	if code != 200 || out["result"] != "hi ada hi ada " {
		t.Fatalf("%d %v", code, out)
	}
	code, out = post(t, srv.URL, `{"service":"Greeter","method":"Hello","args":["",1]}`)
	if code != 422 || out["code"] != "invalid" || out["hint"] != "give a name" {
		t.Fatalf("domain error: %d %v", code, out)
	}
	for _, bad := range []string{`{"service":"Nope","method":"Hello","args":[]}`, `{"service":"Greeter","method":"Hello","args":["x"]}`,
		`{"service":"Greeter","method":"Hello","args":[1,"x"]}`} {
		if code, _ := post(t, srv.URL, bad); code != 422 {
			t.Fatalf("%s -> %d", bad, code)
		}
	}
	if code, out := post(t, srv.URL, `{"service":"Greeter","method":"Nothing","args":[]}`); code != 200 || out["result"] != nil {
		t.Fatalf("%d %v", code, out)
	}

	res, err := http.Get(srv.URL + "/bridge/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	r.ReadString('\n') // ": connected"
	go func() {
		time.Sleep(50 * time.Millisecond)
		b.Emit("chat", map[string]any{"seq": 1})
	}()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "data: ") {
			if !strings.Contains(line, `"name":"chat"`) || !strings.Contains(line, `"seq":1`) {
				t.Fatalf("event line %q", line)
			}
			break
		}
	}
	page, _ := http.Get(srv.URL + "/")
	var buf bytes.Buffer
	buf.ReadFrom(page.Body)
	if !strings.Contains(buf.String(), "jarvis") {
		t.Fatal("frontend not served")
	}
}

func TestRuntimeCallsAreRecordedAndDialogsAnswered(t *testing.T) {
	b := New(Greeter{})
	srv := httptest.NewServer(b.Handler(fstest.MapFS{}))
	defer srv.Close()
	if paths, _ := b.Dialog("pick"); paths != nil {
		t.Fatalf("nothing queued is a cancelled dialog: %v", paths)
	}
	http.Post(srv.URL+"/bridge/dialog", "application/json", strings.NewReader(`["/tmp/a.pdf","/tmp/b.md"]`))
	if paths, _ := b.Dialog("pick"); len(paths) != 2 || paths[1] != "/tmp/b.md" {
		t.Fatalf("queued answer: %v", paths)
	}
	if dir, _ := b.Folder("vault"); dir != "" {
		t.Fatalf("nothing queued is a cancelled folder dialog: %q", dir)
	}
	http.Post(srv.URL+"/bridge/dialog", "application/json", strings.NewReader(`["/tmp/notes"]`))
	if dir, _ := b.Folder("vault"); dir != "/tmp/notes" {
		t.Fatalf("queued folder: %q", dir)
	}
	http.Post(srv.URL+"/bridge/dialog", "application/json", strings.NewReader(`["/tmp/out.pdf"]`))
	if p, _ := b.SavePath("save", "paper.pdf"); p != "/tmp/out.pdf" {
		t.Fatalf("queued save path: %q", p)
	}
	http.Post(srv.URL+"/bridge/runtime", "application/json", strings.NewReader(`{"name":"BrowserOpenURL","args":["https://wails.io/"]}`))
	if err := b.Launch([]string{"xdg-open", "/home/ada/drafts/d1"}); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(srv.URL + "/bridge/runtime")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var calls []RuntimeCall
	json.NewDecoder(res.Body).Decode(&calls)
	if len(calls) != 2 || calls[0].Name != "BrowserOpenURL" || calls[0].Args[0] != "https://wails.io/" {
		t.Fatalf("recorded %+v", calls)
	}
	if calls[1].Name != "Launch" || len(calls[1].Args) != 2 || calls[1].Args[0] != "xdg-open" || calls[1].Args[1] != "/home/ada/drafts/d1" {
		t.Fatalf("a launched program is recorded with its argv, not started: %+v", calls[1])
	}
}
