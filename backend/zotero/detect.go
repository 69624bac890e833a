package zotero

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// profileDirs are where Zotero keeps its profiles (whose prefs.js may name
// a data folder other than ~/Zotero), relative to the home folder.
var profileDirs = []string{
	".zotero/zotero", // Linux
	"Library/Application Support/Zotero/Profiles", // macOS
	"AppData/Roaming/Zotero/Zotero/Profiles",      // Windows
}

var dataDirPref = regexp.MustCompile(`user_pref\("extensions\.zotero\.dataDir",\s*"((?:[^"\\]|\\.)*)"\);`)

// Detect returns the Zotero data folders (holding zotero.sqlite) found at
// Zotero's usual places in home, best first: a folder a profile's prefs.js
// names, then ~/Zotero.
func Detect(home string) []string {
	var found []string
	seen := map[string]bool{}
	add := func(dir string) {
		dir = filepath.Clean(dir)
		if seen[dir] {
			return
		}
		if st, err := os.Stat(filepath.Join(dir, DBName)); err == nil && st.Mode().IsRegular() {
			seen[dir] = true
			found = append(found, dir)
		}
	}
	for _, pd := range profileDirs {
		prefs, _ := filepath.Glob(filepath.Join(home, filepath.FromSlash(pd), "*", "prefs.js"))
		for _, p := range prefs {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if m := dataDirPref.FindSubmatch(data); m != nil {
				add(strings.ReplaceAll(strings.ReplaceAll(string(m[1]), `\\`, `\`), `\"`, `"`))
			}
		}
	}
	add(filepath.Join(home, "Zotero"))
	return found
}
