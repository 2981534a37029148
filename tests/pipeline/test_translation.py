"""pipeline/translation.py end to end on real models: the span fixture (placeholders, ALL CAPS), the
conftest's tiny model (long input, layout) and its twin trained without placeholder symbols."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from dataclasses import replace

import pytest

from model.data import clean_pairs, read_pairs
from model.inference.translator import Translator
from model.search.options import SERVED
from pipeline.augment import augment_pairs
from pipeline.markup import translate_html
from pipeline.segment import has_loop
from pipeline.rules.verbatim import find_spans
from pipeline.spans import PLACEHOLDER_RE
from pipeline.translation import Options, Pipeline
from pipeline.glossary import Glossary
from bench.stub_engine import Recording
from tests.conftest import SPAN_AUGMENTATION


@pytest.fixture(scope="module")
def training_pairs(span_corpus, span_checkpoint):
    """The pairs the span model was trained on, augmentation included (as train.py made them)."""
    import train

    args = train.parse_args(["--data", str(span_corpus), "--out", "unused", *SPAN_AUGMENTATION])
    return augment_pairs(clean_pairs(read_pairs(span_corpus)), train.augmentation(args), args.seed)


@pytest.fixture(scope="module")
def pipeline(span_translator) -> Pipeline:
    return Pipeline(span_translator, Options(search=replace(SERVED, beam_size=1)))


def test_the_trace_is_the_translation_with_its_stages(pipeline):
    texts = ["Guten Morgen. Das kostet 5 Euro.", "Wo ist der Bahnhof?"]
    trace = pipeline.trace(texts)
    assert trace.results == pipeline.translate_aligned(texts)
    assert len(trace.outputs) == len(trace.plan.units) == len(trace.plan.sources) == 3   # one input a sentence
    assert "⦅N1⦆" in trace.plan.sources[1]                                             # the masked number
    assert set(trace.words) == {(id(chunk), unit) for chunk, unit in trace.plan.units}
    words = " ".join(w.text for chunk, unit in trace.plan.units for w in trace.words[id(chunk), unit])
    bare = lambda text: re.sub(r"[^\w\s]", "", text).split()  # noqa: E731  (assembly adds the sentences' stops)
    assert bare(words) == bare(" ".join(result.target for result in trace.results))


def _template(pairs, family: str):
    """A learned pair whose German side has exactly one placeholder, of ``family``, and no caps."""
    for de, en in pairs:
        found = PLACEHOLDER_RE.findall(de)
        if found == [f"⦅{family}1⦆"] and en.count(found[0]) == 1 and not de.isupper():
            return de, en
    raise AssertionError(f"no training pair with one {family} placeholder")


@pytest.mark.parametrize("family, german, english", [
    ("N", "1.450", "1,450"), ("N", "250.000", "250,000"), ("N", "6,9", "6.9"), ("N", "-3", "-3"),
    ("N", "2026", "2026"), ("N", "58213-B", "58213-B"), ("N", "23.11.2026", "23.11.2026"),
    ("X", "https://beispiel.org/daten.zip", "https://beispiel.org/daten.zip"),
    ("X", "anna@example.com", "anna@example.com"), ("X", "@anna_b", "@anna_b"), ("X", "#Urlaub", "#Urlaub"),
    ("X", "🎶", "🎶"), ("X", "👩‍💻", "👩‍💻"), ("X", "`rm -rf /`", "`rm -rf /`"),
])
def test_spans_are_carried_over_exactly(pipeline, training_pairs, family, german, english):
    de, en = _template(training_pairs, family)
    text = de.replace(f"⦅{family}1⦆", german)
    assert [s.text for s in find_spans(text)] == [german]
    assert pipeline.translate([text]) == [en.replace(f"⦅{family}1⦆", english)]


def test_spans_link_to_their_source(pipeline, training_pairs):
    de, _ = _template(training_pairs, "N")
    text = de.replace("⦅N1⦆", "1.450")
    result = pipeline.translate_aligned([text])[0]
    number = next(t for t, (s, e) in enumerate(result.target_words) if result.target[s:e].startswith("1,450"))
    sources = [text[slice(*result.source_words[s])] for t, s in result.links if t == number]
    assert "1.450" in sources


def test_all_caps_is_translated_and_stays_all_caps(span_translator, training_pairs):
    pipeline = Pipeline(span_translator, Options(search=replace(SERVED, beam_size=1), caps="as_is"))
    upper = [(de, en) for de, en in training_pairs if de.isupper() and not PLACEHOLDER_RE.search(de)]
    assert len(upper) >= 5
    assert pipeline.translate([de for de, _ in upper]) == [en for _, en in upper]


def test_all_caps_is_truecased_by_default(span_translator, training_pairs):
    pipeline = Pipeline(span_translator, Options(search=replace(SERVED, beam_size=1)))
    assert pipeline.truecase is True
    # the upper-cased copies of pairs the model also knows as written: truecased, they are those
    upper = [(de, en) for de, en in training_pairs if de.isupper() and not PLACEHOLDER_RE.search(de)]
    known = {de: en for de, en in training_pairs}
    cases = [(de, known[next(k for k in known if k.upper() == de and k != de)].upper()) for de, _ in upper]
    outputs = pipeline.translate([de for de, _ in cases])
    assert all(out == out.upper() for out in outputs)
    # a 255-piece vocabulary truecases roughly ("HEISS" cannot become "heiß"); bench/casing.py
    # measures it with a real one
    assert sum(out == en for out, (_, en) in zip(outputs, cases)) >= len(cases) // 2


def test_layout_empty_and_punctuation_only(pipeline):
    out = pipeline.translate(["Guten Morgen.\n\nWie alt bist du?  Ich bin müde.", "", "   ", "!!!", "Hallo"])
    assert out[:4] == ["Good morning.\n\nHow old are you? I am tired.", "", "", "!!!"]
    assert out[4].strip()  # never empty for a non-empty source (minimum length one piece)


def test_n_best_starts_with_the_best_and_is_distinct(pipeline):
    texts = ["Die Katze schläft. Der Hund bellt.", "Ich habe Hunger."]
    best = pipeline.translate(texts)
    n_best = pipeline.translate_n_best(texts, 3)
    assert [options[0][0] for options in n_best] == best
    for options in n_best:
        assert len({text for text, _ in options}) == len(options)


def test_long_unpunctuated_input_reaches_the_model_whole(tiny_checkpoint, pairs40):
    clauses = [de.rstrip(".!?") for de, _ in pairs40]
    words = " und ".join((clauses * 8)[:140]).split()  # about 500 words, no sentence end
    assert len(words) >= 480
    recording = Recording(Translator.from_checkpoint(tiny_checkpoint, device="cpu"))
    pipeline = Pipeline(recording, Options(search=replace(SERVED, beam_size=1), max_pieces=40))
    output = pipeline.translate([" ".join(words)])[0]
    first = recording.calls[0]  # one batch with every piece; retries (if any) come after it
    assert all(text.endswith(".") for text in first)               # each piece closed (pipeline/ending.py)
    assert " ".join(text[:-1] for text in first).split() == words  # every word, once, in order
    assert len(first) > 1 and all(pipeline.count(text) <= 40 for text in first)
    assert len(output.split()) >= 0.6 * len(words)
    assert not has_loop(output)


@pytest.mark.parametrize("options, message", [
    ({"search": {"beam_size": 4}}, "search must be a SearchOptions, got {'beam_size': 4}"),
    ({"max_pieces": 4}, "max_pieces must be an integer >= 8, got 4"),
    ({"retries": -1}, "retries must be an integer >= 0, got -1"),
    ({"caps": "loud"}, "caps must be one of truecase, as_is, got 'loud'"),
])
def test_options_reject_bad_values(options, message):
    with pytest.raises(ValueError) as error:
        Options(**options)
    assert str(error.value) == message


# ------------------------------------------------------------------------------------------ HTML

class _Tags(HTMLParser):
    """Start tags as written, and whether every end tag closes the innermost open element."""

    VOID = {"br", "img", "hr", "input", "meta", "link", "wbr"}

    def __init__(self, document: str):
        super().__init__(convert_charrefs=True)
        self.starts, self.stack, self.well_formed, self.text = [], [], True, []
        self.feed(document)
        self.close()
        self.well_formed &= not self.stack

    def handle_starttag(self, tag, attrs):
        self.starts.append(self.get_starttag_text())
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        self.well_formed &= bool(self.stack) and self.stack.pop() == tag

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.parametrize("document", [
    "<p>Die Katze <b>schläft</b>.</p>",
    "<p>Ich heiße <a href=\"/x?a=1&amp;b=2\" class='k'>Anna</a>.</p>",
    "<div>Der Hund <em>bellt <strong>laut</strong></em>. Die Tür ist offen.</div>",
    "<ul><li>Ich bin müde.</li><li>Wo ist mein <i>Schlüssel</i>?</li></ul>",
])
def test_html_keeps_every_tag_and_stays_well_formed(pipeline, document):
    output = translate_html([document], pipeline.translate_aligned)[0]
    before, after = _Tags(document), _Tags(output)
    assert sorted(after.starts) == sorted(before.starts)   # attributes byte for byte
    assert after.well_formed
    assert "".join(after.text) != "".join(before.text)     # translated


def test_html_projects_a_tag_onto_its_word(pipeline):
    assert translate_html(["<p>Ich heiße <b>Anna</b>.</p>"], pipeline.translate_aligned) == [
        "<p>My name is <b>Anna</b>.</p>"]


# ------------------------------------------------------------------- a vocabulary without placeholders

@pytest.fixture(scope="module")
def legacy(legacy_checkpoint) -> Pipeline:
    return Pipeline(Translator.from_checkpoint(legacy_checkpoint, device="cpu"), Options(search=replace(SERVED, beam_size=1)))


def test_without_placeholder_symbols_spans_are_carried_over(legacy):
    assert legacy.placeholders is False
    texts = ["Laden Sie die Datei von https://beispiel.org/daten.zip herunter.",
             "Die Miete beträgt 1.450 Euro im Monat.", "Das war ein toller Abend 🎶",
             "Schreib mir an anna@example.com oder @anna_b."]
    out = legacy.translate(texts)
    assert "https://beispiel.org/daten.zip" in out[0]
    assert "1,450" in out[1] and "1.450" not in out[1]
    assert out[2].endswith("🎶")
    assert "anna@example.com" in out[3] and "@anna_b" in out[3]
    assert not any(re.search("⦅|⦆|⁇", o) for o in out)


def test_punctuation_after_a_carried_span_stays_with_it(legacy):
    out = legacy.translate(["Schreib mir einfach an anna.meier@example.de, wenn du Fragen hast.",
                            "Das war ein toller Abend🎶"])
    assert "anna.meier@example.de, " in out[0]
    assert out[1].endswith("🎶") and not out[1].endswith(" 🎶")      # glued as in the source


@pytest.mark.parametrize("text", [
    "Das kostet 5 Euro und 5 Euro und 5 Euro.",
    "Ruf 030-1234 an, schreib an anna@example.com oder besuche https://x.de/a?b=1 🎶🎶 #Urlaub @anna_b.",
    "⦅N1⦆ und ⦅X3⦆ sind keine Platzhalter, ⦆⦅ auch nicht.",
    " ".join(f"Am {d}.11.2026 um {d}:30 Uhr kostet es {d},5 Euro" for d in range(10, 28)) + ".",
    "我爱你。" * 40,
])
@pytest.mark.parametrize("model", ["span", "legacy"])
def test_every_span_comes_back_as_often_as_it_was_sent(text, model, pipeline, legacy):
    from pipeline.rules.clock import with_clock_times
    from pipeline.spans import replacement

    engine = pipeline if model == "span" else legacy
    output = engine.translate([text])[0]
    spans = with_clock_times(text, find_spans(text, engine.representable))  # "10:30 Uhr" is one span
    for span in spans:
        expected = sum(replacement(s) == replacement(span) for s in spans)
        assert len(re.findall(rf"(?<!\w){re.escape(replacement(span))}(?!\w)", output)) >= expected, (span, output)
    assert "⁇" not in output


def test_more_spans_than_placeholders_split_the_sentence(pipeline):
    """25 distinct numbers: the sentence is cut into parts that each have placeholders for all of
    theirs (not carried over verbatim between unmasked parts), and every number comes back."""
    from pipeline.plan import slot_groups

    text = "Die Nummern sind " + " und ".join(str(100 + k) for k in range(25)) + "."
    groups = slot_groups(text, find_spans(text))
    assert [len(spans) for _, _, spans in groups] == [20, 5]
    assert [text[s:e] for s, e, _ in groups] == [text[:text.index(" 120")], text[text.index("120"):]]
    plan = pipeline.plan([text])
    chunks = [chunk for sentence in plan.plans[0] for chunk in sentence]
    # ("Nummern" is a name to this model's 50-pair lexicon: one X placeholder beside the numbers.)
    assert [sum(s.startswith("⦅N") for s in chunk.masked.slots) for chunk in chunks] == [20, 5]
    assert sum(source.count("⦅N") for source in plan.sources) == 25
    output = pipeline.translate([text])[0]
    assert [n for n in map(str, range(100, 125)) if not re.search(rf"(?<!\d){n}(?!\d)", output)] == []
    assert "⦅" not in output


@pytest.mark.parametrize("german, model_text, english", [
    ("Ich heiße Kowalczyk.", "Ich heiße ⦅X1⦆.", "My name is Kowalczyk."),
    ("Ayşe wohnt in Hamburg.", "⦅X1⦆ wohnt in ⦅X2⦆.", "Ayşe lives in Hamburg."),
])
def test_names_the_lexicon_lacks_are_carried_over(span_translator, german, model_text, english):
    # train.py wrote the lexicon of the 50 pairs into the checkpoint: "Zug" is translated there,
    # the names are copied, and these names were never seen at all.
    assert span_translator.lexicon.knows("Zug") and not span_translator.lexicon.knows("Tom")
    pipeline = Pipeline(span_translator, Options(search=replace(SERVED, beam_size=1)))
    assert pipeline.model_input(german).text == model_text
    assert pipeline.translate([german]) == [english]


def test_names_are_left_to_the_model_when_asked_or_in_capitals(span_translator):
    without = Pipeline(span_translator, Options(search=replace(SERVED, beam_size=1),
                                                without_rules=("letters", "names")))
    assert without.model_input("Ich heiße Kowalczyk.").text == "Ich heiße Kowalczyk."
    pipeline = Pipeline(span_translator, Options(search=replace(SERVED, beam_size=1)))
    # In ALL CAPS every word looks like a name: only the spans are masked, the words truecased.
    assert not PLACEHOLDER_RE.search(pipeline.model_input("ICH HEISSE KOWALCZYK.").text)
    # The style is that of the words, not of a URL's lower-case letters.
    model_text = pipeline.model_input("ICH HEISSE KOWALCZYK, SIEHE https://x.org/pfad.").text
    assert PLACEHOLDER_RE.findall(model_text) == ["⦅X1⦆"] and model_text.endswith(" ⦅X1⦆.")


# ------------------------------------------------------------------- a sentence's lower-case start

@pytest.fixture(scope="module")
def tiny(tiny_checkpoint) -> Pipeline:
    return Pipeline(Translator.from_checkpoint(tiny_checkpoint, device="cpu"), Options(search=replace(SERVED, beam_size=1)))


def test_a_lower_case_start_is_read_with_its_capital(tiny, pairs40):
    """A letter's body starts in lower case after the salutation's comma: the model reads each such
    sentence with its capital (casing.capital_start), as it learned them; Options(caps="as_is") does not."""
    # those with a capital left (a noun): the others are all lower case, truecased (below)
    pairs = [(de[0].lower() + de[1:], en) for de, en in pairs40 if any(c.isupper() for c in de[1:])]
    assert len(pairs) >= 25
    assert tiny.translate([de for de, _ in pairs]) == [en for _, en in pairs]
    assert tiny.translate(["Guten Morgen.\n\nich habe Hunger.\nwir gehen nach Hause."]) == [
        "Good morning.\n\nI am hungry.\nWe are going home."]
    as_is = Pipeline(tiny.translator, Options(search=replace(SERVED, beam_size=1), caps="as_is"))
    assert as_is.model_input("ich habe Hunger.").text == "ich habe Hunger."
    assert tiny.model_input("ich habe Hunger.").text == "Ich habe Hunger."


def test_all_lower_case_text_is_truecased(tiny):
    """Chat in lower case is read as ALL CAPS is, in the casing the vocabulary knows (the tiny
    vocabulary's choices; tests/pipeline/test_casing.py has a real one), and comes back as English
    writes it."""
    assert [tiny.model_input(t).text for t in ("wo ist der bahnhof?", "die katze schläft.")] == [
        "Wo ist der Bahnhof?", "Die Katze schläft."]
    assert tiny.translate(["wo ist der bahnhof?"]) == ["Where is the train station?"]
    as_is = Pipeline(tiny.translator, Options(search=replace(SERVED, beam_size=1), caps="as_is"))
    assert as_is.model_input("wo ist der bahnhof?").text == "wo ist der bahnhof?"


@pytest.fixture(scope="module")
def english_source(reverse_checkpoint) -> Pipeline:
    return Pipeline(Translator.from_checkpoint(reverse_checkpoint, device="cpu"), Options(search=replace(SERVED, beam_size=1)))


def test_an_english_source_takes_the_rules_of_english(english_source, pairs40):
    assert english_source.source == "en"
    assert [rule.name for rule in english_source.rules] == ["verbatim", "terms", "german_notation", "english_titles"]
    assert english_source.coverage is None and english_source.places == {}
    german, english = pairs40[2]
    assert english_source.translate([english]) == [german]     # the reverse model's pairs, by heart


def test_an_english_source_s_numbers_go_to_the_model_in_german_notation(english_source):
    trace = english_source.trace(["It costs $1,234.50 on 3/14/2025 at 2:30 p.m., version 2.1.3."])
    [(chunk, _)] = trace.plan.units
    assert chunk.masked.text == "It costs ⦅N1⦆ on ⦅N2⦆ at ⦅N3⦆, version ⦅N4⦆."
    assert chunk.masked.slots == {"⦅N1⦆": "1.234,50\u00a0$", "⦅N2⦆": "14.03.2025", "⦅N3⦆": "14:30 Uhr",
                                  "⦅N4⦆": "2.1.3"}


@pytest.mark.parametrize("english, masked, slots", [
    ("We meet on June 14, 2025.", "We meet on ⦅N1⦆.", {"⦅N1⦆": "14. Juni 2025"}),
    ("Mrs. Smith called on the 3rd of March.", "⦅X1⦆ called on the ⦅N1⦆.", {"⦅X1⦆": "Frau Smith", "⦅N1⦆": "3. März"}),
])
def test_an_english_date_or_title_the_model_misses_is_a_span_in_a_second_try(english_source, english, masked, slots):
    """The tiny model writes no "14. Juni 2025": the sentence is planned again with the date (and
    the title with its name) as spans; a first plan leaves them to the model (its numbers aside)."""
    first = {chunk.masked.text: chunk.masked.slots for chunk, _ in english_source.plan([english]).units}
    assert not set(slots.values()) & {value for found in first.values() for value in found.values()}
    second = {chunk.masked.text: chunk.masked.slots for chunk, _ in english_source.trace([english]).plan.units}
    assert second == {masked: slots}


@pytest.mark.parametrize("english, german, kept", [
    ("We meet on June 14, 2025.", "Wir treffen uns am 14. Juni 2025.", True),
    ("We meet on June 14, 2025.", "Wir treffen uns am Juni 14, 2025.", False),
    ("I spoke with Mr. Miller.", "Ich sprach mit Herrn Miller.", True),     # declined, as German does
    ("Mr. Miller is here.", "Herr Miller ist hier.", True),
    ("Mr. Miller is here.", "Mr. Miller ist hier.", False),
    ("Mrs. Smith is here.", "Die Männer. Smith ist hier.", False),
    ("Nothing to check.", "Nichts.", True),
])
def test_what_an_english_source_s_first_translation_must_keep(english_source, english, german, kept):
    assert english_source.first_try_checks(english) == (english != "Nothing to check.")
    assert english_source.first_try_kept(english, german) == kept


def test_a_german_source_keeps_its_rules(pipeline):
    assert pipeline.source == "de" and "names" in [rule.name for rule in pipeline.rules]


def test_an_english_glossary_term_matches_as_written(english_source):
    glossary = Glossary({"coffee": "Tee"}, source="en")
    masked = english_source.plan(["I like coffee, not coffees."], glossary).plans[0][0][0].masked
    assert masked.text == "I like ⦅X1⦆, not coffees." and masked.slots == {"⦅X1⦆": "Tee"}


def test_a_glossary_of_the_other_source_language_is_refused(english_source):
    with pytest.raises(ValueError) as error:
        english_source.translate(["I like coffee."], Glossary({"Kaffee": "tea"}))
    assert str(error.value) == "a glossary of de terms cannot apply to en text"
