package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// Set persists one key of config.toml under HomeDir(). See SetIn.
func Set(section, key string, value any) error { return SetIn(HomeDir(), section, key, value) }

// SetIn rewrites section.key in <home>/config.toml to value. Only the bytes of
// that one value change: every other key, comment, blank line and the key's
// own trailing comment stay exactly as they were. The new document is parsed
// and validated before anything is written, so a bad value leaves the file
// untouched; the write itself is atomic (temp file + rename) and leaves the
// file mode 0600 because it can hold API keys.
func SetIn(home, section, key string, value any) error {
	const op = "config.Set"
	if err := checkSettable(section, key); err != nil {
		return err
	}
	literal, err := tomlLiteral(value)
	if err != nil {
		return errs.Wrapf(errs.Invalid, op, err, "%s.%s: cannot encode value", section, key)
	}
	path := FilePath(home)
	doc, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.Wrapf(errs.Internal, op, err, "cannot read %s", path)
	}
	updated, err := setKey(doc, section, key, literal)
	if err != nil {
		return errs.Wrapf(errs.Invalid, op, err, "cannot edit %s", path)
	}
	// Validate against the environment-free view: the file must be valid on
	// its own, whatever variables happen to be set in this process.
	cfg, err := parse(updated, home, func(string) string { return "" })
	if err != nil {
		return errs.Wrapf(errs.Invalid, op, err, "refusing to write %s.%s = %s", section, key, literal)
	}
	// A digest setting is checked even while the digest is off: a value
	// written now must not wait to fail until the digest is enabled.
	for _, p := range cfg.digestProblems() {
		if p.key == section+"."+key {
			return errs.Wrapf(errs.Invalid, op, p.err, "refusing to write %s.%s = %s", section, key, literal)
		}
	}
	if err := fsutil.WriteFileAtomic(path, updated, 0o600); err != nil {
		return errs.Wrapf(errs.Internal, op, err, "cannot write %s", path)
	}
	return nil
}

// checkSettable refuses keys the loader would ignore, so a typo in a settings
// call fails loudly instead of writing a key that never takes effect.
func checkSettable(section, key string) error {
	if section == "models" {
		for _, p := range KnownProviders {
			if p == key {
				return nil
			}
		}
		return errs.New(errs.Invalid, "config.Set", "models.%s: unknown provider", key)
	}
	cfg := Defaults()
	sections := fieldsByTag(reflect.ValueOf(&cfg).Elem())
	sec, ok := sections[section]
	if !ok || sec.Kind() != reflect.Struct {
		return errs.New(errs.Invalid, "config.Set", "unknown section [%s]", section)
	}
	if _, ok := fieldsByTag(sec)[key]; !ok {
		return errs.New(errs.Invalid, "config.Set", "unknown key %s.%s", section, key)
	}
	return nil
}

// tomlLiteral renders value as a TOML value literal on one line.
func tomlLiteral(value any) (string, error) {
	if qs, ok := value.([]Quota); ok {
		pairs := make([][]any, len(qs))
		for i, q := range qs {
			pairs[i] = []any{q.Name, q.Limit}
		}
		value = pairs
	}
	out, err := toml.Marshal(map[string]any{"v": value})
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(out))
	lit, ok := strings.CutPrefix(s, "v = ")
	if !ok || strings.Contains(lit, "\n") {
		return "", fmt.Errorf("value %v does not render as a single TOML value", value)
	}
	return lit, nil
}

// setKey returns doc with section.key set to literal, touching nothing else.
func setKey(doc []byte, section, key, literal string) ([]byte, error) {
	stmts, err := scanStatements(doc)
	if err != nil {
		return nil, err
	}
	current := ""
	sectionSeen := false
	insertAt := -1 // where a new key goes if the section exists but lacks it
	for _, st := range stmts {
		switch st.kind {
		case stmtHeader:
			current = st.name
			if current == section {
				sectionSeen = true
				insertAt = st.end
			}
		case stmtKey:
			if current != section {
				continue
			}
			if st.name == key {
				var b bytes.Buffer
				b.Write(doc[:st.valueStart])
				b.WriteString(literal)
				b.Write(doc[st.valueEnd:])
				return b.Bytes(), nil
			}
			insertAt = st.end
		}
	}
	line := key + " = " + literal + "\n"
	if sectionSeen {
		var b bytes.Buffer
		b.Write(doc[:insertAt])
		if insertAt > 0 && doc[insertAt-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		b.Write(doc[insertAt:])
		return b.Bytes(), nil
	}
	var b bytes.Buffer
	b.Write(doc)
	if len(doc) > 0 {
		if doc[len(doc)-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[%s]\n%s", section, line)
	return b.Bytes(), nil
}

// excludeMu serialises read-modify-write of vault.exclude within a process.
var excludeMu sync.Mutex

// ExcludeFromVault adds rel (a vault-relative slash path) to vault.exclude,
// in config.toml (every other line kept) and in c, so the next vault sync
// does not index the note again. Listed already, it changes nothing.
func (c *Config) ExcludeFromVault(rel string) error {
	excludeMu.Lock()
	defer excludeMu.Unlock()
	if slices.Contains(c.Vault.Exclude, rel) {
		return nil
	}
	list := append(slices.Clone(c.Vault.Exclude), rel)
	if err := SetIn(c.Home, "vault", "exclude", list); err != nil {
		return err
	}
	c.Vault.Exclude = list
	return nil
}
