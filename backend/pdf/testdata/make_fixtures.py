#!/usr/bin/python3
"""Builds the PDF fixtures for backend/pdf tests.

Run with Debian's python3 and its packages (apt-get install python3-reportlab
python3-pypdf):  /usr/bin/python3 backend/pdf/testdata/make_fixtures.py

paper.pdf      two pages: title, headings, body text, a DOI, one large and
               one small raster image
annotated.pdf  paper.pdf plus real annotations: a highlight with a typed
               comment, an underline, a sticky note, a free-text box and an
               ink stroke (which Jarvis ignores)
scanned.pdf    one page that is only an image: no text layer
words.json     where each annotated phrase was drawn, for the tests
encrypted.pdf  paper.pdf encrypted (AES-256) with the user password
               "s3cret-Pw", made with qpdf (apt-get install qpdf):
               qpdf --encrypt s3cret-Pw owner-Pw 256 -- paper.pdf encrypted.pdf
"""
import io
import json
import os

from PIL import Image, ImageDraw
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (ArrayObject, DictionaryObject, FloatObject,
                           NameObject, NumberObject, TextStringObject)
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = A4
BODY = ("Helvetica", 11)
placed = {}  # phrase -> [page, x0, y0, x1, y1] in PDF points (origin bottom-left)


def chart(w, h, seed):
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    for i in range(10):
        x = 20 + i * (w - 40) // 10
        top = h - 20 - ((i * 37 + seed) % (h - 60))
        d.rectangle([x, top, x + (w - 40) // 12, h - 20], fill=(40 + i * 20, 90, 200 - i * 10))
    return img


def line(c, page, x, y, text, font=BODY, mark=()):
    c.setFont(*font)
    c.drawString(x, y, text)
    for phrase in mark:
        start = text.index(phrase)
        x0 = x + stringWidth(text[:start], *font)
        x1 = x0 + stringWidth(phrase, *font)
        placed[phrase] = [page, x0, y - 0.25 * font[1], x1, y + 0.9 * font[1]]


def paper(path):
    c = canvas.Canvas(path, pagesize=A4)
    c.setTitle("Sparse Attention for Long Documents")
    c.setAuthor("Ada Example; Ben Sample")
    y = H - 80
    line(c, 1, 72, y, "Sparse Attention for Long Documents", ("Helvetica-Bold", 22))
    line(c, 1, 72, y - 28, "Ada Example and Ben Sample", ("Helvetica", 12))
    line(c, 1, 72, y - 44, "doi:10.1234/jarvis.5678", ("Helvetica", 10))
    line(c, 1, 72, y - 90, "1 Introduction", ("Helvetica-Bold", 15))
    body = [
        "Transformers compare every token with every other token, which is costly.",
        "We show that sparse attention keeps accuracy while cutting memory use.",
        "Our method selects a few global tokens and a sliding local window.",
    ]
    for i, t in enumerate(body):
        line(c, 1, 72, y - 115 - 15 * i, t, mark=("sparse attention keeps accuracy",) if i == 1 else ())
    c.drawImage(ImageReader(chart(400, 250, 3)), 72, y - 420, width=300, height=188)
    c.drawImage(ImageReader(chart(40, 40, 9)), 400, y - 420, width=30, height=30)  # 1600 px: too small
    c.showPage()
    y = H - 80
    line(c, 2, 72, y, "2 Method", ("Helvetica-Bold", 15))
    body2 = [
        "The window size is chosen per layer from a validation sweep.",
        "Global tokens are the first token of every paragraph.",
    ]
    for i, t in enumerate(body2):
        line(c, 2, 72, y - 25 - 15 * i, t, mark=("validation sweep",) if i == 0 else ())
    c.showPage()
    c.save()


def quad(page_h, box):
    _, x0, y0, x1, y1 = box
    # QuadPoints order used by viewers: top-left, top-right, bottom-left, bottom-right
    return [x0, y1, x1, y1, x0, y0, x1, y0]


def annot(subtype, rect, **extra):
    d = DictionaryObject({
        NameObject("/Type"): NameObject("/Annot"),
        NameObject("/Subtype"): NameObject(subtype),
        NameObject("/Rect"): ArrayObject([FloatObject(v) for v in rect]),
        NameObject("/F"): NumberObject(4),
    })
    for k, v in extra.items():
        d[NameObject("/" + k)] = v
    return d


def annotated(src, path):
    r = PdfReader(src)
    w = PdfWriter()
    for p in r.pages:
        w.add_page(p)
    hl = placed["sparse attention keeps accuracy"]
    w.add_annotation(0, annot("/Highlight", hl[1:], QuadPoints=ArrayObject([FloatObject(v) for v in quad(H, hl)]),
                              Contents=TextStringObject("key idea: accuracy holds"), C=ArrayObject([FloatObject(1), FloatObject(1), FloatObject(0)])))
    ul = placed["validation sweep"]
    w.add_annotation(1, annot("/Underline", ul[1:], QuadPoints=ArrayObject([FloatObject(v) for v in quad(H, ul)])))
    w.add_annotation(1, annot("/Text", [500, 700, 520, 720], Contents=TextStringObject("check the proof of lemma 2")))
    w.add_annotation(1, annot("/FreeText", [72, 500, 300, 530], Contents=TextStringObject("TODO cite the Longformer paper"),
                              DA=TextStringObject("/Helv 10 Tf 0 g")))
    w.add_annotation(1, annot("/Ink", [100, 300, 200, 400], InkList=ArrayObject([ArrayObject([FloatObject(v) for v in (100, 300, 150, 350, 200, 400)])])))
    with open(path, "wb") as f:
        w.write(f)


def scanned(path):
    img = Image.new("RGB", (600, 800), "white")
    ImageDraw.Draw(img).text((50, 50), "a scanned page with no text layer", fill="black")
    c = canvas.Canvas(path, pagesize=A4)
    c.drawImage(ImageReader(img), 0, 0, width=W, height=H)
    c.showPage()
    c.save()


if __name__ == "__main__":
    paper(os.path.join(HERE, "paper.pdf"))
    annotated(os.path.join(HERE, "paper.pdf"), os.path.join(HERE, "annotated.pdf"))
    scanned(os.path.join(HERE, "scanned.pdf"))
    with open(os.path.join(HERE, "words.json"), "w") as f:
        json.dump(placed, f, indent=1, sort_keys=True)
