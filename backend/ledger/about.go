package ledger

import "context"

// About says what a request is for; callers attach it to the context of
// the model call, and the one function that sends requests copies it into
// the record.
type About struct {
	Purpose string
	Session string
	// Sources lists the documents whose text the request carries. It is
	// called as each request leaves: a tool-calling turn carries more with
	// every request. Nil means none.
	Sources func() []Source
	// Recorded, when set, hears of each record once it is written (the
	// chat's per-turn line counts them).
	Recorded func(Record)
}

// These returns a Sources that always lists ss.
func These(ss ...Source) func() []Source { return func() []Source { return ss } }

type aboutKey struct{}

// WithAbout returns ctx carrying a.
func WithAbout(ctx context.Context, a About) context.Context {
	return context.WithValue(ctx, aboutKey{}, a)
}

// AboutFrom returns what ctx carries (zero when nothing).
func AboutFrom(ctx context.Context) About {
	a, _ := ctx.Value(aboutKey{}).(About)
	return a
}

// Purposes named by the callers.
const (
	PurposeChat       = "chat turn"
	PurposeCompaction = "compaction"
	PurposeTitle      = "session title"
	PurposeDigest     = "digest scoring"
	PurposeSummary    = "paper summary"
	PurposeMetadata   = "paper metadata"
	PurposeCaption    = "figure caption"
)
