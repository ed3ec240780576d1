"""Form filling (``pipelines/stages/form_fill.py``, ``form_fields.py``) on real PDF forms: AcroForm
forms made with reportlab's ``canvas.acroForm`` (text fields with tooltips, a checkbox, a choice, a
radio group), flat forms with underscores and drawn lines, and, where the machine has it, the
fillable job-banner form cups-filters ships. Every filled value is read back from the output
with a PDF reader (pypdf's fields, PDFium's text with character boxes), never from the report.

The generators here are shared with ``tests/api/test_edit.py``."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pypdfium2 as pdfium
import pytest
from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.core.requests import FormFillingOptions
from pipelines.engine.document import fill_and_convert
from pipelines.stages import form_fields, form_fill

# cups-filters' fillable banner form: in the package where it is installed, or in the Debian
# package the benchmarks unpack (bench/reading_order.py); the tests that read it skip elsewhere
CUPS_FORM = [Path("/usr/share/cups/data/form_english.pdf"),
             Path.home() / ".cache/docklake-bench/cups-filters_1.28.17-3+deb12u2/usr/share/cups/data/form_english.pdf"]


def cups_form() -> bytes:
    for p in CUPS_FORM:
        if p.exists():
            return p.read_bytes()
    pytest.skip("cups-filters' form_english.pdf is not on this machine (Debian package cups-filters, or "
                "the bench's unpacked copy under ~/.cache/docklake-bench)")


def acroform_pdf(branch: str = "Leeds") -> bytes:
    """A one-page membership form: text fields with tooltips (one named like an IRS form's), a
    prefilled one, a checkbox, a choice, a radio group, and two flat blanks below them."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    form = c.acroForm
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, 740, "Membership application")
    c.setFont("Helvetica", 11)
    c.drawString(72, 700, "Full name:")
    form.textfield(name="applicant.fullName", tooltip="Applicant's full name", x=170, y=692, width=260, height=20)
    c.drawString(72, 665, "E-mail:")
    form.textfield(name="topmostSubform[0].Page1[0].f1_02[0]", tooltip="Email address", x=170, y=657,
                   width=260, height=20)
    c.drawString(72, 630, "Born on:")
    form.textfield(name="dob", tooltip="Date of birth (YYYY-MM-DD)", x=170, y=622, width=120, height=20)
    c.drawString(330, 630, "City:")
    form.textfield(name="addr3", x=380, y=622, width=150, height=20)
    c.drawString(330, 595, "Occupation:")
    form.textfield(name="occ", x=400, y=587, width=130, height=20)
    c.drawString(72, 595, "Branch:")
    form.textfield(name="branch", tooltip="Home branch", value=branch, x=170, y=587, width=120, height=20)
    c.drawString(72, 560, "Member before:")
    form.checkbox(name="prevMember", tooltip="Previously a member", x=170, y=556, size=14, buttonStyle="check")
    c.drawString(72, 525, "Plan:")
    form.choice(name="plan", tooltip="Membership plan", value="Basic", options=["Basic", "Family", "Student"],
                x=170, y=517, width=120, height=20)
    c.drawString(72, 490, "Contact by:")
    for i, (value, shown) in enumerate((("email", "E-mail"), ("phone", "Phone"), ("post", "Post"))):
        form.radio(name="contact", tooltip="Preferred contact", value=value, selected=False,
                   x=170 + i * 80, y=486, size=14)
        c.drawString(188 + i * 80, 490, shown)
    c.drawString(72, 440, "Referred by: ______________________________")
    c.drawString(72, 400, "Signature:")
    c.line(150, 398, 400, 398)
    c.save()
    return buf.getvalue()


def flat_form_pdf() -> bytes:
    """A printed form with no AcroForm: an underscore blank, a drawn line with a label on its left,
    one with the label above, one with a caption below, an empty box, and a ruled table whose
    empty cells are not blanks."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    c.setFont("Helvetica-Bold", 14)
    c.drawString(72, 740, "Visitor registration")
    c.setFont("Helvetica", 11)
    c.drawString(72, 700, "Name: ________________________________")
    c.drawString(72, 660, "Home address:")
    c.line(160, 658, 500, 658)
    c.drawString(72, 625, "Company")
    c.line(72, 600, 300, 600)
    c.line(330, 600, 500, 600)
    c.setFont("Helvetica", 8)
    c.drawString(330, 590, "Date of visit")
    c.setFont("Helvetica", 11)
    c.drawString(72, 555, "Badge number:")
    c.rect(160, 548, 120, 20)
    # a ruled table: header row and two empty rows
    xs, ys = (72, 200, 330, 460), (500, 480, 460, 440)
    for y in ys:
        c.line(xs[0], y, xs[-1], y)
    for x in xs:
        c.line(x, ys[0], x, ys[-1])
    for x, head in zip(xs, ("Item", "Quantity", "Price")):
        c.drawString(x + 4, 486, head)
    c.save()
    return buf.getvalue()


def fields_of(pdf: bytes) -> dict[str, object]:
    return {k: v.get("/V") for k, v in (pypdf.PdfReader(io.BytesIO(pdf)).get_fields() or {}).items()}


def page_text(pdf: bytes, page: int = 0) -> str:
    doc = pdfium.PdfDocument(pdf)
    try:
        return doc[page].get_textpage().get_text_range()
    finally:
        doc.close()


def where(pdf: bytes, text: str, page: int = 0) -> tuple[float, float, float, float]:
    """Where PDFium finds ``text`` on the page, once: its box in points, top-left origin."""
    doc = pdfium.PdfDocument(pdf)
    try:
        pg = doc[page]
        height, tp = pg.get_height(), pg.get_textpage()
        searcher = tp.search(text, match_case=True)
        found = searcher.get_next()
        assert found is not None, f"{text!r} is not on the page: {tp.get_text_range()!r}"
        assert searcher.get_next() is None, f"{text!r} is on the page twice"
        start, count = found
        boxes = [tp.get_charbox(i, loose=True) for i in range(start, start + count)]
        return (min(b[0] for b in boxes), height - max(b[3] for b in boxes),
                max(b[2] for b in boxes), height - min(b[1] for b in boxes))
    finally:
        doc.close()


def same_line(pdf: bytes, label: str, value: str) -> bool:
    """``value`` is written right of ``label``, on its line."""
    lab, val = where(pdf, label), where(pdf, value)
    return val[0] > lab[2] - 1 and abs((val[1] + val[3]) / 2 - (lab[1] + lab[3]) / 2) < 6


def fill(pdf: bytes, prompt: str, **opts: bool) -> tuple[bytes, object]:
    return form_fill.fill(pdf, FormFillingOptions(fill_prompt=prompt, **opts))


# ---------------------------------------------------------------- the prompt


def test_the_prompt_is_key_value_lines_or_json() -> None:
    assert form_fill.parse_prompt("Name: Ada Lovelace\n\nemail = ada@example.org\n- Plan: Family\n"
                                  "Address: 12 Crescent Rd\n  Bath BA1 2AB\nurl: https://x.org/a?b=c") == [
        ("Name", "Ada Lovelace"), ("email", "ada@example.org"), ("Plan", "Family"),
        ("Address", "12 Crescent Rd\nBath BA1 2AB"), ("url", "https://x.org/a?b=c")]
    assert form_fill.parse_prompt('{"full name": "Ada", "member": true, "tags": ["a", "b"], '
                                  '"address": {"city": "Bath"}, "n": 3, "none": null}') == [
        ("full name", "Ada"), ("member", "yes"), ("tags", "a, b"), ("address city", "Bath"), ("n", "3")]
    for bad, words in (("", "no field to fill"), ("please fill in my details", "no language model"),
                       ("{not json", "not valid JSON"), ("[1, 2]", "no field"), ('["a"]', "no field")):
        with pytest.raises(form_fill.InvalidRequest, match=words):
            form_fill.parse_prompt(bad)


def test_similarity_finds_names_tooltips_and_labels_and_refuses_strangers() -> None:
    assert form_fields.readable_name("topmostSubform[0].Page1[0].f1_01[0]") == ""
    assert form_fields.readable_name("applicant.firstName[0]") == "applicant first name"
    assert form_fill.lexical("email", "E-mail") == 1.0
    assert form_fill.lexical("name", "Full name") > 0.8
    assert form_fill.lexical("shoe size", "Full name") < form_fill.THRESHOLD
    assert form_fill.truthy("X") is True and form_fill.truthy("no") is False and form_fill.truthy("maybe") is None
    assert form_fill.closest("family plan", [("Basic", "Basic"), ("Family", "Family")]) == ("Family", "Family")
    assert form_fill.closest("gold", [("Basic", "Basic"), ("Family", "Family")]) is None


# ---------------------------------------------------------------- AcroForm


def test_an_acroform_is_read_with_labels_tooltips_and_options() -> None:
    pdf = acroform_pdf()
    fields = {f.name: f for f in form_fields.read_fields(pypdf.PdfReader(io.BytesIO(pdf)),
                                                         form_fields.read_pages(pdf))}
    assert set(fields) == {"applicant.fullName", "topmostSubform[0].Page1[0].f1_02[0]", "dob", "branch",
                           "prevMember", "plan", "contact", "addr3", "occ"}
    assert fields["addr3"].texts() == ["City", "addr3"] and fields["dob"].label == "Born on"
    assert fields["applicant.fullName"].texts() == ["Full name", "Applicant's full name", "applicant full name"]
    assert fields["topmostSubform[0].Page1[0].f1_02[0]"].texts() == ["E-mail", "Email address"]
    assert fields["branch"].value == "Leeds" and fields["prevMember"].kind == "checkbox"
    assert [o[0] for o in fields["plan"].options] == ["Basic", "Family", "Student"]
    radio = fields["contact"]
    assert radio.kind == "radio" and [(w.on_state, w.label) for w in radio.widgets] == [
        ("email", "E-mail"), ("phone", "Phone"), ("post", "Post")]
    assert radio.label == "Contact by"


def test_acroform_fields_are_filled_and_read_back() -> None:
    out, report = fill(acroform_pdf(), "Name: Ada Lovelace\nemail: ada@example.org\nDate of birth: 1815-12-10\n"
                                       "Previously a member: x\nPlan: family\nContact: phone\n"
                                       "Branch: York\nShoe size: 38\nReferred by: Charles Babbage\n"
                                       "Town: Bath\nHobby: chess")
    values = fields_of(out)
    assert values["applicant.fullName"] == "Ada Lovelace"
    assert values["topmostSubform[0].Page1[0].f1_02[0]"] == "ada@example.org"
    assert values["dob"] == "1815-12-10"
    assert values["prevMember"] == "/Yes" and values["plan"] == "Family" and values["contact"] == "/phone"
    assert values["branch"] == "York"  # the form's default (/DV) is no value anyone filled in
    # a synonym is matched by meaning (MiniLM), a key related to no field is not forced on one
    assert values["addr3"] == "Bath" and values["occ"] == ""
    assert report.unmatched == ["Shoe size", "Hobby"] and not report.kept
    assert report.warnings == ["'Shoe size' matches no field of the form; it was not filled",
                               "'Hobby' matches no field of the form; it was not filled"]
    # the radio buttons show the chosen one, and viewers are asked to draw the values
    reader = pypdf.PdfReader(io.BytesIO(out))
    states = [a.get_object()["/AS"] for a in reader.pages[0]["/Annots"]
              if a.get_object().get("/Parent") is not None]
    assert states == ["/Off", "/phone", "/Off"]
    assert bool(reader.trailer["/Root"]["/AcroForm"]["/NeedAppearances"])
    # PDFium, another reader, sees the same values (as the parse of the filled PDF shows them)
    doc = pdfium.PdfDocument(out)
    doc.init_forms()
    from pipelines.stages import pdf_text

    seen = {f["key"]: f["value"] for f in pdf_text.read_fields(doc, doc[0], 0, 792)}
    assert seen["Applicant's full name"] == "Ada Lovelace" and seen["Previously a member"] == "checked"
    # the flat blank beside the fields was written on
    assert same_line(out, "Referred by:", "Charles Babbage")


def test_source_values_are_replaced_with_ignore_source_values_and_checkboxes_can_be_cleared() -> None:
    first, _ = fill(acroform_pdf(), "name: Ada\nmember before: yes\nbranch: Harrogate")
    again, report = fill(first, "name: Grace Hopper\nmember before: no\nbranch: York")
    assert fields_of(again)["applicant.fullName"] == "Ada" and fields_of(again)["branch"] == "Harrogate"
    assert [k.target for k in report.kept] == ["applicant.fullName", "prevMember", "branch"]
    assert "already holds 'Ada', kept (ignore_source_values replaces it)" in report.warnings[0]
    replaced, report = fill(first, "name: Grace Hopper\nmember before: no\nbranch: York", ignore_source_values=True)
    values = fields_of(replaced)
    assert values["applicant.fullName"] == "Grace Hopper" and values["prevMember"] == "/Off"
    assert values["branch"] == "York" and not report.kept


def test_values_that_fit_no_option_are_reported_not_forced() -> None:
    out, report = fill(acroform_pdf(), "Plan: Platinum\nContact by: carrier pigeon\nMember before: perhaps")
    values = fields_of(out)
    assert values["plan"] == "Basic" and values["contact"] is None and values["prevMember"] == "/Off"
    assert sorted(report.unmatched) == ["Contact by", "Member before", "Plan"]
    assert any("Platinum" in w and "Basic, Family, Student" in w for w in report.warnings)


def test_no_acroform_leaves_the_fields_alone_and_no_widget_detection_the_lines() -> None:
    out, report = fill(acroform_pdf(), "Name: Ada\nReferred by: Charles", no_acroform=True)
    assert fields_of(out)["applicant.fullName"] == "" and same_line(out, "Referred by:", "Charles")
    assert report.fields_found == 0 and report.unmatched == ["Name"]
    out, report = fill(acroform_pdf(), "Name: Ada\nReferred by: Charles", no_widget_detection=True)
    assert fields_of(out)["applicant.fullName"] == "Ada" and report.blanks_found == 0
    assert "Charles" not in page_text(out) and report.unmatched == ["Referred by"]


def test_a_real_fillable_form_from_debian() -> None:
    """cups-filters' banner form: field names like ``job-originating-host-name``, labels printed
    beside them ("Source host:"), no tooltips."""
    out, report = fill(cups_form(), "Task name: Quarterly report\nUser: alice\nSource host: build-7\n"
                                    "Printer manufacturer: ACME\nDriver version = 2.4.1\nfavourite animal: cat")
    values = fields_of(out)
    assert (values["job-title"], values["user"], values["job-originating-host-name"],
            values["make-and-model"], values["driver-version"]) == (
        "Quarterly report", "alice", "build-7", "ACME", "2.4.1")
    assert values["printer-name"] == "" and report.unmatched == ["favourite animal"]
    assert report.fields_found == 17 and report.blanks_found == 0


# ---------------------------------------------------------------- flat forms


def test_blank_lines_of_a_flat_form_are_found_with_their_labels() -> None:
    blanks = form_fields.find_blanks(form_fields.read_pages(flat_form_pdf()))
    assert sorted((b.label, b.source) for b in blanks) == [
        ("Badge number", "box"), ("Company", "line"), ("Date of visit", "line"),
        ("Home address", "line"), ("Name", "underscores")]


def test_a_flat_form_is_written_on_its_lines() -> None:
    out, report = fill(flat_form_pdf(), '{"name": "Ada Lovelace", "address": "12 Crescent Road, Bath", '
                                        '"company": "Analytical Engines Ltd", "date of visit": "2025-03-01", '
                                        '"badge": "B-17", "price": "9.99"}')
    for label, value in (("Name:", "Ada Lovelace"), ("Home address:", "12 Crescent Road, Bath")):
        assert same_line(out, label, value), (label, where(out, label), where(out, value))
    badge, box = where(out, "B-17"), (160, 792 - 568, 280, 792 - 548)
    assert box[0] < badge[0] < badge[2] < box[2] and box[1] < badge[1] < badge[3] < box[3]  # inside its box
    company, line_y = where(out, "Analytical Engines Ltd"), 792 - 600
    assert 72 <= company[0] < 100 and company[1] < line_y < company[3] + 4  # on the line under "Company"
    date = where(out, "2025-03-01")
    assert 330 <= date[0] < 350 and date[1] < line_y < date[3] + 4  # on the line above "Date of visit"
    assert report.unmatched == ["price"]  # the table's empty cells are not blanks


def test_fill_and_convert_parses_the_filled_pdf_and_refuses_other_documents() -> None:
    r = fill_and_convert(DocumentInput(data=acroform_pdf(), form_filling=FormFillingOptions(
        fill_prompt="name: Ada Lovelace")))
    assert r.status.value == "success" and r.filled_pdf and r.form_filling.filled[0].target == "applicant.fullName"
    kv = [f.content for p in r.pages for f in p.fragments if f.fragment_type == "key_value_region"]
    assert {"key": "Applicant's full name", "value": "Ada Lovelace"} in [
        {"key": c.get("key"), "value": c.get("value")} for c in kv]
    bad = fill_and_convert(DocumentInput(data=b"Name: ____", form_filling=FormFillingOptions(fill_prompt="a: b")))
    assert bad.status.value == "failure" and bad.filled_pdf is None
    assert bad.error_message() == "form filling needs a PDF; this document is text/plain"
