package engine

import "testing"

// The mode every surface shows names what answers now: vectors that have
// not arrived yet do not make a search hybrid.
func TestStatusModeSaysWhatAnswers(t *testing.T) {
	loaded := ModelStatus{Spec: "m", Loaded: true}
	cases := []struct {
		st   Status
		want string
	}{
		{Status{Chunks: 10, Pending: 10}, "keyword"},
		{Status{Embed: loaded, Chunks: 10, Pending: 10}, "keyword until the vectors arrive (10 chunks waiting)"},
		{Status{Embed: loaded, Chunks: 10, Pending: 4}, "hybrid; 4 of 10 chunks still waiting for their vectors"},
		{Status{Embed: loaded, Rerank: loaded, Chunks: 10}, "hybrid (keyword + dense) + rerank"},
		{Status{Rerank: loaded, Chunks: 10, Pending: 10}, "keyword + rerank"},
	}
	for _, c := range cases {
		if got := c.st.Mode(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}
