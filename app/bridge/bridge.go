// Package bridge serves the window's bound services over HTTP for
// end-to-end tests in a plain browser: POST /bridge/call runs one method
// exactly as Wails would (JSON arguments in, JSON result or error out), and
// GET /bridge/events streams emitted events as server-sent events. It also
// serves the built frontend, so the page and the bridge share an origin.
// It is test infrastructure: the desktop app never starts it.
//
// It also stands in for the parts of the Wails runtime the window calls
// directly: POST /bridge/runtime records a runtime call (BrowserOpenURL) and
// GET /bridge/runtime lists them, so a test can prove a link was handed to
// the system browser; programs the services would start (the file
// manager) are recorded there too, as "Launch" with their argv. POST
// /bridge/dialog queues the answer the next native file, folder or save
// dialog gives (Dialog, Folder, SavePath).
package bridge

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"reflect"
	gosync "sync"

	"github.com/jarvis-kb/jarvis/app"
)

// Bridge dispatches calls to services by type name.
type Bridge struct {
	services map[string]reflect.Value

	mu      gosync.Mutex
	subs    map[chan []byte]bool
	runtime []RuntimeCall
	dialogs [][]string
}

// RuntimeCall is one call the page made to the Wails runtime.
type RuntimeCall struct {
	Name string `json:"name"`
	Args []any  `json:"args"`
}

// Dialog answers a native file dialog with the next queued paths (none
// when nothing is queued: the human cancelled).
func (b *Bridge) Dialog(string) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.dialogs) == 0 {
		return nil, nil
	}
	next := b.dialogs[0]
	b.dialogs = b.dialogs[1:]
	return next, nil
}

// Launch records a desktop program's command line (the file manager)
// instead of starting it, as a runtime call named "Launch".
func (b *Bridge) Launch(argv []string) error {
	args := make([]any, len(argv))
	for i, a := range argv {
		args[i] = a
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runtime = append(b.runtime, RuntimeCall{Name: "Launch", Args: args})
	return nil
}

// SavePath answers a native save dialog like Folder does.
func (b *Bridge) SavePath(title, _ string) (string, error) { return b.Folder(title) }

// Folder answers a native folder dialog with the first of the next queued
// paths ("" when nothing is queued: the human cancelled).
func (b *Bridge) Folder(title string) (string, error) {
	paths, err := b.Dialog(title)
	if err != nil || len(paths) == 0 {
		return "", err
	}
	return paths[0], nil
}

// New registers services under their type names (Chat, Library, ...), the
// names Wails gives them in window.go.app.
func New(services ...any) *Bridge {
	b := &Bridge{services: map[string]reflect.Value{}, subs: map[chan []byte]bool{}}
	for _, s := range services {
		v := reflect.ValueOf(s)
		b.services[reflect.Indirect(v).Type().Name()] = v
	}
	return b
}

// Emit sends an event to every connected page (an app.Emit).
func (b *Bridge) Emit(name string, data any) {
	msg, err := json.Marshal(map[string]any{"name": name, "data": data})
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- msg:
		default: // a stalled page must not block the turn
		}
	}
}

type callRequest struct {
	Service string            `json:"service"`
	Method  string            `json:"method"`
	Args    []json.RawMessage `json:"args"`
}

var errType = reflect.TypeOf((*error)(nil)).Elem()

// call runs one method with JSON arguments.
func (b *Bridge) call(req callRequest) (any, error) {
	svc, ok := b.services[req.Service]
	if !ok {
		return nil, fmt.Errorf("no service %q", req.Service)
	}
	m := svc.MethodByName(req.Method)
	if !m.IsValid() {
		return nil, fmt.Errorf("%s has no method %q", req.Service, req.Method)
	}
	t := m.Type()
	if len(req.Args) != t.NumIn() {
		return nil, fmt.Errorf("%s.%s takes %d arguments, got %d", req.Service, req.Method, t.NumIn(), len(req.Args))
	}
	in := make([]reflect.Value, t.NumIn())
	for i := range in {
		p := reflect.New(t.In(i))
		if err := json.Unmarshal(req.Args[i], p.Interface()); err != nil {
			return nil, fmt.Errorf("argument %d of %s.%s: %w", i, req.Service, req.Method, err)
		}
		in[i] = p.Elem()
	}
	out := m.Call(in)
	var result any
	for _, o := range out {
		if o.Type().Implements(errType) {
			if !o.IsNil() {
				return nil, o.Interface().(error)
			}
			continue
		}
		result = o.Interface()
	}
	return result, nil
}

// decodeBody reads the request's JSON body into v; a body that is not
// JSON of v's shape is answered 400 and decodeBody says false.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// record serves a POST whose JSON body is one more of *entries (the
// runtime calls, the dialog answers), appended under b.mu.
func record[T any](b *Bridge, entries *[]T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var v T
		if !decodeBody(w, r, &v) {
			return
		}
		b.mu.Lock()
		*entries = append(*entries, v)
		b.mu.Unlock()
	}
}

// Handler serves the bridge and the frontend files.
func (b *Bridge) Handler(frontend fs.FS) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /bridge/call", func(w http.ResponseWriter, r *http.Request) {
		var req callRequest
		if !decodeBody(w, r, &req) {
			return
		}
		res, err := b.call(req)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_ = json.NewEncoder(w).Encode(app.ViewError(err))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"result": res})
	})
	mux.HandleFunc("POST /bridge/runtime", record(b, &b.runtime))
	mux.HandleFunc("GET /bridge/runtime", func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		calls := append([]RuntimeCall{}, b.runtime...)
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(calls)
	})
	mux.HandleFunc("POST /bridge/dialog", record(b, &b.dialogs))
	mux.HandleFunc("GET /bridge/events", func(w http.ResponseWriter, r *http.Request) {
		fl, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "streaming unsupported", http.StatusInternalServerError)
			return
		}
		ch := make(chan []byte, 256)
		b.mu.Lock()
		b.subs[ch] = true
		b.mu.Unlock()
		defer func() {
			b.mu.Lock()
			delete(b.subs, ch)
			b.mu.Unlock()
		}()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		fmt.Fprint(w, ": connected\n\n")
		fl.Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case msg := <-ch:
				fmt.Fprintf(w, "data: %s\n\n", msg)
				fl.Flush()
			}
		}
	})
	mux.Handle("/", http.FileServerFS(frontend))
	return mux
}
