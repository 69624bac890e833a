package models

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// DefaultHubURL is the Hugging Face file server.
const DefaultHubURL = "https://huggingface.co"

// Fetcher downloads models from a Hugging Face-compatible file server:
// GET {BaseURL}/{id}/resolve/{revision}/{path}.
type Fetcher struct {
	BaseURL string       // DefaultHubURL when empty; $HF_ENDPOINT is honoured by NewFetcher
	Client  *http.Client // a client with a generous timeout when nil
	Token   string       // optional bearer token for gated repos
	// Progress, when set, is told the bytes received so far for each file.
	Progress func(path string, received int64)
}

// NewFetcher returns a Fetcher for the public hub, or the mirror named by the
// HF_ENDPOINT environment variable (the hub client's own convention).
func NewFetcher(getenv func(string) string) *Fetcher {
	base := DefaultHubURL
	if v := getenv("HF_ENDPOINT"); v != "" {
		base = v
	}
	return &Fetcher{BaseURL: base, Token: getenv("HF_TOKEN")}
}

// Fetch downloads every file of model into modelsDir. Cancelling ctx aborts
// the transfer; the previous install, if any, is left as it was.
func (f *Fetcher) Fetch(ctx context.Context, modelsDir string, model Model) error {
	base := strings.TrimRight(f.BaseURL, "/")
	if base == "" {
		base = DefaultHubURL
	}
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Minute}
	}
	revision := model.Revision
	if revision == "" {
		revision = "main"
	}
	open := func(file File) (io.ReadCloser, error) {
		u := fmt.Sprintf("%s/%s/resolve/%s/%s", base, model.ID, url.PathEscape(revision), file.Path)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "models.Fetch", err)
		}
		if f.Token != "" {
			req.Header.Set("Authorization", "Bearer "+f.Token)
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, errs.Wrapf(errs.Cancelled, "models.Fetch", ctx.Err(), "download of %s stopped", model.ID)
			}
			return nil, errs.WithHint(errs.Wrapf(errs.Fetch, "models.Fetch", err, "cannot reach %s", base),
				"check the network, or install the offline models with `jarvis-cli models install-offline`")
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, errs.New(errs.Fetch, "models.Fetch", "GET %s: %s", u, resp.Status)
		}
		return &ctxBody{ctx: ctx, rc: resp.Body}, nil
	}
	if err := install(modelsDir, model, base, open, f.Progress); err != nil {
		if ctx.Err() != nil && !errs.Is(err, errs.Cancelled) {
			return errs.Wrapf(errs.Cancelled, "models.Fetch", err, "download of %s stopped", model.ID)
		}
		return err
	}
	return nil
}

// ctxBody turns a read after cancellation into a cancellation error, so a
// stopped download is reported as stopped rather than as a network fault.
type ctxBody struct {
	ctx context.Context
	rc  io.ReadCloser
}

func (b *ctxBody) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	return b.rc.Read(p)
}

func (b *ctxBody) Close() error { return b.rc.Close() }
