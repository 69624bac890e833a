package render

import (
	"regexp"
	"strconv"
	"strings"
)

// LogError is the first error a TeX run reported, as the editor shows it:
// the message, where it happened when TeX said, and the lines TeX printed
// after it (the "l.N" line with the text up to the error and the rest).
type LogError struct {
	Message string   `json:"message"`
	File    string   `json:"file,omitempty"`
	Line    int      `json:"line,omitempty"` // 1-based; 0 when unknown
	Context []string `json:"context"`
}

var (
	// fileLineError is "./main.tex:12: message" (-file-line-error).
	fileLineError = regexp.MustCompile(`^(?:\./)?([^:\s][^:]*\.(?:tex|sty|cls|bib|ltx|md)):(\d+): (.+)$`)
	// contextLine is TeX's "l.12 \foo" pointer into the source.
	contextLine = regexp.MustCompile(`^l\.(\d+)\b`)
)

// maxContext bounds the lines kept after the error line.
const maxContext = 8

// FirstError finds the first error in a TeX (or pandoc) log: a line
// beginning "! " (TeX's own marker) or "file:line: " (latexmk's
// -file-line-error form), with its context. ok is false when the log
// reports no error in either form.
func FirstError(log string) (e LogError, ok bool) {
	lines := strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "! ") {
			e.Message = strings.TrimSpace(l[2:])
		} else if m := fileLineError.FindStringSubmatch(l); m != nil && !strings.HasPrefix(strings.TrimSpace(m[3]), "==> Fatal error") {
			e.File, e.Message = m[1], strings.TrimSpace(m[3])
			e.Line, _ = strconv.Atoi(m[2])
		} else {
			continue
		}
		at = i
		break
	}
	if at < 0 {
		return LogError{}, false
	}
	// The context runs to TeX's "l.N" pointer and the line after it (the
	// rest of the source line), else to the first blank line.
	e.Context = []string{}
	for i := at + 1; i < len(lines) && len(e.Context) < maxContext; i++ {
		l := strings.TrimRight(lines[i], " ")
		if m := contextLine.FindStringSubmatch(l); m != nil {
			e.Context = append(e.Context, l)
			if e.Line == 0 {
				e.Line, _ = strconv.Atoi(m[1])
			}
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				e.Context = append(e.Context, strings.TrimRight(lines[i+1], " "))
			}
			return e, true
		}
		if strings.TrimSpace(l) == "" {
			if len(e.Context) > 0 {
				break
			}
			continue
		}
		e.Context = append(e.Context, l)
	}
	return e, true
}
