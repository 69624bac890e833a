package logs

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// redactor scrubs secrets from log records; nil until SetRedactor.
var redactor atomic.Pointer[func(string) string]

// SetRedactor makes every record the process logger writes from now on pass
// through fn (message and every value), whatever its destination: an error
// that echoes an API key is logged with the key blanked.
func SetRedactor(fn func(string) string) {
	if fn == nil {
		redactor.Store(nil)
		return
	}
	redactor.Store(&fn)
}

// redacting wraps the file handler with the redactor.
type redacting struct{ slog.Handler }

func (h redacting) Handle(ctx context.Context, r slog.Record) error {
	fn := redactor.Load()
	if fn == nil {
		return h.Handler.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, (*fn)(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a, *fn))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h redacting) WithAttrs(as []slog.Attr) slog.Handler {
	if fn := redactor.Load(); fn != nil {
		for i := range as {
			as[i] = redactAttr(as[i], *fn)
		}
	}
	return redacting{h.Handler.WithAttrs(as)}
}

func (h redacting) WithGroup(name string) slog.Handler { return redacting{h.Handler.WithGroup(name)} }

// redactAttr renders a value as the text handler would and scrubs it;
// groups are scrubbed member by member.
func redactAttr(a slog.Attr, fn func(string) string) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		members := v.Group()
		out := make([]any, len(members))
		for i, m := range members {
			out[i] = redactAttr(m, fn)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if b, ok := v.Any().([]byte); ok {
			return slog.String(a.Key, fn(string(b)))
		}
		return slog.String(a.Key, fn(v.String()))
	case slog.KindString:
		return slog.String(a.Key, fn(v.String()))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
