package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// RecommendedModel is a small local chat model the setup panel offers to
// pull, with its download size as Ollama's library states it.
type RecommendedModel struct {
	Name  string `json:"name"`
	Size  string `json:"size"`
	About string `json:"about"`
}

// RecommendedModels are small enough for a laptop and call tools well.
var RecommendedModels = []RecommendedModel{
	{Name: "qwen3:4b", Size: "2.5 GB", About: "fast, good at tool use; the default for most laptops"},
	{Name: "llama3.2:3b", Size: "2.0 GB", About: "small and quick; English first"},
	{Name: "qwen3:8b", Size: "5.2 GB", About: "better answers; wants 16 GB of memory"},
	{Name: "gemma3:4b", Size: "3.3 GB", About: "multilingual, reads images"},
}

// PullProgress is one line of Ollama's /api/pull stream.
type PullProgress struct {
	Status    string `json:"status"`
	Completed int64  `json:"completed"`
	Total     int64  `json:"total"`
}

// Pull downloads model through Ollama's /api/pull stream, reporting each
// progress line. Cancelling ctx stops the download (Ollama keeps what it
// has and resumes on the next pull).
func (o *Ollama) Pull(ctx context.Context, model string, progress func(PullProgress)) error {
	const op = "ollama.Pull"
	model = strings.TrimSpace(model)
	if model == "" {
		return errs.New(errs.Invalid, op, "which model? give a name such as qwen3:4b")
	}
	body, _ := json.Marshal(map[string]any{"model": model, "stream": true})
	resp, err := o.post(ctx, op, "/api/pull", body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line struct {
			PullProgress
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return errs.Wrapf(errs.LLM, op, err, "Ollama sent a line that is not JSON")
		}
		if line.Error != "" {
			return errs.WithHint(errs.New(errs.LLM, op, "Ollama could not pull %s: %s", model, o.redact(line.Error)),
				"check the model name on ollama.com/library and that the machine is online")
		}
		if progress != nil {
			progress(line.PullProgress)
		}
		if line.Status == "success" {
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Cancelled, op, err)
	}
	if err := sc.Err(); err != nil {
		return errs.Wrapf(errs.LLM, op, err, "the pull of %s stopped", model)
	}
	return errs.New(errs.LLM, op, "the pull of %s ended before Ollama said it succeeded", model)
}

// Preload loads the session's model into memory ahead of the first
// question (an empty /api/generate with keep_alive), so the first answer
// does not wait on a cold load.
func (o *Ollama) Preload(ctx context.Context, keepAlive string) error {
	const op = "ollama.Preload"
	body, _ := json.Marshal(map[string]any{"model": o.ModelID, "keep_alive": keepAlive})
	resp, err := o.post(ctx, op, "/api/generate", body)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// post sends a JSON body to an Ollama endpoint; a non-200 answer is an
// error carrying Ollama's own message.
func (o *Ollama) post(ctx context.Context, op, path string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(o.BaseURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := o.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errs.Wrap(errs.Cancelled, op, ctx.Err())
		}
		return nil, errs.WithHint(errs.Wrapf(errs.LLM, op, err, "Ollama is not reachable at %s", o.BaseURL), "start it with `ollama serve`")
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e) // a body that is not JSON leaves only the status to report
		return nil, errs.New(errs.LLM, op, "Ollama at %s answered %s: %s", o.BaseURL, resp.Status, o.redact(e.Error))
	}
	return resp, nil
}
