"""Form filling (``POST /documents/v2/edit``): a PDF's fields filled from ``fill_prompt``.

The prompt is a JSON object or ``key: value`` / ``key = value`` lines (``parse_prompt``). Each key
is matched to a place to write (``form_fields``): an AcroForm field (unless ``no_acroform``) by its
printed label, tooltip and readable name, or a blank line of a flat form (unless
``no_widget_detection``) by its label. A key and a place score by the best of exact, token and
character similarity and MiniLM cosine similarity (``embed``); pairs are taken greedily, best
first, above ``THRESHOLD``. Values are coerced to the field: checkboxes from yes/no/true/x,
choices and radio groups to the closest option. A field that holds a value keeps it unless
``ignore_source_values``. Text and choice fields get appearance streams (pypdf) and the form
``NeedAppearances``; values on flat lines are drawn into the page in Helvetica.

There is no language model: keys that match nothing are reported, never guessed. Kept apart from
``form_fields`` (reading the form) so each stays small; both run in the limited child process
that converts the job's document.
"""

from __future__ import annotations

import difflib
import io
import json
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.errors import PdfReadError
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject, TextStringObject

from pipelines.core.errors import CorruptDocument, DocklakeError, EncryptedDocument, InvalidRequest
from pipelines.core.models import FilledItem, FormFillingReport
from pipelines.core.requests import FormFillingOptions
from pipelines.stages import embed, limits
from pipelines.stages.form_fields import (
    FF_COMBO,
    FF_EDIT,
    Blank,
    FormField,
    find_blanks,
    read_fields,
    read_pages,
)

THRESHOLD = 0.6  # below it a key fills nothing (see tests/unit/test_form_fill.py)
TRUE = {"yes", "y", "true", "x", "checked", "check", "on", "1", "✓", "✔", "ja", "oui", "si", "sí"}
FALSE = {"no", "n", "false", "unchecked", "off", "0", "none", "nein", "non", ""}
_SEPARATOR = re.compile(r"\s*[:=]\s*")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def parse_prompt(prompt: str | None) -> list[tuple[str, str]]:
    """``(key, value)`` pairs of a fill prompt, in order: a JSON object (nested objects give
    "outer inner" keys, lists are joined with ", ", booleans become yes/no), or one pair per
    line split at the first ``:`` or ``=``; a line without one continues the previous value.
    Raises ``InvalidRequest`` when there is no pair at all."""
    text = (prompt or "").strip()
    pairs: list[tuple[str, str]] = []
    if text.startswith("{"):
        try:
            obj = json.loads(text)
        except ValueError as exc:
            raise InvalidRequest(f"form_filling.fill_prompt starts like JSON but is not valid JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise InvalidRequest("form_filling.fill_prompt as JSON must be an object of field: value")
        _flatten(obj, "", pairs)
    else:
        for line in text.splitlines():
            if not line.strip():
                continue
            body = _BULLET.sub("", line)
            m = _SEPARATOR.search(body)
            key = body[: m.start()].strip().strip("\"'") if m else ""
            if m and key and len(key) <= 120:
                pairs.append((key, body[m.end():].strip().strip("\"'")))
            elif pairs:  # a value that runs over several lines
                pairs[-1] = (pairs[-1][0], f"{pairs[-1][1]}\n{line.strip()}".strip())
    pairs = [(k, v) for k, v in pairs if k.strip()]
    if not pairs:
        raise InvalidRequest("form_filling.fill_prompt has no field to fill: give 'field: value' lines or a JSON "
                             "object (docklake has no language model to read free text)")
    return pairs


def _flatten(obj: dict[str, Any], prefix: str, out: list[tuple[str, str]]) -> None:
    for k, v in obj.items():
        key = f"{prefix} {k}".strip()
        if isinstance(v, dict):
            _flatten(v, key, out)
        elif isinstance(v, bool):
            out.append((key, "yes" if v else "no"))
        elif isinstance(v, list):
            out.append((key, ", ".join(str(x) for x in v)))
        elif v is not None:
            out.append((key, str(v)))


# ---------------------------------------------------------------- matching


@lru_cache(maxsize=8192)
def tokens(text: str) -> tuple[str, ...]:
    text = re.sub(r"\[\d+\]", " ", text)
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return tuple(t for t in re.split(r"[^0-9a-zA-ZÀ-ÿ]+", text.lower()) if t)


def _covered(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """The share of the words of ``a`` that ``b`` has (a word of 3 letters or more also counts
    when one starts the other: "tel" and "telephone")."""
    have = set(b)
    long = [y for y in b if len(y) >= 3]
    hits = sum(x in have or (len(x) >= 3 and any(x.startswith(y) or y.startswith(x) for y in long)) for x in a)
    return hits / len(a)


@lru_cache(maxsize=65536)
def lexical(key: str, text: str) -> float:
    """1 for the same words; the share of the key's words the text has (and of the text's the
    key has); the character similarity of the two joined (``e-mail`` is ``email``)."""
    k, t = tokens(key), tokens(text)
    if not k or not t:
        return 0.0
    a, b = "".join(k), "".join(t)
    if k == t or a == b:
        return 1.0
    cover_k, cover_t = _covered(k, t), _covered(t, k)
    base = 0.8 * cover_k + 0.15 * cover_t
    if max(len(a), len(b)) > 40:  # a sentence (a long tooltip): its words say it, not its letters
        return base
    chars = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if chars.real_quick_ratio() * 0.95 <= base or chars.quick_ratio() * 0.95 <= base:
        return base  # the characters cannot do better (the exact ratio is the slow part)
    return max(base, chars.ratio() * 0.95)


class Scorer:
    """Similarity of prompt keys and places' texts: lexical, or MiniLM cosine when higher (a
    little discounted: related but different labels are close in embedding space)."""

    def __init__(self, keys: list[str], texts: list[str], warnings: list[str]) -> None:
        self.vectors: dict[str, Any] = {}
        wanted = list(dict.fromkeys([*keys, *texts]))
        try:
            vecs = embed.embed(wanted)
            self.vectors = dict(zip(wanted, vecs))
        except DocklakeError as exc:  # the model is missing: names and labels are still compared
            warnings.append(f"similarity by words only: {exc.message}")

    def score(self, key: str, text: str) -> float:
        lex = lexical(key, text)
        if key in self.vectors and text in self.vectors:
            return max(lex, 0.9 * float(self.vectors[key] @ self.vectors[text]))
        return lex


@dataclass
class Match:
    key: str
    value: str
    place: FormField | Blank
    score: float
    text: str  # what matched


def match(pairs: list[tuple[str, str]], places: list[FormField | Blank], warnings: list[str]
          ) -> tuple[list[Match], list[str]]:
    """Prompt keys assigned to places greedily, best score first; the keys left over."""
    texts = [p.texts() for p in places]
    scorer = Scorer([k for k, _ in pairs], [t for ts in texts for t in ts], warnings)
    scored = []
    for i, (key, _) in enumerate(pairs):
        for j, mine in enumerate(texts):
            best, where = max(((scorer.score(key, t), t) for t in mine), default=(0.0, ""))
            if best >= THRESHOLD:
                scored.append((best, -i, -j, where))
    scored.sort(reverse=True)
    used_keys: set[int] = set()
    used_places: set[int] = set()
    found = []
    for best, ni, nj, where in scored:
        i, j = -ni, -nj
        if i in used_keys or j in used_places:
            continue
        used_keys.add(i)
        used_places.add(j)
        found.append(Match(pairs[i][0], pairs[i][1], places[j], round(best, 3), where))
    found.sort(key=lambda m: [k for k, _ in pairs].index(m.key))
    left = [k for i, (k, _) in enumerate(pairs) if i not in used_keys]
    return found, left


def truthy(value: str) -> bool | None:
    v = value.strip().lower()
    return True if v in TRUE else False if v in FALSE else None


def closest(value: str, options: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The option (export, shown) a value means: the same words, else the most similar above 0.75."""
    best, score = None, 0.0
    for opt in options:
        for text in opt:
            s = 1.0 if tokens(value) == tokens(text) else max(lexical(value, text), lexical(text, value))
            if s > score:
                best, score = opt, s
    return best if score >= 0.75 else None


# ---------------------------------------------------------------- filling


def fill(data: bytes, opts: FormFillingOptions) -> tuple[bytes, FormFillingReport]:
    """The PDF ``data`` filled as ``opts`` asks, and what was filled, kept and left over."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its notes on odd files are not the user's
    pairs = parse_prompt(opts.fill_prompt)
    report = FormFillingReport()
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise EncryptedDocument("the PDF is encrypted and needs a password")
        limits.check_pages(len(reader.pages))
        writer = PdfWriter(clone_from=reader)
    except PdfReadError as exc:
        raise CorruptDocument(f"the PDF cannot be read for filling ({exc})") from None
    pages = read_pages(data)
    fields = [] if opts.no_acroform else read_fields(writer, pages)
    taken = [(w.page, w.box) for f in fields for w in f.widgets]
    blanks = [] if opts.no_widget_detection else find_blanks(pages, taken)
    labelled = {(w.page, tuple(tokens(f.label))) for f in fields for w in f.widgets[:1]}
    blanks = [b for b in blanks if (b.page, tuple(tokens(b.label))) not in labelled]  # the field is there
    report.fields_found, report.blanks_found = len(fields), len(blanks)
    places: list[FormField | Blank] = [*fields, *blanks]
    if not places:
        report.warnings.append("no fillable field" + ("" if opts.no_widget_detection else " or labelled blank line")
                               + " was found in the document")
    matches, left = match(pairs, places, report.warnings) if places else ([], [k for k, _ in pairs])
    report.unmatched = left
    for key in left:
        report.warnings.append(f"'{key}' matches no field of the form; it was not filled")
    acro: dict[str, tuple[FormField, str]] = {}
    flat: list[tuple[Blank, str]] = []
    for m in matches:
        item = FilledItem(key=m.key, value=m.value, score=m.score, matched=m.text)
        if isinstance(m.place, Blank):
            item.target, item.kind, item.page_number = f"line '{m.place.label}'", "line", m.place.page + 1
            flat.append((m.place, m.value))
            report.filled.append(item)
            continue
        f = m.place
        item.target, item.kind, item.page_number = f.name, f.kind, f.page + 1
        if f.value and f.value != f.default and not opts.ignore_source_values:
            item.value = f.value
            report.kept.append(item)
            report.warnings.append(f"'{m.key}': the field {f.name!r} already holds {f.value!r}, kept "
                                   "(ignore_source_values replaces it)")
            continue
        written = _coerce(f, m, report.warnings)
        if written is None:
            report.unmatched.append(m.key)
            continue
        item.value = written
        acro[f.name] = (f, written)
        report.filled.append(item)
    if acro:
        set_fields(writer, acro, report.warnings)
    if flat:
        draw_values(writer, flat, pages, report.warnings)
    form = writer.root_object.get("/AcroForm")
    if acro and form is not None and "/XFA" in form.get_object():
        del form.get_object()["/XFA"]
        report.warnings.append("the form's XFA part was removed so that viewers show the filled AcroForm values")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue(), report


def _coerce(f: FormField, m: Match, warnings: list[str]) -> str | None:
    """The value to write into ``f`` for the prompt's ``m.value`` (a button's state name), or
    ``None`` with a warning when it means none of the field's choices."""
    value = m.value.strip()
    states = list(dict.fromkeys(w.on_state for w in f.widgets if w.on_state))
    if f.kind == "checkbox" and len(states) > 1:  # boxes of one name with their own states: a choice
        f = FormField(name=f.name, kind="radio", widgets=f.widgets)
    if f.kind == "checkbox":
        on = truthy(value)
        if on is None:  # the state's own name ("Married") or the box's label
            hit = closest(value, [(s, s) for s in states] + [(w.on_state, w.label) for w in f.widgets
                                                            if w.on_state and w.label])
            on = hit is not None
            if not on:
                warnings.append(f"'{m.key}': {value!r} is not yes or no for the checkbox {f.name!r}; not filled")
                return None
        return (states[0] if states else "Yes") if on else "Off"
    if f.kind == "radio":
        opts = [(w.on_state, w.label) for w in f.widgets if w.on_state]
        exports = dict(zip([w.on_state for w in f.widgets], [o[1] for o in f.options]))
        opts += [(s, exports[s]) for s in exports if s]
        hit = closest(value, opts)
        if hit is None:
            warnings.append(f"'{m.key}': {value!r} is none of the options of {f.name!r} "
                            f"({', '.join(dict.fromkeys(o[1] or o[0] for o in opts))}); not filled")
            return None
        return hit[0]
    if f.kind == "choice" and f.options:
        hit = closest(value, f.options)
        if hit is not None:
            return hit[0]
        if f.flags & FF_COMBO and f.flags & FF_EDIT:
            return value
        warnings.append(f"'{m.key}': {value!r} is none of the options of {f.name!r} "
                        f"({', '.join(o[1] for o in f.options[:12])}); not filled")
        return None
    if f.max_len and len(value) > f.max_len:
        warnings.append(f"'{m.key}': cut to the field's {f.max_len} characters")
        value = value[: f.max_len]
    return value


# ---------------------------------------------------------------- writing


def set_fields(writer: Any, values: dict[str, tuple[FormField, str]], warnings: list[str]) -> None:
    """Write the values: buttons by their state (``/V`` and each widget's ``/AS``), text and
    choices through pypdf, which also draws their appearance; ``NeedAppearances`` asks viewers
    to redraw what pypdf could not."""
    writer.set_need_appearances_writer(True)
    texts: dict[int, dict[str, str]] = {}
    for name, (f, value) in values.items():
        if f.kind in ("checkbox", "radio"):
            state = NameObject("/" + value)
            f.ref[NameObject("/V")] = state
            for w in f.widgets:
                w.ref[NameObject("/AS")] = state if w.on_state == value else NameObject("/Off")
            continue
        for page in {w.page for w in f.widgets}:
            texts.setdefault(page, {})[name] = value
    for page, fields in texts.items():
        try:
            writer.update_page_form_field_values(writer.pages[page], fields, auto_regenerate=None)
        except Exception as exc:  # noqa: BLE001 - a font pypdf cannot use: the value alone, drawn by viewers
            for name, value in fields.items():
                values[name][0].ref[NameObject("/V")] = TextStringObject(value)
            warnings.append(f"page {page + 1}: the filled values have no appearance of their own ({exc}); "
                            "viewers draw them (NeedAppearances)")


# Helvetica's widths in thousandths of an em, roughly (enough to shrink a value to its line)
_NARROW, _WIDE = set("il.,:;'|!`ijlt f()[]-/"), set("mwMW@%")


def text_width(text: str, size: float) -> float:
    em = sum(0.28 if c in _NARROW else 0.85 if c in _WIDE else 0.68 if c.isupper() else 0.54 for c in text)
    return em * size


def _pdf_string(text: str) -> tuple[bytes, bool]:
    raw = text.encode("cp1252", errors="replace")
    lossy = raw.decode("cp1252", errors="replace") != text
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")", lossy


def draw_values(writer: Any, items: list[tuple[Blank, str]], pages: list[Any], warnings: list[str]) -> None:
    """Each value written on its blank line, in Helvetica, shrunk (to 6 pt) to fit the line."""
    by_page: dict[int, list[tuple[Blank, str]]] = {}
    for blank, value in items:
        by_page.setdefault(blank.page, []).append((blank, value))
    for index, todo in by_page.items():
        page, geo = writer.pages[index], pages[index]
        ops = []
        for blank, value in todo:
            text = " ".join(value.split())
            width = blank.box[2] - blank.box[0] - 4
            size = blank.size
            while size > 6 and text_width(text, size) > width:
                size -= 0.5
            if text_width(text, size) > width + 40:
                warnings.append(f"page {index + 1}: the value for '{blank.label}' runs past its line")
            literal, lossy = _pdf_string(text)
            if lossy:
                warnings.append(f"page {index + 1}: characters of the value for '{blank.label}' that Helvetica "
                                "cannot show were written as '?'")
            x, y = geo.left + blank.box[0] + 2, geo.top - blank.baseline
            ops.append(b"BT /DLHelv %.1f Tf 0 g 1 0 0 1 %.2f %.2f Tm " % (size, x, y) + literal + b" Tj ET")
        overlay = PageObject.create_blank_page(width=float(page.mediabox.width), height=float(page.mediabox.height))
        font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                                 NameObject("/BaseFont"): NameObject("/Helvetica"),
                                 NameObject("/Encoding"): NameObject("/WinAnsiEncoding")})
        overlay[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/DLHelv"): font})})
        stream = DecodedStreamObject()
        stream.set_data(b"q\n" + b"\n".join(ops) + b"\nQ\n")
        overlay[NameObject("/Contents")] = stream
        page.merge_page(overlay)
