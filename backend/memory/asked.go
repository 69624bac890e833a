package memory

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrNotAsked is why a model's save is refused: the user's message does not
// ask to remember anything. Memory holds only what the user asked for; a
// model that thinks something worth keeping asks the user first.
var ErrNotAsked = errors.New("the user's message does not ask to remember anything")

// askCues are the ways people ask an assistant to keep something, in the
// languages Jarvis is used in. A cue in letters must stand as whole words
// ("remember", not "remembered"); one in Chinese or Japanese script is
// found anywhere. The list is short on purpose: what it misses, the model
// asks about, and the user says "remember" and it is saved.
var askCues = []string{
	// English
	"remember", "memorize", "memorise", "don't forget", "dont forget", "do not forget", "never forget",
	"note that", "note this", "note down", "make a note", "take a note", "take note", "keep in mind", "keep this in mind",
	"keep that in mind", "keep it in mind", "bear in mind", "from now on", "going forward", "for future reference",
	// German
	"merk dir", "merke dir", "merkt euch", "merken sie sich", "merk es dir", "vergiss nicht", "vergiss das nicht",
	"vergessen sie nicht", "nicht vergessen", "notier", "notiere", "notier dir", "notiere dir", "halte fest", "denk daran", "denk dran",
	"denken sie daran", "behalte im hinterkopf", "ab jetzt", "ab sofort", "von nun an",
	// French
	"souviens-toi", "souviens toi", "souvenez-vous", "rappelle-toi", "rappelez-vous", "retiens", "retenez", "n'oublie pas",
	"n'oubliez pas", "note que", "notez que", "note bien", "prends note", "prenez note", "garde en tête", "gardez en tête",
	"garde à l'esprit", "mémorise", "mémorisez", "à partir de maintenant", "désormais", "dorénavant",
	// Spanish
	"recuerda", "recuerde", "recordad", "acuérdate", "acuérdese", "no olvides", "no te olvides", "no olvide", "no se olvide",
	"toma nota", "tome nota", "anota", "anote", "apunta", "apunte", "ten en cuenta", "tenga en cuenta", "memoriza",
	"a partir de ahora", "de ahora en adelante", "desde ahora",
	// Italian and Portuguese
	"ricorda", "ricordati", "non dimenticare", "prendi nota", "tieni a mente", "memorizza", "d'ora in poi", "da ora in poi",
	"lembre-se", "lembra-te", "não esqueça", "não se esqueça", "a partir de agora", "de agora em diante",
	// Chinese (simplified and traditional)
	"记住", "記住", "记下", "記下", "记一下", "記一下", "别忘了", "別忘了", "不要忘记", "不要忘記", "请记得", "請記得",
	"从现在开始", "從現在開始", "从现在起", "從現在起", "以后都", "以後都",
	// Japanese
	"覚えて", "憶えて", "覚えといて", "覚えておいて", "忘れないで", "メモして", "メモしといて", "記憶して", "これからは", "今後は",
}

// notAsking are phrases that hold a cue without asking anything to be kept
// ("do you remember the paper…", "覚えている?"): they are taken out of the
// message before the cues are looked for.
var notAsking = []string{
	"do you remember", "did you remember", "don't you remember", "i remember", "i don't remember", "i can't remember",
	"i cannot remember", "if i remember", "if you remember", "as i remember", "as you remember",
	"覚えている", "覚えていま", "覚えてる", "覚えてま", "你记得吗", "你記得嗎",
}

// Asked reports whether a message the user wrote explicitly asks to keep
// something for later: "remember that I prefer British English", "from
// now on answer in German", "merk dir …", "souviens-toi …", "recuerda …",
// "记住…", "覚えておいて…".
func Asked(message string) bool {
	text := strings.ToLower(strings.NewReplacer("’", "'", "`", "'").Replace(message))
	for _, p := range notAsking {
		text = strings.ReplaceAll(text, p, " ")
	}
	for _, cue := range askCues {
		if hasCue(text, cue) {
			return true
		}
	}
	return false
}

// hasCue finds cue in text: anywhere for a cue in a script without spaces
// between words, else only as whole words.
func hasCue(text, cue string) bool {
	if r, _ := utf8.DecodeRuneInString(cue); !unicode.Is(unicode.Latin, r) {
		return strings.Contains(text, cue)
	}
	for from := 0; ; {
		i := strings.Index(text[from:], cue)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(cue):])
		if (i == 0 || !unicode.IsLetter(before)) && (i+len(cue) == len(text) || !unicode.IsLetter(after)) {
			return true
		}
		from = i + 1
	}
}
