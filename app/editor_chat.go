package app

import (
	"fmt"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/drafts"
)

// DraftSession is the conversation docked beside a draft in the editor:
// the one recorded in draft.json when it is still there, else a new one
// named after the draft. A private draft's conversation starts private, so
// it can never go to a cloud model; it answers from the model's own
// knowledge as well as the knowledge base (it is about writing, not only
// about sources).
func (e *Editor) DraftSession(id string) (SessionView, error) {
	d, err := e.ws.Get(id)
	if err != nil {
		return SessionView{}, err
	}
	if d.ChatSession != "" {
		if v, err := e.chat.Open(d.ChatSession); err == nil {
			return v, nil
		}
	}
	v, err := e.chat.New("", false)
	if err != nil {
		return SessionView{}, err
	}
	if _, err := e.chat.set(v.ID, func(s *chat.Session) error {
		s.Title = truncateRunes("Draft: "+d.Title, chat.MaxTitle)
		if d.Visibility == drafts.Private {
			s.MarkPrivate()
		}
		return nil
	}); err != nil {
		return SessionView{}, err
	}
	if err := e.ws.SetChatSession(id, v.ID); err != nil {
		return SessionView{}, err
	}
	return e.chat.Open(v.ID)
}

// AskAboutDraft sends a message from the editor's docked composer. The
// message carries one line naming the draft and the open file, so the
// agent's draft tools (read_draft, propose_draft_edit) act on what the
// human is looking at; what it proposes arrives in the editor's review.
func (e *Editor) AskAboutDraft(sessionID, id, file, message string) error {
	d, err := e.ws.Get(id)
	if err != nil {
		return err
	}
	if file == "" {
		file = d.MainFile
	}
	if _, err := e.ws.Resolve(id, file); err != nil {
		return err
	}
	return e.chat.Send(sessionID, DraftContext(d.ID, d.Title, file)+message)
}

// DraftContext is the line that opens a message sent from beside a draft.
// The window shows the message without it (frontend/src/lib/draftchat.ts
// knows its shape).
func DraftContext(id, title, file string) string {
	return fmt.Sprintf("[Editing draft %s %q, file %s]\n\n", id, title, file)
}

func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
