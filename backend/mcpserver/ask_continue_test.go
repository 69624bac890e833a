package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/mcpserver"
)

// A task that reaches the tool-call limit and goes on by itself
// ([chat] auto_continue) answers the client with all its parts and the
// citations of each, not only the last part.
func TestAnAutoContinuedAskReturnsEveryPart(t *testing.T) {
	f := newFixture(t, false)
	f.ag.Runner.MaxIter, f.ag.Runner.AutoContinue = 1, 1 // one search, then the limit
	f.model.Answers = []string{
		"First part: the grant paid for the compost bins [source: garden/compost.md].",
		"Second part: it was approved in March [source: meetings/tanaka-mar.md].",
	}
	var out mcpserver.AskOut
	callOK(t, f.connect(t), "ask", map[string]any{"question": "Tell me everything about the grant"}, &out)
	first, second := strings.Index(out.Answer, "First part"), strings.Index(out.Answer, "Second part")
	if first < 0 || second < first {
		t.Fatalf("answer %q: want both parts, in order", out.Answer)
	}
	var sources []string
	for _, c := range out.Citations {
		sources = append(sources, c.Source)
	}
	if strings.Join(sources, " ") != "garden/compost.md meetings/tanaka-mar.md" {
		t.Fatalf("citations %v: want each part's, once", sources)
	}
}
