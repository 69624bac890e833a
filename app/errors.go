package app

import (
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// ErrorView is a failed call as the window receives it: the message, the
// stable code the window picks its wording by, and the hint on its own
// (not repeated inside the message).
type ErrorView struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// ViewError shapes an error for the window; the desktop app installs it as
// Wails' error formatter and the test bridge answers with it.
func ViewError(err error) ErrorView {
	hint := errs.HintOf(err)
	msg := err.Error()
	if hint != "" {
		msg = strings.TrimSuffix(msg, " ("+hint+")")
	}
	return ErrorView{Message: msg, Code: string(errs.CodeOf(err)), Hint: hint}
}
