package llm

import "context"

type textStreamKey struct{}

// WithTextStream asks the adapters to report the reply's text as it
// streams in, delta by delta, the way net/http/httptrace attaches a trace to
// a request: the callback rides on the context, so no adapter signature
// changes and a caller that does not listen pays nothing. Text that
// precedes a tool call is reported too; the caller decides what to show.
func WithTextStream(ctx context.Context, fn func(delta string)) context.Context {
	return context.WithValue(ctx, textStreamKey{}, fn)
}

// streamText reports one delta to the context's listener, if any.
func streamText(ctx context.Context, delta string) {
	if delta == "" {
		return
	}
	if fn, ok := ctx.Value(textStreamKey{}).(func(string)); ok && fn != nil {
		fn(delta)
	}
}
