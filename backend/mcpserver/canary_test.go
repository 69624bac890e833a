package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/mcpserver"
)

// The MCP placement of the privacy canary suite: two data dirs, the same
// public material in both, private material (notes, a private record,
// a private draft, a private past chat; the canary in bodies, titles,
// paths and frontmatter) in one only. Every tool and resource answers the
// client byte for byte the same in both, once the ids and clocks that
// differ between any two runs are masked, and the model behind ask is
// shown the same bytes too.

// withPrivate adds the private material to a fixture's data dir.
func withPrivate(t *testing.T, f *fixture) (draftID string) {
	t.Helper()
	d, err := f.ag.Drafts.Create("Plan "+canary, canary+".md", "A private plan: "+canary+" grant.\n", drafts.Private, "")
	if err != nil {
		t.Fatal(err)
	}
	chat := kb.Chunk{Content: "We discussed the grant and " + canary + ".", EmbedText: "We discussed the grant and " + canary + ".",
		Meta: kb.Metadata{DocType: kb.DocChat, Visibility: kb.Private, Source: "chat:" + canary, Title: "Chat " + canary}}
	if err := f.ag.Engine.Store.Commit([]kb.Chunk{chat}, ""); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

// newCanaryFixture is a fixture whose vault holds the public notes only,
// or every note (private ones included).
func newCanaryFixture(t *testing.T, private bool) *fixture {
	t.Helper()
	notes := map[string]string{}
	for rel, text := range vaultNotes {
		if private || filepath.Dir(rel) != "private" {
			notes[rel] = text
		}
	}
	return newFixtureOf(t, false, notes)
}

// unordered puts the listed documents of an answer (JSON, also JSON inside
// a text block) in source order. Listings come newest added first, to the
// second: the two worlds are indexed at different moments, and a second
// boundary falling inside one of them reorders its notes.
func unordered(raw []byte) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if text, ok := e.(string); ok && k == "text" && strings.HasPrefix(text, "{") {
					x[k] = string(unordered([]byte(text)))
					continue
				}
				x[k] = walk(e)
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
			id := func(e any) string {
				m, _ := e.(map[string]any)
				s, _ := m["uri"].(string)
				return s
			}
			slices.SortStableFunc(x, func(a, b any) int { return strings.Compare(id(a), id(b)) })
		}
		return v
	}
	out, _ := json.Marshal(walk(v))
	return out
}

var (
	// Ids and times that differ between any two runs.
	volatile = regexp.MustCompile(`"(session_id|draft_id|changed)":"[^"]*"|\d{8}-\d{6}-[0-9a-f]{12}|d-[0-9a-z]{6,}|20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z|\d{4}-\d\d-\d\d \d\d:\d\d`)
)

func mask(b []byte) []byte { return volatile.ReplaceAll(b, []byte("<volatile>")) }

// exchange is every call a client can make, each answered as JSON.
func exchange(t *testing.T, f *fixture, privateDraft string) map[string][]byte {
	t.Helper()
	cs := f.connect(t)
	ctx := context.Background()
	out := map[string][]byte{}
	tools := []struct {
		name string
		args map[string]any
	}{
		{"search", map[string]any{"query": "grant"}},
		{"search", map[string]any{"query": canary}},
		{"search", map[string]any{"query": "Tanaka", "kind": "notes", "category": "meeting"}},
		{"search", map[string]any{"query": "grant", "kind": "chat"}},
		{"search", map[string]any{"query": "grant", "fields": map[string]any{"x_mood": canary}}},
		{"get_document", map[string]any{"source": "private/diary.md"}},
		{"get_document", map[string]any{"source": "private/" + canary + ".md"}},
		{"get_document", map[string]any{"source": "chat:" + canary}},
		{"get_document", map[string]any{"source": "garden/compost.md"}},
		{"list_documents", map[string]any{}},
		{"list_documents", map[string]any{"kind": "chat"}},
		{"query_records", map[string]any{"category": "meeting", "entity": "Tanaka"}},
		{"query_records", map[string]any{"from": "2026-03-15", "to": "2026-03-25"}},
		{"timeline", map[string]any{"entity": "Tanaka"}},
		{"timeline", map[string]any{"entity": canary}},
		{"recent", map[string]any{}},
		{"list_drafts", map[string]any{}},
		{"read_draft", map[string]any{"draft_id": privateDraft}},
		{"propose_draft_edit", map[string]any{"draft_id": privateDraft, "new_text": "x"}},
		{"ask", map[string]any{"question": "What about the grant and " + canary + "?"}},
	}
	for i, tl := range tools {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tl.name, Arguments: tl.args})
		if err != nil {
			t.Fatalf("%s: %v", tl.name, err)
		}
		raw, _ := json.Marshal(res)
		out[tl.name+"#"+string(rune('a'+i))] = raw
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out["resources/list"], _ = json.Marshal(list)
	for _, src := range []string{"private/diary.md", "private/" + canary + ".md", "chat:" + canary, "garden/compost.md"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ResourceURI(src)})
		b, _ := json.Marshal(res)
		if err != nil {
			b = append(b, err.Error()...)
		}
		out["resources/read "+src] = b
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out["resources/templates"], _ = json.Marshal(templates)
	tools2, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out["tools/list"], _ = json.Marshal(tools2)
	out["model saw"] = f.model.Seen()
	return out
}

func TestNoPrivateCanaryReachesAnMCPClient(t *testing.T) {
	public := newCanaryFixture(t, false)
	// The public fixture has no private draft: a made-up id of the same
	// shape stands for it, as a client guessing would send.
	pub := exchange(t, public, "d-000000000000")

	full := newCanaryFixture(t, true)
	draft := withPrivate(t, full)
	priv := exchange(t, full, draft)

	// The client's own words come back to it (a path it asked for, its
	// question as the conversation's title): those are not leaks.
	echoes := regexp.MustCompile(`private/` + canary + `\.md|chat:` + canary + `|grant and ` + canary)
	for key, a := range priv {
		b := pub[key]
		if bytes.Contains(bytes.ToLower(echoes.ReplaceAll(a, nil)), []byte(canary)) {
			t.Errorf("%s: the canary reached the client:\n%s", key, a)
			continue
		}
		a = bytes.ReplaceAll(a, []byte(draft), []byte("d-000000000000"))
		if strings.HasPrefix(key, "list_documents") || strings.HasPrefix(key, "recent") || key == "resources/list" {
			a, b = unordered(a), unordered(b)
		}
		if !bytes.Equal(mask(a), mask(b)) {
			t.Errorf("%s differs with private material present:\nwith:    %s\nwithout: %s", key, mask(a), mask(b))
		}
	}
}
