package config

import (
	"os"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// A config a user has lived with: comments everywhere, odd spacing, a
// multi-line array, quoted keys, a trailing comment on the edited line.
const livedIn = `# Jarvis settings — hand edited
# keep this header

[chat]
provider   =   "ollama"   # local by default
response_style = "terse"  # edited from the UI
# the model I use most
ollama_model = 'qwen3:8b'

[digest]
enabled = false
arxiv_categories = [
  ["cs.LG", 5],   # ML
  ["q-bio.QM", 2] # bio
]
hour = 5

[rag]
"chunk_size" = 1024
hybrid = true
`

func writeConfig(t *testing.T, doc string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(FilePath(home), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// mustLoad is LoadFrom(home), failing the test on an error.
func mustLoad(t *testing.T, home string) *Config {
	t.Helper()
	cfg, err := LoadFrom(home)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func readConfig(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(FilePath(home))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSetPreservesEverythingOutsideTheChangedLine(t *testing.T) {
	home := writeConfig(t, livedIn)
	if err := SetIn(home, "chat", "response_style", "Answer in British English, with sources."); err != nil {
		t.Fatal(err)
	}
	got := readConfig(t, home)
	want := strings.Replace(livedIn,
		`response_style = "terse"  # edited from the UI`,
		`response_style = 'Answer in British English, with sources.'  # edited from the UI`, 1)
	if got != want {
		t.Fatalf("write-back changed more than one value:\n--- got\n%s\n--- want\n%s", got, want)
	}
	cfg := mustLoad(t, home)
	if cfg.Chat.ResponseStyle != "Answer in British English, with sources." {
		t.Fatalf("value did not round-trip: %q", cfg.Chat.ResponseStyle)
	}
}

func TestSetTableDriven(t *testing.T) {
	cases := []struct {
		name           string
		section, key   string
		value          any
		oldLine, newLn string // exact substitution expected in the document
		appended       string // or: text expected to be appended/inserted
		check          func(*Config) bool
	}{
		{name: "bool", section: "digest", key: "enabled", value: true,
			oldLine: "enabled = false\n", newLn: "enabled = true\n",
			check: func(c *Config) bool { return c.Digest.Enabled }},
		{name: "int keeps spacing and comment-free line", section: "digest", key: "hour", value: 7,
			oldLine: "hour = 5\n", newLn: "hour = 7\n",
			check: func(c *Config) bool { return c.Digest.Hour == 7 }},
		{name: "odd spacing and trailing comment", section: "chat", key: "provider", value: "anthropic",
			oldLine: `provider   =   "ollama"   # local by default`, newLn: `provider   =   'anthropic'   # local by default`,
			check: func(c *Config) bool { return c.Chat.Provider == "anthropic" }},
		{name: "multi-line array collapses, others intact", section: "digest", key: "arxiv_categories",
			value:   []Quota{{"cs.CL", 9}},
			oldLine: "[\n  [\"cs.LG\", 5],   # ML\n  [\"q-bio.QM\", 2] # bio\n]", newLn: "[['cs.CL', 9]]",
			check: func(c *Config) bool {
				return len(c.Digest.ArxivCategories) == 1 && c.Digest.ArxivCategories[0].Limit == 9
			}},
		{name: "quoted key", section: "rag", key: "chunk_size", value: 800,
			oldLine: `"chunk_size" = 1024`, newLn: `"chunk_size" = 800`,
			check: func(c *Config) bool { return c.RAG.ChunkSize == 800 }},
		{name: "new key in existing section goes after its last key", section: "chat", key: "ollama_url", value: "http://127.0.0.1:1",
			oldLine: "ollama_model = 'qwen3:8b'\n", newLn: "ollama_model = 'qwen3:8b'\nollama_url = 'http://127.0.0.1:1'\n",
			check: func(c *Config) bool { return c.Chat.OllamaURL == "http://127.0.0.1:1" }},
		{name: "new section appended", section: "openrouter", key: "only", value: []string{"anthropic", "openai"},
			appended: "\n[openrouter]\nonly = ['anthropic', 'openai']\n",
			check:    func(c *Config) bool { return len(c.OpenRouter.Only) == 2 }},
		{name: "catalogue entry", section: "models", key: "ollama", value: []string{"llama3:8b"},
			appended: "\n[models]\nollama = ['llama3:8b']\n",
			check:    func(c *Config) bool { return len(c.Models["ollama"]) == 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := writeConfig(t, livedIn)
			if err := SetIn(home, c.section, c.key, c.value); err != nil {
				t.Fatal(err)
			}
			got := readConfig(t, home)
			var want string
			if c.appended != "" {
				want = livedIn + c.appended
			} else {
				if !strings.Contains(livedIn, c.oldLine) {
					t.Fatalf("fixture lacks %q", c.oldLine)
				}
				want = strings.Replace(livedIn, c.oldLine, c.newLn, 1)
			}
			if got != want {
				t.Fatalf("document:\n--- got\n%s\n--- want\n%s", got, want)
			}
			cfg := mustLoad(t, home)
			if !c.check(cfg) {
				t.Fatal("value not visible after reload")
			}
			st, _ := os.Stat(FilePath(home))
			if st.Mode().Perm() != 0o600 {
				t.Fatalf("mode after write-back = %v", st.Mode().Perm())
			}
		})
	}
}

func TestSetRefusesBadInputAndLeavesFileUntouched(t *testing.T) {
	cases := []struct {
		name, section, key string
		value              any
		want               string
	}{
		{"unknown key", "rag", "chunk_sise", 5, "unknown key rag.chunk_sise"},
		{"unknown section", "nope", "x", 5, "unknown section"},
		{"invalid value", "digest", "hour", 99, "digest.hour"},
		{"wrong type", "rag", "hybrid", "yes", "rag.hybrid"},
		{"unknown provider", "chat", "provider", "gemini", "chat.provider"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := writeConfig(t, livedIn)
			err := SetIn(home, c.section, c.key, c.value)
			if err == nil || !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want invalid mentioning %q", err, c.want)
			}
			if got := readConfig(t, home); got != livedIn {
				t.Fatal("a refused Set must leave the file byte-for-byte unchanged")
			}
		})
	}
}

func TestSetCreatesMissingFile0600(t *testing.T) {
	home := t.TempDir()
	if err := SetIn(home, "chat", "response_style", "brief"); err != nil {
		t.Fatal(err)
	}
	if got := readConfig(t, home); got != "[chat]\nresponse_style = 'brief'\n" {
		t.Fatalf("new file = %q", got)
	}
	st, _ := os.Stat(FilePath(home))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v", st.Mode().Perm())
	}
}

func TestSetTightensReadableFile(t *testing.T) {
	home := writeConfig(t, livedIn)
	if err := os.Chmod(FilePath(home), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetIn(home, "digest", "hour", 6); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(FilePath(home))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("write-back must leave 0600, got %v", st.Mode().Perm())
	}
}

func TestScannerHandlesTrickyStrings(t *testing.T) {
	doc := "[chat]\nresponse_style = \"\"\"\nline with ] and # and \\\"quote\\\"\n\"\"\"  # c\nprovider = \"ollama\"\n"
	out, err := setKey([]byte(doc), "chat", "provider", "'anthropic'")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(doc, "provider = \"ollama\"", "provider = 'anthropic'", 1)
	if string(out) != want {
		t.Fatalf("got %q", out)
	}
	out, err = setKey([]byte(doc), "chat", "response_style", "'x'")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "[chat]\nresponse_style = 'x'  # c\nprovider = \"ollama\"\n" {
		t.Fatalf("multi-line string replace: %q", out)
	}
}
