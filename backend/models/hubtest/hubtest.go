// Package hubtest serves model folders the way the Hugging Face hub does
// (GET /{id}/resolve/{revision}/{path}), so tests and the end-to-end bridge
// download models through the real fetcher (HF_ENDPOINT) from loopback.
package hubtest

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/models"
)

// Handler serves repos (hub id -> local folder).
func Handler(repos map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for id, dir := range repos {
			rest, ok := strings.CutPrefix(r.URL.Path, "/"+id+"/resolve/")
			if !ok {
				continue
			}
			_, file, ok := strings.Cut(rest, "/") // after the revision
			if !ok || strings.Contains(file, "..") {
				break
			}
			http.ServeFile(w, r, filepath.Join(dir, filepath.FromSlash(file)))
			return
		}
		http.NotFound(w, r)
	})
}

// WriteManifestModels writes the embedtest fixture models over words under
// dir, one folder per model the shipped manifest lists (an embedder for the
// embed role, a cross-encoder for rerank), with every file the manifest
// names, and returns them as repos for Handler.
func WriteManifestModels(dir string, words []string) (map[string]string, error) {
	m, err := models.Load()
	if err != nil {
		return nil, err
	}
	repos := map[string]string{}
	for _, model := range m.Models {
		d := filepath.Join(dir, strings.ReplaceAll(model.ID, "/", "__"))
		write := embedtest.WriteEmbedder
		if model.Role == "rerank" {
			write = embedtest.WriteReranker
		}
		if err := write(d, words); err != nil {
			return nil, err
		}
		// The fixtures' tokenizer needs no tokenizer_config.json; the
		// manifest lists one, as the real export has it.
		if err := os.WriteFile(filepath.Join(d, "tokenizer_config.json"), []byte("{}\n"), 0o644); err != nil {
			return nil, err
		}
		repos[model.ID] = d
	}
	return repos, nil
}
