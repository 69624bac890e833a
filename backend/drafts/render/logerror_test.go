package render

import (
	"slices"
	"testing"
)

func TestFirstErrorFileLineForm(t *testing.T) {
	log := "This is pdfTeX\n(./broken.aux)\n./broken.tex:4: Undefined control sequence.\nl.4 \\foo\n        {bar} baz \nHere is how much of TeX's memory you used:\n" +
		"./broken.tex:4:  ==> Fatal error occurred, no output PDF file produced!\n./broken.tex:9: a later error\n"
	e, ok := FirstError(log)
	if !ok || e.Message != "Undefined control sequence." || e.File != "broken.tex" || e.Line != 4 {
		t.Fatalf("%v %+v", ok, e)
	}
	if !slices.Equal(e.Context, []string{"l.4 \\foo", "        {bar} baz"}) {
		t.Fatalf("context %q", e.Context)
	}
}

func TestFirstErrorBangFormWithContextBeforeThePointer(t *testing.T) {
	log := "Error producing PDF.\n! Font \\XeTeXLink@font=pzdr at 0.00002pt not loadable: Metric (TFM) file or ins\ntalled font not found.\n<to be read again> \n                   \\relax \nl.4872   \\font\\XeTeXLink@font=pzdr at 1sp\\relax\n\n! Emergency stop.\n"
	e, ok := FirstError(log)
	if !ok || e.Message != "Font \\XeTeXLink@font=pzdr at 0.00002pt not loadable: Metric (TFM) file or ins" || e.Line != 4872 || e.File != "" {
		t.Fatalf("%v %+v", ok, e)
	}
	want := []string{"talled font not found.", "<to be read again>", "                   \\relax", "l.4872   \\font\\XeTeXLink@font=pzdr at 1sp\\relax"}
	if !slices.Equal(e.Context, want) {
		t.Fatalf("context %q", e.Context)
	}
}

func TestFirstErrorWithoutPointerStopsAtABlankLine(t *testing.T) {
	e, ok := FirstError("./paper.tex:2: LaTeX Error: File `nonexist.sty' not found.\n\nType X to quit or <RETURN> to proceed,\nor enter new name. (Default extension: sty)\n\nEnter file name: \n")
	if !ok || e.Message != "LaTeX Error: File `nonexist.sty' not found." || e.Line != 2 || e.File != "paper.tex" {
		t.Fatalf("%v %+v", ok, e)
	}
	if !slices.Equal(e.Context, []string{"Type X to quit or <RETURN> to proceed,", "or enter new name. (Default extension: sty)"}) {
		t.Fatalf("context %q", e.Context)
	}
	if _, ok := FirstError("Output written on x.pdf (1 page).\nTranscript written on x.log.\n"); ok {
		t.Fatal("a clean log has no error")
	}
}
