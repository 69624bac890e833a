package pdf

/*
#cgo CFLAGS: -I${SRCDIR}/../../third_party/mupdf/include
#include <stdlib.h>
#include <string.h>
#include <mupdf/fitz.h>

// PDF-layer functions MuPDF exports but go-fitz's headers omit (the pdf/
// headers are not shipped). Declared here with the 1.24 signatures.
typedef struct pdf_page pdf_page;
typedef struct pdf_annot pdf_annot;
pdf_page *pdf_page_from_fz_page(fz_context *ctx, fz_page *ptr);
pdf_annot *pdf_first_annot(fz_context *ctx, pdf_page *page);
pdf_annot *pdf_next_annot(fz_context *ctx, pdf_annot *annot);
int pdf_annot_type(fz_context *ctx, pdf_annot *annot);
const char *pdf_string_from_annot_type(fz_context *ctx, int type);
int pdf_annot_quad_point_count(fz_context *ctx, pdf_annot *annot);
fz_quad pdf_annot_quad_point(fz_context *ctx, pdf_annot *annot, int i);
const char *pdf_annot_contents(fz_context *ctx, pdf_annot *annot);
fz_rect pdf_bound_annot(fz_context *ctx, pdf_annot *annot);

const char *jv_version = FZ_VERSION;

typedef struct {
	int block, line, c, bold;
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
	float x0, y0, x1, y1;
	int nquads;
	float *quads; // 8 floats per quad
	char *contents;
} jv_annot;

typedef struct {
	float w, h;
	int nchars, nimages, nannots;
	jv_char *chars;
	jv_image *images;
	jv_annot *annots;
} jv_page;

typedef struct {
	fz_context *ctx;
	fz_document *doc;
	int pdf;
} jv_doc;

// jv_err takes the caught error's message and marks the error handled (the
// caller returns it to Go), so MuPDF does not warn about it.
static char *jv_err(fz_context *ctx) {
	char *m = strdup(fz_caught_message(ctx));
	fz_ignore_error(ctx);
	return m;
}

static jv_doc *jv_open(const char *path, char **err) {
	fz_context *ctx = fz_new_context(NULL, NULL, FZ_STORE_DEFAULT);
	if (!ctx) { *err = strdup("cannot create MuPDF context"); return NULL; }
	jv_doc *d = calloc(1, sizeof(jv_doc));
	d->ctx = ctx;
	fz_try(ctx) {
		fz_register_document_handlers(ctx);
		d->doc = fz_open_document(ctx, path);
		char fmt[64] = "";
		fz_lookup_metadata(ctx, d->doc, "format", fmt, sizeof fmt);
		d->pdf = strncmp(fmt, "PDF", 3) == 0;
	}
	fz_catch(ctx) {
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

static int jv_count(jv_doc *d, char **err) {
	int n = 0;
	fz_try(d->ctx) n = fz_count_pages(d->ctx, d->doc);
	fz_catch(d->ctx) { *err = jv_err(d->ctx); return -1; }
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
	for (int i = 0; i < p->nannots; i++) { free(p->annots[i].quads); free(p->annots[i].contents); }
	free(p->annots);
	free(p);
}

// jv_page_load extracts one page: every character with its box and size,
// image blocks (as PNG, only when want_images and at least min_pixels), and
// PDF annotations.
static jv_page *jv_page_load(jv_doc *d, int number, int want_images, int min_pixels, char **err) {
	fz_context *ctx = d->ctx;
	fz_page *page = NULL;
	fz_stext_page *text = NULL;
	jv_page *out = calloc(1, sizeof(jv_page));
	fz_var(page);
	fz_var(text);
	fz_try(ctx) {
		page = fz_load_page(ctx, d->doc, number);
		fz_rect b = fz_bound_page(ctx, page);
		out->w = b.x1 - b.x0;
		out->h = b.y1 - b.y0;
		fz_stext_options opts;
		memset(&opts, 0, sizeof opts);
		opts.flags = FZ_STEXT_DEHYPHENATE | FZ_STEXT_MEDIABOX_CLIP | (want_images ? FZ_STEXT_PRESERVE_IMAGES : 0);
		text = fz_new_stext_page_from_page(ctx, page, &opts);
		int cap = 0, bi = 0;
		for (fz_stext_block *blk = text->first_block; blk; blk = blk->next, bi++) {
			if (blk->type == FZ_STEXT_BLOCK_IMAGE) {
				fz_image *img = blk->u.i.image;
				if (img->w * img->h < min_pixels) continue;
				fz_buffer *buf = fz_new_buffer_from_image_as_png(ctx, img, fz_default_color_params);
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
				for (fz_stext_char *ch = ln->first_char; ch; ch = ch->next) {
					if (out->nchars == cap) {
						cap = cap ? cap * 2 : 1024;
						out->chars = realloc(out->chars, cap * sizeof(jv_char));
					}
					fz_rect r = fz_rect_from_quad(ch->quad);
					jv_char *jc = &out->chars[out->nchars++];
					jc->block = bi; jc->line = li; jc->c = ch->c; jc->size = ch->size;
					jc->bold = ch->font ? fz_font_is_bold(ctx, ch->font) : 0;
					jc->x0 = r.x0; jc->y0 = r.y0; jc->x1 = r.x1; jc->y1 = r.y1;
				}
			}
		}
		if (d->pdf) {
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
	}
	fz_always(ctx) {
		fz_drop_stext_page(ctx, text);
		fz_drop_page(ctx, page);
	}
	fz_catch(ctx) {
		*err = jv_err(ctx);
		jv_free_page(out);
		return NULL;
	}
	return out;
}
*/
import "C"

import (
	"slices"
	"unsafe"

	// go-fitz carries the static MuPDF library these calls link against.
	_ "github.com/gen2brain/go-fitz"
)

// headerVersion is the MuPDF version of the headers this file compiled with.
var headerVersion = C.GoString(C.jv_version)

// rawDoc is an open MuPDF document. It is not safe for concurrent use.
type rawDoc struct{ d *C.jv_doc }

func cErr(e *C.char) string {
	s := C.GoString(e)
	C.free(unsafe.Pointer(e))
	return s
}

func openRaw(path string) (*rawDoc, string) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var e *C.char
	d := C.jv_open(cp, &e)
	if d == nil {
		return nil, cErr(e)
	}
	return &rawDoc{d: d}, ""
}

func (r *rawDoc) close() { C.jv_close(r.d) }

func (r *rawDoc) pages() (int, string) {
	var e *C.char
	n := C.jv_count(r.d, &e)
	if n < 0 {
		return 0, cErr(e)
	}
	return int(n), ""
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
func (r *rawDoc) page(i int, images bool, minPixels int) (Page, string) {
	var e *C.char
	want := C.int(0)
	if images {
		want = 1
	}
	p := C.jv_page_load(r.d, C.int(i), want, C.int(minPixels), &e)
	if p == nil {
		return Page{}, cErr(e)
	}
	defer C.jv_free_page(p)
	out := Page{Number: i + 1, Width: float64(p.w), Height: float64(p.h)}
	for _, c := range unsafe.Slice(p.chars, int(p.nchars)) {
		out.Chars = append(out.Chars, Char{Block: int(c.block), Line: int(c.line), R: rune(c.c), Size: float64(c.size), Bold: c.bold != 0,
			Box: Rect{float64(c.x0), float64(c.y0), float64(c.x1), float64(c.y1)}})
	}
	for _, im := range unsafe.Slice(p.images, int(p.nimages)) {
		out.Images = append(out.Images, Image{Width: int(im.w), Height: int(im.h),
			Box: Rect{float64(im.x0), float64(im.y0), float64(im.x1), float64(im.y1)},
			PNG: C.GoBytes(unsafe.Pointer(im.png), C.int(im.png_len))})
	}
	for _, a := range unsafe.Slice(p.annots, int(p.nannots)) {
		an := Annotation{Kind: C.GoString(&a._type[0]), Page: i + 1, Contents: C.GoString(a.contents),
			Box: Rect{float64(a.x0), float64(a.y0), float64(a.x1), float64(a.y1)}}
		q := unsafe.Slice(a.quads, int(a.nquads)*8)
		for k := 0; k < int(a.nquads); k++ {
			f := q[8*k : 8*k+8]
			xs := []float64{float64(f[0]), float64(f[2]), float64(f[4]), float64(f[6])}
			ys := []float64{float64(f[1]), float64(f[3]), float64(f[5]), float64(f[7])}
			an.Quads = append(an.Quads, Rect{slices.Min(xs), slices.Min(ys), slices.Max(xs), slices.Max(ys)})
		}
		out.Annotations = append(out.Annotations, an)
	}
	return out, ""
}
