package app

import (
	"context"
	gosync "sync"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// Emit sends a named event to the window (Wails events in the app, the
// test bridge's event stream in end-to-end tests).
type Emit func(name string, data any)

// ChatEvent is the event name every turn event is sent under.
const ChatEvent = "chat"

// Chat serves sessions and turns.
type Chat struct {
	core   *core
	emit   Emit
	getenv func(string) string

	mu     gosync.Mutex
	open   map[string]*chat.Session // sessions the window has open, by id
	replay map[string][]chat.Event  // the running turn's events so far, by session
}

// SessionRow is one sidebar entry.
type SessionRow struct {
	chat.Summary
	Busy bool `json:"busy"`
}

// SessionView is an opened session. Messages are Markdown; the window
// renders them (frontend/src/lib/markdown.ts).
type SessionView struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Spec    string `json:"spec"`
	Private bool   `json:"private"`
	KBOnly  bool   `json:"kbOnly"`
	Pinned  bool   `json:"pinned"`
	// ServedModel is the model that actually answered when a router picked
	// another than the one asked for ("" otherwise, and after a switch).
	ServedModel string `json:"servedModel"`
	// CostUSD is the spend the provider reported, and Cost its breakdown by
	// the model that answered. A session no provider reported a cost for
	// has no Cost rows, and the window shows no cost at all — never $0.00.
	CostUSD float64       `json:"costUsd"`
	Cost    []ModelCost   `json:"cost"`
	Busy    bool          `json:"busy"`
	Display []DisplayView `json:"display"`
	// Pending is a question a crash left unanswered (no turn runs for it).
	Pending string `json:"pending"`
	// Cloud: the model runs elsewhere, so what it is sent leaves the
	// machine; AsksBeforeSending: found passages wait for the user first.
	Cloud             bool `json:"cloud"`
	AsksBeforeSending bool `json:"asksBeforeSending"`
}

// ModelCost is one model's share of a session's reported spend.
type ModelCost = chat.ModelCost

// DisplayView is one shown message. Offline marks a search-only answer
// (no language model was reachable), which the window labels apart.
type DisplayView struct {
	chat.DisplayItem
	Offline bool `json:"offline,omitempty"`
}

func (c *Chat) view(s *chat.Session) SessionView {
	v := SessionView{ID: s.ID, Title: s.Title, Spec: s.ModelSpec(), Private: s.Private, KBOnly: s.KBOnly, Pinned: s.Pinned,
		ServedModel: s.ServedModel, Busy: c.core.agent().Runner.Busy(s.ID), Display: make([]DisplayView, 0, len(s.Display))}
	v.Cost, v.CostUSD = s.Costs()
	for _, m := range s.Display {
		v.Display = append(v.Display, DisplayView{DisplayItem: m, Offline: m.Offline()})
	}
	if !v.Busy {
		v.Pending = s.Pending
	}
	v.Cloud = llm.IsCloud(s.ModelSpec())
	v.AsksBeforeSending = c.core.agent().Runner.Asks(s)
	return v
}

// session returns an open session, loading it on first use.
func (c *Chat) session(id string) (*chat.Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.open[id]; ok {
		return s, nil
	}
	s, err := c.core.agent().Sessions.Load(id)
	if err != nil {
		return nil, err
	}
	c.open[id] = s
	return s, nil
}

// List is the sidebar: saved sessions plus open unsaved ones.
func (c *Chat) List() ([]SessionRow, error) {
	saved, _ := c.core.agent().Sessions.List() // unreadable files are skipped and logged by the store
	out := []SessionRow{}
	seen := map[string]bool{}
	for _, s := range saved {
		out = append(out, SessionRow{Summary: s, Busy: c.core.agent().Runner.Busy(s.ID)})
		seen[s.ID] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, s := range c.open {
		if !seen[id] {
			out = append(out, SessionRow{Summary: chat.Summary{ID: id, Title: s.Title, Updated: s.Updated, Spec: s.ModelSpec()}, Busy: c.core.agent().Runner.Busy(id)})
		}
	}
	return out, nil
}

// New starts a session with a model spec ("" = the configured default).
func (c *Chat) New(spec string, kbOnly bool) (SessionView, error) {
	cfg := c.cfg()
	if spec == "" {
		spec = cfg.Chat.Provider
	}
	sp, err := llm.Resolve(cfg, spec)
	if err != nil {
		return SessionView{}, err
	}
	s := c.core.agent().Sessions.New(sp, kbOnly)
	c.mu.Lock()
	c.open[s.ID] = s
	c.mu.Unlock()
	c.warm(s.ModelSpec())
	return c.view(s), nil
}

// warm loads a local model in the background (Ollama's keep_alive), so the
// first answer of a chat just opened, started or switched to it does not
// wait for the load.
func (c *Chat) warm(spec string) {
	// The provider reads the settings, so it is made under the turns lock.
	c.core.turns.RLock()
	warm := c.core.agent().Warmer(spec)
	c.core.turns.RUnlock()
	if warm != nil {
		c.core.goBackground(warm)
	}
}

// Open loads a session for display.
func (c *Chat) Open(id string) (SessionView, error) {
	s, err := c.session(id)
	if err != nil {
		return SessionView{}, err
	}
	c.warm(s.ModelSpec())
	return c.view(s), nil
}

// Send starts a turn; its events arrive as "chat" events.
func (c *Chat) Send(id, message string) error {
	s, err := c.session(id)
	if err != nil {
		return err
	}
	c.core.turns.RLock()
	defer c.core.turns.RUnlock()
	_, err = c.core.agent().Runner.Start(context.Background(), s, message, c.relay(id))
	return err
}

// Continue asks the model to go on with the session's reply that was cut
// off at the output limit; it runs as a turn like Send.
func (c *Chat) Continue(id string) error {
	s, err := c.session(id)
	if err != nil {
		return err
	}
	c.core.turns.RLock()
	defer c.core.turns.RUnlock()
	_, err = c.core.agent().Runner.Continue(context.Background(), s, c.relay(id))
	return err
}

// anyBusy reports whether a turn is running in any open session (turns
// only run in sessions the window opened).
func (c *Chat) anyBusy() bool {
	c.mu.Lock()
	ids := make([]string, 0, len(c.open))
	for id := range c.open {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	r := c.core.agent().Runner
	for _, id := range ids {
		if r.Busy(id) {
			return true
		}
	}
	return false
}

// relay forwards a new turn's events to the window and keeps them for a
// window that reopens mid-turn.
func (c *Chat) relay(id string) func(chat.Event) {
	c.mu.Lock()
	if c.replay == nil {
		c.replay = map[string][]chat.Event{}
	}
	c.replay[id] = nil
	c.mu.Unlock()
	return func(e chat.Event) {
		c.mu.Lock()
		switch e.Kind {
		case chat.EventReply, chat.EventError, chat.EventStopped:
			delete(c.replay, id)
		default:
			c.replay[id] = append(c.replay[id], e)
		}
		c.mu.Unlock()
		c.emit(ChatEvent, e)
	}
}

// TurnInFlight is a running turn as a reopened window needs it: the
// question and every event so far (with their sequence numbers), so the
// window can show the tool box and any pending confirmation again.
type TurnInFlight struct {
	Question string       `json:"question"`
	Events   []chat.Event `json:"events"`
}

// Replay returns the session's running turn, or nil when it is idle.
func (c *Chat) Replay(id string) *TurnInFlight {
	if !c.core.agent().Runner.Busy(id) {
		return nil
	}
	q := c.core.agent().Runner.Question(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	return &TurnInFlight{Question: q, Events: append([]chat.Event{}, c.replay[id]...)}
}

// Stop rolls the session's turn back at once.
func (c *Chat) Stop(id string) bool { return c.core.agent().Runner.Stop(id) }

// Confirm answers a confirmation by its token.
func (c *Chat) Confirm(token string, yes bool) error {
	return c.core.agent().Confirm.Answer(token, yes)
}

// Review answers a review of what a cloud model would be sent: send it
// (withholding the passages at those indexes) or cancel the turn.
func (c *Chat) Review(token string, send bool, withhold []int) error {
	return c.core.agent().Confirm.Decide(token, chat.Decision{Send: send, Withhold: withhold})
}

// SetAskBeforeSending switches, for this session, whether found passages
// wait for the user before a cloud model gets them.
func (c *Chat) SetAskBeforeSending(id string, on bool) (SessionView, error) {
	return c.set(id, func(s *chat.Session) error { s.SetAsks(on); return nil })
}

// NeedsCompaction says whether the next turn will compact first.
func (c *Chat) NeedsCompaction(id string) (bool, error) {
	s, err := c.session(id)
	if err != nil {
		return false, err
	}
	return chat.NeedsCompaction(s, c.core.agent().Runner.CompactAfter, c.core.agent().Runner.CompactKeep), nil
}

// Rename sets a session's title.
func (c *Chat) Rename(id, title string) (SessionView, error) {
	return c.change(id, func(s *chat.Session) error { return c.core.agent().Runner.Rename(s, title) })
}

// SetPinned pins or unpins a session.
func (c *Chat) SetPinned(id string, pinned bool) (SessionView, error) {
	return c.change(id, func(s *chat.Session) error { return c.core.agent().Runner.SetPinned(s, pinned) })
}

// SetModel switches a session's model; a private session refuses cloud ones.
func (c *Chat) SetModel(id, spec string) (SessionView, error) {
	v, err := c.set(id, func(s *chat.Session) error {
		sp, err := llm.ValidateSwitch(c.cfg(), spec, s.Private, c.getenv)
		if err != nil {
			return err
		}
		s.SwitchModel(sp)
		return nil
	})
	if err == nil {
		c.warm(v.Spec)
	}
	return v, err
}

// SetKBOnly toggles "answer from the knowledge base only".
func (c *Chat) SetKBOnly(id string, on bool) (SessionView, error) {
	return c.set(id, func(s *chat.Session) error { s.KBOnly = on; return nil })
}

// Delete removes a session and its indexed exchanges.
func (c *Chat) Delete(id string) error {
	if c.core.agent().Runner.Busy(id) {
		return errs.New(errs.Conflict, "chat.Delete", "stop the running answer before deleting this session")
	}
	c.mu.Lock()
	delete(c.open, id)
	c.mu.Unlock()
	return c.core.agent().Sessions.Delete(id)
}

// Models is the model picker's catalogue, from the configuration as the
// file says now.
func (c *Chat) Models(current string) []llm.CatalogueEntry {
	return llm.Catalogue(c.cfg(), current, c.getenv)
}

// cfg re-reads config.toml, so a hand edit of the model catalogue, a key
// or a default reaches the picker and the next switch without a restart.
// A file that no longer loads is logged, and the configuration the window
// started with is used meanwhile.
func (c *Chat) cfg() *config.Config {
	now, err := c.core.agent().Cfg.Now()
	if err != nil {
		logs.L().Warn("config re-read failed; using the settings loaded at start", "err", err)
	}
	return now
}

// set changes an open session's settings through the runner (refused while
// it answers; saved once it has a turn) and returns the new view.
func (c *Chat) set(id string, fn func(*chat.Session) error) (SessionView, error) {
	return c.change(id, func(s *chat.Session) error { return c.core.agent().Runner.Change(s, fn) })
}

// change runs do on the open session and returns its view.
func (c *Chat) change(id string, do func(*chat.Session) error) (SessionView, error) {
	s, err := c.session(id)
	if err != nil {
		return SessionView{}, err // a session that was never saved lives only in memory
	}
	if err := do(s); err != nil {
		return SessionView{}, err
	}
	return c.view(s), nil
}
