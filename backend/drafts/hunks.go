package drafts

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Hunk kinds, derived from the diff operations inside a hunk, never from its
// line counts: a hunk carries context on both sides, so neither side is ever
// empty and counting would call every change a replacement.
const (
	KindAdd     = "add"
	KindRemove  = "remove"
	KindReplace = "replace"
)

// contextLines around each change, as in a unified diff.
const contextLines = 3

// Hunk is one reviewable change with its context. Old/New ranges index the
// old and new files' lines (half-open). OldSpans/NewSpans are offsets,
// relative to the hunk's own lines, of the lines that actually change, so a
// UI tints only those and not the context.
type Hunk struct {
	Index    int      `json:"index"`
	Kind     string   `json:"kind"`
	OldStart int      `json:"old_start"`
	OldEnd   int      `json:"old_end"`
	NewStart int      `json:"new_start"`
	NewEnd   int      `json:"new_end"`
	OldLines []string `json:"old_lines"`
	NewLines []string `json:"new_lines"`
	OldSpans [][2]int `json:"old_spans"`
	NewSpans [][2]int `json:"new_spans"`
}

type opTag int

const (
	opEqual opTag = iota
	opDelete
	opInsert
	opReplace
)

type opcode struct {
	tag            opTag
	i1, i2, j1, j2 int
}

// splitLines keeps line endings so files rebuild byte for byte.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// opcodes computes line-level edit operations with go-diff's line mode,
// merging an adjacent delete and insert into one replace.
func opcodes(oldText, newText string) []opcode {
	dmp := diffmatchpatch.New()
	a, b, _ := dmp.DiffLinesToChars(oldText, newText)
	diffs := dmp.DiffMain(a, b, false)
	var ops []opcode
	i, j := 0, 0
	for _, d := range diffs {
		n := len([]rune(d.Text)) // one rune per line after DiffLinesToChars
		var op opcode
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			op = opcode{opEqual, i, i + n, j, j + n}
			i, j = i+n, j+n
		case diffmatchpatch.DiffDelete:
			op = opcode{opDelete, i, i + n, j, j}
			i += n
		case diffmatchpatch.DiffInsert:
			op = opcode{opInsert, i, i, j, j + n}
			j += n
		}
		if k := len(ops) - 1; k >= 0 && op.tag != opEqual && ops[k].tag != opEqual {
			// delete+insert (either order) at the same place: one replace
			ops[k] = opcode{opReplace, ops[k].i1, op.i2, ops[k].j1, op.j2}
			continue
		}
		ops = append(ops, op)
	}
	return ops
}

// BuildHunks groups the edit operations into hunks with contextLines of
// context, merging changes whose contexts would overlap.
func BuildHunks(oldText, newText string) []Hunk {
	oldLines, newLines := splitLines(oldText), splitLines(newText)
	ops := opcodes(oldText, newText)
	var groups [][]opcode
	var cur []opcode
	for idx, op := range ops {
		if op.tag != opEqual {
			cur = append(cur, op)
			continue
		}
		size := op.i2 - op.i1
		switch {
		case len(cur) == 0: // leading equal run: keep only trailing context
			lead := max(op.i2-contextLines, op.i1)
			cur = append(cur, opcode{opEqual, lead, op.i2, op.j2 - (op.i2 - lead), op.j2})
		case idx == len(ops)-1 || size > 2*contextLines: // close the group
			tail := min(op.i1+contextLines, op.i2)
			cur = append(cur, opcode{opEqual, op.i1, tail, op.j1, op.j1 + (tail - op.i1)})
			groups = append(groups, cur)
			lead := max(op.i2-contextLines, tail)
			cur = []opcode{{opEqual, lead, op.i2, op.j2 - (op.i2 - lead), op.j2}}
		default: // short equal run between changes stays inside the group
			cur = append(cur, op)
		}
	}
	if hasChange(cur) {
		groups = append(groups, cur)
	}
	var hunks []Hunk
	for _, g := range groups {
		g = trimEmpty(g)
		if !hasChange(g) {
			continue
		}
		h := Hunk{Index: len(hunks), OldStart: g[0].i1, OldEnd: g[len(g)-1].i2, NewStart: g[0].j1, NewEnd: g[len(g)-1].j2}
		h.OldLines = append([]string{}, oldLines[h.OldStart:h.OldEnd]...)
		h.NewLines = append([]string{}, newLines[h.NewStart:h.NewEnd]...)
		h.OldSpans, h.NewSpans = [][2]int{}, [][2]int{}
		adds, removes := false, false
		for _, op := range g {
			if op.tag == opEqual {
				continue
			}
			if op.i2 > op.i1 {
				removes = true
				h.OldSpans = append(h.OldSpans, [2]int{op.i1 - h.OldStart, op.i2 - h.OldStart})
			}
			if op.j2 > op.j1 {
				adds = true
				h.NewSpans = append(h.NewSpans, [2]int{op.j1 - h.NewStart, op.j2 - h.NewStart})
			}
		}
		switch {
		case adds && !removes:
			h.Kind = KindAdd
		case removes && !adds:
			h.Kind = KindRemove
		default:
			h.Kind = KindReplace
		}
		hunks = append(hunks, h)
	}
	return hunks
}

func hasChange(g []opcode) bool {
	for _, op := range g {
		if op.tag != opEqual {
			return true
		}
	}
	return false
}

func trimEmpty(g []opcode) []opcode {
	out := g[:0:0]
	for _, op := range g {
		if op.tag == opEqual && op.i1 == op.i2 {
			continue
		}
		out = append(out, op)
	}
	return out
}

// ApplyHunks rebuilds the file from oldText, taking each hunk in accepted
// from the new side and every other region from the old side.
func ApplyHunks(oldText string, hunks []Hunk, accepted map[int]bool) string {
	oldLines := splitLines(oldText)
	var b strings.Builder
	pos := 0
	for _, h := range hunks {
		for _, l := range oldLines[pos:h.OldStart] {
			b.WriteString(l)
		}
		side := h.OldLines
		if accepted[h.Index] {
			side = h.NewLines
		}
		for _, l := range side {
			b.WriteString(l)
		}
		pos = h.OldEnd
	}
	for _, l := range oldLines[pos:] {
		b.WriteString(l)
	}
	return b.String()
}
