"""pipeline/markup.py: blocks are translated whole, inline tags follow the word alignment.

``translate`` here is built from explicit translations and alignments (``Table``) or shouts every
word back in place (``upper``): they are the inputs whose projection is under test, the model's
own alignments are tested end to end elsewhere.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

import pytest

from model.inference.alignment import AlignedText
from pipeline.language_pair import EN_DE
from pipeline.markup import Segment, parse_html, target_lang, translate_html
from pipeline.placement import covered_words

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
         "track", "wbr"}


def words(text: str) -> list[tuple[int, int]]:
    """Words and punctuation marks, as the orchestrator reports them: character spans."""
    return [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]


def aligned(source: str, target: str, links: list[tuple[int, int]]) -> AlignedText:
    return AlignedText(source, target, words(source), words(target), sorted(links))


class Table:
    """A translate function from {source: (target, links)}; records what it was asked."""

    def __init__(self, table: dict[str, tuple[str, list[tuple[int, int]]]]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[AlignedText]:
        self.calls.append(list(texts))
        return [aligned(text, *self.table[text]) for text in texts]


def upper(texts: list[str]) -> list[AlignedText]:
    """Every word upper-cased in place, each aligned to itself."""
    assert all(len(t.upper()) == len(t) for t in texts), "keep test texts free of ß"
    return [aligned(t, t.upper(), [(i, i) for i in range(len(words(t)))]) for t in texts]


class _Checker(HTMLParser):
    """Fails unless every end tag closes the innermost open element and all are closed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.starts: Counter[str] = Counter()
        self.ends: Counter[str] = Counter()

    def handle_starttag(self, tag, attrs):
        self.starts[tag] += 1
        if tag not in _VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.starts[tag] += 1

    def handle_endtag(self, tag):
        self.ends[tag] += 1
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open}"
        self.open.pop()


def check(document: str) -> _Checker:
    checker = _Checker()
    checker.feed(document)
    checker.close()
    assert checker.open == [], f"left open: {checker.open}"
    return checker


def test_one_sentence_with_an_inline_tag():
    translate = Table({"Das ist sehr gut.": ("That is very good.", [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)])})
    assert translate_html(["<p>Das ist <b>sehr</b> gut.</p>"], translate) == ["<p>That is <b>very</b> good.</p>"]
    assert translate.calls == [["Das ist sehr gut."]]


def test_nested_inline_tags():
    translate = Table({"Das neue Haus ist groß.": ("The new house is big.",
                                                   [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)])})
    doc = "<p><a href='/h'>Das <b>neue</b> Haus</a> ist <em><u>groß</u></em>.</p>"
    assert translate_html([doc], translate) == [
        "<p><a href='/h'>The <b>new</b> house</a> is <em><u>big</u></em>.</p>"]


def test_attributes_kept_byte_for_byte():
    doc = """<p>Siehe <a href="x?a=1&amp;b=2" class='k'  data-X = "&lt;1" >hier</a>.</P >"""
    translate = Table({"Siehe hier.": ("See here.", [(0, 0), (1, 1), (2, 2)])})
    assert translate_html([doc], translate) == [
        """<p>See <a href="x?a=1&amp;b=2" class='k'  data-X = "&lt;1" >here</a>.</P >"""]


def test_the_document_says_it_is_english():
    doc = '<html lang="de-DE"><body><p xml:lang="de" lang=\'de\' class="k">Siehe hier.</p></body></html>'
    translate = Table({"Siehe hier.": ("See here.", [(0, 0), (1, 1), (2, 2)])})
    assert translate_html([doc], translate) == [
        '<html lang="en"><body><p xml:lang="en" lang=\'en\' class="k">See here.</p></body></html>']


@pytest.mark.parametrize("markup, expected", [
    ('<span lang=de-AT>', '<span lang=en>'),
    ('<P LANG="DE" ID=x>', '<P LANG="en" ID=x>'),
    ('<p lang="fr">', '<p lang="fr">'),                          # another language: as written
    ('<a hreflang="de" data-lang="de">', '<a hreflang="de" data-lang="de">'),  # not the element's language
    ('<p title="lang=de">', '<p title="lang=de">'),              # inside another attribute's value
    ('<html lang="deu">', '<html lang="deu">'),
    ('Text lang="de" hier', 'Text lang="de" hier'),             # not a tag
])
def test_target_lang(markup, expected):
    assert target_lang(markup) == expected


@pytest.mark.parametrize("markup, expected", [
    ('<html lang="en-GB">', '<html lang="de">'),
    ('<P LANG="EN" xml:lang=en_US ID=x>', '<P LANG="de" xml:lang=de ID=x>'),
    ('<q lang="de">', '<q lang="de">'),                          # German already: as written
    ('<p lang="eng">', '<p lang="eng">'),
])
def test_target_lang_of_an_english_source(markup, expected):
    assert target_lang(markup, EN_DE) == expected


def test_an_english_document_says_it_is_german():
    doc = '<html lang="en-US"><body><p lang=\'en\'>See here.</p><p lang="fr">Voir.</p></body></html>'
    translate = Table({"See here.": ("Siehe hier.", [(0, 0), (1, 1), (2, 2)]),
                       "Voir.": ("Voir.", [(0, 0), (1, 1)])})
    assert translate_html([doc], translate, EN_DE) == [
        '<html lang="de"><body><p lang=\'de\'>Siehe hier.</p><p lang="fr">Voir.</p></body></html>']


def test_tag_follows_a_verb_that_moves():
    translate = Table({"Ich habe das Buch gelesen.": ("I have read the book.",
                                                      [(0, 0), (1, 1), (2, 4), (3, 2), (4, 3), (5, 5)])})
    assert translate_html(["<p>Ich habe das Buch <b>gelesen</b>.</p>"], translate) == [
        "<p>I have <b>read</b> the book.</p>"]


def test_tag_over_several_source_words_covers_their_output_range():
    # "hat ... gesehen" -> "has seen": the tag spans the output range of all of its words.
    translate = Table({"Er hat den Hund gesehen.": ("He has seen the dog.",
                                                    [(0, 0), (1, 1), (2, 4), (3, 2), (4, 3), (5, 5)])})
    assert translate_html(["<p>Er <i>hat den Hund gesehen</i>.</p>"], translate) == [
        "<p>He <i>has seen the dog</i>.</p>"]


@pytest.mark.parametrize(("doc", "target", "links", "expected"), [
    # "bis" also aligns to the "to" of the times outside: the tag keeps the days, not the hours
    ("<p>Wir haben <b>dienstags bis donnerstags</b> von 9 bis 17 Uhr offen.</p>",
     "We are open from 9 to 5 pm Tuesdays to Thursdays.",
     [(0, 0), (1, 1), (2, 10), (3, 5), (4, 6), (5, 7), (5, 3), (6, 8), (7, 9), (8, 2), (9, 3), (10, 4), (11, 11)],
     "<p>We are open from 9 to 5 pm <b>Tuesdays to Thursdays</b>.</p>"),
    # "gar nicht" -> "not ... at all": the run with more of the element's words wins
    ("<p>Das hat mir <em>gar nicht</em> gefallen.</p>", "I did not like that at all.",
     [(0, 2), (1, 1), (2, 4), (3, 5), (4, 0), (5, 3), (6, 3), (7, 6)],
     "<p>I did not like that <em>at all</em>.</p>"),
    # a word aligned to nothing inside the run stays in the tag ...
    ("<p>Sie ist <b>Sportlerin des Jahres</b> geworden.</p>", "She became athlete of the year again.",
     [(0, 0), (1, 5), (2, 2), (3, 3), (5, 4), (7, 6)],
     "<p>She became <b>athlete of the year</b> again.</p>"),
    # ... and outside at the run's end
    ("<p><b>A B</b> C</p>", "a y x c b", [(0, 0), (1, 0), (3, 2), (4, 1)], "<p><b>a y</b> x c b</p>"),
    # runs alike: the alignment cannot tell where the element goes, so it goes around its sentence
    ("<p><b>A B</b> C</p>", "a x c b", [(0, 0), (2, 2), (3, 1)], "<p><b>a x c b</b></p>"),
    # one run of words and one of punctuation: nothing to choose between, the range stays whole ...
    ("<p>Die Katze <b>schläft</b>.</p>", "The cat is sleeping.", [(0, 0), (1, 1), (2, 2), (4, 2), (4, 3)],
     "<p>The cat <b>is sleeping</b>.</p>"),
    # ... unless it holds a word that translates only a word outside the element ("sleeping" ->
    # "Katze"): then the element goes around its sentence
    ("<p>Die Katze <b>schläft</b>.</p>", "The cat is sleeping.", [(0, 0), (1, 1), (2, 2), (3, 1), (4, 2), (4, 3)],
     "<p><b>The cat is sleeping.</b></p>"),
])
def test_tag_keeps_the_run_of_output_words_that_translates_it(doc, target, links, expected):
    source = parse_html(doc)[1].text
    out = translate_html([doc], Table({source: (target, links)}))
    assert out == [expected]
    check(out[0])


@pytest.mark.parametrize(("doc", "expected"), [
    # "sehr" dropped: the tag stays, empty, after the output of the word before it
    ("<p>Das ist <b>sehr</b> gut.</p>", "<p>That is<b></b> good.</p>"),
    # nothing before it aligns: before the output of the word after it
    ("<p><i>Na</i> <b>ja</b> Das ist gut.</p>", "<p><i></i><b></b>That is good.</p>"),
])
def test_tag_whose_words_align_to_nothing_is_kept_empty(doc, expected):
    translate = Table({"Das ist sehr gut.": ("That is good.", [(0, 0), (1, 1), (2, 3), (3, 4)]),
                       "Na ja Das ist gut.": ("That is good.", [(0, 2), (1, 3), (2, 4), (3, 5)])})
    assert translate_html([doc], translate) == [expected]


@pytest.mark.parametrize(("links", "expected"), [
    # <b> -> words 0 and 2, <i> inside it -> word 1: <b> cannot be placed (two pieces alike), so
    # it goes around the sentence and takes <i> in
    ([(0, 0), (1, 2), (2, 1), (3, 3)], "<p><b>a <i>c</i> b d</b></p>"),
    # <b> -> words 0 and 2, <i> -> 1 and 3 ("d" also translates D): the same
    ([(0, 0), (1, 2), (2, 1), (3, 3), (3, 2)], "<p><b>a <i>c</i> b d</b></p>"),
    # both start at word 0, <b> shorter: <i> starts after <b>
    ([(0, 0), (1, 1), (0, 2), (2, 2), (3, 3)], "<p><b>a c</b> <i>b</i> d</p>"),
    # <i> -> word 0 inside <b> -> words 0..1: the shorter comes first, <b> starts after it
    ([(0, 0), (1, 0), (1, 1), (0, 2), (3, 3)], "<p><i>a</i> <b>c</b> b d</p>"),
    # both -> word 0 alone: the first in the source keeps it, the other is empty after it
    ([(0, 0), (0, 1), (0, 2), (3, 3)], "<p><b>a</b><i></i> c b d</p>"),
])
def test_crossing_projections_become_well_formed(links, expected):
    translate = Table({"A B C D": ("a c b d", links)})
    out = translate_html(["<p><b>A B</b> <i>C</i> D</p>"], translate)
    assert out == [expected]
    check(out[0])


def test_point_inside_a_sibling_range_moves_to_its_nearer_end():
    # <img> follows "B" -> "b", which lies inside <b>'s projection "a b c" ("b" translates B and
    # C alike): it is not put into <b>
    translate = Table({"A C B D": ("a b c d", [(0, 0), (1, 1), (1, 2), (2, 1), (3, 3)])})
    assert translate_html(["<p><b>A C</b> B<img src=i> D</p>"], translate) == ["<p><b>a b c</b><img src=i> d</p>"]


def test_every_tag_comes_back_and_output_is_well_formed():
    doc = ("<!DOCTYPE html><html><head><title>Titel</title></head><body>"
           "<h1 id=t>Der <em>große</em> Test</h1><div><p>Ein <a href='#'><b>fetter</b> <i>Link</i></a>"
           " und <span class=x><img src=a.png alt=''> ein Bild</span>.</p><ul><li>Eins</li><li>Zwei</li></ul>"
           "<table><tr><td>Zelle <sub>1</sub></td><td>&nbsp;</td></tr></table></div></body></html>")
    shuffled = Table({})

    def reverse(texts):   # reverse the word order: every projection moves
        shuffled.calls.append(texts)
        result = []
        for text in texts:
            spans = words(text)
            target = " ".join(text[s:e].upper() for s, e in reversed(spans))
            result.append(aligned(text, target, [(len(spans) - 1 - i, i) for i in range(len(spans))]))
        return result

    out = translate_html([doc], reverse)[0]
    before, after = check(doc), check(out)
    assert (after.starts, after.ends) == (before.starts, before.ends)
    assert shuffled.calls == [["Titel", "Der große Test", "Ein fetter Link und ein Bild.", "Eins", "Zwei",
                               "Zelle 1"]]
    assert ("<h1 id=t>TEST <em>GROSSE</em> DER</h1><div><p>. <span class=x>BILD <img src=a.png alt=''> EIN</span>"
            " UND <a href='#'><i>LINK</i> <b>FETTER</b></a> EIN</p>") in out
    assert "<td><sub>1</sub> ZELLE</td><td>&nbsp;</td>" in out


@pytest.mark.parametrize(("doc", "expected"), [   # the cases of the old app/markup.py tests
    ('<p class="x">Hallo <b>Welt</b>!</p>', '<p class="x">HALLO <b>WELT</b>!</p>'),
    ("<script>if (a<b) x()</script><style>p{}</style><code>a &lt; b</code> &amp; mehr",
     "<script>if (a<b) x()</script><style>p{}</style><code>a &lt; b</code> &amp; MEHR"),
])
def test_tags_attributes_and_code_kept_text_translated(doc, expected):
    assert translate_html([doc], upper) == [expected]


def test_script_style_code_pre_and_comments_untouched():
    doc = ("<style>p > b { x: '&amp;' }</style><p>Text<!-- <b>kein</b> --></p>"
           "<script>if (a<b && c) x('</p>')</script><pre>  Das  &lt;bleibt&gt;\n </pre>"
           "<p><code>a &lt; b</code></p><?php echo 1 ?><kbd>Strg</kbd> <samp>aus</samp> <var>x</var>")
    out = translate_html([doc], upper)
    assert out == [doc.replace("<p>Text", "<p>TEXT")]


def test_inline_code_is_read_in_the_sentence_and_put_back_as_written():
    translate = Table({"Nutze ls -la jetzt.": ("Use ls -la now.", [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4),
                                                                      (5, 5)])})
    out = translate_html(["<p>Nutze <code class=c>ls &#45;la</code> jetzt.</p>"], translate)
    assert out == ["<p>Use <code class=c>ls &#45;la</code> now.</p>"]


@pytest.mark.parametrize(("links", "expected"), [
    # "it" translates the code alone: it is replaced by the code as written
    ([(0, 0), (1, 1), (2, 2), (3, 3)], "<p>Use <code>x</code> now.</p>"),
    # "it" also translates "Nutze": it stays, and the code follows the output of "Nutze"
    ([(0, 0), (1, 0), (1, 1), (2, 2), (3, 3)], "<p>Use it<code>x</code> now.</p>"),
    # nothing translates the code: it follows the output of "Nutze"
    ([(0, 0), (2, 2), (3, 3)], "<p>Use<code>x</code> it now.</p>"),
])
def test_inline_code_replaces_only_the_words_that_translate_it_alone(links, expected):
    translate = Table({"Nutze x jetzt.": ("Use it now.", links)})
    assert translate_html(["<p>Nutze <code>x</code> jetzt.</p>"], translate) == [expected]


def test_blocks_are_separate_texts_and_text_outside_blocks_counts():
    translate = Table({})
    doc = "Vorher <b>fett</b><div>\n  <h2>Kopf</h2>\n  <p>Eins</p><p> </p>Mitte<td>Zwei</td>\n</div>Ende"
    translate.table = {t: (t.upper(), [(i, i) for i in range(len(words(t)))])
                       for t in ["Vorher fett", "Kopf", "Eins", "Mitte", "Zwei", "Ende"]}
    out = translate_html([doc], translate)
    assert translate.calls == [["Vorher fett", "Kopf", "Eins", "Mitte", "Zwei", "Ende"]]
    assert out == ["VORHER <b>FETT</b><div>\n  <h2>KOPF</h2>\n  <p>EINS</p><p> </p>MITTE<td>ZWEI</td>\n</div>ENDE"]


def test_line_break_separates_texts():
    translate = Table({"Erste Zeile": ("First line", [(0, 0), (1, 1)]), "zweite": ("second", [(0, 0)])})
    assert translate_html(["<p>Erste <i>Zeile</i><br>zweite<br/></p>"], translate) == [
        "<p>First <i>line</i><br>second<br/></p>"]
    assert translate.calls == [["Erste Zeile", "zweite"]]


def test_entities_decoded_for_translation_and_escaped_again():
    translate = Table({"Tom & Jerry <3 \"x\"": ("Tom & Jerry <3 \"x\"", [(i, i) for i in range(8)])})
    out = translate_html(["<p>Tom &amp; Jerry &lt;3 &quot;x&quot;</p>"], translate)
    assert translate.calls == [["Tom & Jerry <3 \"x\""]]
    assert out == ["<p>Tom &amp; Jerry &lt;3 \"x\"</p>"]


def test_translation_is_escaped():
    evil = "<script>alert(1)</script>"
    out = translate_html(["<i>x</i>"], lambda texts: [aligned("x", evil, [(t, 0) for t in range(len(words(evil)))])])
    assert out == ["<i>&lt;script&gt;alert(1)&lt;/script&gt;</i>"]


def test_empty_and_textless_documents_are_not_sent():
    translate = Table({})
    assert translate_html(["", "<p> \n</p>", "<td>&nbsp;</td>", "<br/>", "<p><code>x</code></p>"], translate) == [
        "", "<p> \n</p>", "<td>&nbsp;</td>", "<br/>", "<p><code>x</code></p>"]
    assert translate.calls == []


def test_one_call_for_all_documents_and_comments_kept():
    translate = Table({"Eins": ("One", [(0, 0)]), "Zwei": ("Two", [(0, 0)])})
    out = translate_html(["<!-- note --><p>Eins</p>", "Zwei", "<br/>"], translate)
    assert out == ["<!-- note --><p>One</p>", "Two", "<br/>"]
    assert translate.calls == [["Eins", "Zwei"]]


def test_whitespace_at_the_edges_kept_inside_collapsed():
    translate = Table({"Das ist gut": ("That is good", [(0, 0), (1, 1), (2, 2)])})
    doc = "<li>\n   <!-- c -->  Das \n\t ist <b> gut </b>\n  </li>"
    assert translate_html([doc], translate) == ["<li>\n   <!-- c -->  That is <b>good</b>\n  </li>"]


def test_images_and_empty_elements_stay_next_to_their_word():
    translate = Table({"Ein Bild hier": ("A picture here", [(0, 0), (1, 1), (2, 2)])})
    out = translate_html(["<p>Ein<img src=x> Bild <a id=t></a>hier</p>"], translate)
    assert out == ["<p>A<img src=x> picture <a id=t></a>here</p>"]


def test_unpaired_tags_are_kept_where_they_were():
    doc = "<p>Das <b>ist</p> gut</b> <i>so <u>x</i> y</u>"
    assert translate_html([doc], upper) == ["<p>DAS <b>IST</p> GUT</b> <i>SO <u>X</i> Y</u>"]


def test_absurdly_deep_nesting_is_kept_as_written():
    doc = "<p>" + "<span>a " * 1500 + "</span>" * 1500 + "</p>"
    out = translate_html([doc], upper)[0]
    # the tree code recurses, so tags nested deeper than 100 are atoms, each kept in its place
    assert out == "<p>" + "<span>A " * 1499 + "<span>A" + "</span>" * 1500 + "</p>"
    check(out)


def test_parse_html_gives_plain_text_and_element_ranges():
    parts = parse_html("<h1>Der <b>große <i>Test</i></b></h1>")
    assert parts[0] == "<h1>" and parts[2] == "</h1>"
    segment = parts[1]
    assert isinstance(segment, Segment) and segment.text == "Der große Test"
    b = segment.root.children[0]
    assert (b.open, b.close, b.start, b.end) == ("<b>", "</b>", 4, 14)
    assert (b.children[0].start, b.children[0].end) == (10, 14)
    assert covered_words((b.start, b.end), words(segment.text)) == [1, 2]


@pytest.mark.parametrize(("result", "message"), [
    ([], "translate returned 0 alignments for 1 texts"),
    ([aligned("Hallo Welt", "Hello world", [])], "translate returned an alignment for 'Hallo Welt' instead of 'Hallo'"),
    ([aligned("Hallo", "Hello", [(1, 0)])], "alignment link (1, 0) is out of range for 'Hallo'"),
    ([aligned("Hallo", "Hello", [(0, -1)])], "alignment link (0, -1) is out of range for 'Hallo'"),
])
def test_bad_translate_results_are_refused(result, message):
    with pytest.raises(ValueError) as error:
        translate_html(["<p>Hallo</p>"], lambda texts: result)
    assert str(error.value) == message


@pytest.mark.parametrize("links, expected", [
    ([(0, 0), (1, 1), (2, 2), (3, 3)], 'Read the <a href="x">guide</a>.'),   # the stop aligned to itself
    ([(0, 0), (1, 1), (2, 2), (3, 2)], 'Read the <a href="x">guide</a>.'),   # ... or to the linked word
])
def test_a_stop_outside_the_markup_stays_outside(links, expected):
    translate = Table({"Lies die Anleitung.": ("Read the guide.", links)})
    assert translate_html(['Lies die <a href="x">Anleitung</a>.'], translate) == [expected]
    # markup around the whole text, stop included, keeps the stop inside
    inside = Table({"Lies die Anleitung.": ("Read the guide.", links)})
    assert translate_html(['<b>Lies die Anleitung.</b>'], inside) == ["<b>Read the guide.</b>"]


@pytest.mark.parametrize("reference", ["&#x110000;", "&#99999999999;", "&#0;", "&#xFFFE;", "&#xD800;", "&#x110000"])
def test_a_reference_that_names_no_character_is_kept_as_written(reference):
    """They decoded to U+FFFD or to nothing and were lost: "&#x110000; Haus" came back as "house"."""
    assert translate_html([f"<p>{reference} Haus &#228;&amp;</p>"], upper) == [f"<p>{reference} HAUS Ä&amp;</p>"]
    assert translate_html([f"Das{reference}Haus"], upper) == [f"DASHAUS{reference}"]   # a point in a word: after it


def test_a_visible_point_keeps_the_whitespace_it_had_on_either_side():
    translate = Table({"Das Haus ist rot .": ("The house is red.", [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)])})
    assert translate_html(["<p>Das <img src=x> Haus ist rot <img src=y>.</p>"], translate) == [
        "<p>The <img src=x> house is red <img src=y>.</p>"]


# Where the alignment gives an element no credible place, it goes around its whole sentence
# (placement._credible): bold on the wrong words misinforms, bold on the sentence only fails to single
# words out. Links are (output word, source word), words as ``words`` splits them.

# "Freitag, dem 12. Juli feiern wir ..." -> "Friday, we will celebrate 12 July ...": "we" translates
# "wir" (and "dem", by the attention), the date comes after the verb
FRIDAY = ("Friday, we will celebrate 12 July with our summer party.",
          [(0, 0), (1, 1), (2, 2), (2, 7), (3, 6), (4, 6), (5, 3), (5, 4), (6, 5), (8, 8), (9, 9), (10, 9), (11, 10)])
# "am 3. Mai um 9 Uhr" -> "at 3 May at the ... at 9": the run that wins lacks the element's 9
COURSE = ("The course begins at 3 May at the room at 9 12.",
          [(0, 0), (0, 1), (1, 1), (2, 2), (3, 3), (3, 10), (4, 4), (5, 5), (5, 6), (6, 7), (7, 8), (8, 11), (9, 7),
           (10, 8), (10, 12), (11, 12), (12, 9), (12, 13)])


@pytest.mark.parametrize(("doc", "target", "links", "expected"), [
    # the element's words came out in two pieces alike, its date in the other one
    ("<p><b>Freitag, dem 12. Juli</b> feiern wir unser Sommerfest.</p>", *FRIDAY,
     "<p><b>Friday, we will celebrate 12 July with our summer party.</b></p>"),
    # most of its words are in the piece chosen, but the output has its 9 elsewhere
    ("<p>Der Kurs beginnt <em>am 3. Mai um 9 Uhr</em> im Raum 12.</p>", *COURSE,
     "<p><em>The course begins at 3 May at the room at 9 12.</em></p>"),
    # a name the output copies, aligned elsewhere
    ('<p>Der Zug aus <a href="/hh">Hamburg</a> hat Verspätung.</p>', "The train from Hamburg is late.",
     [(0, 0), (1, 1), (2, 2), (3, 2), (4, 4), (5, 3), (5, 5), (6, 6)],
     '<p><a href="/hh">The train from Hamburg is late.</a></p>'),
    # a number that the words around the element have as well: the other copy is theirs
    ("<p>Wir haben <b>3 Zimmer</b> für 3 Personen.</p>", "We have 3 rooms for 3 people.",
     [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)],
     "<p>We have <b>3 rooms</b> for 3 people.</p>"),
    ("<p>Wir haben 3 Zimmer für <b>3 Personen</b>.</p>", "We have 3 rooms for 3 people.",
     [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)],
     "<p>We have 3 rooms for <b>3 people</b>.</p>"),
    # a number the output writes otherwise ("18 Uhr" -> "6 pm"), aligned outside the range
    ("<p>Die Küche <b>schließt um 18 Uhr</b>.</p>", "The kitchen closes at noon, 6 pm.",
     [(0, 0), (1, 1), (2, 2), (3, 3), (4, 1), (5, 4), (6, 4), (6, 1), (7, 5), (7, 1), (8, 6)],
     "<p><b>The kitchen closes at noon, 6 pm.</b></p>"),
    # only the element's own sentence: the next one keeps its words
    ("<p><b>Freitag, dem 12. Juli</b> feiern wir unser Sommerfest. Alle kommen.</p>",
     FRIDAY[0] + " Everyone is coming.", FRIDAY[1] + [(12, 11), (13, 12), (14, 12), (15, 13)],
     "<p><b>Friday, we will celebrate 12 July with our summer party.</b> Everyone is coming.</p>"),
])
def test_an_element_without_a_credible_place_goes_around_its_sentence(doc, target, links, expected):
    source = parse_html(doc)[1].text
    out = translate_html([doc], Table({source: (target, links)}))
    assert out == [expected]
    check(out[0])


def test_an_english_element_without_a_credible_place_goes_around_its_sentence():
    translate = Table({"The train from Hamburg is late. It is cold.": (
        "Der Zug aus Hamburg hat Verspätung. Es ist kalt.",
        [(0, 0), (1, 1), (2, 2), (3, 2), (4, 4), (5, 3), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9), (10, 10)])})
    assert translate_html(['<p>The train from <a href="/hh">Hamburg</a> is late. It is cold.</p>'], translate,
                          EN_DE) == ['<p><a href="/hh">Der Zug aus Hamburg hat Verspätung.</a> Es ist kalt.</p>']


class Senses:
    """A dictionary as ``_credible`` asks one: German content words and the English words that
    translate them."""

    def __init__(self, table: dict[str, set[str]]) -> None:
        self.table = table

    def content_spans(self, source: str) -> list[tuple[tuple[int, int], frozenset[str]]]:
        return [(m.span(), frozenset(self.table[m[0]])) for m in re.finditer(r"\w+", source) if m[0] in self.table]

    def renders(self, senses: frozenset[str], output: str) -> bool:
        return output.lower() in senses


BREAD = Senses({"Brot": {"bread"}, "Käse": {"cheese"}, "Fieber": {"fever"}, "Halsschmerzen": {"sore", "throat"},
                "Sohn": {"son"}})


@pytest.mark.parametrize(("doc", "target", "links", "without", "expected"), [
    # the alignment swapped two nouns: the dictionary finds "Brot" translated outside the range
    ("<p>Wir essen <b>Brot</b> und Käse.</p>", "We eat bread and cheese.",
     [(0, 0), (1, 1), (2, 4), (3, 3), (4, 2), (5, 5)],
     "<p>We eat bread and <b>cheese</b>.</p>", "<p><b>We eat bread and cheese.</b></p>"),
    # "Fieber" left out: the range holds what translates "Halsschmerzen"
    ("<p>Mein Sohn hat <b>Fieber</b> und Halsschmerzen.</p>", "My son has a sore throat.",
     [(0, 0), (1, 1), (2, 2), (3, 3), (4, 3), (5, 5), (6, 6), (5, 4)],
     "<p>My son has <b>a sore</b> throat.</p>", "<p><b>My son has a sore throat.</b></p>"),
    # the dictionary agrees with the range: kept
    ("<p>Wir essen <b>Brot</b> und Käse.</p>", "We eat bread and cheese.",
     [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)],
     "<p>We eat <b>bread</b> and cheese.</p>", "<p>We eat <b>bread</b> and cheese.</p>"),
])
def test_the_dictionary_checks_where_an_element_goes(doc, target, links, without, expected):
    source = parse_html(doc)[1].text
    assert translate_html([doc], Table({source: (target, links)})) == [without]
    assert translate_html([doc], Table({source: (target, links)}), dictionary=BREAD) == [expected]


@pytest.mark.parametrize(("doc", "target", "links", "expected"), [
    # "to" is all there is of "auf" (it is aligned to "Ihren" too): not the element's
    ("<p>Wir freuen uns auf <b>Ihren Besuch</b>.</p>", "We're looking forward to your visit.",
     [(0, 0), (0, 2), (1, 1), (2, 1), (3, 1), (4, 1), (5, 3), (5, 4), (6, 4), (7, 5), (8, 6)],
     "<p>We're looking forward to <b>your visit</b>.</p>"),
    # "your" is all there is of "Sie" and of "Ihren" alike: it stays
    ("<p>Bitte bringen Sie <b>Ihren Ausweis</b> mit.</p>", "Please bring your ID.",
     [(0, 0), (1, 1), (1, 5), (2, 2), (2, 3), (3, 4), (4, 6)],
     "<p>Please bring <b>your ID</b>.</p>"),
])
def test_a_word_that_only_translates_a_word_around_the_element_is_left_out_at_its_ends(doc, target, links, expected):
    source = parse_html(doc)[1].text
    assert translate_html([doc], Table({source: (target, links)})) == [expected]


def test_an_element_around_its_sentence_takes_in_its_siblings_there_but_no_link_a_link():
    translate = Table({"A B C D": ("a c b d", [(0, 0), (1, 2), (2, 1), (3, 3)])})
    # <i> keeps its word inside <b>, which the alignment cannot place
    assert translate_html(["<p><b>A B</b> <i>C</i> D</p>"], translate) == ["<p><b>a <i>c</i> b d</b></p>"]
    # a link is not put inside a link: the one around the sentence keeps it, the other is left empty after it
    out = translate_html(['<p><a href="1">A B</a> <a href="2">C</a> D</p>'], translate)
    assert out == ['<p><a href="1">a c b d</a><a href="2"></a></p>']
    check(out[0])
