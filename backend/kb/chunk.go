package kb

import (
	"strings"
	"unicode/utf8"
)

// Section is a run of Markdown under one heading path.
type Section struct {
	Breadcrumb string // "H1 › H2"
	Text       string
}

// SplitSections splits Markdown on ATX headings, tracking the heading path.
// Headings inside fenced code blocks are not headings.
func SplitSections(md string) []Section {
	var out []Section
	var path []string // path[i] = heading at level i+1
	var body strings.Builder
	inFence := false
	flush := func() {
		text := strings.TrimSpace(body.String())
		if text != "" {
			out = append(out, Section{Breadcrumb: breadcrumb(path), Text: text})
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
		}
		if level, title := heading(trimmed); !inFence && level > 0 {
			flush()
			for len(path) < level {
				path = append(path, "")
			}
			path = append(path[:level-1], title)
			continue
		}
		body.WriteString(line)
	}
	flush()
	return out
}

func heading(line string) (int, string) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level >= len(line) || line[level] != ' ' {
		return 0, ""
	}
	return level, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
}

func breadcrumb(path []string) string {
	var parts []string
	for _, p := range path {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " › ")
}

// SplitSize cuts text into pieces of at most size characters with overlap,
// preferring paragraph, then line, then sentence, then word boundaries.
// A size below one leaves the text whole (a zero-valued setting must not
// cut forever).
func SplitSize(text string, size, overlap int) []string {
	if size < 1 || utf8.RuneCountInString(text) <= size {
		return []string{text}
	}
	runes := []rune(text)
	var out []string
	start := 0
	for start < len(runes) {
		end := start + size
		if end >= len(runes) {
			out = append(out, strings.TrimSpace(string(runes[start:])))
			break
		}
		cut := boundary(runes, start, end)
		out = append(out, strings.TrimSpace(string(runes[start:cut])))
		next := cut - overlap
		if next <= start {
			next = cut
		}
		// Start the overlap on a word boundary.
		for next < cut && next > start && runes[next-1] != ' ' && runes[next-1] != '\n' {
			next++
		}
		start = next
	}
	var clean []string
	for _, c := range out {
		if c != "" {
			clean = append(clean, c)
		}
	}
	return clean
}

// boundary finds the best cut in runes[start:end]: the last paragraph break,
// else line break, else sentence end, else space, in the second half.
func boundary(runes []rune, start, end int) int {
	window := string(runes[start:end])
	half := len([]rune(window)) / 2
	for _, sep := range []string{"\n\n", "\n", ". ", " "} {
		if i := strings.LastIndex(window, sep); i >= 0 {
			pos := utf8.RuneCountInString(window[:i]) + utf8.RuneCountInString(sep)
			if pos >= half {
				return start + pos
			}
		}
	}
	return end
}

// ChunkMarkdown splits a document into chunks: by heading first, then by
// size. The breadcrumb and header are prepended to the embedded text only.
func ChunkMarkdown(md string, size, overlap int, embedHeader string) []Chunk {
	var out []Chunk
	for _, sec := range SplitSections(md) {
		for _, piece := range SplitSize(sec.Text, size, overlap) {
			embed := piece
			if sec.Breadcrumb != "" {
				embed = sec.Breadcrumb + "\n" + embed
			}
			if embedHeader != "" {
				embed = embedHeader + "\n" + embed
			}
			out = append(out, Chunk{Content: piece, EmbedText: embed, Meta: Metadata{Section: sec.Breadcrumb, ChunkIndex: len(out)}})
		}
	}
	return out
}
