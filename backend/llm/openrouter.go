package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Routing is OpenRouter's upstream-provider policy, sent with every request.
type Routing struct {
	DataCollection string   // "deny" excludes upstreams that train on prompts
	AllowFallbacks bool     // false: never silently reroute to an unvetted upstream
	Only           []string // optional allowlist of upstream slugs
}

// OpenRouter speaks the OpenAI chat-completions wire format, streamed. It
// deliberately sends no HTTP-Referer / X-Title headers: those list the app
// publicly, which would be telemetry by another name.
type OpenRouter struct {
	BaseURL       string // https://openrouter.ai/api/v1
	APIKey        string
	ModelID       string
	Routing       Routing
	Client        *http.Client
	Redact        func(string) string
	SummaryPrompt func() (string, error)
	ConvertPDF    func(path string) (string, error)

	mu          sync.Mutex
	usage       Usage
	ServedModel string // the model that actually answered the last request
}

func (o *OpenRouter) Name() string  { return "openrouter" }
func (o *OpenRouter) Model() string { return o.ModelID }
func (o *OpenRouter) redact(s string) string {
	if o.Redact == nil {
		return s
	}
	return o.Redact(s)
}

// PopUsage returns the credits reported since the last call, and resets.
func (o *OpenRouter) PopUsage() *Usage {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.usage.Requests == 0 {
		return nil
	}
	u := o.usage
	o.usage = Usage{}
	return &u
}

type openaiMessage struct {
	Role       string           `json:"role"`
	Content    any              `json:"content"`
	ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
	Reasoning  string           `json:"reasoning,omitempty"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// toOpenAI converts the neutral transcript: a flat content string, tool calls
// with JSON-string arguments, and one role "tool" message per result.
func toOpenAI(system string, msgs []Message, provider, model string) []openaiMessage {
	var out []openaiMessage
	if system != "" {
		out = append(out, openaiMessage{Role: "system", Content: system})
	}
	for _, m := range msgs {
		if m.Role == RoleAssistant {
			w := openaiMessage{Role: "assistant", Content: m.PlainText()}
			for _, b := range m.Content {
				switch b.Type {
				case BlockToolCall:
					var tc openaiToolCall
					tc.ID, tc.Type, tc.Function.Name = b.ID, "function", b.Name
					args, _ := json.Marshal(b.Arguments) // a map of JSON values always marshals
					tc.Function.Arguments = string(args)
					w.ToolCalls = append(w.ToolCalls, tc)
				case BlockOpaque:
					if replayable(b, provider, model) {
						var d struct{ Reasoning string }
						if json.Unmarshal(b.Data, &d) == nil {
							w.Reasoning = d.Reasoning
						}
					}
				}
			}
			out = append(out, w)
			continue
		}
		for _, b := range m.Content {
			if b.Type == BlockToolResult {
				out = append(out, openaiMessage{Role: "tool", ToolCallID: b.ToolCallID, Content: b.Content})
			}
		}
		if text := m.PlainText(); text != "" {
			out = append(out, openaiMessage{Role: "user", Content: text})
		}
	}
	return out
}

// streamedCall accumulates one tool call whose fields arrive piecemeal,
// keyed by the delta's index.
type streamedCall struct {
	id, name string
	args     strings.Builder
}

// create performs one streamed chat-completions request.
func (o *OpenRouter) create(ctx context.Context, wire []openaiMessage, tools []Tool, maxTokens int) (Message, error) {
	const op = "openrouter.create"
	body := map[string]any{
		"model": o.ModelID, "messages": wire, "stream": true,
		"provider": o.providerPolicy(),
		// usage accounting: the final chunk then carries cost and served model.
		"usage": map[string]any{"include": true},
	}
	if maxTokens > 0 {
		body["max_tokens"] = maxTokens
	}
	if len(tools) > 0 {
		ts := make([]map[string]any, len(tools))
		for i, t := range tools {
			ts[i] = map[string]any{"type": "function", "function": t}
		}
		body["tools"] = ts
	}
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := postStream(ctx, client, op, strings.TrimRight(o.BaseURL, "/")+"/chat/completions",
		map[string]string{"Authorization": "Bearer " + o.APIKey}, body, o.redact)
	if err != nil {
		return Message{}, err
	}
	defer resp.Body.Close()

	var content, reasoning strings.Builder
	calls := map[int]*streamedCall{}
	served := ""
	var cost float64
	gotUsage := false
	err = readSSE(ctx, op, resp.Body, o.redact, func(_ string, data []byte) (bool, error) {
		if string(data) == "[DONE]" {
			return true, nil
		}
		var chunk struct {
			Model   string `json:"model"`
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					Reasoning string `json:"reasoning"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				Cost float64 `json:"cost"`
			} `json:"usage"`
			Error *struct {
				Message string `json:"message"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &chunk); err != nil {
			return false, errs.Wrap(errs.LLM, op, err)
		}
		if chunk.Error != nil {
			return false, errs.New(errs.LLM, op, "upstream error %v: %s", chunk.Error.Code, o.redact(chunk.Error.Message))
		}
		if chunk.Model != "" {
			served = chunk.Model
		}
		if chunk.Usage != nil {
			cost, gotUsage = chunk.Usage.Cost, true
		}
		for _, ch := range chunk.Choices {
			content.WriteString(ch.Delta.Content)
			streamText(ctx, ch.Delta.Content)
			reasoning.WriteString(ch.Delta.Reasoning)
			for _, tc := range ch.Delta.ToolCalls {
				c := calls[tc.Index]
				if c == nil {
					c = &streamedCall{}
					calls[tc.Index] = c
				}
				// Each field is only overwritten when a chunk carries it.
				if tc.ID != "" {
					c.id = tc.ID
				}
				if tc.Function.Name != "" {
					c.name = tc.Function.Name
				}
				c.args.WriteString(tc.Function.Arguments)
			}
		}
		return false, nil
	})
	if err != nil {
		return Message{}, err
	}
	o.mu.Lock()
	o.usage.Requests++
	if gotUsage {
		o.usage.USD += cost
	}
	if served != "" {
		o.ServedModel = served
	}
	o.mu.Unlock()

	msg := Message{Role: RoleAssistant}
	if r := reasoning.String(); r != "" {
		msg.Content = append(msg.Content, Block{Type: BlockOpaque, Provider: "openrouter", Model: o.ModelID, Data: rawJSON(map[string]string{"reasoning": r})})
	}
	if t := content.String(); t != "" {
		msg.Content = append(msg.Content, Block{Type: BlockText, Text: t})
	}
	indices := slices.Sorted(maps.Keys(calls))
	for _, i := range indices {
		c := calls[i]
		args := map[string]any{}
		if s := c.args.String(); s != "" {
			if err := json.Unmarshal([]byte(s), &args); err != nil {
				return Message{}, errs.Wrapf(errs.LLM, op, err, "tool %s arguments are not valid JSON", c.name)
			}
		}
		msg.Content = append(msg.Content, Block{Type: BlockToolCall, ID: c.id, Name: c.name, Arguments: args})
	}
	return msg, nil
}

func (o *OpenRouter) providerPolicy() map[string]any {
	dc := o.Routing.DataCollection
	if dc == "" {
		dc = "deny"
	}
	p := map[string]any{"data_collection": dc, "allow_fallbacks": o.Routing.AllowFallbacks}
	if len(o.Routing.Only) > 0 {
		p["only"] = o.Routing.Only
	}
	return p
}

type openrouterConversation struct {
	o     *OpenRouter
	wire  []openaiMessage
	tools []Tool
}

func (c *openrouterConversation) request(ctx context.Context, wrapUp bool) (Message, error) {
	wire, tools := c.wire, c.tools
	if wrapUp {
		wire, tools = append(wire[:len(wire):len(wire)], openaiMessage{Role: "user", Content: WrapUpPrompt}), nil
	}
	msg, err := c.o.create(ctx, wire, tools, 0)
	if err != nil {
		return Message{}, err
	}
	c.wire = append(c.wire, toOpenAI("", []Message{msg}, "openrouter", c.o.ModelID)...)
	return msg, nil
}

func (c *openrouterConversation) addResults(results Message) {
	c.wire = append(c.wire, toOpenAI("", []Message{results}, "openrouter", c.o.ModelID)...)
}

// AgenticTurn runs the tool loop over chat completions.
func (o *OpenRouter) AgenticTurn(ctx context.Context, req TurnRequest) (TurnResult, error) {
	c := &openrouterConversation{o: o, wire: toOpenAI(req.System, req.Messages, "openrouter", o.ModelID), tools: req.Tools}
	return runTurn(ctx, "openrouter.turn", req, c)
}

// Complete answers a single prompt.
func (o *OpenRouter) Complete(ctx context.Context, messages []Message, maxTokens, _ int) (string, error) {
	msg, err := o.create(ctx, toOpenAI("", messages, "openrouter", o.ModelID), nil, maxTokens)
	if err != nil {
		return "", err
	}
	return msg.PlainText(), nil
}

// Summarize converts a PDF locally and sends text: nothing leaves the machine
// that the user's own converter did not produce.
func (o *OpenRouter) Summarize(ctx context.Context, title, text, pdfPath string, maxTokens int) (string, error) {
	return summarizeViaText(ctx, o, o.SummaryPrompt, o.ConvertPDF, title, text, pdfPath, maxTokens)
}

// DescribeImage sends the figure as a data-URL image part.
func (o *OpenRouter) DescribeImage(ctx context.Context, image []byte, docTitle string) (string, error) {
	url := fmt.Sprintf("data:%s;base64,%s", http.DetectContentType(image), base64.StdEncoding.EncodeToString(image))
	wire := []openaiMessage{{Role: "user", Content: []map[string]any{
		{"type": "text", "text": fmt.Sprintf(FigureCaptionPrompt, docTitle)},
		{"type": "image_url", "image_url": map[string]string{"url": url}},
	}}}
	msg, err := o.create(ctx, wire, nil, 512)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(msg.PlainText()), nil
}
