package llm

import (
	"encoding/json"
	"strings"
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

func neutralSample() []Message {
	return []Message{
		Text(RoleUser, "q"),
		{Role: RoleAssistant, Content: []Block{
			{Type: BlockText, Text: "looking"},
			{Type: BlockToolCall, ID: "c1", Name: "search_kb", Arguments: map[string]any{"query": "x"}},
			{Type: BlockToolCall, ID: "c2", Name: "kb_stats", Arguments: map[string]any{}},
		}},
		{Role: RoleUser, Content: []Block{
			{Type: BlockToolResult, ToolCallID: "c1", Content: "rx"},
			{Type: BlockToolResult, ToolCallID: "c2", Content: "ry", IsError: true},
		}},
		Text(RoleAssistant, "done"),
	}
}

func TestAnthropicRoundTrip(t *testing.T) {
	msgs := neutralSample()
	back := fromAnthropic(toAnthropic(msgs, "m"), "m")
	a, _ := json.Marshal(msgs)
	b, _ := json.Marshal(back)
	if string(a) != string(b) {
		t.Fatalf("round trip changed the transcript:\n%s\n%s", a, b)
	}
}

func TestOpenAIRoundTrip(t *testing.T) {
	msgs := neutralSample()
	wire := toOpenAI("sys", msgs, "openrouter", "m")
	if wire[0].Role != "system" || wire[3].Role != "tool" || wire[4].Role != "tool" {
		t.Fatalf("wire roles: %+v", wire)
	}
	back := fromOpenAI(wire, "openrouter", "m")
	// is_error has no OpenAI wire field; everything else must survive.
	msgs[2].Content[1].IsError = false
	a, _ := json.Marshal(msgs)
	b, _ := json.Marshal(back)
	if string(a) != string(b) {
		t.Fatalf("round trip changed the transcript:\n%s\n%s", a, b)
	}
}

func TestSwitchingProvidersMidConversation(t *testing.T) {
	// History written under Anthropic (with a thinking block) continues on
	// Ollama: the thinking block is dropped, everything else carries over.
	thinking := json.RawMessage(`{"type":"thinking","thinking":"t","signature":"s"}`)
	msgs := neutralSample()
	msgs[1].Content = append([]Block{{Type: BlockOpaque, Provider: "anthropic", Model: "claude-x", Data: thinking}}, msgs[1].Content...)
	wire := toOllama("", msgs, "qwen")
	if wire[1].Thinking != "" || len(wire[1].ToolCalls) != 2 || wire[2].ToolName != "search_kb" || wire[3].ToolName != "kb_stats" {
		t.Fatalf("ollama wire: %+v", wire)
	}
	if aw := toAnthropic(msgs, "claude-x"); string(aw[1].Content[0]) != string(thinking) {
		t.Fatal("same provider+model must replay the thinking block verbatim")
	}
}

// TestReasoningDetailsReplayOnlyToTheirModel: later turns send an OpenRouter
// model its own reasoning_details back, unchanged, and never to another
// model or provider.
func TestReasoningDetailsReplayOnlyToTheirModel(t *testing.T) {
	details := []json.RawMessage{json.RawMessage(`{"type":"reasoning.encrypted","data":"enc==","id":"rs_1","index":0}`)}
	history := []Message{
		Text(RoleUser, "q"),
		{Role: RoleAssistant, Content: []Block{
			{Type: BlockOpaque, Provider: "openrouter", Model: "a/model", Data: rawJSON(openrouterOpaque{ReasoningDetails: details})},
			{Type: BlockText, Text: "answer"},
		}},
		Text(RoleUser, "follow-up"),
	}
	same := toOpenAI("", history, "openrouter", "a/model")
	if len(same[1].ReasoningDetails) != 1 || string(same[1].ReasoningDetails[0]) != string(details[0]) {
		t.Fatalf("same model: %+v", same[1])
	}
	if other := toOpenAI("", history, "openrouter", "b/model"); other[1].ReasoningDetails != nil {
		t.Fatalf("another model got them: %+v", other[1])
	}
	for _, w := range toAnthropic(history, "a/model") {
		for _, c := range w.Content {
			if strings.Contains(string(c), "reasoning") {
				t.Fatalf("Anthropic got them: %s", c)
			}
		}
	}
}
