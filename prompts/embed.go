// Package prompts ships Jarvis's default prompt texts inside the binary.
// The running copies live in ~/.jarvis/prompts (see backend/prompts); these
// files are never written at run time, which is what makes "revert to
// default" always safe.
package prompts

import "embed"

// FS holds the shipped defaults, one Markdown file per prompt.
//
//go:embed *.md
var FS embed.FS
