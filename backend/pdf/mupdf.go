package pdf

/*
#cgo CFLAGS: -I${SRCDIR}/../../third_party/mupdf/include
#include <stdlib.h>
#include <string.h>
#include <mupdf/fitz.h>

// PDF-layer functions MuPDF exports but go-fitz's headers omit (the pdf/
// headers are not shipped). Declared here with the 1.24 signatures.
typedef struct pdf_document pdf_document;
typedef struct pdf_page pdf_page;
typedef struct pdf_annot pdf_annot;
typedef struct pdf_obj pdf_obj;
pdf_document *pdf_specifics(fz_context *ctx, fz_document *doc);
int pdf_was_repaired(fz_context *ctx, pdf_document *doc);
pdf_page *pdf_page_from_fz_page(fz_context *ctx, fz_page *ptr);
pdf_annot *pdf_first_annot(fz_context *ctx, pdf_page *page);
pdf_annot *pdf_next_annot(fz_context *ctx, pdf_annot *annot);
int pdf_annot_type(fz_context *ctx, pdf_annot *annot);
const char *pdf_string_from_annot_type(fz_context *ctx, int type);
int pdf_annot_quad_point_count(fz_context *ctx, pdf_annot *annot);
fz_quad pdf_annot_quad_point(fz_context *ctx, pdf_annot *annot, int i);
const char *pdf_annot_contents(fz_context *ctx, pdf_annot *annot);
fz_rect pdf_bound_annot(fz_context *ctx, pdf_annot *annot);
pdf_obj *pdf_annot_obj(fz_context *ctx, pdf_annot *annot);
pdf_obj *pdf_dict_gets(fz_context *ctx, pdf_obj *dict, const char *key);
int pdf_to_num(fz_context *ctx, pdf_obj *obj);
const char *pdf_to_name(fz_context *ctx, pdf_obj *obj);
const char *pdf_to_text_string(fz_context *ctx, pdf_obj *obj);
int pdf_is_stream(fz_context *ctx, pdf_obj *obj);
fz_buffer *pdf_load_stream(fz_context *ctx, pdf_obj *ref);

const char *jv_version = FZ_VERSION;

// Why a page or document was refused, beyond MuPDF's own message.
enum { JV_FAILED = 1, JV_ABORTED = 2, JV_MEMORY = 3, JV_TOO_MUCH_TEXT = 4, JV_PASSWORD = 5 };

typedef struct {
	int block, line, c, bold, upright;
	float size, x0, y0, x1, y1;
} jv_char;

typedef struct {
	int w, h;
	float x0, y0, x1, y1;
	unsigned char *png;
	size_t png_len;
} jv_image;

typedef struct {
	char type[32];
	char rt[16];    // /RT: how it relates to /IRT (R reply, Group)
	int num, irt;   // object numbers of the annotation and its /IRT parent (0: none)
	int state;      // a review-state record (/State or /StateModel)
	float x0, y0, x1, y1;
	int nquads;
	float *quads;   // 8 floats per quad
	char *contents;
	char *rich;     // /RC, the rich-text (XHTML) body
} jv_annot;

typedef struct {
	float w, h;
	float image_area; // page area covered by images, for telling scans apart
	float image_dpi;  // the resolution of the page's largest image, in pixels per inch of the page
	float image_best; // (that image's area, while looking)
	int nchars, nimages, nannots;
	jv_char *chars;
	jv_image *images;
	jv_annot *annots;
} jv_page;

// jv_mem caps what MuPDF may allocate for one document. Each block carries
// its size in a 16-byte header (keeping malloc's alignment) so frees and
// reallocs can be counted.
typedef struct {
	size_t used, limit;
	int refused;
} jv_mem;

typedef struct {
	jv_mem mem;
	fz_cookie cookie; // abort is set from another thread to stop a page
	fz_context *ctx;
	fz_document *doc;
	int pdf;
} jv_doc;

#define JV_HDR 16

static void *jv_malloc(void *user, size_t size) {
	jv_mem *m = user;
	if (size > m->limit || m->used > m->limit - size) { m->refused = 1; return NULL; }
	size_t *p = malloc(size + JV_HDR);
	if (!p) return NULL;
	*p = size;
	m->used += size;
	return (char *)p + JV_HDR;
}

static void jv_free(void *user, void *ptr) {
	if (!ptr) return;
	jv_mem *m = user;
	size_t *p = (size_t *)((char *)ptr - JV_HDR);
	m->used -= *p;
	free(p);
}

static void *jv_realloc(void *user, void *ptr, size_t size) {
	if (!ptr) return jv_malloc(user, size);
	if (size == 0) { jv_free(user, ptr); return NULL; }
	jv_mem *m = user;
	size_t *p = (size_t *)((char *)ptr - JV_HDR);
	size_t old = *p;
	if (size > old && (size - old > m->limit || m->used > m->limit - (size - old))) { m->refused = 1; return NULL; }
	size_t *q = realloc(p, size + JV_HDR);
	if (!q) return NULL;
	*q = size;
	m->used = m->used - old + size;
	return (char *)q + JV_HDR;
}

// MuPDF reports recoverable problems (a repaired xref, a bad font) on
// stderr by default; Jarvis judges the result instead.
static void jv_quiet(void *user, const char *message) {}

// jv_err takes the caught error's message and marks the error handled (the
// caller returns it to Go), so MuPDF does not warn about it.
static char *jv_err(fz_context *ctx) {
	char *m = strdup(fz_caught_message(ctx));
	fz_ignore_error(ctx);
	return m;
}

// jv_open opens a document; an encrypted one is authenticated with
// password (NULL: none given), and refused with JV_PASSWORD when it needs
// one it was not given or the one given is wrong.
static jv_doc *jv_open(const char *path, const char *password, size_t mem_limit, int *kind, char **err) {
	jv_doc *d = calloc(1, sizeof(jv_doc));
	d->mem.limit = mem_limit;
	fz_alloc_context alloc = { &d->mem, jv_malloc, jv_realloc, jv_free };
	fz_context *ctx = fz_new_context(&alloc, NULL, mem_limit / 4);
	if (!ctx) { *kind = JV_MEMORY; *err = strdup("cannot create MuPDF context"); free(d); return NULL; }
	fz_set_warning_callback(ctx, jv_quiet, NULL);
	fz_set_error_callback(ctx, jv_quiet, NULL);
	d->ctx = ctx;
	fz_try(ctx) {
		fz_register_document_handlers(ctx);
		d->doc = fz_open_document(ctx, path);
		char fmt[64] = "";
		fz_lookup_metadata(ctx, d->doc, "format", fmt, sizeof fmt);
		d->pdf = strncmp(fmt, "PDF", 3) == 0;
		if (fz_needs_password(ctx, d->doc) && !(password && fz_authenticate_password(ctx, d->doc, password))) {
			*kind = JV_PASSWORD;
			fz_throw(ctx, FZ_ERROR_GENERIC, password ? "the password is wrong" : "the file is encrypted and needs a password");
		}
	}
	fz_catch(ctx) {
		fz_drop_document(ctx, d->doc);
		if (!*kind) *kind = d->mem.refused ? JV_MEMORY : JV_FAILED;
		*err = jv_err(ctx);
		fz_drop_context(ctx);
		free(d);
		return NULL;
	}
	return d;
}

static void jv_close(jv_doc *d) {
	fz_drop_document(d->ctx, d->doc);
	fz_drop_context(d->ctx);
	free(d);
}

static void jv_abort(jv_doc *d) { d->cookie.abort = 1; }
static void jv_reset(jv_doc *d) { memset(&d->cookie, 0, sizeof d->cookie); }

static int jv_repaired(jv_doc *d) {
	int r = 0;
	if (!d->pdf) return 0;
	fz_try(d->ctx) r = pdf_was_repaired(d->ctx, pdf_specifics(d->ctx, d->doc));
	fz_catch(d->ctx) { fz_ignore_error(d->ctx); r = 0; }
	return r;
}

static int jv_count(jv_doc *d, int *kind, char **err) {
	int n = 0;
	fz_try(d->ctx) n = fz_count_pages(d->ctx, d->doc);
	fz_catch(d->ctx) { *kind = d->mem.refused ? JV_MEMORY : JV_FAILED; *err = jv_err(d->ctx); return -1; }
	return n;
}

static int jv_meta(jv_doc *d, const char *key, char *buf, int size) {
	int n = -1;
	fz_try(d->ctx) n = fz_lookup_metadata(d->ctx, d->doc, key, buf, size);
	fz_catch(d->ctx) { fz_ignore_error(d->ctx); n = -1; }
	return n;
}

static void jv_free_page(jv_page *p) {
	if (!p) return;
	free(p->chars);
	for (int i = 0; i < p->nimages; i++) free(p->images[i].png);
	free(p->images);
	for (int i = 0; i < p->nannots; i++) { free(p->annots[i].quads); free(p->annots[i].contents); free(p->annots[i].rich); }
	free(p->annots);
	free(p);
}

// jv_text_of reads a text-string or stream value (/RC may be either).
static char *jv_text_of(fz_context *ctx, pdf_obj *o) {
	if (!o) return strdup("");
	if (pdf_is_stream(ctx, o)) {
		fz_buffer *buf = pdf_load_stream(ctx, o);
		char *s = NULL;
		fz_try(ctx) s = strdup(fz_string_from_buffer(ctx, buf));
		fz_always(ctx) fz_drop_buffer(ctx, buf);
		fz_catch(ctx) fz_rethrow(ctx);
		return s;
	}
	return strdup(pdf_to_text_string(ctx, o));
}

static void jv_read_annots(fz_context *ctx, fz_page *page, jv_page *out) {
	pdf_page *pp = pdf_page_from_fz_page(ctx, page);
	for (pdf_annot *a = pp ? pdf_first_annot(ctx, pp) : NULL; a; a = pdf_next_annot(ctx, a)) {
		out->annots = realloc(out->annots, (out->nannots + 1) * sizeof(jv_annot));
		jv_annot *ja = &out->annots[out->nannots++];
		memset(ja, 0, sizeof *ja);
		strncpy(ja->type, pdf_string_from_annot_type(ctx, pdf_annot_type(ctx, a)), sizeof ja->type - 1);
		fz_rect r = pdf_bound_annot(ctx, a);
		ja->x0 = r.x0; ja->y0 = r.y0; ja->x1 = r.x1; ja->y1 = r.y1;
		const char *c = pdf_annot_contents(ctx, a);
		ja->contents = strdup(c ? c : "");
		pdf_obj *obj = pdf_annot_obj(ctx, a);
		ja->num = pdf_to_num(ctx, obj);
		ja->irt = pdf_to_num(ctx, pdf_dict_gets(ctx, obj, "IRT"));
		strncpy(ja->rt, pdf_to_name(ctx, pdf_dict_gets(ctx, obj, "RT")), sizeof ja->rt - 1);
		ja->state = pdf_dict_gets(ctx, obj, "State") != NULL || pdf_dict_gets(ctx, obj, "StateModel") != NULL;
		ja->rich = jv_text_of(ctx, pdf_dict_gets(ctx, obj, "RC"));
		int nq = 0;
		// Only markup annotations carry quad points; asking others throws.
		if (!strcmp(ja->type, "Highlight") || !strcmp(ja->type, "Underline") || !strcmp(ja->type, "Squiggly") || !strcmp(ja->type, "StrikeOut"))
			nq = pdf_annot_quad_point_count(ctx, a);
		ja->nquads = nq;
		ja->quads = nq ? malloc(nq * 8 * sizeof(float)) : NULL;
		for (int i = 0; i < nq; i++) {
			fz_quad q = pdf_annot_quad_point(ctx, a, i);
			float *f = ja->quads + 8 * i;
			f[0] = q.ul.x; f[1] = q.ul.y; f[2] = q.ur.x; f[3] = q.ur.y;
			f[4] = q.ll.x; f[5] = q.ll.y; f[6] = q.lr.x; f[7] = q.lr.y;
		}
	}
}

// jv_page_load extracts one page: every character with its box and size,
// image blocks (as PNG, only when want_images and at least min_pixels), and
// PDF annotations. The page runs with the document's cookie, so another
// thread can stop it mid-page; more than max_chars characters is refused.
static jv_page *jv_page_load(jv_doc *d, int number, int want_images, int min_pixels, int max_chars, int *kind, char **err) {
	fz_context *ctx = d->ctx;
	fz_page *page = NULL;
	fz_stext_page *text = NULL;
	fz_device *dev = NULL;
	jv_page *out = calloc(1, sizeof(jv_page));
	fz_var(page);
	fz_var(text);
	fz_var(dev);
	d->mem.refused = 0;
	fz_try(ctx) {
		page = fz_load_page(ctx, d->doc, number);
		fz_rect b = fz_bound_page(ctx, page);
		out->w = b.x1 - b.x0;
		out->h = b.y1 - b.y0;
		fz_stext_options opts;
		memset(&opts, 0, sizeof opts);
		// No FZ_STEXT_DEHYPHENATE: it drops every line-end hyphen and moves the
		// rest of the word onto the line above; hyphens.go decides instead.
		// Image blocks are always kept (as references, not decoded): how much
		// of the page they cover tells a scan from a page of figures.
		opts.flags = FZ_STEXT_MEDIABOX_CLIP | FZ_STEXT_PRESERVE_IMAGES;
		text = fz_new_stext_page(ctx, b);
		dev = fz_new_stext_device(ctx, text, &opts);
		fz_run_page_contents(ctx, page, dev, fz_identity, &d->cookie);
		fz_close_device(ctx, dev);
		if (d->cookie.abort) { *kind = JV_ABORTED; fz_throw(ctx, FZ_ERROR_GENERIC, "stopped"); }
		// MuPDF skips what it cannot allocate and goes on; a page cut short
		// by the cap is refused rather than returned incomplete.
		if (d->mem.refused) { *kind = JV_MEMORY; fz_throw(ctx, FZ_ERROR_GENERIC, "the page's content did not fit"); }
		int total = 0;
		for (fz_stext_block *blk = text->first_block; blk; blk = blk->next)
			if (blk->type == FZ_STEXT_BLOCK_TEXT)
				for (fz_stext_line *ln = blk->u.t.first_line; ln; ln = ln->next)
					for (fz_stext_char *ch = ln->first_char; ch; ch = ch->next) total++;
		if (total > max_chars) { *kind = JV_TOO_MUCH_TEXT; fz_throw(ctx, FZ_ERROR_GENERIC, "%d characters on one page", total); }
		out->chars = total ? malloc(total * sizeof(jv_char)) : NULL;
		int bi = 0;
		for (fz_stext_block *blk = text->first_block; blk; blk = blk->next, bi++) {
			if (blk->type == FZ_STEXT_BLOCK_IMAGE) {
				fz_image *img = blk->u.i.image;
				fz_rect cov = fz_intersect_rect(blk->bbox, b);
				if (!fz_is_empty_rect(cov)) {
					float a = (cov.x1 - cov.x0) * (cov.y1 - cov.y0);
					out->image_area += a;
					float bw = blk->bbox.x1 - blk->bbox.x0;
					if (a > out->image_best && bw > 0) { out->image_best = a; out->image_dpi = img->w * 72.0f / bw; }
				}
				if (!want_images || (double)img->w * img->h < min_pixels) continue;
				// An image too large to decode under the cap is skipped: the
				// text is still worth having.
				fz_buffer *buf = NULL;
				fz_try(ctx) buf = fz_new_buffer_from_image_as_png(ctx, img, fz_default_color_params);
				fz_catch(ctx) { fz_ignore_error(ctx); continue; }
				unsigned char *data;
				size_t len = fz_buffer_storage(ctx, buf, &data);
				out->images = realloc(out->images, (out->nimages + 1) * sizeof(jv_image));
				jv_image *ji = &out->images[out->nimages++];
				ji->w = img->w; ji->h = img->h;
				ji->x0 = blk->bbox.x0; ji->y0 = blk->bbox.y0; ji->x1 = blk->bbox.x1; ji->y1 = blk->bbox.y1;
				ji->png = malloc(len);
				memcpy(ji->png, data, len);
				ji->png_len = len;
				fz_drop_buffer(ctx, buf);
				continue;
			}
			if (blk->type != FZ_STEXT_BLOCK_TEXT) continue;
			int li = 0;
			for (fz_stext_line *ln = blk->u.t.first_line; ln; ln = ln->next, li++) {
				// Rotated lines are margin stamps and axis labels, not prose.
				int upright = ln->dir.x > 0.99f;
				for (fz_stext_char *ch = ln->first_char; ch; ch = ch->next) {
					fz_rect r = fz_rect_from_quad(ch->quad);
					jv_char *jc = &out->chars[out->nchars++];
					jc->block = bi; jc->line = li; jc->c = ch->c; jc->size = ch->size; jc->upright = upright;
					jc->bold = ch->font ? fz_font_is_bold(ctx, ch->font) : 0;
					jc->x0 = r.x0; jc->y0 = r.y0; jc->x1 = r.x1; jc->y1 = r.y1;
				}
			}
		}
		if (d->pdf) jv_read_annots(ctx, page, out);
		if (d->cookie.abort) { *kind = JV_ABORTED; fz_throw(ctx, FZ_ERROR_GENERIC, "stopped"); }
	}
	fz_always(ctx) {
		fz_drop_device(ctx, dev);
		fz_drop_stext_page(ctx, text);
		fz_drop_page(ctx, page);
	}
	fz_catch(ctx) {
		if (!*kind) *kind = d->cookie.abort ? JV_ABORTED : d->mem.refused ? JV_MEMORY : JV_FAILED;
		*err = jv_err(ctx);
		jv_free_page(out);
		return NULL;
	}
	return out;
}

// jv_render draws one page at the given zoom into an RGB PNG, under the
// same cookie and memory cap as text extraction.
static unsigned char *jv_render(jv_doc *d, int number, float zoom, int gray, size_t *len, int *kind, char **err) {
	fz_context *ctx = d->ctx;
	fz_page *page = NULL;
	fz_pixmap *pix = NULL;
	fz_device *dev = NULL;
	fz_buffer *buf = NULL;
	unsigned char *png = NULL;
	fz_var(page);
	fz_var(pix);
	fz_var(dev);
	fz_var(buf);
	d->mem.refused = 0;
	fz_try(ctx) {
		page = fz_load_page(ctx, d->doc, number);
		fz_matrix ctm = fz_scale(zoom, zoom);
		fz_irect bbox = fz_round_rect(fz_transform_rect(fz_bound_page(ctx, page), ctm));
		pix = fz_new_pixmap_with_bbox(ctx, gray ? fz_device_gray(ctx) : fz_device_rgb(ctx), bbox, NULL, 0);
		fz_clear_pixmap_with_value(ctx, pix, 0xff);
		dev = fz_new_draw_device(ctx, fz_identity, pix);
		fz_run_page(ctx, page, dev, ctm, &d->cookie);
		fz_close_device(ctx, dev);
		if (d->cookie.abort) { *kind = JV_ABORTED; fz_throw(ctx, FZ_ERROR_GENERIC, "stopped"); }
		buf = fz_new_buffer_from_pixmap_as_png(ctx, pix, fz_default_color_params);
		unsigned char *data;
		*len = fz_buffer_storage(ctx, buf, &data);
		png = malloc(*len);
		memcpy(png, data, *len);
	}
	fz_always(ctx) {
		fz_drop_buffer(ctx, buf);
		fz_drop_device(ctx, dev);
		fz_drop_pixmap(ctx, pix);
		fz_drop_page(ctx, page);
	}
	fz_catch(ctx) {
		if (!*kind) *kind = d->cookie.abort ? JV_ABORTED : d->mem.refused ? JV_MEMORY : JV_FAILED;
		*err = jv_err(ctx);
		return NULL;
	}
	return png;
}
*/
import "C"

import (
	"slices"
	"sync"
	"unsafe"

	// go-fitz carries the static MuPDF library these calls link against.
	_ "github.com/gen2brain/go-fitz"
)

// headerVersion is the MuPDF version of the headers this file compiled with.
var headerVersion = C.GoString(C.jv_version)

// failKind says why MuPDF gave up, beyond its message.
type failKind int

const (
	failNone    failKind = 0
	failed      failKind = C.JV_FAILED
	failAborted failKind = C.JV_ABORTED
	failMemory  failKind = C.JV_MEMORY
	failTooMuch failKind = C.JV_TOO_MUCH_TEXT
	failLocked  failKind = C.JV_PASSWORD
)

// mupdfError is a refusal from the C side.
type mupdfError struct {
	kind failKind
	msg  string
}

func (e *mupdfError) Error() string { return e.msg }

// rawDoc is an open MuPDF document with its own context, memory cap and
// abort cookie. It is not safe for concurrent use, except abort, which
// any goroutine may call until close.
type rawDoc struct {
	d      *C.jv_doc
	mu     sync.Mutex // guards closed against a late abort
	closed bool
}

func cErr(kind C.int, e *C.char) *mupdfError {
	s := C.GoString(e)
	C.free(unsafe.Pointer(e))
	return &mupdfError{kind: failKind(kind), msg: s}
}

func openRaw(path, password string, memLimit int64) (*rawDoc, *mupdfError) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var cpw *C.char
	if password != "" {
		cpw = C.CString(password)
		defer C.free(unsafe.Pointer(cpw))
	}
	var e *C.char
	var kind C.int
	d := C.jv_open(cp, cpw, C.size_t(memLimit), &kind, &e)
	if d == nil {
		return nil, cErr(kind, e)
	}
	return &rawDoc{d: d}, nil
}

func (r *rawDoc) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	C.jv_close(r.d)
}

// abort asks the page being read to stop; MuPDF checks it as it goes.
func (r *rawDoc) abort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		C.jv_abort(r.d)
	}
}

// reset clears a previous abort before the next page is armed.
func (r *rawDoc) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	C.jv_reset(r.d)
}

func (r *rawDoc) repaired() bool { return C.jv_repaired(r.d) != 0 }

func (r *rawDoc) pages() (int, *mupdfError) {
	var e *C.char
	var kind C.int
	n := C.jv_count(r.d, &kind, &e)
	if n < 0 {
		return 0, cErr(kind, e)
	}
	return int(n), nil
}

func (r *rawDoc) meta(key string) string {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	buf := make([]byte, 1024)
	n := C.jv_meta(r.d, ck, (*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
	if n <= 0 {
		return ""
	}
	return C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
}

// page extracts page i (0-based) into Go values.
func (r *rawDoc) page(i int, images bool, minPixels, maxChars int) (Page, *mupdfError) {
	var e *C.char
	var kind C.int
	want := C.int(0)
	if images {
		want = 1
	}
	p := C.jv_page_load(r.d, C.int(i), want, C.int(minPixels), C.int(maxChars), &kind, &e)
	if p == nil {
		return Page{}, cErr(kind, e)
	}
	defer C.jv_free_page(p)
	out := Page{Number: i + 1, Width: float64(p.w), Height: float64(p.h)}
	if area := out.Width * out.Height; area > 0 {
		out.ImageCover = min(float64(p.image_area)/area, 1)
	}
	out.imageDPI = float64(p.image_dpi)
	out.Chars = make([]Char, 0, int(p.nchars))
	for _, c := range unsafe.Slice(p.chars, int(p.nchars)) {
		out.Chars = append(out.Chars, Char{Block: int(c.block), Line: int(c.line), R: rune(c.c), Size: float64(c.size), Bold: c.bold != 0, Upright: c.upright != 0,
			Box: Rect{float64(c.x0), float64(c.y0), float64(c.x1), float64(c.y1)}})
	}
	for _, im := range unsafe.Slice(p.images, int(p.nimages)) {
		out.Images = append(out.Images, Image{Width: int(im.w), Height: int(im.h),
			Box: Rect{float64(im.x0), float64(im.y0), float64(im.x1), float64(im.y1)},
			PNG: C.GoBytes(unsafe.Pointer(im.png), C.int(im.png_len))})
	}
	for _, a := range unsafe.Slice(p.annots, int(p.nannots)) {
		an := Annotation{Kind: C.GoString(&a._type[0]), Page: i + 1, Contents: C.GoString(a.contents), RichText: C.GoString(a.rich),
			Box: Rect{float64(a.x0), float64(a.y0), float64(a.x1), float64(a.y1)},
			Ref: int(a.num), InReplyTo: int(a.irt), ReplyType: C.GoString(&a.rt[0]), ReviewState: a.state != 0}
		q := unsafe.Slice(a.quads, int(a.nquads)*8)
		for k := 0; k < int(a.nquads); k++ {
			f := q[8*k : 8*k+8]
			xs := []float64{float64(f[0]), float64(f[2]), float64(f[4]), float64(f[6])}
			ys := []float64{float64(f[1]), float64(f[3]), float64(f[5]), float64(f[7])}
			an.Quads = append(an.Quads, Rect{slices.Min(xs), slices.Min(ys), slices.Max(xs), slices.Max(ys)})
		}
		out.Annotations = append(out.Annotations, an)
	}
	return out, nil
}

// render draws page i (0-based) as PNG at zoom (1 = 72 dpi), in colour
// or in grey (for OCR: a third of the bytes, and what Tesseract reads).
func (r *rawDoc) render(i int, zoom float64, gray bool) ([]byte, *mupdfError) {
	var e *C.char
	var kind C.int
	var n C.size_t
	g := C.int(0)
	if gray {
		g = 1
	}
	png := C.jv_render(r.d, C.int(i), C.float(zoom), g, &n, &kind, &e)
	if png == nil {
		return nil, cErr(kind, e)
	}
	defer C.free(unsafe.Pointer(png))
	return C.GoBytes(unsafe.Pointer(png), C.int(n)), nil
}
