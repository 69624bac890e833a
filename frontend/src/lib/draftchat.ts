// Messages sent from the editor's docked composer open with one line naming
// the draft and file (app/editor_chat.go DraftContext); the conversation
// beside the draft shows them without it.
const CONTEXT = /^\[Editing draft [0-9a-z-]+ "(?:[^"\\]|\\.)*", file [^\]\n]+\]\n\n/

export function withoutDraftContext(text: string): string {
  return text.replace(CONTEXT, '')
}
