"""Whole files in, translated files out: ``.txt``, ``.html``, ``.docx``, gettext ``.po``/``.pot``,
``.srt``/``.vtt`` subtitles, ``.json`` string files, ``.md`` Markdown, OpenDocument ``.odt``/``.odp``,
``.pptx``, ``.epub`` and ``.pdf`` (translated into a ``.docx``), given a translate function.

``read(extension, data, max_chars=None, *, seconds=READ_SECONDS)`` parses the bytes (raising
``DocumentError`` for input that is not what its extension says, ``DocumentTooLarge`` for a file
over a limit) and returns a ``Document`` with ``chars``, the amount of text to translate, and
``translate(translate, languages=DE_EN) -> bytes`` (``pipeline.language_pair``: de-en or en-de;
where the file names the source language, the result names the target); ``output_extension``
gives the extension of that result and ``media_type`` what it is served as. ``translate(texts, html=False)`` is the service's signature
(``pipeline.texts.translate_texts``): plain texts, or HTML fragments whose inline tags follow the
words (``pipeline.markup``).

The package, one module per family of formats behind one protocol:

- ``base``: the ``Document`` protocol (``units()`` to translate, ``write`` back), the errors,
  the reading ``Budget`` (characters, time, paragraphs: a file is refused as soon as it passes
  one, while it is parsed), and helpers of several formats;
- ``registry``: from extension to ``Format`` (reader, media type, result's extension), ``read``;
- ``text`` (.txt, .html), ``markdown`` (.md), ``catalog`` (.po, .pot), ``subtitles`` (.srt,
  .vtt), ``json_strings`` (.json): the text formats;
- ``zips``: the zips and their XML (declared sizes and parts checked before anything is
  decompressed, XML parsed with entities, DTDs and the network off);
- ``paragraphs``: a paragraph with its formatted runs as one HTML fragment, and back;
- ``word`` (.docx), ``opendocument`` (.odt, .odp), ``presentation`` (.pptx), ``epub`` (.epub),
  ``pdf`` (.pdf, with pypdf; its translation a .docx).

Nothing in a file is ever run: files are read as text, as the XML of their zips or by pypdf.
Plain texts (the service's ``/translate``) never come here: they go to the pipeline directly.
"""

from .base import READ_SECONDS, Document, DocumentError, DocumentTooLarge, Translate, Unit
from .registry import FORMATS, SUPPORTED, Format, extension, media_type, output_extension, read

__all__ = ["FORMATS", "READ_SECONDS", "SUPPORTED", "Document", "DocumentError", "DocumentTooLarge", "Format",
           "Translate", "Unit", "extension", "media_type", "output_extension", "read"]
