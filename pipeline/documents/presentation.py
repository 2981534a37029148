""".pptx, read with python-pptx, which finds the slides and their speaker notes through the
package's relationships (and refuses what is no presentation; a macro-enabled one is refused here,
though nothing in a file is ever run).

Every DrawingML paragraph (a:p) of every slide, in its shapes, groups and tables, and of its
speaker notes is translated as a .docx paragraph is (``paragraphs``): each run (a:r) is a
<span data-r>, so that its formatting (a:rPr: bold, colour, a hyperlink) follows its words; a tab
stays between its words, a line break (a:br) cuts the paragraph into lines translated apart, and
fields (a:fld: the slide number, a date) are moved as written. Only the slides and notes that had
text are written anew; every other member of the zip (pictures, layouts, masters, charts,
SmartArt, media) stays byte for byte, untranslated.
"""

from __future__ import annotations

import io
from copy import deepcopy
from typing import Any

from lxml import etree

from ..language_pair import DE_EN, LanguagePair
from .base import Budget, Document, DocumentError, Unit
from .paragraphs import Paragraph, counted, read_fragment
from .zips import rezip, unzip, xml_error

_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_PPTX_KEPT = {_A + "pPr", _A + "endParaRPr"}   # the paragraph's properties, first and last


def scan(p: Any) -> Paragraph | None:
    para = Paragraph(p)
    for child in p:
        tag = child.tag
        if not isinstance(tag, str) or tag in _PPTX_KEPT:
            continue
        if tag == _A + "r":
            para.runs.append(child)
            para.run_scope.append(None)
            para.run_chars.append(0)
            para.emit(f'<span data-r="{len(para.runs) - 1}">')
            for i, piece in enumerate((child.findtext(_A + "t") or "").split("\t")):
                if i:
                    para.point('data-t=""', separator=True)
                if piece:
                    para.add_text(piece)
            para.emit("</span>")
        elif tag == _A + "br":
            para.emit(f'<br data-b="{len(para.breaks)}">')
            para.breaks.append((child, None))
        else:   # a field, an equation ...: as written
            para.atom(child)
    return para if "".join(para.text).strip() else None


def _formatting(run: Any) -> bytes:
    """A run's formatting as runs are compared: its a:rPr as written (b"" without, or without a run)."""
    rpr = run.find(_A + "rPr") if run is not None else None
    return etree.tostring(rpr) if rpr is not None else b""


def _rebuild(para: Paragraph, translated: str) -> None:
    tokens = read_fragment(para, translated)
    p = para.element
    for child in [c for c in p if c.tag not in _PPTX_KEPT]:
        p.remove(child)
    end = p.find(_A + "endParaRPr")
    add = end.addprevious if end is not None else p.append
    last: tuple[Any, bytes] | None = None   # (a:r, formatting) that text may extend
    for token in tokens:
        if token.kind in ("atom", "br"):
            for element in para.atoms[token.value] if token.kind == "atom" else [deepcopy(para.breaks[token.value][0])]:
                add(element)
            last = None
            continue
        if token.kind == "open" or (token.kind == "text" and not token.value):
            continue
        owner = token.run if token.run is not None else para.dominant(None)
        source = para.runs[owner] if owner is not None else None
        rpr = source.find(_A + "rPr") if source is not None else None
        key = _formatting(source)
        if last is None or last[1] != key:
            run = etree.Element(_A + "r")
            if rpr is not None:
                run.append(deepcopy(rpr))
            etree.SubElement(run, _A + "t").text = ""
            add(run)
            last = (run, key)
        last[0][-1].text += "\t" if token.kind == "tab" else token.value
    for atom in para.atoms:   # nothing may be lost, even if the fragment came back without a point
        for element in atom:
            if element.getparent() is None:
                add(element)


class Presentation(Document):
    """A .pptx: each paragraph with text of the slides and their notes, an HTML fragment."""

    def __init__(self, data: bytes, budget: Budget):
        import pptx
        from pptx.opc.constants import CONTENT_TYPE

        self.archive = unzip(data, ".pptx", budget)
        try:
            presentation = pptx.Presentation(io.BytesIO(data))
        except etree.XMLSyntaxError as exc:
            raise xml_error(exc, "its XML", ".pptx") from None
        except Exception:  # noqa: BLE001 -- whatever fails in parsing an upload is the upload's fault
            raise DocumentError("file is not a valid .pptx document") from None
        if presentation.part.content_type != CONTENT_TYPE.PML_PRESENTATION_MAIN:
            raise DocumentError("file is not a valid .pptx document: macro-enabled presentations are refused")
        self.parts: list[tuple[Any, list[Paragraph]]] = []   # (slide or notes part, its paragraphs)
        for slide in presentation.slides:
            for owner in [slide, slide.notes_slide] if slide.has_notes_slide else [slide]:
                paragraphs = counted(owner.element.iter(_A + "p"), scan, budget)
                if paragraphs:
                    self.parts.append((owner.part, paragraphs))
        self.chars = sum(para.chars for _, paragraphs in self.parts for para in paragraphs)

    def units(self) -> list[Unit]:
        return [Unit(para.fragment(_formatting), html=True) for _, found in self.parts for para in found]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        paragraphs = [para for _, found in self.parts for para in found]
        for para, output in zip(paragraphs, translations, strict=True):
            _rebuild(para, output)
        return rezip(self.archive, {part.partname.membername: part.blob for part, _ in self.parts})
