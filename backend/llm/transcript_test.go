package llm

import (
	"encoding/json"
	"testing"
)

func TestOllamaRoundTripAndOpaqueReplay(t *testing.T) {
	thinking, _ := json.Marshal(map[string]string{"thinking": "hmm"})
	msgs := []Message{
		Text(RoleUser, "q"),
		{Role: RoleAssistant, Content: []Block{
			{Type: BlockOpaque, Provider: "ollama", Model: "m1", Data: thinking},
			{Type: BlockText, Text: "looking"},
			{Type: BlockToolCall, ID: "c1", Name: "search_kb", Arguments: map[string]any{"query": "x"}},
			{Type: BlockToolCall, ID: "c2", Name: "search_kb", Arguments: map[string]any{"query": "y"}},
		}},
		{Role: RoleUser, Content: []Block{
			{Type: BlockToolResult, ToolCallID: "c1", Content: "rx"},
			{Type: BlockToolResult, ToolCallID: "c2", Content: "ry"},
		}},
		Text(RoleAssistant, "done"),
	}
	same := toOllama("", msgs, "m1")
	if same[1].Thinking != "hmm" {
		t.Fatal("opaque block must replay to the exact provider+model")
	}
	other := toOllama("", msgs, "m2")
	if other[1].Thinking != "" {
		t.Fatal("opaque block must be dropped for another model")
	}
	if other[2].Role != "tool" || other[2].ToolName != "search_kb" || other[3].Content != "ry" {
		t.Fatalf("tool results split into role tool messages: %+v", other)
	}
	back := fromOllama(same, "m1")
	if len(back) != 4 {
		t.Fatalf("round trip = %+v", back)
	}
	calls := back[1].ToolCalls()
	results := back[2].Content
	if len(calls) != 2 || len(results) != 2 || results[0].ToolCallID != calls[0].ID || results[1].ToolCallID != calls[1].ID {
		t.Fatalf("results must be attributed to calls in order: %+v / %+v", calls, results)
	}
	again := fromOllama(same, "m1")
	if again[1].ToolCalls()[0].ID == calls[0].ID {
		t.Fatal("ids from separate conversions must differ")
	}
}

func TestDecodeArgsAcceptsStringEncodedJSON(t *testing.T) {
	args := decodeArgs(json.RawMessage(`"{\"query\":\"x\"}"`))
	if args["query"] != "x" {
		t.Fatalf("args = %v", args)
	}
}
