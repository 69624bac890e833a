package llm

import (
	"encoding/json"
	"strings"
)

// The neutral transcript: one schema every provider adapter converts to and
// from, so a conversation can move between providers mid-session. Tool
// results live in a user message (Anthropic's rule); the OpenAI-shaped
// adapters split them back into role "tool" messages on the way out.

// Role is who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType names a content block's kind.
type BlockType string

const (
	BlockText       BlockType = "text"
	BlockToolCall   BlockType = "tool_call"
	BlockToolResult BlockType = "tool_result"
	// BlockOpaque carries provider state the schema cannot express (thinking
	// blocks, reasoning fields). It is replayed only to the exact
	// provider+model that produced it and dropped for any other.
	BlockOpaque BlockType = "provider_opaque"
)

// Block is one piece of a message. Which fields are set depends on Type.
type Block struct {
	Type BlockType `json:"type"`

	Text string `json:"text,omitempty"` // text

	ID        string         `json:"id,omitempty"`        // tool_call
	Name      string         `json:"name,omitempty"`      // tool_call
	Arguments map[string]any `json:"arguments,omitempty"` // tool_call

	ToolCallID string `json:"tool_call_id,omitempty"` // tool_result
	Content    string `json:"content,omitempty"`      // tool_result
	IsError    bool   `json:"is_error,omitempty"`     // tool_result

	Provider string          `json:"provider,omitempty"` // provider_opaque
	Model    string          `json:"model,omitempty"`    // provider_opaque
	Data     json.RawMessage `json:"data,omitempty"`     // provider_opaque
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Text returns a text-only message.
func Text(role Role, text string) Message {
	return Message{Role: role, Content: []Block{{Type: BlockText, Text: text}}}
}

// PlainText joins a message's text blocks.
func (m Message) PlainText() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolCalls returns the message's tool_call blocks.
func (m Message) ToolCalls() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == BlockToolCall {
			out = append(out, b)
		}
	}
	return out
}

// replayable reports whether an opaque block may be sent to provider+model.
func replayable(b Block, provider, model string) bool {
	return b.Provider == provider && b.Model == model && model != ""
}
