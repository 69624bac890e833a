package root

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func run(t *testing.T, home string, args ...string) (string, string, error) {
	t.Helper()
	t.Setenv("JARVIS_HOME", home)
	io, _, out, errb := iostreams.Test()
	cmd := New(Deps{IO: io, LoadConfig: config.Load, Getenv: func(string) string { return "" }})
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

func TestHelpListsEveryCommandGroup(t *testing.T) {
	out, _, err := run(t, t.TempDir(), "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kb", "sync", "digest", "convert-pdf", "ask", "doctor", "config", "models"} {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("--help does not list %q:\n%s", name, out)
		}
	}
}

// A typo under a command that only groups others fails, with the likely
// command named; the group alone still prints its help.
func TestUnknownSubcommandsFail(t *testing.T) {
	home := t.TempDir()
	_, _, err := run(t, home, "kb", "index")
	if !errs.Is(err, errs.Invalid) || errs.ExitCode(err) == 0 || !strings.Contains(err.Error(), `unknown command "index"`) ||
		!strings.Contains(errs.HintOf(err), "jarvis-cli kb index-vault") {
		t.Fatalf("kb index: %v (hint %q)", err, errs.HintOf(err))
	}
	if _, _, err := run(t, home, "models", "frobnicate"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("models frobnicate: %v", err)
	}
	out, _, err := run(t, home, "kb")
	if err != nil || !strings.Contains(out, "index-vault") {
		t.Fatalf("kb alone: %v\n%s", err, out)
	}
}

func TestMissingInputExitsNonZero(t *testing.T) {
	_, _, err := run(t, t.TempDir(), "convert-pdf", "x.pdf")
	if !errs.Is(err, errs.NotFound) || errs.ExitCode(err) == 0 {
		t.Fatalf("a missing file must fail with a clear, non-zero error: %v", err)
	}
}

func TestConfigSetThroughCLIKeepsComments(t *testing.T) {
	home := t.TempDir()
	doc := "# mine\n[chat]\nresponse_style = \"x\" # keep\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, home, "config", "set", "chat.response_style", "Be brief."); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	if string(got) != "# mine\n[chat]\nresponse_style = 'Be brief.' # keep\n" {
		t.Fatalf("config after set: %q", got)
	}
	if _, _, err := run(t, home, "config", "set", "digest.hour", "25"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("invalid value must be refused: %v", err)
	}
	out, _, err := run(t, home, "config", "show")
	if err != nil || !strings.Contains(out, "provider: ollama") {
		t.Fatalf("show: %v\n%s", err, out)
	}
}

// A fresh home with no models and no chat provider is usable by keyword:
// doctor passes, and warns about each missing piece with the mode it leaves.
func TestDoctorWarnsAboutMissingModels(t *testing.T) {
	out, _, err := run(t, t.TempDir(), "doctor")
	if err != nil {
		t.Fatalf("doctor failed on a fresh home: %v\n%s", err, out)
	}
	for _, want := range []string{"warn  embedding model BAAI/bge-small-en-v1.5 not loaded", "keyword-only", "ok    prompt system_prompt",
		"configuration: built-in defaults", "search mode: keyword", "warn  chat model ollama:"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

func TestDoctorOnInvalidConfig(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[rag]\nchunk_size = \"x\"\n"), 0o600)
	out, _, err := run(t, home, "doctor")
	if !errs.Is(err, errs.Invalid) || !strings.Contains(out, "rag.chunk_size") {
		t.Fatalf("doctor on bad config: %v\n%s", err, out)
	}
}

// The CLI and the backend must build on machines without GTK/WebKit: nothing
// under backend/ or cmd/ may depend on Wails.
func TestNoWailsImport(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/jarvis-kb/jarvis/cmd/...", "github.com/jarvis-kb/jarvis/backend/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "wailsapp") || strings.Contains(line, "github.com/jarvis-kb/jarvis/app") {
			t.Fatalf("forbidden dependency %s", line)
		}
	}
}

func TestModelsInstallOfflineThenVerify(t *testing.T) {
	home := t.TempDir()
	src := t.TempDir()
	for _, p := range []string{"onnx/model.onnx", "tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json"} {
		os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte("content of "+p), 0o644)
	}
	out, _, err := run(t, home, "models", "install-offline", "--from", src, "BAAI/bge-small-en-v1.5")
	if err != nil || !strings.Contains(out, "installed BAAI/bge-small-en-v1.5") {
		t.Fatalf("install-offline: %v\n%s", err, out)
	}
	if out, _, err := run(t, home, "models", "verify", "BAAI/bge-small-en-v1.5"); err != nil || !strings.Contains(out, "ok BAAI/bge-small-en-v1.5") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	out, _, _ = run(t, home, "models", "list")
	if !strings.Contains(out, "BAAI/bge-small-en-v1.5") || !strings.Contains(out, "installed") {
		t.Fatalf("list:\n%s", out)
	}
	if _, _, err := run(t, home, "models", "install-offline", "BAAI/bge-small-en-v1.5"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("missing --from must be invalid: %v", err)
	}
}
