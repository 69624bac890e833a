// Package memory keeps the short facts and preferences the user asked
// Jarvis to remember ("I work on single-cell RNA-seq", "answer in British
// English"): a list the user sees, edits and deletes, sent with every turn.
// A fact marked private — or saved from a private session — is only ever
// given to sessions that are private already, so it never reaches a cloud
// model and never turns a public session private behind the user's back.
package memory

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// Limits keep memory a short list, not a second knowledge base: every fact
// is sent with every turn.
const (
	MaxFactChars = 500
	MaxFacts     = 100
)

// Fact is one remembered item.
type Fact struct {
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	Private   bool      `json:"private"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Store is the list on disk (one JSON file, 0600, written atomically).
type Store struct {
	Path string
	// Redact removes secrets before a fact is written (nil: none): the
	// file is durable text like the session files.
	Redact func(string) string
	Now    func() time.Time // nil: time.Now
	mu     sync.Mutex
}

type file struct {
	Facts []Fact `json:"facts"`
}

// List returns every fact, oldest first.
func (s *Store) List() ([]Fact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read()
}

// Add remembers a new fact.
func (s *Store) Add(text string, private bool) (Fact, error) {
	const op = "memory.Add"
	return s.edit(op, text, func(facts []Fact, text string) (Fact, error) {
		for _, f := range facts {
			if strings.EqualFold(f.Text, text) {
				if private && !f.Private { // the stricter wish wins
					f.Private = true
					return f, s.replace(facts, f)
				}
				return f, nil // already remembered
			}
		}
		if len(facts) >= MaxFacts {
			return Fact{}, errs.WithHint(errs.New(errs.Invalid, op, "memory holds %d facts, the most it keeps", MaxFacts),
				"delete facts you no longer need in Settings → Memory")
		}
		now := s.now()
		f := Fact{ID: newID(), Text: text, Private: private, CreatedAt: now, UpdatedAt: now}
		return f, s.write(append(facts, f))
	})
}

// Update changes a fact's text and privacy.
func (s *Store) Update(id, text string, private bool) (Fact, error) {
	const op = "memory.Update"
	return s.edit(op, text, func(facts []Fact, text string) (Fact, error) {
		i := slices.IndexFunc(facts, func(f Fact) bool { return f.ID == id })
		if i < 0 {
			return Fact{}, errs.New(errs.NotFound, op, "no remembered fact %q", id)
		}
		facts[i].Text, facts[i].Private, facts[i].UpdatedAt = text, private, s.now()
		return facts[i], s.write(facts)
	})
}

// edit cleans text, then applies change to the list under the lock.
func (s *Store) edit(op, text string, change func(facts []Fact, text string) (Fact, error)) (Fact, error) {
	text, err := s.clean(op, text)
	if err != nil {
		return Fact{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	facts, err := s.read()
	if err != nil {
		return Fact{}, err
	}
	return change(facts, text)
}

// Delete forgets a fact.
func (s *Store) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	facts, err := s.read()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(facts, func(f Fact) bool { return f.ID == id })
	if i < 0 {
		return errs.New(errs.NotFound, "memory.Delete", "no remembered fact %q", id)
	}
	return s.write(slices.Delete(facts, i, i+1))
}

// ForSession is the system-prompt block for a session: public facts for
// every session, private ones only when the session is private already.
// Empty when there is nothing to say.
func ForSession(facts []Fact, sessionPrivate bool) string {
	var b strings.Builder
	for _, f := range facts {
		if f.Private && !sessionPrivate {
			continue
		}
		fmt.Fprintf(&b, "- %s\n", f.Text)
	}
	if b.Len() == 0 {
		return ""
	}
	return "What the user asked you to remember (they manage this list in Settings → Memory; follow it unless they say otherwise now):\n" + b.String()
}

func (s *Store) clean(op, text string) (string, error) {
	text = strings.Join(strings.Fields(text), " ") // one line: a fact cannot smuggle structure into the prompt
	if s.Redact != nil {
		text = s.Redact(text)
	}
	if text == "" {
		return "", errs.New(errs.Invalid, op, "there is nothing to remember")
	}
	if n := utf8.RuneCountInString(text); n > MaxFactChars {
		return "", errs.WithHint(errs.New(errs.Invalid, op, "a fact to remember is %d characters; the limit is %d", n, MaxFactChars),
			"keep it to a sentence or two; longer material belongs in a note")
	}
	return text, nil
}

func (s *Store) read() ([]Fact, error) {
	var f file
	if _, err := fsutil.ReadJSON(s.Path, &f); err != nil {
		return nil, errs.Wrapf(errs.Internal, "memory", err, "cannot read %s", s.Path)
	}
	return f.Facts, nil
}

func (s *Store) replace(facts []Fact, f Fact) error {
	for i := range facts {
		if facts[i].ID == f.ID {
			f.UpdatedAt = s.now()
			facts[i] = f
		}
	}
	return s.write(facts)
}

func (s *Store) write(facts []Fact) error {
	if facts == nil {
		facts = []Fact{}
	}
	b, _ := json.MarshalIndent(file{Facts: facts}, "", "  ") // plain structs: always marshal
	err := fsutil.EnsurePrivateDir(filepath.Dir(s.Path))
	if err == nil {
		err = fsutil.WriteFileAtomic(s.Path, b, 0o600)
	}
	if err != nil {
		return errs.Wrapf(errs.Internal, "memory", err, "cannot write %s", s.Path)
	}
	return nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	return "mem-" + hex.EncodeToString(b)
}
