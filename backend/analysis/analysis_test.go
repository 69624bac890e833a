package analysis

import (
	"slices"
	"testing"
)

func overlap(a, b []string) bool {
	for _, t := range a {
		if slices.Contains(b, t) {
			return true
		}
	}
	return false
}

func TestCJKRunsBecomeBigrams(t *testing.T) {
	if got := Terms("怎样设置快捷键", English); !slices.Contains(got, "快捷") || !slices.Contains(got, "捷键") || slices.Contains(got, "怎样设置快捷键") {
		t.Fatalf("zh: %q", got)
	}
	if got := Terms("树", English); !slices.Equal(got, []string{"树"}) {
		t.Fatalf("a lone character stays a unigram: %q", got)
	}
	// Japanese: a note titled ホットキー is found by a question that runs it into a particle and a verb.
	if !overlap(Terms("ホットキーを変更する", English), Terms("ホットキー", English)) {
		t.Fatal("ja: question and title share no term")
	}
	// Mixed runs split at the script change: "PDF" stays a word.
	if got := Terms("PDF文件", English); !slices.Contains(got, "pdf") || !slices.Contains(got, "文件") {
		t.Fatalf("mixed: %q", got)
	}
}

func TestKoreanParticleKeepsTheWord(t *testing.T) {
	for _, q := range []string{"파일을", "파일에", "파일이"} {
		if got := Terms(q, English); !slices.Contains(got, "파일") {
			t.Fatalf("%s: %q", q, got)
		}
	}
}

func TestThaiSegmentsByGraphemes(t *testing.T) {
	got := Terms("คัดลอกไฟล์", English) // "copy file", no spaces
	if len(got) < 3 {
		t.Fatalf("thai run not segmented: %q", got)
	}
	for _, g := range got {
		r := []rune(g)
		if len(r) > 0 && (r[0] == 'ั' || r[0] == '์') {
			t.Fatalf("a term starts with a combining mark: %q", got)
		}
	}
	if !overlap(Terms("วิธีคัดลอกไฟล์", English), Terms("ไฟล์", English)) {
		t.Fatal("thai: question and word share no term")
	}
}

func TestRussianAndGermanInflections(t *testing.T) {
	ru := Terms("файлы файлов файлами", English)
	if ru[0] != ru[1] || ru[1] != ru[2] {
		t.Fatalf("ru forms differ: %q", ru)
	}
	if Terms("йод", English)[0] == Terms("иод", English)[0] {
		t.Fatal("й folded into и")
	}
	if Terms("ёлка", English)[0] != Terms("елка", English)[0] {
		t.Fatal("ё and е differ")
	}
	de := Terms("Dateien Datei", "de")
	if de[0] != de[1] {
		t.Fatalf("de forms differ: %q", de)
	}
	// English stop words are words in German.
	if got := Terms("die Datei", "de"); len(got) != 2 {
		t.Fatalf("de: %q", got)
	}
}

func TestNFKCFoldsWidthForms(t *testing.T) {
	if got := Terms("ＰＤＦ　ﾌｧｲﾙ", English); !slices.Contains(got, "pdf") || !slices.Contains(got, "ファ") {
		t.Fatalf("%q", got)
	}
}

func TestEnglishAsBefore(t *testing.T) {
	got := Terms("The landlords' Café in 2024 had a TLB gpt4 s", English)
	want := []string{"landlord", "cafe", "2024", "tlb", "gpt4"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestDetect(t *testing.T) {
	for want, text := range map[Lang]string{
		"en": "Extract the archive into the current directory and list the files it contains.",
		"de": "Entpacke das Archiv in das aktuelle Verzeichnis und zeige die enthaltenen Dateien an.",
		"fr": "Extraire l'archive dans le répertoire courant et afficher les fichiers qu'elle contient.",
	} {
		if got := Detect(text); got != want {
			t.Errorf("%s: detected %s", want, got)
		}
	}
	if Detect("Datei") != English {
		t.Error("too little text should fall back to English")
	}
	langs := QueryLangs("Datei komprimieren", []Lang{"de"})
	if !slices.Equal(langs, []Lang{"en", "de"}) {
		t.Fatalf("%v", langs)
	}
	var terms []string
	EachQuery("Dateien", langs, func(t string, n int) { terms = append(terms, t) })
	if !slices.Contains(terms, Terms("Datei", "de")[0]) {
		t.Fatalf("merged query terms %q miss the German stem", terms)
	}
}

func TestLanguageNamesTheMainLanguage(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"怎样设置快捷键？先打开设置，再选择快捷键页面。", "zh"},
		{"ホットキーを変更するには、設定画面を開いてください。", "ja"},
		{"단축키를 바꾸려면 설정을 여세요.", "ko"},
		{"การตั้งค่าปุ่มลัดอยู่ในหน้าการตั้งค่า", "th"},
		{"Горячие клавиши можно изменить в настройках программы.", "ru"},
		{"Die Tastenkürzel lassen sich in den Einstellungen der Anwendung jederzeit ändern, auch für Vorlagen.", "de"},
		{"The hotkeys can be changed in the settings of the application, and so can the templates.", "en"},
		{"Sparse attention for long documents, annotated: 这个方法很好", "en"},
		{"12345 — 67", "en"},
	} {
		if got := Language(c.text); got != c.want {
			t.Errorf("Language(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
