package llm

// StopReason is why a model stopped writing, in one vocabulary for every
// provider. The adapters translate Anthropic's stop_reason, OpenRouter's
// finish_reason / native_finish_reason and Ollama's done_reason into it so
// the agent can act on a cut-off or refused answer whatever the wire said.
type StopReason string

const (
	StopEnd           StopReason = "end"            // the model finished its answer
	StopLength        StopReason = "length"         // cut off at the output-token limit
	StopRefusal       StopReason = "refusal"        // the model declined to answer
	StopContentFilter StopReason = "content_filter" // a provider filter withheld the answer
	StopToolUse       StopReason = "tool_use"       // the model wants tool results
	StopSequence      StopReason = "stop_sequence"  // a configured stop sequence matched
	StopPauseTurn     StopReason = "pause_turn"     // the server paused a long turn; send it back to continue
	StopError         StopReason = "error"          // the provider ended the answer with an error
)

// Refused reports whether the answer was withheld, by the model or a filter:
// whatever text arrived is not an answer.
func (r StopReason) Refused() bool { return r == StopRefusal || r == StopContentFilter }

// stopFromWire maps a provider's raw stop value. Unknown non-empty values
// count as a normal end (providers add reasons over time; the text is still
// the model's), and an empty one is left empty for the caller to judge.
func stopFromWire(raw string) StopReason {
	switch raw {
	case "":
		return ""
	case "end_turn", "stop", "end", "STOP":
		return StopEnd
	case "max_tokens", "length", "model_context_window_exceeded", "MAX_TOKENS":
		return StopLength
	case "refusal":
		return StopRefusal
	case "content_filter", "SAFETY", "RECITATION":
		return StopContentFilter
	case "tool_use", "tool_calls", "function_call":
		return StopToolUse
	case "stop_sequence":
		return StopSequence
	case "pause_turn":
		return StopPauseTurn
	case "error":
		return StopError
	}
	return StopEnd
}
