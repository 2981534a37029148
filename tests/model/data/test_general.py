"""model.data.general: BConTrasT chats, UD PUD's CoNLL-U comments, XQuAD, and .deu/.eng line files."""

from __future__ import annotations

import json
from argparse import Namespace

import pytest

from model.data import CorpusError, CorpusSpec, read_pairs
from model.data.general import held_out_bconstrast, read_bconstrast, read_ud_pud, read_xquad, split_sentences
from model.training.corpus import load_corpus


def _turn(i, speaker, source, target):
    return {"utteranceID": i, "speaker": speaker, "source": source, "target": target}


# Our own dialogues, in BConTrasT's layout: agents wrote English, customers German.
TRAIN = {
    "dlg-1": [_turn(0, "agent", "Hi! How can I help?", "Hallo! Wie kann ich helfen?"),
              _turn(1, "customer", "Ich möchte eine Pizza bestellen.", "I would like to order a pizza."),
              _turn(2, "agent", "Which size?", "Welche Größe?")],
    "dlg-2": [_turn(0, "customer", "Mein Taxi ist nicht gekommen.", "My taxi did not come."),
              _turn(1, "agent", "Thank you for waiting.", "Danke fürs Warten.")],
}
DEV = {"dlg-3": [_turn(0, "customer", "Wann öffnet das Kino?", "When does the cinema open?"),
                 _turn(1, "agent", "Thank you for waiting.", "Danke fürs Warten.")]}
TEST = {"dlg-4": [_turn(0, "agent", "Your car is ready.", "Ihr Auto ist fertig.")]}


@pytest.fixture
def bconstrast(tmp_path):
    for name, data in (("train.json", TRAIN), ("dev.json", DEV), ("test1_corpus-with_gold_references.json", TEST)):
        (tmp_path / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return tmp_path


def test_bconstrast_turns_are_german_english_in_order(bconstrast):
    assert read_bconstrast(bconstrast) == [
        ("Hallo! Wie kann ich helfen?", "Hi! How can I help?"),
        ("Ich möchte eine Pizza bestellen.", "I would like to order a pizza."),
        ("Welche Größe?", "Which size?"),
        ("Mein Taxi ist nicht gekommen.", "My taxi did not come."),
        ("Danke fürs Warten.", "Thank you for waiting."),
    ]
    assert read_bconstrast(bconstrast / "train.json") == read_bconstrast(bconstrast)


def test_bconstrast_holds_out_its_own_dev_and_test(bconstrast):
    dev, test = held_out_bconstrast(bconstrast)
    assert dev == [("Wann öffnet das Kino?", "When does the cinema open?"), ("Danke fürs Warten.", "Thank you for waiting.")]
    assert test == [("Ihr Auto ist fertig.", "Your car is ready.")]
    spec = CorpusSpec.parse(f"bconstrast:{bconstrast}@4")
    assert (spec.kind, spec.domain, spec.weight) == ("bconstrast", "chat", 4.0)


def test_load_corpus_holds_the_chat_splits_out_of_training(bconstrast, tmp_path_factory):
    main = tmp_path_factory.mktemp("main") / "pairs.tsv"
    main.write_text("".join(f"Sentence {i}.\tSatz {i}.\n" for i in range(40)), encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    args = Namespace(data=[str(main), f"bconstrast:{bconstrast}"], valid=None, dev_size=2, test_size=2, seed=1,
                     domain_split_size=1000)
    corpus = load_corpus(args, out)
    dev, test = corpus.domains["chat"]
    assert len(dev) == 2 and len(test) == 1
    chat_train = corpus.split_parts(corpus.train)[1]
    # "Danke fürs Warten." is in dev: its training turn is dropped, the rest trains
    assert ("Danke fürs Warten.", "Thank you for waiting.") not in chat_train
    assert len(chat_train) == 4
    assert (out / "dev.chat.tsv").read_text(encoding="utf-8").splitlines()[0] == \
        "When does the cinema open?\tWann öffnet das Kino?"


@pytest.mark.parametrize("content, message", [
    ("[1, 2]", "expected an object of dialogues"),
    ("{not json", "not valid JSON"),
    ('{"d": [{"speaker": "bot", "source": "a", "target": "b"}]}', "speaker 'bot'"),
    ('{"d": [{"speaker": "agent", "source": 1}]}', "without string 'source' and 'target'"),
])
def test_bconstrast_bad_input_is_one_line(tmp_path, content, message):
    (tmp_path / "train.json").write_text(content, encoding="utf-8")
    with pytest.raises(CorpusError, match=message) as info:
        read_bconstrast(tmp_path)
    assert "\n" not in str(info.value)


def test_bconstrast_missing_folder(tmp_path):
    with pytest.raises(CorpusError, match="corpus not found"):
        read_bconstrast(tmp_path / "nope")
    with pytest.raises(CorpusError, match="corpus not found"):
        read_bconstrast(tmp_path)  # a folder without train.json


CONLLU = """# newdoc id = n1
# sent_id = n1_1
# text = Der Hund schläft im Garten.
# text_en = The dog sleeps in the garden.
1\tDer\tder\tDET\t_\t_\t2\tdet\t_\t_
2\tHund\tHund\tNOUN\t_\t_\t3\tnsubj\t_\t_

# sent_id = n1_2
# text = Ohne Übersetzung.
1\tOhne\tohne\tADP\t_\t_\t0\troot\t_\t_

# sent_id = n1_3
# text_en = It rained = it poured.
# text = Es regnete = es goss.
1\tEs\tes\tPRON\t_\t_\t0\troot\t_\t_"""


def test_ud_pud_pairs_text_with_text_en(tmp_path):
    file = tmp_path / "de_pud-ud-test.conllu"
    file.write_text(CONLLU, encoding="utf-8")
    assert read_ud_pud(file) == [("Der Hund schläft im Garten.", "The dog sleeps in the garden."),
                                 ("Es regnete = es goss.", "It rained = it poured.")]
    assert CorpusSpec.parse(f"ud-pud:{file}@3").read() == read_ud_pud(file)


def test_ud_pud_bad_input(tmp_path):
    file = tmp_path / "x.conllu"
    file.write_text("# text = Nur deutsch.\n1\tNur\t_\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="no sentence has both"):
        read_ud_pud(file)
    with pytest.raises(CorpusError, match="corpus not found"):
        read_ud_pud(tmp_path / "missing.conllu")
    file.write_bytes(b"# text = \xff\n")
    with pytest.raises(CorpusError, match="not valid UTF-8"):
        read_ud_pud(file)


def _squad(contexts_questions):
    return {"version": "1.1", "data": [{"title": "T", "paragraphs": [
        {"context": context, "qas": [{"id": qid, "question": q, "answers": []} for qid, q in qas]}
        for context, qas in contexts_questions]}]}


@pytest.fixture
def xquad(tmp_path):
    de = _squad([("Der Fluss ist lang. Er fließt nach Norden.", [("q1", "Wie lang ist der Fluss?")]),
                 ("Die Stadt z. B. hat 3 Brücken.", [("q2", "Wie viele Brücken?"), ("q9", "Nur deutsch?")])])
    en = _squad([("The river is long. It flows north.", [("q1", "How long is the river?")]),
                 ("The city, for example, has 3 bridges.", [("q2", "How many bridges?")])])
    (tmp_path / "xquad.de.json").write_text(json.dumps(de, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "xquad.en.json").write_text(json.dumps(en), encoding="utf-8")
    return tmp_path


def test_xquad_sentences_where_counts_agree_else_paragraphs_then_questions_by_id(xquad):
    assert read_xquad(xquad) == [
        ("Der Fluss ist lang.", "The river is long."),
        ("Er fließt nach Norden.", "It flows north."),
        ("Die Stadt z. B. hat 3 Brücken.", "The city, for example, has 3 bridges."),  # "z. B." splits: kept whole
        ("Wie lang ist der Fluss?", "How long is the river?"),   # an article's paragraphs, then its questions
        ("Wie viele Brücken?", "How many bridges?"),
    ]
    assert CorpusSpec.parse(f"xquad:{xquad}").read() == read_xquad(xquad)


def test_xquad_bad_input(tmp_path, xquad):
    with pytest.raises(CorpusError, match="has no xquad.de.json"):
        read_xquad(tmp_path / "nope")
    (xquad / "xquad.en.json").write_text('{"data": [{"title": "T"}]}', encoding="utf-8")
    with pytest.raises(CorpusError, match="not SQuAD's layout"):
        read_xquad(xquad)


def test_split_sentences():
    assert split_sentences("Er kam. „Hallo!“ Dann 3 Tage. (Ende.) »Ja.« 2020 kam er.") == [
        "Er kam.", "„Hallo!“", "Dann 3 Tage.", "(Ende.)", "»Ja.«", "2020 kam er."]
    assert split_sentences("He said: \"Go.\" Then  he went") == ["He said: \"Go.\"", "Then  he went"]
    assert split_sentences("Kein Satzende z. b. hier") == ["Kein Satzende z. b. hier"]


def test_support_reads_deu_eng_line_files_and_holds_out_a_split(tmp_path):
    (tmp_path / "cs.deu").write_text("Danke für Ihre E-Mail.\nWir melden uns.\n", encoding="utf-8")
    (tmp_path / "cs.eng").write_text("Thank you for your e-mail.\nWe will be in touch.\n", encoding="utf-8")
    expected = [("Danke für Ihre E-Mail.", "Thank you for your e-mail."), ("Wir melden uns.", "We will be in touch.")]
    assert read_pairs(tmp_path / "cs") == expected
    assert read_pairs(tmp_path / "cs.deu") == expected
    spec = CorpusSpec.parse(f"support:{tmp_path / 'cs'}@5")
    assert (spec.kind, spec.domain, spec.read()) == ("support", "support", expected)
