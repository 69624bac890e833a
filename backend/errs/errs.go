// Package errs is Jarvis's one domain error type. Every package below the UI
// returns *Error (or wraps one) so callers can branch on a stable Code instead
// of matching message text, and the UI and CLI can map codes to exit statuses
// and dialogs.
package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable, machine-readable error class. The string values are part
// of the public contract (they appear in CLI output, events and logs): never
// rename one.
type Code string

const (
	NotFound   Code = "not_found"  // the named thing does not exist
	Invalid    Code = "invalid"    // the caller's input is wrong; fix it and retry
	Conflict   Code = "conflict"   // state moved underneath the caller (busy session, stale hash)
	Privacy    Code = "privacy"    // private data would reach a cloud model
	LLM        Code = "llm"        // a model provider failed
	Fetch      Code = "fetch"      // a remote source (arXiv, bioRxiv, a URL) failed
	RAG        Code = "rag"        // the knowledge-base store or index failed
	Conversion Code = "conversion" // a document could not be converted (PDF with no text, ...)
	Locked     Code = "locked"     // a document is encrypted: give its password
	Cancelled  Code = "cancelled"  // the user stopped the work
	Internal   Code = "internal"   // a bug or an environment fault
)

// Codes lists every code, for documentation and exhaustive tests.
var Codes = []Code{NotFound, Invalid, Conflict, Privacy, LLM, Fetch, RAG, Conversion, Locked, Cancelled, Internal}

// Error is a domain error. Op names the operation that failed ("config.Set"),
// Msg says what went wrong in words a user can act on, Hint optionally says
// what to do next, and Err is the underlying cause.
type Error struct {
	Code Code
	Op   string
	Msg  string
	Hint string
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	switch {
	case e.Msg != "" && e.Err != nil:
		b.WriteString(e.Msg)
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	case e.Msg != "":
		b.WriteString(e.Msg)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString(string(e.Code))
	}
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// New builds an error with a code and a formatted message.
func New(code Code, op, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Msg: fmt.Sprintf(format, args...)}
}

// Wrap attaches a code and operation to err. It returns nil for a nil err so
// it can wrap a call's result directly. Inner codes stay visible to Is, so a
// cancellation deep in a stack is still recognisable under an outer LLM code.
func Wrap(code Code, op string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Op: op, Err: err}
}

// Wrapf is Wrap with a message.
func Wrapf(code Code, op string, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Op: op, Msg: fmt.Sprintf(format, args...), Err: err}
}

// WithHint returns a copy of err's *Error with a hint, or wraps a foreign
// error as Internal with the hint.
func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Hint = hint
		return &c
	}
	return &Error{Code: Internal, Err: err, Hint: hint}
}

// CodeOf returns the code of the outermost *Error in err's chain, Cancelled
// for context cancellation, and Internal for anything else non-nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if isContextCancel(err) {
		return Cancelled
	}
	return Internal
}

// Is reports whether any *Error in err's chain has the given code.
func Is(err error, code Code) bool {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return code == Cancelled && isContextCancel(err)
		}
		if e.Code == code {
			return true
		}
		err = e.Err
	}
	return false
}

// HintOf returns the first hint found in err's chain.
func HintOf(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return ""
		}
		if e.Hint != "" {
			return e.Hint
		}
		err = e.Err
	}
	return ""
}

// ExitCode maps a code to a process exit status for the CLI, so scripts can
// tell "bad input" from "the store is broken".
func ExitCode(err error) int {
	switch CodeOf(err) {
	case "":
		return 0
	case Invalid, Locked:
		return 2
	case NotFound:
		return 3
	case Conflict:
		return 4
	case Privacy:
		return 5
	case Cancelled:
		return 130
	default:
		return 1
	}
}
