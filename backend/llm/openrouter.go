package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
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
	// Ledger records each request before it is sent (see wireRequest.send).
	Ledger        *ledger.Ledger
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
	// ReasoningDetails go back exactly as they came, on the assistant
	// message that produced them (OpenRouter's rule for reasoning models
	// that call tools).
	ReasoningDetails []json.RawMessage `json:"reasoning_details,omitempty"`
}

// openrouterOpaque is what an OpenRouter reply keeps for replay to the same
// model.
type openrouterOpaque struct {
	Reasoning        string            `json:"reasoning,omitempty"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details,omitempty"`
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
						var d openrouterOpaque
						if json.Unmarshal(b.Data, &d) == nil {
							w.Reasoning, w.ReasoningDetails = d.Reasoning, d.ReasoningDetails
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

// streamedCall accumulates one tool call whose fields arrive piecemeal.
type streamedCall struct {
	id, name string
	args     strings.Builder
}

// openrouterChunk is one chat-completions stream chunk, with OpenRouter's
// additions (reasoning, reasoning_details, native_finish_reason, cost).
type openrouterChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content          string            `json:"content"`
			Reasoning        string            `json:"reasoning"`
			ReasoningDetails []json.RawMessage `json:"reasoning_details"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason       string `json:"finish_reason"`
		NativeFinishReason string `json:"native_finish_reason"`
	} `json:"choices"`
	Usage *struct {
		Cost             float64 `json:"cost"`
		PromptTokens     int     `json:"prompt_tokens"`
		CompletionTokens int     `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	} `json:"error"`
}

// openrouterStream folds one response's chunks into a message.
type openrouterStream struct {
	content, reasoning strings.Builder
	details            reasoningDetails
	calls              []*streamedCall
	current            map[int]*streamedCall // the call each index continues
	byID               map[string]*streamedCall
	finish, native     string
	served             string
	cost               float64
	gotUsage, streamed bool

	inputTokens, outputTokens int
}

// create performs one streamed chat-completions request (retried while
// nothing has streamed) and returns the reply with why it stopped.
func (o *OpenRouter) create(ctx context.Context, wire []openaiMessage, tools []Tool, maxTokens int) (Message, StopReason, error) {
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
	w := &wireRequest{op: op, ledger: o.Ledger, provider: "openrouter", model: o.ModelID, local: false, service: "OpenRouter", url: strings.TrimRight(o.BaseURL, "/") + "/chat/completions",
		headers: map[string]string{"Authorization": "Bearer " + o.APIKey}, body: body, accept: "text/event-stream",
		redact: o.redact, hint: o.hint}
	var st *openrouterStream
	err := withRetries(ctx, op, w.service, func() error {
		return w.send(ctx, o.Client, func(body io.Reader) (answered, error) {
			st = &openrouterStream{current: map[int]*streamedCall{}, byID: map[string]*streamedCall{}}
			err := w.readSSE(ctx, body, func(_ string, data []byte) (bool, error) {
				return st.chunk(ctx, w, data)
			})
			return answered{stop: st.stop(), inputTokens: st.inputTokens, outputTokens: st.outputTokens, costUSD: st.cost}, err
		})
	})
	if err != nil {
		return Message{}, "", err
	}
	o.mu.Lock()
	o.usage.Requests++
	if st.gotUsage {
		o.usage.USD += st.cost
		o.usage.Reported++
	}
	if st.served != "" {
		o.ServedModel = st.served
	}
	o.mu.Unlock()
	stop := st.stop()
	if stop == StopError {
		return Message{}, "", w.streamError("", "the upstream model ended the answer with an error")
	}
	msg, err := st.message(op, o.ModelID, stop)
	return msg, stop, err
}

func (st *openrouterStream) chunk(ctx context.Context, w *wireRequest, data []byte) (bool, error) {
	if string(data) == "[DONE]" {
		return true, nil
	}
	var chunk openrouterChunk
	if err := json.Unmarshal(data, &chunk); err != nil {
		return false, errs.Wrapf(errs.LLM, w.op, err, "malformed chunk")
	}
	if chunk.Error != nil {
		// A mid-stream failure: the status is already 200, so the error
		// rides in a chunk (with finish_reason "error").
		err := w.streamError(fmt.Sprintf("upstream error %v", chunk.Error.Code), chunk.Error.Message)
		if code, ok := chunk.Error.Code.(float64); ok && !st.streamed {
			if reason := transientReason(int(code)); reason != "" {
				return false, &transientError{err: err, reason: reason}
			}
		}
		return false, err
	}
	if chunk.Model != "" {
		st.served = chunk.Model
	}
	if chunk.Usage != nil {
		st.cost, st.gotUsage = chunk.Usage.Cost, true
		st.inputTokens, st.outputTokens = chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens
	}
	for _, ch := range chunk.Choices {
		st.content.WriteString(ch.Delta.Content)
		streamText(ctx, ch.Delta.Content)
		st.streamed = st.streamed || ch.Delta.Content != ""
		st.reasoning.WriteString(ch.Delta.Reasoning)
		if err := st.details.add(ch.Delta.ReasoningDetails); err != nil {
			return false, errs.Wrapf(errs.LLM, w.op, err, "malformed reasoning_details")
		}
		for _, tc := range ch.Delta.ToolCalls {
			c := st.call(tc.Index, tc.ID)
			if tc.Function.Name != "" {
				c.name = tc.Function.Name
			}
			c.args.WriteString(tc.Function.Arguments)
		}
		if ch.FinishReason != "" {
			st.finish = ch.FinishReason
		}
		if ch.NativeFinishReason != "" {
			st.native = ch.NativeFinishReason
		}
	}
	return false, nil
}

// call finds the call a tool-call delta belongs to. Upstreams differ: most
// give each call its own index, some stream every call at index 0 and tell
// them apart by id. So a new id starts a new call whatever its index, a
// known id continues its call, and a delta without an id continues the
// current call of its index.
func (st *openrouterStream) call(index int, id string) *streamedCall {
	if id != "" {
		if c := st.byID[id]; c != nil {
			st.current[index] = c
			return c
		}
	} else if c := st.current[index]; c != nil {
		return c
	}
	c := &streamedCall{id: id}
	st.calls = append(st.calls, c)
	st.current[index] = c
	if id != "" {
		st.byID[id] = c
	}
	return c
}

// stop maps finish_reason, falling back to the upstream's own reason when
// OpenRouter's is missing or less specific (a refusal it calls "stop").
func (st *openrouterStream) stop() StopReason {
	fr, native := stopFromWire(st.finish), stopFromWire(st.native)
	if fr == "" || (fr == StopEnd && native != "" && native != StopEnd) {
		return native
	}
	return fr
}

func (st *openrouterStream) message(op, model string, stop StopReason) (Message, error) {
	msg := Message{Role: RoleAssistant}
	if r, d := st.reasoning.String(), st.details.list(); r != "" || len(d) > 0 {
		msg.Content = append(msg.Content, Block{Type: BlockOpaque, Provider: "openrouter", Model: model,
			Data: rawJSON(openrouterOpaque{Reasoning: r, ReasoningDetails: d})})
	}
	if t := st.content.String(); t != "" {
		msg.Content = append(msg.Content, Block{Type: BlockText, Text: t})
	}
	for i, c := range st.calls {
		args := map[string]any{}
		if s := c.args.String(); s != "" {
			if err := json.Unmarshal([]byte(s), &args); err != nil {
				if stop == StopLength {
					continue // cut off mid-arguments; the partial text is the answer
				}
				return Message{}, errs.Wrapf(errs.LLM, op, err, "tool %s arguments are not valid JSON", c.name)
			}
		}
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		msg.Content = append(msg.Content, Block{Type: BlockToolCall, ID: id, Name: c.name, Arguments: args})
	}
	return msg, nil
}

// hint names the [openrouter] setting behind a routing failure: with
// data_collection = "deny" and no fallbacks, a model whose every upstream
// trains on prompts has no endpoint at all.
func (o *OpenRouter) hint(msg string) string {
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "data policy"):
		return fmt.Sprintf("[openrouter] data_collection = %q excludes every upstream that serves %s; pick another model, or change that setting knowingly", o.providerPolicy()["data_collection"], o.ModelID)
	case strings.Contains(low, "no endpoints found") && len(o.Routing.Only) > 0:
		return fmt.Sprintf("[openrouter] only = %q excludes every upstream that serves %s; add one of its upstreams or pick another model", o.Routing.Only, o.ModelID)
	case strings.Contains(low, "no endpoints found") && !o.Routing.AllowFallbacks:
		return fmt.Sprintf("[openrouter] allow_fallbacks = false leaves no upstream for %s; pick another model", o.ModelID)
	}
	return ""
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

func (c *openrouterConversation) request(ctx context.Context, wrapUp bool) (Message, StopReason, error) {
	wire, tools := c.wire, c.tools
	if wrapUp {
		wire, tools = append(wire[:len(wire):len(wire)], openaiMessage{Role: "user", Content: WrapUpPrompt}), nil
	}
	msg, stop, err := c.o.create(ctx, wire, tools, 0)
	if err != nil {
		return Message{}, "", err
	}
	c.wire = append(c.wire, toOpenAI("", []Message{msg}, "openrouter", c.o.ModelID)...)
	return msg, stop, nil
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
	msg, _, err := o.create(ctx, toOpenAI("", messages, "openrouter", o.ModelID), nil, maxTokens)
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
	msg, _, err := o.create(ctx, wire, nil, 512)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(msg.PlainText()), nil
}
