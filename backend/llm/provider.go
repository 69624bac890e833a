// Package llm talks to language models: a provider-neutral transcript,
// adapters that speak each service's streaming wire protocol, the tool loop,
// cancellation, model selection and secret redaction.
//
// Cancellation uses context.Context as the turn's cancel token: adapters
// check it between streamed events and close the HTTP stream when it fires,
// which is the only "stop generating" signal the services have.
package llm

import (
	"context"
	"encoding/json"
)

// Tool describes a function the model may call. Parameters is a JSON Schema
// object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ToolOutcome is what a dispatched tool returns to the model.
type ToolOutcome struct {
	Content string
	IsError bool
}

// Dispatch runs one tool call. Returning an error aborts the turn (a privacy
// refusal, a cancellation); recoverable mistakes are ToolOutcome{IsError:true}
// so the model can correct itself.
type Dispatch func(ctx context.Context, call Block) (ToolOutcome, error)

// TurnRequest is one agentic turn: the transcript so far (ending with the
// user's message), the tools on offer and how to run them.
type TurnRequest struct {
	System        string
	Messages      []Message
	Tools         []Tool
	Dispatch      Dispatch
	MaxIterations int // 10 when zero
}

// TurnResult is what a turn produced. Messages is only the new tail, to be
// appended by the caller in one step: a turn that fails or is cancelled
// returns no tail, so the transcript is untouched by construction.
type TurnResult struct {
	Messages   []Message
	Reply      string
	Iterations int
	LimitHit   bool // the iteration limit was reached and a wrap-up answer requested
	// Stop is why the final answer ended: StopLength means Reply is the
	// partial text cut at the output limit, Refused() means Reply is no
	// answer at all.
	Stop StopReason
}

// Usage is the cost a provider reported since the last PopUsage.
type Usage struct {
	USD      float64 `json:"usd"`
	Requests int     `json:"requests"`
	// Reported counts the requests whose cost the provider stated; USD is
	// their sum. Zero means no cost is known, which is not a cost of $0.
	Reported int `json:"reported,omitempty"`
}

// Provider is one model behind one service.
type Provider interface {
	Name() string  // "ollama", "anthropic", "openrouter"
	Model() string // the model requests go to
	// Complete answers a single prompt. contextLength sets Ollama's num_ctx
	// (0 keeps the server's default) and is ignored elsewhere.
	Complete(ctx context.Context, messages []Message, maxTokens, contextLength int) (string, error)
	// Summarize writes a dense summary of a paper from its abstract text or,
	// when pdfPath is set, from the PDF.
	Summarize(ctx context.Context, title, text, pdfPath string, maxTokens int) (string, error)
	// AgenticTurn runs the tool loop for one user turn.
	AgenticTurn(ctx context.Context, req TurnRequest) (TurnResult, error)
	// DescribeImage captions one figure; context is the document title.
	DescribeImage(ctx context.Context, image []byte, context string) (string, error)
	// PopUsage returns and resets the accumulated cost, or nil when the
	// provider reports none (a missing cost is shown as none, not as zero).
	PopUsage() *Usage
}

// DefaultMaxIterations bounds a turn's tool rounds.
const DefaultMaxIterations = 10

// WrapUpPrompt is sent, without tools, when a turn reaches its iteration
// limit so the user still gets an answer from what was gathered.
const WrapUpPrompt = "You have reached the tool-call limit for this turn. Do not call any more tools. Answer the user now from what you have gathered so far, and say briefly what you could not finish."

// FigureCaptionPrompt is shared by every provider's DescribeImage so captions
// read alike whatever the model.
const FigureCaptionPrompt = "Describe this figure from the document %q for a search index: what kind of figure it is, what it shows (axes, variables, groups, trends, labelled parts) and its main takeaway. Two to four sentences, no preamble."
