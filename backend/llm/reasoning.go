package llm

import "encoding/json"

// reasoningDetails accumulates OpenRouter's streamed reasoning_details.
// Pieces of one detail share an index: their text, summary, data and
// signature strings are concatenated, every other field is kept as it came,
// so the list sent back is the one the model produced.
type reasoningDetails struct {
	order   []int
	byIndex map[int]map[string]json.RawMessage
}

// concatenated names the fields that stream in pieces.
var concatenated = map[string]bool{"text": true, "summary": true, "data": true, "signature": true}

func (r *reasoningDetails) add(pieces []json.RawMessage) error {
	for _, raw := range pieces {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return err
		}
		index := len(r.order) // a detail without an index stands alone
		if v, ok := fields["index"]; ok {
			if err := json.Unmarshal(v, &index); err != nil {
				return err
			}
		}
		if r.byIndex == nil {
			r.byIndex = map[int]map[string]json.RawMessage{}
		}
		d, seen := r.byIndex[index]
		if !seen {
			r.byIndex[index] = fields
			r.order = append(r.order, index)
			continue
		}
		for k, v := range fields {
			var more string
			if concatenated[k] && json.Unmarshal(v, &more) == nil {
				var sofar string
				_ = json.Unmarshal(d[k], &sofar) // absent or null: starts empty
				d[k] = rawJSON(sofar + more)
			} else if _, has := d[k]; !has || string(d[k]) == "null" {
				d[k] = v
			}
		}
	}
	return nil
}

// list returns the accumulated details in stream order.
func (r *reasoningDetails) list() []json.RawMessage {
	out := make([]json.RawMessage, 0, len(r.order))
	for _, i := range r.order {
		out = append(out, rawJSON(r.byIndex[i]))
	}
	return out
}
