// Package chat is the agent: tools over the knowledge base and drafts, the
// turn runner, and persistent sessions. This file holds the sessions.
package chat

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// FormatVersion 2 stores the neutral transcript.
const FormatVersion = 2

// DefaultTitle names a session until its first question does.
const DefaultTitle = "New chat"

// MaxTitle caps session titles.
const MaxTitle = 120

// DefaultKeep is how many unpinned sessions survive pruning.
const DefaultKeep = 50

var sessionID = regexp.MustCompile(`^[0-9a-z-]{1,64}$`)

// ValidateSessionID refuses anything that could become a path trick.
func ValidateSessionID(id string) error {
	if !sessionID.MatchString(id) {
		return errs.New(errs.Invalid, "chat.session", "invalid session id %q", id)
	}
	return nil
}

// DisplayItem is one entry of what the human sees (the transcript holds what
// the model sees; the two cannot be rebuilt from each other).
type DisplayItem struct {
	Role      string     `json:"role"` // user | assistant | tool | status
	Text      string     `json:"text"`
	Citations []Citation `json:"citations,omitempty"`
	Tools     []string   `json:"tools,omitempty"` // what the agent did for this reply
	// Withheld is the user-only line appended to Text when private matches
	// were kept from a cloud model; it is never indexed or shown to a model.
	Withheld string `json:"withheld,omitempty"`
	// Sent says what this turn sent to a cloud model ("sent 3 passages
	// from 2 documents to anthropic:…"); empty when nothing left the
	// machine. The records are in the cloud ledger.
	Sent string    `json:"sent,omitempty"`
	At   time.Time `json:"at"`
	// Stop and Notice label a reply that did not end normally: "length"
	// (the text is partial, "cut off at the output limit") or a refusal
	// (the text is a notice, not an answer). Empty for a normal answer.
	Stop   string `json:"stop,omitempty"`
	Notice string `json:"notice,omitempty"`
	// OwnKnowledge marks a reply the model gave (in part) from general
	// knowledge after calling use_own_knowledge; NoEvidence one where the
	// knowledge base was searched and nothing citable survived, so the
	// reply is the fixed not-enough-evidence answer.
	OwnKnowledge bool `json:"own_knowledge,omitempty"`
	NoEvidence   bool `json:"no_evidence,omitempty"`
	// Continued marks a question that is a continuation's prompt, not the
	// user's words: ContinuedByUser (they chose Continue) or ContinuedAuto
	// (the task went on by itself at the tool-call limit). Empty for what
	// the user wrote, and in sessions saved before it was kept.
	Continued string `json:"continued,omitempty"`
}

// withheldSep separates a reply from its Withheld line inside Text.
const withheldSep = "\n\n"

// Citation points at retrieved evidence.
type Citation = kbtools.Citation

// ModelCost is one model's share of a session's reported spend.
type ModelCost struct {
	Model    string  `json:"model"`
	USD      float64 `json:"usd"`
	Requests int     `json:"requests"`
}

// Costs is the session's reported spend per model (sorted by model; models
// whose provider reported no cost are left out) and its total.
func (s *Session) Costs() ([]ModelCost, float64) {
	out := []ModelCost{}
	total := 0.0
	for _, model := range slices.Sorted(maps.Keys(s.Cost)) {
		u := s.Cost[model]
		if u.Reported == 0 {
			continue // requests made, but no cost was reported for them
		}
		out = append(out, ModelCost{Model: model, USD: u.USD, Requests: u.Requests})
		total += u.USD
	}
	return out, total
}

// Session is one persisted conversation.
type Session struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Pinned  bool      `json:"pinned"`
	Private bool      `json:"private"` // set by the first private tool result; never cleared
	KBOnly  bool      `json:"kb_only"`
	// PublicOnly: the answers go to a model we do not run (an MCP client
	// asked), so for privacy this is a cloud session whatever model writes
	// them.
	PublicOnly       bool                 `json:"public_only,omitempty"`
	Provider         string               `json:"provider"`
	Model            string               `json:"model"`
	FormatVersion    int                  `json:"format_version"`
	Messages         []llm.Message        `json:"messages"`
	Display          []DisplayItem        `json:"display"`
	Cost             map[string]llm.Usage `json:"cost"`
	ServedModel      string               `json:"served_model,omitempty"`
	TurnStarts       []int                `json:"turn_starts"`
	IndexedExchanges int                  `json:"indexed_exchanges"`
	// Carried lists the documents whose text the transcript holds (every
	// turn's retrievals, cited or not): each later request sends them
	// again, and its ledger record says so.
	Carried []ledger.Source `json:"carried,omitempty"`
	// Pending is the question of a turn in flight, saved before the model
	// is called and cleared when the turn ends. Found set on a session no
	// turn is running for, it is a question a crash left unanswered.
	Pending string `json:"pending,omitempty"`
	// AskBeforeSending is this session's own switch for reviewing what a
	// cloud model is sent (nil: the ledger.ask_before_sending default).
	AskBeforeSending *bool `json:"ask_before_sending,omitempty"`
}

// ModelSpec recombines provider and model.
func (s *Session) ModelSpec() string { return llm.Spec{Provider: s.Provider, Model: s.Model}.String() }

// MarkPrivate flags the session private for good.
func (s *Session) MarkPrivate() { s.Private = true }

// CheckResume refuses to continue a private session under a cloud model:
// once private content is in the transcript, the transcript is private.
func (s *Session) CheckResume(spec string) error {
	if s.Private && llm.IsCloud(spec) {
		return errs.New(errs.Privacy, "chat.resume", "session %q holds private notes and cannot continue with the cloud model %s", s.Title, spec)
	}
	return nil
}

// RecordUsage adds a provider's reported cost under the model that actually
// answered, and remembers a routed pick only while it differs from the
// requested model.
func (s *Session) RecordUsage(served string, u *llm.Usage) {
	if u == nil {
		return
	}
	key := s.ModelSpec()
	if served != "" && served != s.Model {
		key = llm.Spec{Provider: s.Provider, Model: served}.String()
		s.ServedModel = served
	} else {
		s.ServedModel = ""
	}
	if s.Cost == nil {
		s.Cost = map[string]llm.Usage{}
	}
	c := s.Cost[key]
	c.USD += u.USD
	c.Requests += u.Requests
	c.Reported += u.Reported
	s.Cost[key] = c
}

// Sessions stores one JSON file per session (dir 0700, files 0600, atomic).
type Sessions struct {
	Dir  string
	Keep int
	Now  func() time.Time
	// Redact scrubs secrets from every byte written (nil: none): whatever
	// a turn carried — an error echoing a key, a pasted token — the file on
	// disk never holds it.
	Redact func(string) string
	// OnDelete removes a deleted session's indexed chat chunks.
	OnDelete func(id string) error
}

func (st *Sessions) now() time.Time {
	if st.Now != nil {
		return st.Now()
	}
	return time.Now()
}

func (st *Sessions) path(id string) (string, error) {
	if err := ValidateSessionID(id); err != nil {
		return "", err
	}
	return filepath.Join(st.Dir, id+".json"), nil
}

// New starts an unsaved session for a concrete provider:model spec.
func (st *Sessions) New(spec llm.Spec, kbOnly bool) *Session {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	now := st.now().UTC()
	return &Session{
		ID: now.Format("20060102-150405") + "-" + hex.EncodeToString(b), Title: DefaultTitle, Created: now, Updated: now,
		Provider: spec.Provider, Model: spec.Model, KBOnly: kbOnly, FormatVersion: FormatVersion,
		Messages: []llm.Message{}, Display: []DisplayItem{}, Cost: map[string]llm.Usage{}, TurnStarts: []int{},
	}
}

// Save writes the session and prunes. An empty session is never written,
// and one rolled back to empty (its first question stopped) leaves no file.
func (st *Sessions) Save(s *Session) error {
	p, err := st.path(s.ID)
	if err != nil {
		return err
	}
	if len(s.Messages) == 0 && len(s.Display) == 0 && s.Pending == "" {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errs.Wrap(errs.Internal, "chat.Save", err)
		}
		return nil
	}
	if err := fsutil.EnsurePrivateDir(st.Dir); err != nil {
		return errs.Wrap(errs.Internal, "chat.Save", err)
	}
	s.Updated = st.now().UTC()
	s.FormatVersion = FormatVersion
	b, err := json.Marshal(s)
	if err != nil {
		return errs.Wrap(errs.Internal, "chat.Save", err)
	}
	if st.Redact != nil {
		// Secrets are plain ASCII tokens, so they appear in the JSON as they
		// are and their replacement keeps it valid.
		b = []byte(st.Redact(string(b)))
	}
	if err := fsutil.WriteFileAtomic(p, b, 0o600); err != nil {
		return errs.Wrap(errs.Internal, "chat.Save", err)
	}
	return st.prune()
}

// Load reads one session.
func (st *Sessions) Load(id string) (*Session, error) {
	p, err := st.path(id)
	if err != nil {
		return nil, err
	}
	var s Session
	found, err := fsutil.ReadJSON(p, &s)
	if err != nil {
		return nil, errs.Wrapf(errs.Internal, "chat.Load", err, "cannot read session %s", id)
	}
	if !found {
		return nil, errs.New(errs.NotFound, "chat.Load", "no session %s", id)
	}
	if s.FormatVersion != FormatVersion {
		return nil, errs.New(errs.Invalid, "chat.Load", "session %s has format %d; this Jarvis reads %d", id, s.FormatVersion, FormatVersion)
	}
	return &s, nil
}

// Summary is a sidebar entry.
type Summary struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Updated time.Time `json:"updated"`
	Pinned  bool      `json:"pinned"`
	Private bool      `json:"private"`
	Spec    string    `json:"spec"`
}

// List returns every readable session, pinned first, newest first. An
// unreadable file is skipped (and reported by the caller's logs), never fatal.
func (st *Sessions) List() ([]Summary, []error) {
	entries, err := os.ReadDir(st.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		logs.L().Error("sessions dir unreadable", "dir", st.Dir, "err", err)
		return nil, []error{errs.Wrap(errs.Internal, "chat.List", err)}
	}
	var out []Summary
	var problems []error
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || ValidateSessionID(id) != nil {
			continue
		}
		s, err := st.Load(id)
		if err != nil {
			logs.L().Warn("session file skipped", "id", id, "err", err)
			problems = append(problems, err)
			continue
		}
		out = append(out, Summary{ID: s.ID, Title: s.Title, Updated: s.Updated, Pinned: s.Pinned, Private: s.Private, Spec: s.ModelSpec()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pinned != out[j].Pinned {
			return out[i].Pinned
		}
		return out[i].Updated.After(out[j].Updated)
	})
	return out, problems
}

// prune keeps the Keep most recently updated unpinned sessions of each
// visibility. Counting them apart keeps the public history — which a cloud
// model can search — the same whatever number of private sessions exist.
func (st *Sessions) prune() error {
	keep := st.Keep
	if keep <= 0 {
		keep = DefaultKeep
	}
	list, _ := st.List() // List logs unreadable files; they are never pruned, not being in the list
	n := map[bool]int{}
	for _, s := range list {
		if s.Pinned {
			continue
		}
		n[s.Private]++
		if n[s.Private] > keep {
			if err := st.Delete(s.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delete removes a session's file and its indexed chat chunks.
func (st *Sessions) Delete(id string) error {
	p, err := st.path(id)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.Wrap(errs.Internal, "chat.Delete", err)
	}
	if st.OnDelete != nil {
		if err := st.OnDelete(id); err != nil {
			return errs.Wrapf(errs.RAG, "chat.Delete", err, "session file removed, but its indexed chat chunks were not")
		}
	}
	return nil
}

// CleanTitle trims a session title and caps it at MaxTitle characters; an
// empty title is refused.
func CleanTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", errs.New(errs.Invalid, "chat.Rename", "a session title cannot be empty")
	}
	if utf8.RuneCountInString(title) > MaxTitle {
		title = string([]rune(title)[:MaxTitle])
	}
	return title, nil
}

// SwitchModel moves the session to another model from its next turn. A
// routed pick belonged to the model replaced, so the served model is
// cleared with it.
func (s *Session) SwitchModel(spec llm.Spec) {
	s.Provider, s.Model, s.ServedModel = spec.Provider, spec.Model, ""
}
