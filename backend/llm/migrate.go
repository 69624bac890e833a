package llm

import "encoding/json"

// The from* converters turn a stored wire-format history back into the
// neutral transcript (sessions saved before the neutral format existed). A
// live turn never needs them: each adapter converts its own new messages as
// they arrive, so history written by another provider is never round-tripped.

// fromAnthropic converts Messages-API history. Thinking blocks become opaque
// blocks tagged with model, which replay only when it matches exactly.
func fromAnthropic(wire []anthropicMessage, model string) []Message {
	out := make([]Message, 0, len(wire))
	for _, w := range wire {
		m := Message{Role: Role(w.Role)}
		for _, raw := range w.Content {
			var b struct {
				Type      string         `json:"type"`
				Text      string         `json:"text"`
				ID        string         `json:"id"`
				Name      string         `json:"name"`
				Input     map[string]any `json:"input"`
				ToolUseID string         `json:"tool_use_id"`
				Content   any            `json:"content"`
				IsError   bool           `json:"is_error"`
			}
			if json.Unmarshal(raw, &b) != nil {
				continue // not a block this schema knows; nothing to carry over
			}
			switch b.Type {
			case "text":
				m.Content = append(m.Content, Block{Type: BlockText, Text: b.Text})
			case "tool_use":
				m.Content = append(m.Content, Block{Type: BlockToolCall, ID: b.ID, Name: b.Name, Arguments: b.Input})
			case "tool_result":
				m.Content = append(m.Content, Block{Type: BlockToolResult, ToolCallID: b.ToolUseID, Content: resultText(b.Content), IsError: b.IsError})
			case "thinking", "redacted_thinking":
				m.Content = append(m.Content, Block{Type: BlockOpaque, Provider: "anthropic", Model: model, Data: raw})
			}
		}
		out = append(out, m)
	}
	return out
}

// resultText flattens a tool_result's content, which may be a string or a
// list of text blocks.
func resultText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var s string
		for _, item := range v {
			if m, ok := item.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					s += t
				}
			}
		}
		return s
	}
	return ""
}

// fromOpenAI converts chat-completions history; consecutive role "tool"
// messages are gathered into one user message of tool results.
func fromOpenAI(wire []openaiMessage, provider, model string) []Message {
	var out []Message
	for _, w := range wire {
		text, _ := w.Content.(string)
		switch w.Role {
		case "system":
			continue
		case "assistant":
			m := Message{Role: RoleAssistant}
			if w.Reasoning != "" {
				m.Content = append(m.Content, Block{Type: BlockOpaque, Provider: provider, Model: model, Data: rawJSON(map[string]string{"reasoning": w.Reasoning})})
			}
			if text != "" {
				m.Content = append(m.Content, Block{Type: BlockText, Text: text})
			}
			for _, tc := range w.ToolCalls {
				m.Content = append(m.Content, Block{Type: BlockToolCall, ID: tc.ID, Name: tc.Function.Name, Arguments: decodeArgs(json.RawMessage(tc.Function.Arguments))})
			}
			out = append(out, m)
		case "tool":
			out = appendToolResult(out, Block{Type: BlockToolResult, ToolCallID: w.ToolCallID, Content: text})
		default:
			out = append(out, Text(RoleUser, text))
		}
	}
	return out
}
