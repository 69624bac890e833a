package app

import (
	"runtime"

	"github.com/jarvis-kb/jarvis/backend/reveal"
)

// AddFile adds an empty file to a draft (the editor's "Add a file"); a
// name the draft already has is refused.
func (e *Editor) AddFile(id, file string) error { return e.ws.AddFile(id, file, "") }

// Reveal shows a draft file in the file manager; with no file, the draft's
// main file. The path goes through the drafts containment like every
// other, and the command is fixed (reveal.Command), never a shell.
func (e *Editor) Reveal(id, file string) error {
	if file == "" {
		d, err := e.ws.Get(id)
		if err != nil {
			return err
		}
		file = d.MainFile
	}
	path, err := e.ws.Resolve(id, file)
	if err != nil {
		return err
	}
	return e.core.reveal(path)
}

// DeleteDraft removes a draft, its files, versions and waiting proposals.
// Only the human reaches it (the editor asks first, naming the folder); no
// agent tool deletes anything.
func (e *Editor) DeleteDraft(id string) error { return e.ws.Delete(id) }

// reveal shows path in the platform's file manager through the launcher.
func (c *core) reveal(path string) error {
	argv, err := reveal.Command(runtime.GOOS, path)
	if err != nil {
		return err
	}
	return c.launch(argv)
}
