"""app/markup.py: format=html translates text between tags and never lets markup through."""

from app.markup import html_pieces, translate_html


def upper(runs):
    return [r.upper() for r in runs]


def test_tags_and_attributes_kept_text_translated():
    doc = '<p class="x">Hallo <b>Welt</b>!</p>'
    assert translate_html([doc], upper) == ['<p class="X">HALLO <b>WELT</b>!</p>'.replace('"X"', '"x"')]


def test_script_style_and_code_untouched_and_still_escaped():
    doc = "<script>if (a<b) x()</script><style>p{}</style><code>a &lt; b</code> &amp; mehr"
    assert translate_html([doc], upper) == ["<script>if (a<b) x()</script><style>p{}</style><code>a &lt; b</code> &amp; MEHR"]


def test_translation_is_escaped():
    assert translate_html(["<i>x</i>"], lambda runs: ["<script>alert(1)</script>"]) == [
        "<i>&lt;script&gt;alert(1)&lt;/script&gt;</i>"]


def test_one_call_for_all_documents_and_comments_kept():
    calls = []

    def fake(runs):
        calls.append(runs)
        return upper(runs)

    out = translate_html(["<!-- note --><p>Eins</p>", "Zwei", "<br/>"], fake)
    assert out == ["<!-- note --><p>EINS</p>", "ZWEI", "<br/>"]
    assert calls == [["Eins", "Zwei"]]


def test_pieces():
    assert html_pieces("<a href='x'>Hi</a>") == [("markup", "<a href='x'>"), ("text", "Hi"), ("markup", "</a>")]
