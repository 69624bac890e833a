// Package ocr reads the words off page images with Tesseract.
//
// It runs the tesseract binary, one process per page, rather than linking
// libtesseract: a page that hangs or balloons is a child that is killed at
// its time limit and refused memory by the kernel (RLIMIT_AS through
// prlimit), not a cgo call that takes the window down with it; and the
// binary is the one stock package every distribution ships, with the
// traineddata the user already installed beside it. The cost, ~50 ms of
// process start per page, is small beside recognition (about a second).
package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/priority"
)

// InstallHint says how to get OCR, where it is missing.
const InstallHint = "install Tesseract to read scans and images: sudo apt install tesseract-ocr tesseract-ocr-eng (add tesseract-ocr-<lang> for other languages)"

// Limits bound one page's recognition.
type Limits struct {
	Timeout   time.Duration // one page
	MaxMemory int64         // address space of the tesseract process
	MaxPixels int           // page images larger than this are refused unread
}

// DefaultLimits: a dense A4 page at 300 dpi takes 1-3 s and ~150 MB; a
// poster at 300 dpi is ~50 Mpx, which is refused rather than recognised.
var DefaultLimits = Limits{Timeout: 60 * time.Second, MaxMemory: 2 << 30, MaxPixels: 40_000_000}

// Engine is an installed Tesseract and the languages it reads with. A nil
// *Engine is "no OCR": callers hold one or not, like a model.
type Engine struct {
	bin       string
	prlimit   string   // util-linux prlimit, "" when absent (no memory cap then)
	Installed []string // traineddata found, without osd
	Languages []string // what recognition uses, a subset of Installed
	Limits    Limits
	// Background runs recognition at background priority (the tray's inbox
	// scans), so it yields the CPU to the window's searches.
	Background bool
	// Observe, when set, hears what each tesseract process cost (for
	// benchmarks and diagnostics; nil in normal use, when nothing is measured).
	Observe func(Run)
}

// Run is what one tesseract process cost.
type Run struct {
	Wall time.Duration
	CPU  time.Duration // user and system time of the process
	// PeakRSS is the process's own peak resident memory in bytes (its
	// VmHWM, sampled while it runs). Not the kernel's rusage Maxrss: Go
	// starts children with vfork, and at exec the kernel counts the
	// parent's peak as the child's, so a tesseract started by a 200 MB
	// process "peaks" at 200 MB whatever it used.
	PeakRSS int64
}

// The limits a page's recognition can hit (LimitError.Limit).
const (
	TimeLimit   = "time"
	MemoryLimit = "memory"
	PixelLimit  = "pixels"
)

// LimitError is a page that one of Limits refused (too many pixels) or
// stopped (time, memory): that page is left unread and the engine is
// sound, so the pages after it are read. Recognize returns it as a
// Conversion error (errors.As finds it).
type LimitError struct {
	Limit string // TimeLimit, MemoryLimit or PixelLimit
	Msg   string
}

func (e *LimitError) Error() string { return e.Msg }

// LimitOf is the limit err says a page hit, "" when it hit none.
func LimitOf(err error) string {
	var le *LimitError
	if errors.As(err, &le) {
		return le.Limit
	}
	return ""
}

// limitErr is a LimitError as Recognize returns it.
func limitErr(op, limit, hint, format string, args ...any) error {
	return errs.WithHint(errs.Wrap(errs.Conversion, op, &LimitError{Limit: limit, Msg: fmt.Sprintf(format, args...)}), hint)
}

// Lookup finds tesseract on PATH and the languages it can read. want are
// the languages asked for ([pdf] ocr_languages, Tesseract's codes such as
// eng, deu, chi_sim); empty takes every installed one. A language asked
// for but not installed is an Invalid error naming the package to add; no
// tesseract at all is NotFound with InstallHint.
func Lookup(want []string) (*Engine, error) {
	const op = "ocr.Lookup"
	bin, err := exec.LookPath("tesseract")
	if err != nil {
		return nil, errs.WithHint(errs.Wrapf(errs.NotFound, op, err, "Tesseract is not installed"), InstallHint)
	}
	e := &Engine{bin: bin, Limits: DefaultLimits}
	if p, err := exec.LookPath("prlimit"); err == nil {
		e.prlimit = p
	}
	if e.Installed, err = e.listLanguages(); err != nil {
		return nil, err
	}
	if len(e.Installed) == 0 {
		return nil, errs.WithHint(errs.New(errs.NotFound, op, "Tesseract has no language data installed"), InstallHint)
	}
	if len(want) == 0 {
		e.Languages = defaultLanguages(e.Installed)
		return e, nil
	}
	for _, l := range want {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !slices.Contains(e.Installed, l) {
			return nil, errs.WithHint(errs.New(errs.Invalid, op, "OCR language %q is not installed (installed: %s)", l, strings.Join(e.Installed, ", ")),
				"sudo apt install tesseract-ocr-"+strings.ReplaceAll(l, "_", "-")+", or change [pdf] ocr_languages")
		}
		e.Languages = append(e.Languages, l)
	}
	if len(e.Languages) == 0 {
		e.Languages = defaultLanguages(e.Installed)
	}
	return e, nil
}

// defaultLanguages is every installed language with English first when it
// is there: Tesseract lays the page out by the first language, and an
// alphabetical list would put, say, chi_sim in charge of English papers.
func defaultLanguages(installed []string) []string {
	out := slices.Clone(installed)
	if i := slices.Index(out, "eng"); i > 0 {
		out = append([]string{"eng"}, slices.Delete(out, i, i+1)...)
	}
	return out
}

func (e *Engine) listLanguages() ([]string, error) {
	out, err := exec.Command(e.bin, "--list-langs").CombinedOutput()
	if err != nil {
		return nil, errs.Wrapf(errs.Internal, "ocr.Lookup", err, "tesseract --list-langs: %s", strings.TrimSpace(string(out)))
	}
	var langs []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "List of") || l == "osd" {
			continue
		}
		langs = append(langs, l)
	}
	slices.Sort(langs)
	return langs, nil
}

// Word is one recognised word, its box in image pixels.
type Word struct {
	Text                   string
	X0, Y0, X1, Y1         int
	Block, Paragraph, Line int     // Tesseract's layout, numbered per page
	Confidence             float64 // 0-100
}

// Result is one image's words in reading order.
type Result struct {
	Words []Word
	// LineHeights: per (block, paragraph, line), the line's height in
	// pixels, which stands in for the font size.
	LineHeights map[[3]int]int
}

// Confidence is the mean word confidence, 0 without words.
func (r Result) Confidence() float64 {
	if len(r.Words) == 0 {
		return 0
	}
	sum := 0.0
	for _, w := range r.Words {
		sum += w.Confidence
	}
	return sum / float64(len(r.Words))
}

// Recognize reads image (PNG, JPEG, TIFF: anything Leptonica decodes) of
// width×height pixels scanned at dpi. Too many pixels is refused before
// Tesseract sees them; the time limit and ctx kill the process.
func (e *Engine) Recognize(ctx context.Context, image []byte, width, height, dpi int) (Result, error) {
	const op = "ocr.Recognize"
	if e.Limits.MaxPixels > 0 && width*height > e.Limits.MaxPixels {
		return Result{}, limitErr(op, PixelLimit, "a poster or a huge photo; Jarvis moves on without its text",
			"the page image is %d×%d pixels, more than the %d Mpx Jarvis reads", width, height, e.Limits.MaxPixels/1_000_000)
	}
	// Tesseract gone since Lookup (uninstalled, a moved binary) is the
	// engine broken, not the page: no later page will fare better. (Under
	// prlimit a missing binary would otherwise look like a failed page.)
	if _, err := os.Stat(e.bin); err != nil {
		return Result{}, errs.WithHint(errs.Wrapf(errs.Internal, op, err, "tesseract is no longer there"), InstallHint)
	}
	pctx, cancel := context.WithTimeout(ctx, e.Limits.Timeout)
	defer cancel()
	args := []string{"stdin", "stdout", "-l", strings.Join(e.Languages, "+"), "--dpi", strconv.Itoa(dpi), "--psm", "3", "tsv"}
	name := e.bin
	if e.prlimit != "" && e.Limits.MaxMemory > 0 {
		args = append([]string{"--as=" + strconv.FormatInt(e.Limits.MaxMemory, 10), "--", e.bin}, args...)
		name = e.prlimit
	}
	cmd := exec.CommandContext(pctx, name, args...)
	cmd.Stdin = bytes.NewReader(image)
	// One thread per page: OpenMP's team on two cores is slower than one
	// thread, and leaves nothing for the searches running beside it.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var stdout bytes.Buffer
	stderr := &head{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	// A process killed at its limit that left a child holding its output
	// open does not keep Recognize waiting.
	cmd.WaitDelay = time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		// Tesseract could not even start (not executable): the engine is
		// broken, not the page.
		return Result{}, errs.WithHint(errs.Wrapf(errs.Internal, op, err, "tesseract could not be started"), InstallHint)
	}
	if e.Background {
		_ = priority.LowerChild(cmd.Process.Pid) // best effort: at worst it runs at the caller's priority
	}
	var peak *peakRSS
	if e.Observe != nil {
		peak = watchPeak(cmd.Process.Pid)
	}
	err := cmd.Wait()
	if peak != nil {
		run := Run{Wall: time.Since(start), PeakRSS: peak.stop()}
		if cmd.ProcessState != nil {
			run.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		e.Observe(run)
	}
	switch {
	case ctx.Err() != nil:
		return Result{}, errs.Wrap(errs.Cancelled, op, ctx.Err())
	case errors.Is(pctx.Err(), context.DeadlineExceeded):
		return Result{}, limitErr(op, TimeLimit, "the page is unusually dense or large; Jarvis moves on without its text",
			"OCR of one page stopped after %s, its time limit", e.Limits.Timeout)
	case e.prlimit != "" && e.Limits.MaxMemory > 0 && outOfMemory(stderr.String()):
		// Refused memory, Tesseract fails or, as often, reports an empty
		// page and exits 0: either way the page was not read, and saying
		// "blank page" would send the user looking in the wrong place.
		return Result{}, limitErr(op, MemoryLimit, "the page needs more memory than OCR may use (ocr.Limits.MaxMemory); Jarvis moves on without its text",
			"OCR of one page ran out of its %d MB of memory", e.Limits.MaxMemory>>20)
	case err != nil:
		return Result{}, errs.Wrapf(errs.Conversion, op, err, "tesseract failed: %s", lastLine(stderr.String()))
	}
	return ParseTSV(&stdout)
}

// outOfMemory reports whether tesseract's messages say an allocation was
// refused: the dynamic loader mapping its libraries, Leptonica's and
// libpng's allocations, OpenMP's thread stacks, C++'s operator new.
func outOfMemory(stderr string) bool {
	for _, sign := range []string{"malloc fail", "Out of memory", "failed to map segment", "Cannot allocate memory", "bad_alloc", "Thread creation failed"} {
		if strings.Contains(stderr, sign) {
			return true
		}
	}
	return false
}

// head keeps the first max bytes written to it: tesseract starved of
// memory can print a complaint for every line of the page, megabytes of
// them, and the first lines are the ones that say why.
type head struct {
	max int
	buf bytes.Buffer
}

func (t *head) Write(p []byte) (int, error) {
	if room := t.max - t.buf.Len(); room > 0 {
		t.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (t *head) String() string { return t.buf.String() }

func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}

// peakRSS samples a running process's peak resident memory (VmHWM in
// /proc/<pid>/status, which starts afresh at exec and only grows) until
// stop. The last few milliseconds before the process exits are not seen;
// tesseract does not grow then (it writes its output and frees).
type peakRSS struct {
	done chan struct{}
	out  chan int64
}

const peakEvery = 5 * time.Millisecond

func watchPeak(pid int) *peakRSS {
	p := &peakRSS{done: make(chan struct{}), out: make(chan int64, 1)}
	status := "/proc/" + strconv.Itoa(pid) + "/status"
	go func() {
		var peak int64
		tick := time.NewTicker(peakEvery)
		defer tick.Stop()
		for {
			peak = max(peak, vmHWM(status))
			select {
			case <-p.done:
				p.out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// stop ends the sampling and returns the peak in bytes.
func (p *peakRSS) stop() int64 {
	close(p.done)
	return <-p.out
}

// vmHWM reads the VmHWM line of a /proc status file, in bytes (0 when
// the process is gone).
func vmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// ParseTSV reads Tesseract's TSV output: one row per layout element,
// level 4 a line and level 5 a word. Fields are split on tabs only: a
// recognised word may itself be a quote mark, which a CSV reader would eat.
func ParseTSV(r io.Reader) (Result, error) {
	const op = "ocr.ParseTSV"
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	res := Result{LineHeights: map[[3]int]int{}}
	head := true
	for sc.Scan() {
		rec := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
		if head {
			head = false
			if len(rec) < 12 || rec[0] != "level" {
				return res, errs.New(errs.Conversion, op, "unexpected tesseract output header %q", sc.Text())
			}
			continue
		}
		if len(rec) < 11 {
			continue
		}
		n := make([]int, 10)
		for i := range n {
			n[i], _ = strconv.Atoi(rec[i])
		}
		level, block, par, ln := n[0], n[2], n[3], n[4]
		left, top, w, h := n[6], n[7], n[8], n[9]
		switch level {
		case 4:
			res.LineHeights[[3]int{block, par, ln}] = h
		case 5:
			text := ""
			if len(rec) > 11 {
				text = strings.TrimSpace(strings.Join(rec[11:], " "))
			}
			conf, _ := strconv.ParseFloat(rec[10], 64)
			if text == "" || conf < 0 {
				continue
			}
			res.Words = append(res.Words, Word{Text: text, X0: left, Y0: top, X1: left + w, Y1: top + h,
				Block: block, Paragraph: par, Line: ln, Confidence: conf})
		}
	}
	if err := sc.Err(); err != nil {
		return res, errs.Wrapf(errs.Conversion, op, err, "unreadable tesseract output")
	}
	return res, nil
}

// TessdataHint says where traineddata lives, for the window's list.
func TessdataHint() string {
	for _, d := range []string{os.Getenv("TESSDATA_PREFIX"), "/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/share/tessdata"} {
		if d == "" {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(d, "*.traineddata")); len(m) > 0 {
			return d
		}
	}
	return ""
}

// String names the engine for doctor.
func (e *Engine) String() string {
	return fmt.Sprintf("tesseract (%s), languages %s", e.bin, strings.Join(e.Languages, "+"))
}
