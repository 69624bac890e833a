package llm

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

// Ollama is the local provider: Ollama's /api/chat, streamed as NDJSON.
type Ollama struct {
	// Ledger records each request before it is sent (see wireRequest.send).
	Ledger  *ledger.Ledger
	BaseURL string // e.g. http://127.0.0.1:11434
	ModelID string
	Client  *http.Client
	// Redact scrubs credentials from error text (see RedactSecrets).
	Redact func(string) string
	// SummaryPrompt returns the current paper-summary prompt (read fresh).
	SummaryPrompt func() (string, error)
	// ConvertPDF turns a PDF into Markdown locally; Ollama has no document input.
	ConvertPDF func(path string) (string, error)
}

// Ollama's wire shapes.
type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
	Images    []string         `json:"images,omitempty"`
}

type ollamaToolCall struct {
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type ollamaTool struct {
	Type     string `json:"type"`
	Function Tool   `json:"function"`
}

type ollamaChunk struct {
	Message    ollamaMessage `json:"message"`
	Done       bool          `json:"done"`
	DoneReason string        `json:"done_reason"` // "stop", "length", "load", ...
	Error      string        `json:"error"`
	// Token counts, on the last chunk.
	PromptEvalCount int `json:"prompt_eval_count"`
	EvalCount       int `json:"eval_count"`
}

func (o *Ollama) Name() string  { return "ollama" }
func (o *Ollama) Model() string { return o.ModelID }

// PopUsage is always nil: local inference has no price.
func (o *Ollama) PopUsage() *Usage { return nil }

func (o *Ollama) redact(s string) string {
	if o.Redact == nil {
		return s
	}
	return o.Redact(s)
}

func (o *Ollama) client() *http.Client {
	if o.Client != nil {
		return o.Client
	}
	return http.DefaultClient
}

// Health probes the server (GET /api/tags), used before long local work.
func (o *Ollama) Health(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(o.BaseURL, "/")+"/api/tags", nil)
	if err != nil {
		return errs.Wrap(errs.Internal, "ollama.Health", err)
	}
	resp, err := o.client().Do(req)
	if err != nil {
		return errs.WithHint(errs.Wrapf(errs.LLM, "ollama.Health", err, "Ollama is not reachable at %s", o.BaseURL), "start it with `ollama serve`")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errs.New(errs.LLM, "ollama.Health", "Ollama at %s answered %s", o.BaseURL, resp.Status)
	}
	return nil
}

// chat performs one streamed /api/chat request and folds the chunks into one
// assistant message. Cancelling ctx closes the stream mid-response. A busy
// server (503) is retried; an unreachable one is not running, which waiting
// does not fix.
func (o *Ollama) chat(ctx context.Context, wire []ollamaMessage, tools []Tool, numCtx int) (ollamaMessage, StopReason, error) {
	const op = "ollama.chat"
	body := map[string]any{"model": o.ModelID, "messages": wire, "stream": true}
	if len(tools) > 0 {
		ts := make([]ollamaTool, len(tools))
		for i, t := range tools {
			ts[i] = ollamaTool{Type: "function", Function: t}
		}
		body["tools"] = ts
	}
	if numCtx > 0 {
		body["options"] = map[string]any{"num_ctx": numCtx}
	}
	w := &wireRequest{op: op, ledger: o.Ledger, provider: "ollama", model: o.ModelID, local: true, service: "Ollama", url: strings.TrimRight(o.BaseURL, "/") + "/api/chat",
		body: body, accept: "application/x-ndjson", redact: o.redact}
	var out ollamaMessage
	var stop StopReason
	err := withRetries(ctx, op, w.service, func() error {
		err := w.send(ctx, o.client(), func(body io.Reader) (answered, error) {
			var err error
			var a answered
			out, stop, a, err = o.read(ctx, w, body)
			return a, err
		})
		var t *transientError
		if errors.As(err, &t) && t.reason == "is unreachable" {
			return &unreachableError{err: errs.WithHint(t.err, "is `ollama serve` running?")} // the hint copy keeps the mark
		}
		return err
	})
	return out, stop, err
}

// read folds one NDJSON stream into a message.
func (o *Ollama) read(ctx context.Context, w *wireRequest, body io.Reader) (ollamaMessage, StopReason, answered, error) {
	out := ollamaMessage{Role: "assistant"}
	var content, thinking strings.Builder
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return ollamaMessage{}, "", answered{}, errs.Wrap(errs.Cancelled, w.op, err)
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var chunk ollamaChunk
		if err := json.Unmarshal(line, &chunk); err != nil {
			return ollamaMessage{}, "", answered{}, errs.Wrapf(errs.LLM, w.op, err, "malformed stream line")
		}
		if chunk.Error != "" {
			return ollamaMessage{}, "", answered{}, w.streamError("Ollama error", chunk.Error)
		}
		content.WriteString(chunk.Message.Content)
		streamText(ctx, chunk.Message.Content)
		thinking.WriteString(chunk.Message.Thinking)
		out.ToolCalls = append(out.ToolCalls, chunk.Message.ToolCalls...)
		if chunk.Done {
			out.Content, out.Thinking = content.String(), thinking.String()
			stop := stopFromWire(chunk.DoneReason)
			if stop == "" || (stop == StopEnd && len(out.ToolCalls) > 0) {
				stop = StopEnd
			}
			return out, stop, answered{stop: stop, inputTokens: chunk.PromptEvalCount, outputTokens: chunk.EvalCount}, nil
		}
	}
	if ctx.Err() != nil {
		return ollamaMessage{}, "", answered{}, errs.Wrap(errs.Cancelled, w.op, ctx.Err())
	}
	if err := sc.Err(); err != nil {
		return ollamaMessage{}, "", answered{}, errs.New(errs.LLM, w.op, "stream broke: %s", w.scrub(err.Error()))
	}
	return ollamaMessage{}, "", answered{}, errs.New(errs.LLM, w.op, "stream ended before the response was done")
}

// idGen synthesises tool-call ids: Ollama sends none, and ids must be unique
// across the whole transcript or a result could be attributed to the wrong
// call. A random prefix per conversion keeps separate turns apart.
type idGen struct {
	prefix string
	n      atomic.Int64
}

func newIDGen() *idGen {
	b := make([]byte, 4)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return &idGen{prefix: "call_" + hex.EncodeToString(b)}
}

func (g *idGen) next() string { return fmt.Sprintf("%s_%d", g.prefix, g.n.Add(1)) }

func decodeArgs(raw json.RawMessage) map[string]any {
	args := map[string]any{}
	if len(raw) == 0 {
		return args
	}
	if err := json.Unmarshal(raw, &args); err == nil {
		return args
	}
	// Defensive: some servers send the arguments as a JSON string.
	var s string
	if json.Unmarshal(raw, &s) == nil {
		_ = json.Unmarshal([]byte(s), &args) // unparsable arguments stay empty; the tool reports what is missing
	}
	return args
}

// toOllama converts the neutral transcript to Ollama's wire format.
func toOllama(system string, msgs []Message, model string) []ollamaMessage {
	var wire []ollamaMessage
	if system != "" {
		wire = append(wire, ollamaMessage{Role: "system", Content: system})
	}
	callNames := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case RoleAssistant:
			w := ollamaMessage{Role: "assistant", Content: m.PlainText()}
			for _, b := range m.Content {
				switch b.Type {
				case BlockToolCall:
					callNames[b.ID] = b.Name
					var tc ollamaToolCall
					tc.Function.Name = b.Name
					tc.Function.Arguments, _ = json.Marshal(b.Arguments) // a map of JSON values always marshals
					w.ToolCalls = append(w.ToolCalls, tc)
				case BlockOpaque:
					if replayable(b, "ollama", model) {
						var d struct{ Thinking string }
						if json.Unmarshal(b.Data, &d) == nil {
							w.Thinking = d.Thinking
						}
					}
				}
			}
			wire = append(wire, w)
		default:
			for _, b := range m.Content {
				if b.Type == BlockToolResult {
					wire = append(wire, ollamaMessage{Role: "tool", Content: b.Content, ToolName: callNames[b.ToolCallID]})
				}
			}
			if text := m.PlainText(); text != "" {
				wire = append(wire, ollamaMessage{Role: "user", Content: text})
			}
		}
	}
	return wire
}

// fromOllamaAssistant converts one assistant wire message to neutral form.
func fromOllamaAssistant(w ollamaMessage, model string, ids *idGen) Message {
	m := Message{Role: RoleAssistant}
	if w.Thinking != "" {
		data, _ := json.Marshal(map[string]string{"thinking": w.Thinking}) // a string map always marshals
		m.Content = append(m.Content, Block{Type: BlockOpaque, Provider: "ollama", Model: model, Data: data})
	}
	if w.Content != "" {
		m.Content = append(m.Content, Block{Type: BlockText, Text: w.Content})
	}
	for _, tc := range w.ToolCalls {
		m.Content = append(m.Content, Block{Type: BlockToolCall, ID: ids.next(), Name: tc.Function.Name, Arguments: decodeArgs(tc.Function.Arguments)})
	}
	return m
}

// fromOllama converts a wire list back to the neutral transcript (used when
// migrating stored wire-format history). Tool results are matched to the
// oldest unanswered call with the same tool name.
func fromOllama(wire []ollamaMessage, model string) []Message {
	ids := newIDGen()
	var out []Message
	pending := map[string][]string{}
	for _, w := range wire {
		switch w.Role {
		case "system":
			continue
		case "assistant":
			m := fromOllamaAssistant(w, model, ids)
			for _, c := range m.ToolCalls() {
				pending[c.Name] = append(pending[c.Name], c.ID)
			}
			out = append(out, m)
		case "tool":
			id := ""
			if q := pending[w.ToolName]; len(q) > 0 {
				id, pending[w.ToolName] = q[0], q[1:]
			}
			out = appendToolResult(out, Block{Type: BlockToolResult, ToolCallID: id, Content: w.Content})
		default:
			out = append(out, Text(RoleUser, w.Content))
		}
	}
	return out
}

// appendToolResult adds a result to the trailing user message of tool
// results, or starts one: the neutral transcript keeps one such message per
// assistant turn, however the wire format split them.
func appendToolResult(out []Message, block Block) []Message {
	if n := len(out); n > 0 && out[n-1].Role == RoleUser && isToolResults(out[n-1]) {
		out[n-1].Content = append(out[n-1].Content, block)
		return out
	}
	return append(out, Message{Role: RoleUser, Content: []Block{block}})
}

func isToolResults(m Message) bool {
	for _, b := range m.Content {
		if b.Type != BlockToolResult {
			return false
		}
	}
	return len(m.Content) > 0
}

// ollamaConversation is a turn in Ollama's wire shape.
type ollamaConversation struct {
	o     *Ollama
	wire  []ollamaMessage
	tools []Tool
	ids   *idGen
	// callNames maps synthesised call ids to tool names for addResults.
	callNames map[string]string
}

func (c *ollamaConversation) request(ctx context.Context, wrapUp bool) (Message, StopReason, error) {
	wire, tools := c.wire, c.tools
	if wrapUp {
		wire, tools = append(wire[:len(wire):len(wire)], ollamaMessage{Role: "user", Content: WrapUpPrompt}), nil
	}
	w, stop, err := c.o.chat(ctx, wire, tools, 0)
	if err != nil {
		return Message{}, "", err
	}
	c.wire = append(c.wire, w)
	msg := fromOllamaAssistant(w, c.o.ModelID, c.ids)
	for _, call := range msg.ToolCalls() {
		c.callNames[call.ID] = call.Name
	}
	return msg, stop, nil
}

func (c *ollamaConversation) addResults(results Message) {
	// Ollama keys a tool result by tool name, not call id.
	for _, b := range results.Content {
		c.wire = append(c.wire, ollamaMessage{Role: "tool", Content: b.Content, ToolName: c.callNames[b.ToolCallID]})
	}
}

// AgenticTurn runs the tool loop over Ollama.
func (o *Ollama) AgenticTurn(ctx context.Context, req TurnRequest) (TurnResult, error) {
	c := &ollamaConversation{o: o, wire: toOllama(req.System, req.Messages, o.ModelID), tools: req.Tools, ids: newIDGen(), callNames: map[string]string{}}
	return runTurn(ctx, "ollama.turn", req, c)
}

// Complete answers a single prompt.
func (o *Ollama) Complete(ctx context.Context, messages []Message, maxTokens, contextLength int) (string, error) {
	w, _, err := o.chat(ctx, toOllama("", messages, o.ModelID), nil, contextLength)
	if err != nil {
		return "", err
	}
	return w.Content, nil
}

// Summarize converts a PDF locally when given one, then asks for a summary
// using the user's paper-summary prompt.
func (o *Ollama) Summarize(ctx context.Context, title, text, pdfPath string, maxTokens int) (string, error) {
	return summarizeViaText(ctx, o, o.SummaryPrompt, o.ConvertPDF, title, text, pdfPath, maxTokens)
}

// DescribeImage captions one figure.
func (o *Ollama) DescribeImage(ctx context.Context, image []byte, docTitle string) (string, error) {
	wire := []ollamaMessage{{Role: "user", Content: fmt.Sprintf(FigureCaptionPrompt, docTitle), Images: []string{base64.StdEncoding.EncodeToString(image)}}}
	w, _, err := o.chat(ctx, wire, nil, 0)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(w.Content), nil
}

// summarizeViaText is the summary path for providers without document
// upload: convert the PDF locally, then send text.
func summarizeViaText(ctx context.Context, p Provider, prompt func() (string, error), convert func(string) (string, error), title, text, pdfPath string, maxTokens int) (string, error) {
	const op = "llm.Summarize"
	if prompt == nil {
		return "", errs.New(errs.Internal, op, "no summary prompt configured")
	}
	instructions, err := prompt()
	if err != nil {
		return "", err
	}
	if pdfPath != "" {
		if convert == nil {
			return "", errs.New(errs.Conversion, op, "PDF conversion is not available in this build")
		}
		if text, err = convert(pdfPath); err != nil {
			return "", err
		}
	}
	if strings.TrimSpace(text) == "" {
		return "", errs.New(errs.Invalid, op, "nothing to summarise for %q", title)
	}
	body := fmt.Sprintf("%s\n\nTitle: %s\n\nBEGIN RETRIEVED DATA\n%s\nEND RETRIEVED DATA", instructions, title, text)
	return p.Complete(ctx, []Message{Text(RoleUser, body)}, maxTokens, 0)
}
