#!/usr/bin/env python3
"""Regenerates the SentencePiece Unigram tokenizer the tokenizer tests use.

multilingual-e5-small (like every XLM-RoBERTa model) tokenises with a
SentencePiece Unigram model exported to tokenizer.json: a Precompiled
normaliser (the charsmap spm builds for nmt_nfkc), a Metaspace
pre-tokeniser, the Unigram vocabulary with its scores, and <s> … </s>
around each input. Its weights cannot be fetched here, so this script
trains a small model of the same kind with SentencePiece itself, writes it
out in that exact tokenizer.json form, and records SentencePiece's own
encoding of the test sentences as the expected ids.

Needs Debian's python3-sentencepiece (apt-get install python3-sentencepiece):

    /usr/bin/python3 backend/embed/testdata/unigram/gen.py

The training text is this repository's README and the sentences below,
written for this test. The outputs are committed; the test does not run
SentencePiece.
"""
import base64
import json
import os
import struct
import tempfile

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))

# Sentences in the languages a vault is written in, our own words.
OWN = """
我的笔记里有很多关于快捷键和模板的内容。
怎样在笔记软件里设置快捷键？先打开设置，再选择快捷键页面。
模板可以帮助你快速创建会议记录和读书笔记。
研究人员常常在英文论文旁边用中文写批注。
ホットキーを変更するには、設定画面を開いてください。
テンプレートを使うと、会議のメモを早く書けます。
日本語のノートも検索できるようになりました。
파일을 열고 템플릿을 선택하세요.
단축키를 바꾸려면 설정을 여세요.
연구 노트는 비공개 폴더에 보관합니다.
Die Tastenkürzel lassen sich in den Einstellungen ändern.
Vorlagen helfen beim Schreiben von Besprechungsnotizen.
Die Mütter und die Mutter lesen die Notizen der Forschungsgruppe.
Горячие клавиши можно изменить в настройках программы.
Шаблоны помогают быстро создавать заметки о встречах.
Исследователи хранят личные заметки в отдельной папке.
Les modèles aident à écrire des notes de réunion.
Los atajos de teclado se cambian en la configuración.
การตั้งค่าปุ่มลัดอยู่ในหน้าการตั้งค่า
แม่แบบช่วยให้เขียนบันทึกการประชุมได้เร็วขึ้น
Ｆｕｌｌ－ｗｉｄｔｈ letters and ① compatibility forms are normalised.
"""

# The test sentences: what the Go tokenizer must encode exactly as
# SentencePiece does.
CASES = [
    "怎样设置快捷键",
    "如何使用模板",
    "ホットキーを変更する",
    "テンプレートを使う",
    "파일을 찾기",
    "Tastenkürzel in den Einstellungen ändern",
    "горячие клавиши",
    "การตั้งค่าปุ่มลัด",
    "query: how do I set a hotkey?",
    "passage: Templates help you write meeting notes quickly.",
    "Ｆｕｌｌ－ｗｉｄｔｈ ①",
    "an English paper with 中文批注 in the margin",
    "unseen Ωμέγα and emoji 🙂 fall back to the unknown piece",
    "# 快捷键\n\n在设置里打开快捷键页面。\nDie  Vorlagen\thelfen.",
    "  leading and trailing spaces  ",
    "line one\r\nline two\u00a0with a no-break space",
    "cafe\u0301 decomposed, \ufb01ne ligature, \u2168 numeral, half-width \uff76\uff9e kana",
    "zero\u200bwidth, ideographic\u3000space, a\x01control",
    "\r\n",
    "long: 研究人员常常在英文论文旁边用中文写批注。 Исследователи хранят личные заметки.",
]


def read_proto(b):
    """Yields (field, wire type, value) of a protobuf message."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        field, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield field, wt, v


def varint(b, i):
    shift = out = 0
    while True:
        c = b[i]
        i += 1
        out |= (c & 0x7F) << shift
        if not c & 0x80:
            return out, i
        shift += 7


def main():
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.txt")
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        with open(corpus, "w", encoding="utf-8") as f:
            f.write(readme)
            f.write(OWN * 3)
        prefix = os.path.join(tmp, "m")
        # XLM-R's id order: <s>=0, <pad>=1, </s>=2, <unk>=3.
        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=prefix, model_type="unigram", vocab_size=1200,
            bos_id=0, pad_id=1, eos_id=2, unk_id=3, character_coverage=0.9995,
            normalization_rule_name="nmt_nfkc", input_sentence_size=0, minloglevel=2)
        sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
        with open(prefix + ".model", "rb") as f:
            model = f.read()

    vocab, charsmap = [], b""
    for field, _, v in read_proto(model):
        if field == 1:  # SentencePiece {piece=1, score=2}
            piece, score = "", 0.0
            for f2, _, v2 in read_proto(v):
                if f2 == 1:
                    piece = v2.decode("utf-8")
                elif f2 == 2:
                    score = struct.unpack("<f", v2)[0]
            vocab.append([piece, score])
        elif field == 3:  # NormalizerSpec {precompiled_charsmap=2}
            for f2, _, v2 in read_proto(v):
                if f2 == 2:
                    charsmap = v2
    assert vocab[:4] == [["<s>", 0.0], ["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]], vocab[:4]
    assert charsmap, "no precompiled charsmap"

    special = lambda t, i: {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [special("<s>", 0), special("<pad>", 1), special("</s>", 2), special("<unk>", 3)],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for t, i in (("<s>", 0), ("</s>", 2))},
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": False},
    }
    with open(os.path.join(HERE, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    # XLM-R's config: position ids start after the padding index.
    with open(os.path.join(HERE, "config.json"), "w") as f:
        json.dump({"model_type": "xlm-roberta", "max_position_embeddings": 514, "pad_token_id": 1}, f)
    cases = [{"text": t, "ids": [0] + sp.encode(t, out_type=int) + [2], "pieces": sp.encode(t, out_type=str)} for t in CASES]
    with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
