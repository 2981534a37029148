"""The text pipeline: raw German text in, English out, with nothing dropped, invented or altered
without the model's say.

    text ─NFC─▶ lines and sentences (segment) ─▶ protected spans become placeholders (spans)
         ─▶ casing style noted (casing) ─▶ clauses, if too long for the model (segment.split_long)
         ─▶ the model, all pieces of all texts in one batch (a full stop added where a piece ends
            without punctuation, and taken off its output: ending); which of its hypotheses is
            taken, and a retry on smaller pieces when an output is implausibly short or loops
            (choosing)
         ─▶ missing or repeated placeholders repaired where the cross-attention aligns them (words)
         ─▶ the input's casing style ─▶ spans restored ─▶ the text's layout rebuilt

Where a span cannot become a placeholder (a vocabulary without placeholder symbols, i.e. a model
trained before they existed), the sentence is cut around the span, the parts are translated, and
the span is carried over verbatim between them: less fluent, never lossy.

``Pipeline.translate`` returns strings; ``Pipeline.translate_aligned`` also returns each output's
word alignment with its input, as character spans of the original text (for HTML markup and the
inspector). Both take a ``glossary`` (``pipeline.glossary``) for the call: its terms become spans
whose placeholders come back as the English terms.

Three stages, three modules: planning is here (``Pipeline.plan``: sentences, spans, casing, into
the types of ``pipeline.plan``), choosing the model's output is ``pipeline.choosing`` (the one
caller of the engine for translations) and assembling is ``pipeline.assembling`` (spans restored,
placeholders repaired, layout rebuilt); ``Pipeline`` runs them in turn, with a second try between
the last two where a translation lost what the rules check (``second_try``).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache

from model.inference.alignment import AlignedText
from model.network.checkpoint import direction
from model.network.tokenizer import UNK_ID
from model.inference.interface import Engine

from . import deadline
from . import words as W
from .coverage import Coverage, lemma
from .assembling import assembled, unit_words
from .choosing import Chooser
from .casing import apply_style, capital_start, sharp_s_regions, style, truecase
from .ending import CLOSED_SOURCES, close_output, close_sentence, kept_ellipsis, reopen_sentence
from .glossary import Glossary
from .inflection import Inflections
from .hints import untranslated, with_hints
from .language_pair import LanguagePair
from .options import Options
from .plan import Chunk, ModelInput, Plan, Trace, fragment, shifted, slot_groups, units_of
from .rules import Context, rules_for
from .segment import segment, split_long
from .spans import (
    NUMBER_SLOTS, OTHER_SLOTS, PLACEHOLDER_RE, PLACEHOLDERS, Masked, Span, mask, merge, slots_needed,
    words_only,
)


log = logging.getLogger(__name__)
_LEADING_PUNCTUATION = re.compile(r"\s*([,;:.!?)\]}»“”…]+)\s*")




class Pipeline:
    def __init__(self, translator: Engine, options: Options = Options(), places: Mapping[str, str] | None = None,
                 coverage: Coverage | None = None):
        """``places``: German names of places and their English ones (``model.data.ding.place_names``,
        its ``countries`` too), written in English where the model would translate the name ("Köln"
        -> "Key"). ``coverage``: which source words an output leaves out (``pipeline.coverage``, from
        the same dictionary), for ``Options.coverage_weight``; None: not checked."""
        self.translator = translator
        self.options = options
        # The model's source language decides the rules (``pipeline.rules.rules_for``); places and
        # the coverage check read German, so an English source goes without them.
        self.languages = LanguagePair.of(direction(getattr(translator, "meta", None) or {}))
        self.source = self.languages.source
        german = self.source == "de"
        self.closes = self.source in CLOSED_SOURCES   # a full stop added to an open input (``closed``)
        self.places = places if places is not None and german else {}
        self.coverage = coverage if options.coverage_weight > 0 and german else None
        # German words the model can translate are no names without evidence (``rules.names``)
        self.dictionary = coverage
        self.reads = lru_cache(maxsize=65536)(self._german_word) if coverage is not None and german else None
        # the plurals of a hint's noun (``pipeline.hints``), Ding's where the dictionary is an index
        self.inflections = Inflections(coverage.dictionary) if self.reads is not None else None
        # how German output addresses the reader (None: English output has one "you", or "any")
        self.formality = options.formality if self.languages.target == "de" and options.formality != "any" else None
        tokenizer = translator.tokenizer
        self.placeholders = set(PLACEHOLDERS) <= tokenizer.user_symbols
        self.truecase = options.caps == "truecase"
        self.lexicon = translator.lexicon
        self.rules = tuple(rule for rule in rules_for(self.source) if rule.name not in options.without_rules)
        self.representable: Callable[[str], bool] = lru_cache(maxsize=65536)(
            lambda ch: UNK_ID not in tokenizer.encode(ch))
        # Pieces of a text as the model reads it, a full stop added where it has none (``closed``);
        # cached, as cutting a long sentence counts the same parts again and again (each level of
        # the bisection counts both halves of each cut it tries, then the halves it took).
        self.closed_count: Callable[[str], int] = lru_cache(maxsize=4096)(
            lambda text: self.count(self.closed(text)))
        # choosing the output: the one caller of the engine for translations (``pipeline.choosing``)
        self.chooser = Chooser(translator, options, source=self.source, coverage=self.coverage,
                               formality=self.formality, closed=self.closed, reopened=self.reopened, count=self.count)

    def _german_word(self, word: str) -> bool:
        """Whether the dictionary reads ``word`` (``Coverage.reads``), or reads both parts of it as
        a compound whose head, or the head's lemma, the model's lexicon knows (``Coverage.compound``:
        "Akku|packs"; not "Hart|inger", whose head is a fish's name the model never saw); never a
        place the dictionary knows ("Wolfsburg" is no "Wolfs|burg")."""
        d = self.dictionary
        if d.place(word):
            return False
        if d.reads(word):
            return True
        parts = d.compound(word)
        return parts is not None and self.lexicon is not None and (
            self.lexicon.knows(parts[1]) or self.lexicon.knows(lemma(parts[1], "de")))

    def _representable_lowered(self, ch: str) -> bool:
        lowered = ch.lower()
        return self.representable(ch) or len(lowered) == 1 and self.representable(lowered)

    # ------------------------------------------------------------------------------- public API

    def translate(self, texts: Sequence[str], glossary: Glossary | None = None) -> list[str]:
        """One English text per German text, same layout (lines, paragraphs); the ``glossary``'s
        terms, where given, come out as its English terms (``pipeline.glossary``)."""
        return [aligned.target for aligned in self._run(list(texts), aligned=False, glossary=glossary)]

    def translate_aligned(self, texts: Sequence[str], glossary: Glossary | None = None) -> list[AlignedText]:
        """``translate`` with a word alignment; ``source_words`` index the texts as given (NFC)."""
        return self._run(list(texts), aligned=True, glossary=glossary)

    def with_glossary(self, glossary: Glossary | None) -> "Pipeline | GlossaryPipeline":
        """This pipeline where ``glossary`` is None or empty, else a view of it whose ``translate``
        and ``translate_aligned`` use ``glossary`` (made per call: the pipeline itself, shared by
        every request, keeps no request's glossary)."""
        return GlossaryPipeline(self, glossary) if glossary else self

    def count(self, text: str) -> int:
        return len(self.translator.tokenizer.encode(text))

    # ------------------------------------------------------------------- the model's ending

    def closed(self, source: str) -> str:
        """A model input as the model reads it: with a full stop where it ends without punctuation
        (``ending.close_sentence``), for a source language in ``ending.CLOSED_SOURCES``. Every model
        call of ``translate`` goes through it, and so do the inspector's (scoring, completing,
        tracing the search)."""
        return close_sentence(source) if self.closes else source

    @staticmethod
    def reopened(output: AlignedText, source: str, *, stop: bool = True) -> AlignedText:
        """The model's ``output`` for ``closed(source)`` as a translation of ``source``: the full
        stop that answers the one ``closed`` added taken off the output, and both out of the word
        alignment (``ending.reopen_sentence``; ``stop=False``: the output's stop is not the
        model's answer to the added one, as in a translation someone gave, and stays). A final ".."
        that stands for the source's ellipsis becomes it (``ending.kept_ellipsis``)."""
        reopened = reopen_sentence(output, source, stop=stop)
        return kept_ellipsis(reopened, source) if stop else reopened

    def written(self, target: str, source: str) -> str:
        """A translation of ``source`` as ``reopened`` leaves it, as the model wrote it for
        ``closed(source)``: the stop that ``reopened`` takes off put back (``ending.close_output``),
        to score or align it as the model wrote it; ``reopened`` takes it off again."""
        return close_output(target, source) if self.closes else target

    @lru_cache(maxsize=65536)
    def _pieces(self, word: str) -> tuple[int, float]:
        """How the vocabulary encodes a word: pieces and log-probability (for ``casing.truecase``)."""
        return self.translator.tokenizer.score(word)

    # ------------------------------------------------------------------------------- planning

    def model_input(self, text: str) -> ModelInput:
        """``text`` (NFC) as one model input, masked and truecased exactly as ``translate`` masks and
        truecases a sentence, for the inspector's forced decoding, completion and beam search.
        Offsets are kept: nothing is stripped (``Masked.original_span`` maps back into ``text``)."""
        text = unicodedata.normalize("NFC", text)
        spans = self._spans(text)
        needed = slots_needed(spans)
        fits = self.placeholders and needed["N"] <= NUMBER_SLOTS and needed["X"] <= OTHER_SLOTS
        text_style, masked = self._cased(mask(text, spans if fits else []), text, spans if fits else [],
                                         respell=fits,  # without a Masked, offsets must not move
                                         fragment=fragment(text, 0, len(text)))
        return ModelInput(masked.text, masked if fits else None, text_style)

    def _spans(self, sentence: str, glossary: Glossary | None = None, second_try: bool = False) -> list[Span]:
        """The protected spans of a sentence: those of each of ``self.rules`` in turn
        (``pipeline.rules``), the ``glossary``'s terms among them."""
        context = Context(representable=self.representable,
                          representable_lowered=self._representable_lowered if self.truecase else None,
                          second_try=second_try, terms=glossary.spans if glossary else None,
                          knows=self.lexicon.knows if self.lexicon is not None else None,
                          named=self.lexicon.names.__contains__ if self.lexicon is not None else None,
                          reads=self.reads, places=self.places)
        spans: list[Span] = []
        for rule in self.rules:
            spans = rule.find(sentence, spans, context)
        return spans

    def restorer(self, masked: Masked) -> W.Restorer:
        """How the outputs of one masked input get their spans back, with the rules' repairs
        (``Rule.repair``, in rule order)."""
        return W.Restorer(masked, tuple(fix for rule in self.rules if (fix := rule.repair(masked)) is not None))

    def restore(self, output: str, masked: Masked | None) -> str:
        """A plain model ``output`` for ``masked`` with its spans restored and the rules' repairs
        made (``Restorer.text``); unchanged where the input had no spans (``masked`` None)."""
        return self.restorer(masked).text(output) if masked is not None else output

    def _cased(self, masked: Masked, original: str, spans: Sequence[Span], *,
               respell: bool = True, initial: bool = True, fragment: bool = False) -> tuple[str, Masked]:
        """The casing style of the words of ``original`` (not of its spans), and ``masked``
        truecased where that style is ALL CAPS, Title Case or all lower case, or else, where it
        starts a sentence (``initial``), with a lower-case first word capitalized (a letter's body
        after the salutation's comma; ``casing.capital_start``). A ``fragment`` (``plan.fragment``:
        a text that opens lower case and ends without a sentence's punctuation) keeps its first
        word so, also when truecased: software messages are written so ("klingt wie" -> "sounds
        like"; capitalized, "Bell is how"). Where it may be respelled
        (``respell``): in ALL CAPS with ß for SS where the vocabulary has it, and its abbreviations
        that are conjunctions or adverbs written out (the rules' ``respell``), ``original_span``
        still mapping back."""
        text_style = style(words_only(original, spans))
        if text_style != "normal" and self.truecase:
            lexicon = self.translator.lexicon
            sharp_s = respell and text_style == "upper" and self.source == "de"
            cased = truecase(masked.text, self._pieces, sharp_s=sharp_s,
                             known=lexicon.knows if lexicon is not None else None,
                             capital_first=text_style != "lower" or not fragment)
            changes = sharp_s_regions(cased, masked.text)
            if changes is not None:  # else a character whose lower case is longer: the words would not map back
                masked = masked.respelled(cased, changes) if changes else replace(masked, text=cased)
        elif self.truecase and initial and not fragment:
            masked = replace(masked, text=capital_start(masked.text))
        for rule in self.rules if respell else ():
            masked = rule.respell(masked)
        return text_style, masked

    def finish(self, output: str, model_input: ModelInput) -> str:
        """The model's ``output`` for ``model_input`` as ``translate`` finishes it: the input's
        casing style applied to its words, then the spans restored as written (placeholders the
        input lacks dropped)."""
        styled = apply_style(output, model_input.style)
        return self.restore(styled, model_input.masked)

    def _chunks(self, text: str, start: int, end: int, glossary: Glossary | None = None,
                second_try: bool = False) -> list[Chunk]:
        """The sentence text[start:end] as chunks: one masked chunk; with more distinct spans than
        placeholders, masked parts that each have room for theirs (``plan.slot_groups``); with a
        vocabulary without placeholders, translated parts with verbatim spans between them."""
        sentence = text[start:end]
        spans = self._spans(sentence, glossary, second_try)
        for rule in self.rules:   # the writer's name under a closing
            if (name := rule.signature(text, start, end)) is not None:
                spans = merge(spans, [name])
        if self.placeholders:
            groups = slot_groups(sentence, spans)
            chunks = [self._masked_chunk(text, start + s, start + e, [shifted(span, -s) for span in group],
                                         initial=k == 0)
                      for k, (s, e, group) in enumerate(groups)]
            for k, chunk in enumerate(chunks):
                chunk.initial, chunk.whole = k == 0, len(chunks) == 1
            return chunks
        chunks, position = [], 0
        for span in spans:
            position += self._leading_punctuation(text, start + position, start + span.start, chunks)
            if sentence[position:span.start].strip():
                chunks.append(self._masked_chunk(text, start + position, start + span.start, [], initial=not chunks))
            chunks.append(Chunk(start + span.start, start + span.end, verbatim=mask(span.text, [
                Span(0, len(span.text), span.kind, span.text, span.target)]).slots.popitem()[1]))
            position = span.end
        position += self._leading_punctuation(text, start + position, end, chunks)
        if sentence[position:].strip():
            chunks.append(self._masked_chunk(text, start + position, end, [], initial=not chunks))
        for k, chunk in enumerate(chunks):
            chunk.initial, chunk.whole = k == 0, len(chunks) == 1
        return chunks

    @staticmethod
    def _leading_punctuation(text: str, start: int, end: int, chunks: list[Chunk]) -> int:
        """Carry over the punctuation right after a span ("anna@example.de, wenn ...") as it is:
        alone at the start of a piece the model would drop it. Returns the characters consumed."""
        match = _LEADING_PUNCTUATION.match(text, start, end)
        if not match or not chunks:
            return 0
        chunks.append(Chunk(match.start(1), match.end(1), verbatim=match.group(1)))
        return match.end() - start

    def _masked_chunk(self, text: str, start: int, end: int, spans: Sequence[Span], *, initial: bool = True) -> Chunk:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        masked = mask(text[start:end], [s for s in spans])
        if not any(c.isalpha() for c in masked.text):  # no word (digits, symbols): nothing to translate
            return Chunk(start, end, None, verbatim=masked.text, style=style(text[start:end]))
        text_style, masked = self._cased(masked, text[start:end], spans, initial=initial,
                                         fragment=fragment(text, start, end))
        chunk = Chunk(start, end, masked, style=text_style)
        protected = [m.span() for m in PLACEHOLDER_RE.finditer(masked.text)]
        chunk.units = split_long(masked.text, (0, len(masked.text)), self.closed_count, self.options.max_pieces,
                                 protected, self.source, most=self.translator.config.max_source_pieces)
        return chunk

    # ------------------------------------------------------------------------------- running

    def translate_n_best(self, texts: Sequence[str], n: int,
                         glossary: Glossary | None = None) -> list[list[tuple[str, float]]]:
        """Up to ``n`` distinct (translation, score) pairs per text, best first.

        The best is ``translate``'s. Alternative k puts together the k-th beam hypothesis of every
        model input (the best one where an input has fewer); its score is the mean of those
        hypotheses' scores (log-probability / GNMT length penalty)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be an integer >= 1, got {n!r}")
        plan = self.plan(list(texts), glossary)
        plan, best = self.second_try(plan, self.model_outputs(plan.sources, False), False, glossary)
        return self._n_best(plan, n, best)

    def _n_best(self, plan: Plan, n: int, best_outputs: list[AlignedText]) -> list[list[tuple[str, float]]]:
        texts, layouts, plans, units, sources = plan.texts, plan.layouts, plan.plans, plan.units, plan.sources
        inputs = [self.closed(s) for s in sources]
        hyps = self.chooser.alternatives(inputs, n)
        owner = [i for i, plan in enumerate(plans) for sentence in plan for chunk in sentence
                 if chunk.masked is not None for _ in chunk.units]
        best = self.output_words(units, best_outputs)
        results: list[list[tuple[str, float]]] = []
        for i, args in enumerate(zip(texts, layouts, plans)):
            mine = [options[0][1] for options, j in zip(hyps, owner) if j == i]
            results.append([(assembled(*args, best).target, sum(mine) / len(mine) if mine else 0.0)])
        # from the beam's first on: where the best was another of its hypotheses (``Chooser``),
        # the model's own first is an alternative too
        for k in range(n):
            picked = [options[min(k, len(options) - 1)] for options in hyps]
            alternatives = [self.reopened(AlignedText(inp, text), src) for src, inp, (text, _) in zip(sources, inputs, picked)]
            kth = self.output_words(units, self.chooser.realign(alternatives))
            for i, (options, args) in enumerate(zip(results, zip(texts, layouts, plans))):
                text = assembled(*args, kth).target
                mine = [score for (_, score), j in zip(picked, owner) if j == i]
                if text not in (t for t, _ in options) and len(options) < n:
                    options.append((text, sum(mine) / len(mine) if mine else 0.0))
        return results

    def plan(self, texts: Sequence[str], glossary: Glossary | None = None, second_try: bool = False) -> Plan:
        """The first stage of a translation: the texts cut into sentences, chunks and model inputs
        (the ``glossary``'s terms masked as spans; in the ``second_try`` the measures, number words
        and years too)."""
        if glossary is not None and glossary.source != self.source:
            raise ValueError(f"a glossary of {glossary.source} terms cannot apply to {self.source} text")
        texts = [unicodedata.normalize("NFC", t) for t in texts]
        layouts = [segment(t, self.source) for t in texts]
        plans = [[self._planned(t, s, e, glossary, second_try) for line in layout for s, e in line]
                 for t, layout in zip(texts, layouts)]
        return Plan(texts, layouts, plans, units_of(plans))

    def _planned(self, text: str, start: int, end: int, glossary: Glossary | None, second_try: bool) -> list[Chunk]:
        deadline.check()   # a sentence at a time: a long text stops within its budget
        try:
            return self._chunks(text, start, end, glossary, second_try)
        except ValueError as exc:
            # A rule's spans that do not fit the sentence are a bug to fix, but never worth the
            # request: the sentence goes to the model as it is, and every other one as planned.
            log.warning("pipeline: sentence %r planned without its spans: %s", text[start:end][:200], exc)
            return [self._masked_chunk(text, start, end, [])]

    def model_outputs(self, sources: list[str], aligned: bool,
                      on_retry: Callable[[str], None] | None = None) -> list[AlignedText]:
        """The second stage: the model's translations of ``plan.sources`` (with alignment where
        asked or needed), retried on smaller pieces when an output is implausibly short or loops;
        ``on_retry`` is told each source that is retried."""
        return self.chooser.outputs(sources, aligned, 0, on_retry)

    def assemble(self, plan: Plan, outputs: list[AlignedText], words: dict | None = None) -> list[AlignedText]:
        """The last stage: the outputs of ``plan.sources`` put back together into one aligned
        translation per text, spans restored, placeholders repaired, casing and layout kept
        (``words``: ``output_words`` of them, where the caller has it already)."""
        words = self.output_words(plan.units, outputs) if words is None else words
        return [assembled(*args, words) for args in zip(plan.texts, plan.layouts, plan.plans)]

    def trace(self, texts: Sequence[str], glossary: Glossary | None = None) -> Trace:
        """``translate_aligned(texts)`` with what each stage made on the way (``Trace``)."""
        plan = self.plan(list(texts), glossary)
        plan, outputs = self.second_try(plan, self.model_outputs(plan.sources, True), True, glossary)
        words = self.output_words(plan.units, outputs)
        return Trace(plan, outputs, words, self.assemble(plan, outputs, words))

    def output_words(self, units, outputs: list[AlignedText]) -> dict:
        """Each model input's output as words linked to spans of the original text, placeholders
        repaired: ``{(id(chunk), unit): [Word, ...]}`` for the ``units`` of a plan."""
        restorers: dict[int, W.Restorer] = {}   # once per chunk (``Restorer``)
        for chunk, _ in units:
            if id(chunk) not in restorers:
                restorers[id(chunk)] = self.restorer(chunk.masked)
        return {(id(chunk), unit): unit_words(chunk, unit, output, restorers[id(chunk)], truecase=self.truecase,
                                              target=self.languages.target)
                for (chunk, unit), output in zip(units, outputs)}

    def _run(self, texts: list[str], aligned: bool, glossary: Glossary | None = None) -> list[AlignedText]:
        plan = self.plan(texts, glossary)
        return self.assemble(*self.second_try(plan, self.model_outputs(plan.sources, aligned), aligned, glossary))

    def first_try_checks(self, text: str) -> bool:
        """Whether ``text`` has what ``first_try_kept`` checks (``Rule.first_try_checks``): in German a
        measure, a number word or a year; in English a date with a month name or a title before a
        name (for any other, every translation keeps them: no need to restore one to check it)."""
        return any(rule.first_try_checks(text) for rule in self.rules)

    def first_try_kept(self, text: str, translation: str) -> bool:
        """Whether ``translation`` kept the measures, number words and years of ``text`` (a German
        sentence), or wrote the dates with a month name and the titles before a name of an English
        one as German writes them (``Rule.first_try_kept``); where it did not, ``second_try`` plans
        and translates it again."""
        return all(rule.first_try_kept(text, translation) for rule in self.rules)

    def second_try(self, plan: Plan, outputs: list[AlignedText], aligned: bool,
                   glossary: Glossary | None = None) -> tuple[Plan, list[AlignedText]]:
        """``plan`` and its model ``outputs``, with each sentence whose translation lost a
        measure's number or unit ("fünf Kilometer" -> "five miles"), a number word or a year, or
        did not write an English date or title the German way ("June 14" -> "Juni 14", "Mr. Klaus")
        (``first_try_kept``) planned again with those as spans (``plan(..., second_try=True)``) and
        translated again: only then, as the model places a span less well than the words ("on June
        14" reads "am 14. Juni", "on ⦅N1⦆" may not: ``pipeline.rules.measures``,
        ``pipeline.rules.years``, ``pipeline.rules.german_notation``, ``pipeline.rules.english_titles``).
        Sentence by sentence, so that a text translates as its sentences do one by one (the
        inspector's)."""
        position = {(id(chunk), unit): k for k, (chunk, unit) in enumerate(plan.units)}
        plans = [list(sentences) for sentences in plan.plans]
        changed = False
        for text, layout, sentences in zip(plan.texts, plan.layouts, plans):
            for k, (start, end) in enumerate(bound for line in layout for bound in line):
                checks, hints = self.first_try_checks(text[start:end]), self.options.hints and self.reads is not None
                if not (checks or hints):
                    continue
                chunks = [chunk for chunk in sentences[k] if chunk.masked is not None]
                restorers = {id(chunk): self.restorer(chunk.masked) for chunk in chunks}   # once per chunk
                translation = " ".join(restorers[id(chunk)].text(outputs[position[id(chunk), unit]].target)
                                       for chunk in chunks for unit in chunk.units)
                again = checks and not self.first_try_kept(text[start:end], translation)
                hinted = glossary
                if hints and (left := untranslated(text[start:end], translation, self.dictionary, self.reads,
                                                   self.lexicon.names.__contains__ if self.lexicon else None)):
                    hinted = with_hints(glossary, left, self.dictionary, self.inflections)
                if again or hinted is not glossary:
                    sentences[k] = self._chunks(text, start, end, hinted, second_try=again)
                    changed = True
        if not changed:
            return plan, outputs
        retried = Plan(plan.texts, plan.layouts, plans, units_of(plans))
        fresh = [(chunk, unit) for chunk, unit in retried.units if (id(chunk), unit) not in position]
        translated = iter(self.model_outputs([chunk.masked.text[s:e] for chunk, (s, e) in fresh], aligned))
        return retried, [outputs[position[id(chunk), unit]] if (id(chunk), unit) in position else next(translated)
                         for chunk, unit in retried.units]

class GlossaryPipeline:
    """A ``Pipeline`` with a glossary for the calls made through it (``Pipeline.with_glossary``):
    ``translate`` and ``translate_aligned`` as the pipeline's, ``translator`` the pipeline's, so
    that what takes a pipeline (``texts.translate_texts``) takes this one too."""

    def __init__(self, pipeline: Pipeline, glossary: Glossary):
        self.pipeline = pipeline
        self.glossary = glossary
        self.translator = pipeline.translator
        self.options = pipeline.options

    def translate(self, texts: Sequence[str]) -> list[str]:
        return self.pipeline.translate(texts, glossary=self.glossary)

    def translate_aligned(self, texts: Sequence[str]) -> list[AlignedText]:
        return self.pipeline.translate_aligned(texts, glossary=self.glossary)

    def translate_n_best(self, texts: Sequence[str], n: int) -> list[list[tuple[str, float]]]:
        return self.pipeline.translate_n_best(texts, n, glossary=self.glossary)
