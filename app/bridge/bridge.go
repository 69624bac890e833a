// Package bridge serves the window's bound services over HTTP for
// end-to-end tests in a plain browser: POST /bridge/call runs one method
// exactly as Wails would (JSON arguments in, JSON result or error out), and
// GET /bridge/events streams emitted events as server-sent events. It also
// serves the built frontend, so the page and the bridge share an origin.
// It is test infrastructure: the desktop app never starts it.
package bridge

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"reflect"
	gosync "sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Bridge dispatches calls to services by type name.
type Bridge struct {
	services map[string]reflect.Value

	mu   gosync.Mutex
	subs map[chan []byte]bool
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

type callError struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Hint    string `json:"hint,omitempty"`
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

// Handler serves the bridge and the frontend files.
func (b *Bridge) Handler(frontend fs.FS) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /bridge/call", func(w http.ResponseWriter, r *http.Request) {
		var req callRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := b.call(req)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_ = json.NewEncoder(w).Encode(callError{Message: err.Error(), Code: string(errs.CodeOf(err)), Hint: errs.HintOf(err)})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"result": res})
	})
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
