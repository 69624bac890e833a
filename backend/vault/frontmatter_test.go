package vault

import (
	"slices"
	"strings"
	"testing"
)

// Obsidian's own notes carry aliases and CSS classes as lists of strings,
// and link related notes from frontmatter, quoted or not.
const obsidianFrontmatter = `aliases:
  - ACME
  - Acme Biosciences
cssclasses:
  - soft-embed
  - wide
related: [[Hiring plan]]
see_also:
  - "[[Interview notes#Round 2|round two]]"
  - [[Offer letter]]
people: [[Jane Doe]]
links_text: "not a [[link]] on its own"
steps:
  - name: apply
`

func TestParseRecordKeepsListsAliasesAndWikilinks(t *testing.T) {
	rec, warns := ParseRecord(obsidianFrontmatter)
	if strings.Join(rec.Aliases, "|") != "ACME|Acme Biosciences" {
		t.Errorf("aliases = %q", rec.Aliases)
	}
	if rec.Extra["x_cssclasses"] != "soft-embed, wide" {
		t.Errorf("cssclasses = %q", rec.Extra["x_cssclasses"])
	}
	if rec.Extra["x_related"] != "[[Hiring plan]]" || rec.Extra["x_see_also"] != "[[Interview notes#Round 2|round two]], [[Offer letter]]" {
		t.Errorf("links are kept as written: %q", rec.Extra)
	}
	if rec.Extra["x_links_text"] != "not a [[link]] on its own" {
		t.Errorf("text mentioning a link: %q", rec.Extra["x_links_text"])
	}
	var links []string
	for _, l := range rec.Links {
		links = append(links, l.Key+"="+l.Target)
	}
	want := []string{"people=Jane Doe", "related=Hiring plan", "see_also=Interview notes", "see_also=Offer letter"}
	if !slices.Equal(links, want) {
		t.Errorf("links = %q, want %q", links, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `"steps" has a nested value`) {
		t.Errorf("only the list of maps is skipped: %q", warns)
	}
}

func TestAliasesAndLinkTargetsAreSearchable(t *testing.T) {
	chunks, _ := BuildNote(Note{FilePath: "orgs/acme.md", Source: "local", Text: "---\n" + obsidianFrontmatter + "---\n# Acme\n\nWe met them in May.\n", Visibility: "public"}, 1024, 0)
	if len(chunks) != 1 {
		t.Fatalf("chunks = %+v", chunks)
	}
	embed := chunks[0].EmbedText
	for _, want := range []string{"aliases: ACME, Acme Biosciences", "related: Hiring plan", "see_also: Interview notes, Offer letter", "people: Jane Doe"} {
		if !strings.Contains(embed, want) {
			t.Errorf("embed text lacks %q:\n%s", want, embed)
		}
	}
	if strings.Contains(embed, "[[") {
		t.Errorf("link targets are plain text for search:\n%s", embed)
	}
	if chunks[0].Content != "# Acme\n\nWe met them in May." && !strings.Contains(chunks[0].Content, "We met them in May.") {
		t.Errorf("content = %q", chunks[0].Content)
	}
}
