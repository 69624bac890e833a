package memory

import "testing"

// A save needs the user to have asked, in any of the languages Jarvis is
// used in; a message that only talks about remembering, or mentions a
// word a cue is part of, asks for nothing.
func TestAskedFindsAnExplicitRequestInEachLanguage(t *testing.T) {
	for _, msg := range []string{
		"Remember that I prefer British English.",
		"please REMEMBER: my lab is the Tanaka lab",
		"Can you remember that I work on single-cell RNA-seq?",
		"Don’t forget my thesis is due in May",
		"note that I use R, not Python",
		"From now on, answer in German.",
		"keep in mind that I'm colour-blind",
		"Merk dir bitte, dass ich in Heidelberg arbeite.",
		"Vergiss nicht: ich schreibe auf Deutsch.",
		"Souviens-toi que je travaille sur l'ARN.",
		"N'oublie pas que je préfère les réponses courtes.",
		"À partir de maintenant, réponds en français.",
		"Recuerda que prefiero respuestas cortas.",
		"De ahora en adelante, responde en español.",
		"请记住我研究单细胞测序。",
		"記住我喜歡簡短的回答",
		"从现在开始用中文回答",
		"私はRを使うことを覚えておいてください。",
		"覚えていてね、私は京都にいます",
		"これからは日本語で答えて",
	} {
		if !Asked(msg) {
			t.Errorf("Asked(%q) = false, want true", msg)
		}
	}
	for _, msg := range []string{
		"", "hello", "What does the Acme paper say about remembering?",
		"Do you remember the paper on CRISPR screens?",
		"I remembered the deadline just in time.",
		"I remember reading this somewhere; find it.",
		"Summarise my notes on memory consolidation.",
		"¿Recuerdas el artículo de ayer?",
		"Ich habe das notiert.",
		"その論文を覚えていますか?",
		"你记得吗？那篇论文",
		"Write a draft about note-taking apps.",
	} {
		if Asked(msg) {
			t.Errorf("Asked(%q) = true, want false", msg)
		}
	}
}
