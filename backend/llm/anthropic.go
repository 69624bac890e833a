package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

// anthropicVersion is the Messages API version header value.
const anthropicVersion = "2023-06-01"

// Anthropic speaks the Messages API with streaming (SSE).
type Anthropic struct {
	// Ledger records each request before it is sent (see wireRequest.send).
	Ledger        *ledger.Ledger
	BaseURL       string // https://api.anthropic.com
	APIKey        string
	ModelID       string
	MaxTokens     int // per request; 4096 when zero
	Client        *http.Client
	Redact        func(string) string
	SummaryPrompt func() (string, error)
}

func (a *Anthropic) Name() string     { return "anthropic" }
func (a *Anthropic) Model() string    { return a.ModelID }
func (a *Anthropic) PopUsage() *Usage { return nil } // token counts only; no price table that would age silently
func (a *Anthropic) redact(s string) string {
	if a.Redact == nil {
		return s
	}
	return a.Redact(s)
}

type anthropicMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v) // only maps and strings are passed here
	return b
}

// toAnthropic converts the neutral transcript. Tool results already share one
// user message per assistant turn, which the API requires.
func toAnthropic(msgs []Message, model string) []anthropicMessage {
	var out []anthropicMessage
	for _, m := range msgs {
		w := anthropicMessage{Role: string(m.Role)}
		for _, b := range m.Content {
			switch b.Type {
			case BlockText:
				if b.Text != "" {
					w.Content = append(w.Content, rawJSON(map[string]any{"type": "text", "text": b.Text}))
				}
			case BlockToolCall:
				args := b.Arguments
				if args == nil {
					args = map[string]any{}
				}
				w.Content = append(w.Content, rawJSON(map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": args}))
			case BlockToolResult:
				w.Content = append(w.Content, rawJSON(map[string]any{"type": "tool_result", "tool_use_id": b.ToolCallID, "content": b.Content, "is_error": b.IsError}))
			case BlockOpaque:
				if replayable(b, "anthropic", model) {
					w.Content = append(w.Content, b.Data)
				}
			}
		}
		if len(w.Content) > 0 {
			out = append(out, w)
		}
	}
	return out
}

// anthropicBlock accumulates one streamed content block.
type anthropicBlock struct {
	Type      string
	Text      strings.Builder
	ID, Name  string
	InputJSON strings.Builder
	Thinking  strings.Builder
	Signature strings.Builder
	Data      string // redacted_thinking
}

// anthropicEvent is one Messages-API stream event, every field any event
// type uses.
type anthropicEvent struct {
	Type         string          `json:"type"`
	Index        int             `json:"index"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	// Token counts: message_start carries the input's, message_delta the
	// output's so far.
	Message struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	Usage anthropicUsage `json:"usage"`
}

// anthropicStream folds one response's events into content blocks.
type anthropicStream struct {
	blocks   map[int]*anthropicBlock
	order    []int
	stop     string
	streamed bool // text reached the listener: no retry may repeat it

	inputTokens, outputTokens int
}

type anthropicUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// stream performs one streamed Messages request (retried while nothing has
// streamed) and returns the assistant message in neutral form plus the stop
// reason.
func (a *Anthropic) stream(ctx context.Context, system string, wire []anthropicMessage, tools []Tool, maxTokens int) (Message, StopReason, error) {
	const op = "anthropic.stream"
	if maxTokens <= 0 {
		maxTokens = a.MaxTokens
	}
	if maxTokens <= 0 {
		maxTokens = 4096
	}
	body := map[string]any{"model": a.ModelID, "max_tokens": maxTokens, "messages": wire, "stream": true}
	if system != "" {
		body["system"] = system
	}
	if len(tools) > 0 {
		ts := make([]map[string]any, len(tools))
		for i, t := range tools {
			ts[i] = map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Parameters}
		}
		body["tools"] = ts
	}
	w := &wireRequest{op: op, ledger: a.Ledger, provider: "anthropic", model: a.ModelID, local: false, service: "Anthropic", url: strings.TrimRight(a.BaseURL, "/") + "/v1/messages",
		headers: map[string]string{"x-api-key": a.APIKey, "anthropic-version": anthropicVersion},
		body:    body, accept: "text/event-stream", redact: a.redact}
	var st *anthropicStream
	err := withRetries(ctx, op, w.service, func() error {
		return w.send(ctx, a.Client, func(body io.Reader) (answered, error) {
			st = &anthropicStream{blocks: map[int]*anthropicBlock{}}
			err := w.readSSE(ctx, body, func(event string, data []byte) (bool, error) {
				return st.event(ctx, w, event, data)
			})
			return answered{stop: stopFromWire(st.stop), inputTokens: st.inputTokens, outputTokens: st.outputTokens}, err
		})
	})
	if err != nil {
		return Message{}, "", err
	}
	stop := stopFromWire(st.stop)
	msg, err := st.message(op, a.ModelID, stop)
	return msg, stop, err
}

func (st *anthropicStream) event(ctx context.Context, w *wireRequest, event string, data []byte) (bool, error) {
	var ev anthropicEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return false, errs.Wrapf(errs.LLM, w.op, err, "malformed event %q", event)
	}
	switch ev.Type {
	case "content_block_start":
		var cb struct {
			Type, ID, Name, Text, Thinking, Signature, Data string
		}
		if err := json.Unmarshal(ev.ContentBlock, &cb); err != nil {
			return false, errs.Wrap(errs.LLM, w.op, err)
		}
		b := &anthropicBlock{Type: cb.Type, ID: cb.ID, Name: cb.Name, Data: cb.Data}
		if cb.Type == "text" && st.hasText() {
			// The stored message joins text blocks with a newline; the
			// stream must read the same.
			streamText(ctx, "\n")
		}
		b.Text.WriteString(cb.Text)
		b.Thinking.WriteString(cb.Thinking)
		b.Signature.WriteString(cb.Signature)
		st.blocks[ev.Index] = b
		st.order = append(st.order, ev.Index)
		if cb.Text != "" {
			streamText(ctx, cb.Text)
			st.streamed = true
		}
	case "content_block_delta":
		b := st.blocks[ev.Index]
		if b == nil {
			return false, errs.New(errs.LLM, w.op, "delta for unknown block %d", ev.Index)
		}
		switch ev.Delta.Type {
		case "text_delta":
			b.Text.WriteString(ev.Delta.Text)
			streamText(ctx, ev.Delta.Text)
			st.streamed = st.streamed || ev.Delta.Text != ""
		case "input_json_delta":
			b.InputJSON.WriteString(ev.Delta.PartialJSON)
		case "thinking_delta":
			b.Thinking.WriteString(ev.Delta.Thinking)
		case "signature_delta":
			b.Signature.WriteString(ev.Delta.Signature)
		}
	case "message_start":
		st.inputTokens = ev.Message.Usage.InputTokens
	case "message_delta":
		if ev.Usage.OutputTokens > 0 {
			st.outputTokens = ev.Usage.OutputTokens
		}
		if ev.Delta.StopReason != "" {
			st.stop = ev.Delta.StopReason
		}
	case "message_stop":
		return true, nil
	case "error":
		err := w.streamError(ev.Error.Type, ev.Error.Message)
		if reason := anthropicTransient(ev.Error.Type); reason != "" && !st.streamed {
			return false, &transientError{err: err, reason: reason}
		}
		return false, err
	}
	return false, nil
}

// anthropicTransient says which mid-stream error types are worth a retry.
func anthropicTransient(errType string) string {
	switch errType {
	case "overloaded_error":
		return "is overloaded"
	case "rate_limit_error":
		return "is rate-limiting requests"
	case "api_error":
		return "had a server error"
	}
	return ""
}

func (st *anthropicStream) hasText() bool {
	for _, b := range st.blocks {
		if b.Type == "text" && b.Text.Len() > 0 {
			return true
		}
	}
	return false
}

// message converts the blocks to neutral form. A tool call cut off by the
// output limit has incomplete arguments and is dropped: the partial text is
// what the user gets.
func (st *anthropicStream) message(op, model string, stop StopReason) (Message, error) {
	msg := Message{Role: RoleAssistant}
	for _, i := range st.order {
		b := st.blocks[i]
		switch b.Type {
		case "text":
			if t := b.Text.String(); t != "" {
				msg.Content = append(msg.Content, Block{Type: BlockText, Text: t})
			}
		case "tool_use":
			args := map[string]any{}
			if s := b.InputJSON.String(); s != "" {
				if err := json.Unmarshal([]byte(s), &args); err != nil {
					if stop == StopLength {
						continue
					}
					return Message{}, errs.Wrapf(errs.LLM, op, err, "tool %s arguments are not valid JSON", b.Name)
				}
			}
			msg.Content = append(msg.Content, Block{Type: BlockToolCall, ID: b.ID, Name: b.Name, Arguments: args})
		case "thinking":
			msg.Content = append(msg.Content, Block{Type: BlockOpaque, Provider: "anthropic", Model: model,
				Data: rawJSON(map[string]any{"type": "thinking", "thinking": b.Thinking.String(), "signature": b.Signature.String()})})
		case "redacted_thinking":
			msg.Content = append(msg.Content, Block{Type: BlockOpaque, Provider: "anthropic", Model: model,
				Data: rawJSON(map[string]any{"type": "redacted_thinking", "data": b.Data})})
		}
	}
	return msg, nil
}

type anthropicConversation struct {
	a      *Anthropic
	system string
	wire   []anthropicMessage
	tools  []Tool
}

func (c *anthropicConversation) request(ctx context.Context, wrapUp bool) (Message, StopReason, error) {
	wire, tools := c.wire, c.tools
	if wrapUp {
		// The wrap-up text joins the last user message (tool results) so
		// roles keep alternating, as the API requires.
		wire = append([]anthropicMessage(nil), wire...)
		last := &wire[len(wire)-1]
		last.Content = append(append([]json.RawMessage(nil), last.Content...), rawJSON(map[string]any{"type": "text", "text": WrapUpPrompt}))
		tools = nil
	}
	msg, stop, err := c.a.stream(ctx, c.system, wire, tools, 0)
	if err != nil {
		return Message{}, "", err
	}
	c.wire = append(c.wire, toAnthropic([]Message{msg}, c.a.ModelID)...)
	return msg, stop, nil
}

func (c *anthropicConversation) addResults(results Message) {
	c.wire = append(c.wire, toAnthropic([]Message{results}, c.a.ModelID)...)
}

// AgenticTurn runs the tool loop over the Messages API.
func (a *Anthropic) AgenticTurn(ctx context.Context, req TurnRequest) (TurnResult, error) {
	c := &anthropicConversation{a: a, system: req.System, wire: toAnthropic(req.Messages, a.ModelID), tools: req.Tools}
	return runTurn(ctx, "anthropic.turn", req, c)
}

// Complete answers a single prompt.
func (a *Anthropic) Complete(ctx context.Context, messages []Message, maxTokens, _ int) (string, error) {
	msg, _, err := a.stream(ctx, "", toAnthropic(messages, a.ModelID), nil, maxTokens)
	if err != nil {
		return "", err
	}
	return msg.PlainText(), nil
}

// Summarize uploads a PDF as a document block (only public papers reach this
// path) or sends the abstract text.
func (a *Anthropic) Summarize(ctx context.Context, title, text, pdfPath string, maxTokens int) (string, error) {
	const op = "anthropic.Summarize"
	if a.SummaryPrompt == nil {
		return "", errs.New(errs.Internal, op, "no summary prompt configured")
	}
	instructions, err := a.SummaryPrompt()
	if err != nil {
		return "", err
	}
	var content []json.RawMessage
	if pdfPath != "" {
		pdf, err := os.ReadFile(pdfPath)
		if err != nil {
			return "", errs.Wrapf(errs.NotFound, op, err, "cannot read %s", pdfPath)
		}
		content = append(content, rawJSON(map[string]any{"type": "document", "source": map[string]any{
			"type": "base64", "media_type": "application/pdf", "data": base64.StdEncoding.EncodeToString(pdf)}}))
		content = append(content, rawJSON(map[string]any{"type": "text", "text": fmt.Sprintf("%s\n\nTitle: %s", instructions, title)}))
	} else {
		if strings.TrimSpace(text) == "" {
			return "", errs.New(errs.Invalid, op, "nothing to summarise for %q", title)
		}
		content = append(content, rawJSON(map[string]any{"type": "text", "text": fmt.Sprintf("%s\n\nTitle: %s\n\nBEGIN RETRIEVED DATA\n%s\nEND RETRIEVED DATA", instructions, title, text)}))
	}
	msg, _, err := a.stream(ctx, "", []anthropicMessage{{Role: "user", Content: content}}, nil, maxTokens)
	if err != nil {
		return "", err
	}
	return msg.PlainText(), nil
}

// DescribeImage captions one figure from a base64 image block.
func (a *Anthropic) DescribeImage(ctx context.Context, image []byte, docTitle string) (string, error) {
	content := []json.RawMessage{
		rawJSON(map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": http.DetectContentType(image), "data": base64.StdEncoding.EncodeToString(image)}}),
		rawJSON(map[string]any{"type": "text", "text": fmt.Sprintf(FigureCaptionPrompt, docTitle)}),
	}
	msg, _, err := a.stream(ctx, "", []anthropicMessage{{Role: "user", Content: content}}, nil, 512)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(msg.PlainText()), nil
}
