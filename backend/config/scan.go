package config

import (
	"fmt"
	"strings"
)

// A minimal TOML statement scanner for in-place edits. It does not interpret
// values; it only finds where each table header and key/value statement
// starts and ends (values may span lines: arrays, multi-line strings), which
// is all a byte-preserving single-key rewrite needs. Full parsing is left to
// go-toml, which validates the edited document afterwards.

type stmtKind int

const (
	stmtHeader stmtKind = iota
	stmtKey
)

type statement struct {
	kind       stmtKind
	name       string // table name for headers, key for key/values
	valueStart int    // byte offset of the value (key/values only)
	valueEnd   int    // byte offset just past the value
	end        int    // byte offset just past the statement's line ending
}

func scanStatements(doc []byte) ([]statement, error) {
	s := string(doc)
	var out []statement
	i := 0
	line := 1
	for i < len(s) {
		// Skip leading horizontal space.
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '\n':
			i++
			line++
			continue
		case c == '\r':
			i++
			continue
		case c == '#':
			i = lineEnd(s, i)
			continue
		case c == '[':
			close := strings.IndexByte(s[i:], ']')
			if close < 0 {
				return nil, fmt.Errorf("line %d: unterminated table header", line)
			}
			name := strings.Trim(s[i:i+close], "[] \t")
			end := lineEnd(s, i+close)
			out = append(out, statement{kind: stmtHeader, name: unquoteKey(name), end: end})
			line += strings.Count(s[i:end], "\n")
			i = end
			continue
		}
		eq := strings.IndexByte(s[i:], '=')
		nl := strings.IndexByte(s[i:], '\n')
		if eq < 0 || (nl >= 0 && nl < eq) {
			return nil, fmt.Errorf("line %d: expected key = value", line)
		}
		key := unquoteKey(strings.TrimSpace(s[i : i+eq]))
		v := i + eq + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		vend, err := valueEnd(s, v)
		if err != nil {
			return nil, fmt.Errorf("line %d: key %s: %w", line, key, err)
		}
		end := lineEnd(s, vend)
		out = append(out, statement{kind: stmtKey, name: key, valueStart: v, valueEnd: vend, end: end})
		line += strings.Count(s[i:end], "\n")
		i = end
	}
	return out, nil
}

// lineEnd returns the offset just past the newline ending the line holding i.
func lineEnd(s string, i int) int {
	nl := strings.IndexByte(s[i:], '\n')
	if nl < 0 {
		return len(s)
	}
	return i + nl + 1
}

func unquoteKey(k string) string {
	if len(k) >= 2 && (k[0] == '"' && k[len(k)-1] == '"' || k[0] == '\'' && k[len(k)-1] == '\'') {
		return k[1 : len(k)-1]
	}
	return k
}

// valueEnd returns the offset just past the TOML value starting at i.
func valueEnd(s string, i int) (int, error) {
	if i >= len(s) {
		return 0, fmt.Errorf("missing value")
	}
	switch s[i] {
	case '"', '\'':
		return stringEnd(s, i)
	case '[', '{':
		depth := 0
		for j := i; j < len(s); {
			switch s[j] {
			case '"', '\'':
				e, err := stringEnd(s, j)
				if err != nil {
					return 0, err
				}
				j = e
				continue
			case '#':
				j = lineEnd(s, j)
				continue
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
			j++
		}
		return 0, fmt.Errorf("unterminated array or inline table")
	default:
		// Bare scalar (number, boolean, date-time): runs to a comment or EOL.
		j := i
		for j < len(s) && s[j] != '\n' && s[j] != '#' && s[j] != '\r' {
			j++
		}
		return i + len(strings.TrimRight(s[i:j], " \t")), nil
	}
}

// stringEnd returns the offset just past the string literal starting at i,
// covering basic, literal and both multi-line forms.
func stringEnd(s string, i int) (int, error) {
	q := s[i]
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(s[i:], triple) {
		for j := i + 3; j < len(s); j++ {
			if q == '"' && s[j] == '\\' {
				j++
				continue
			}
			if strings.HasPrefix(s[j:], triple) {
				end := j + 3
				// Up to two quote characters may directly precede the closer.
				for k := 0; k < 2 && end < len(s) && s[end] == q; k++ {
					end++
				}
				return end, nil
			}
		}
		return 0, fmt.Errorf("unterminated multi-line string")
	}
	for j := i + 1; j < len(s); j++ {
		switch {
		case q == '"' && s[j] == '\\':
			j++
		case s[j] == q:
			return j + 1, nil
		case s[j] == '\n':
			return 0, fmt.Errorf("unterminated string")
		}
	}
	return 0, fmt.Errorf("unterminated string")
}
