package errs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestErrorMessageAndCode(t *testing.T) {
	base := fs.ErrNotExist
	err := Wrapf(NotFound, "prompts.Load", base, "prompt %q missing", "x")
	if got, want := err.Error(), `prompts.Load: prompt "x" missing: file does not exist`; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("errors.Is must see through Wrapf")
	}
	if CodeOf(err) != NotFound || !Is(err, NotFound) || Is(err, Invalid) {
		t.Fatalf("code mismatch: %v", CodeOf(err))
	}
}

func TestNestedCodesAreAllVisible(t *testing.T) {
	inner := New(Cancelled, "llm.stream", "stopped by user")
	outer := Wrap(LLM, "chat.turn", fmt.Errorf("turn: %w", inner))
	if CodeOf(outer) != LLM {
		t.Fatalf("outer code = %v", CodeOf(outer))
	}
	if !Is(outer, Cancelled) {
		t.Fatal("Is must find the inner cancelled code")
	}
}

func TestContextCancelIsCancelled(t *testing.T) {
	err := fmt.Errorf("fetch: %w", context.Canceled)
	if CodeOf(err) != Cancelled || !Is(err, Cancelled) {
		t.Fatal("context.Canceled must map to Cancelled")
	}
	if ExitCode(err) != 130 {
		t.Fatalf("exit = %d", ExitCode(err))
	}
}

func TestWrapNilIsNil(t *testing.T) {
	if Wrap(Internal, "x", nil) != nil || Wrapf(Internal, "x", nil, "m") != nil || WithHint(nil, "h") != nil {
		t.Fatal("wrapping nil must give nil")
	}
}

func TestHint(t *testing.T) {
	err := WithHint(New(RAG, "kb.Open", "embedding model mismatch"), "run `jarvis-cli kb reindex`")
	if HintOf(fmt.Errorf("open: %w", err)) != "run `jarvis-cli kb reindex`" {
		t.Fatalf("hint lost: %v", err)
	}
	if got := err.Error(); got != "kb.Open: embedding model mismatch (run `jarvis-cli kb reindex`)" {
		t.Fatalf("Error() = %q", got)
	}
}

func TestExitCodes(t *testing.T) {
	cases := map[Code]int{Invalid: 2, Locked: 2, NotFound: 3, Conflict: 4, Privacy: 5, RAG: 1, Internal: 1}
	for code, want := range cases {
		if got := ExitCode(New(code, "", "x")); got != want {
			t.Errorf("ExitCode(%s) = %d, want %d", code, got, want)
		}
	}
	if ExitCode(nil) != 0 || ExitCode(errors.New("plain")) != 1 {
		t.Fatal("nil -> 0, foreign -> 1")
	}
	// The design's ten, and locked (an encrypted document: the caller must
	// give its password, which the window asks for).
	if len(Codes) != 11 {
		t.Fatalf("the design names 10 codes plus locked, have %d", len(Codes))
	}
}
