"""model.data.freedict: FreeDict's German-English dictd files as word/phrase pairs.

The ENTRIES below are real entries of FreeDict deu-eng 1.9-fd1 (Debian ``dict-freedict-deu-eng``
2022.04.21-1; © 1995-2022 Frank Richter, 2020-2022 Einhard Leichtfuß, GPL-3.0-or-later;
https://freedict.org/), quoted to test the reader; the header entries are shortened.
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import pytest

from model.data import CorpusError, CorpusSpec
from model.data.freedict import FREEDICT_ATTRIBUTION, FREEDICT_LICENSE, parse_entry, read_freedict

FREEDICT = os.environ.get("FREEDICT_PATH", "/usr/share/dictd/freedict-deu-eng.index")

DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

# The data file starts as the real one: dictd's header entries, then the entries (in another order
# than the index's, as in the real file).
HEADER = [
    ("00databaseutf8", "\n"),
    ("00databasedictfmt1130", "00-database-dictfmt-1.13.0\n"),
    ("00databaseinfo", "German - English Ding/FreeDict dictionary\n\nMaintainer: Einhard Leichtfuß\n\n"
                       "Edition: 1.9-fd1\nSize: 517534 headwords\n\nPublisher: FreeDict.\n\n\n"),
    ("00databaseshort", "German - English Ding/FreeDict dictionary ver. 1.9-fd1\n"),
    ("00databaseurl", "https://dict.tu-chemnitz.de/\n"),
]
ENTRIES = {
    "haus-house": "Haus /hˈaʊs/ <neut, n, sg>\nhouse <n>\n      \"ein Haus bauen\"  - build a house\n      \"ein "
                  "Haus bauen lassen\"  - have a house built\n      \"(allein) im Haus bleiben\"  - stay in the "
                  "house (alone)\n      \"ein Haus mieten\"  - take a lease on a house\n      \"ein Haus auf 10 "
                  "Jahre pachten\"  - take a house on a 10-year lease\n      \"Haus der offenen Tür\"  - open "
                  "house\n      \"Haus und Hof aufs Spiel setzen\"  - bet the ranch\n      \"Ich komm nicht viel "
                  "aus dem Haus.\"  - I don't get out of the house much.\n see: {Häuser}, {frei Haus}\n\n",
    "haus-establishment": "Haus /hˈaʊs/ <neut, n, sg>\n [adm.] establishment <n>, institution <n>\n   Synonyms: "
                          "{Einrichtung}, {Institution}, {Anstalt}\n\n see: {Einrichtungen}, {Institutionen}, "
                          "{Anstalten}, {Häuser}, {Bildungseinrichtung}, {Bildungsstätte}, {Bildungsinstitution}, "
                          "{Forschungseinrichtung}\n\n",
    "haus-prefix": "Haus… /hˈaʊs/ <adj>\ndomestic <adj>, household <adj>\n   Synonyms: {hauswirtschaftlich}, "
                   "{Haushalts…}\n\n see: {Haushaltswaage}, {privater Stromverbraucher}, "
                   "{Haushaltsstromverbraucher}\n\n",
    "haus-volta": "Haus /hˈaʊs/ <neut, n, sg>\n [ugs.]  [mus.] volta bracket <n>\n         Note: sheet music\n   "
                  "Synonym: {Voltenklammer}\n\n         Note: Musiknoten\n",
    "wunderbar": "wunderbar /vˈʊndɜbˌɑːɾ/ <adj>\nmarvellous <adj> [Br.] , marvelous <adj> [Am.]\n   Synonyms: "
                 "{fabelhaft}, {prächtig}, {prachtvoll}\n\n",
    "glatze": "Glatze /ɡlˈatsə/ <fem, n, sg>\nbald head <n>, bald pate <n> [humor.]  [archaic] , baldness <n>, "
              "calvities <n>, alopecia <n>\n      \"eine Glatze haben\"  - be bald\n      \"eine Glatze bekommen\"  "
              "- get bald-headed, become/grow/get/go bald\n   Synonyms: {Platte}, {Pläte}\n\n see: {Glatzen}, "
              "{Platten}, {Pläten}, {Stirnglatze}\n\n",
    "billiglohnländer": "Billiglohnländer /bˈɪlɪɡlˌoːnlɛndɜ/ <pl>\nlow-wage countries\n   Synonym: "
                        "{Niedriglohnländer}\n\n see: {Niedriglohnland}, {Billiglohnland}\n\n",
    "konkurs abwenden": "Konkurs abwenden /kɔnkˈuːɾs ˈabvəndən/\navert bankruptcy, avoid bankruptcy\n see: "
                        "{Konkurs}, {Bankrott}, {Firmenpleite}, {Pleite}, {Konkurse}, {Bankrotte}, {Firmenpleiten}, "
                        "{Pleiten}, {Konkurs anmelden}, {Konkurs machen}, {Bankrott machen}, {betrügerischer "
                        "Bankrott}, {betrügerische Krida}\n\n",
    "ddr": "Deutsche Demokratische Republik /dˈɔøtʃə dˌeːmoːkɾˈɑːtɪʃə rˈeːpuːblˌɪk/ (DDR /dˌeːdˌeːˈɛɾ/) <fem, n, "
           "sg>\n [hist.] German Democratic Republic <n>GDR,  /ɡˌeːdˌeːˈɛɾ/ , East Germany <n>\n",
    "cotangens": "Cotangens /kˈoːtaŋəns/ (cot /kˈoːt/, ) (ctg /tsˌeːtˌeːɡˈeː/) <masc, n, sg>\n [math.] cotangent "
                 "function <n>, cotangent <n>cot,  /kˈoːt/ ctg,  /tsˌeːtˌeːɡˈeː/ ctn,  /tsˌeːtˌeːˈɛn/\n         "
                 "Note: circular function\n   Synonyms: {Kotangensfunktion}, {Kotangens}\n\n         Note: "
                 "Winkelfunktion\n",
    "paragraph": "Paragraph /pˌaraɡɾˈɑːf/ (§) <masc, n, sg>\n [jur.] section <n>s.,  /ˈɛs/\n         Note: of a "
                 "legal document\n      \"Paragraph 15, Absatz 3\"  - section 15, subsection 3\n   Synonym: "
                 "{Paragraf}\n\n see: {Paragrafen}, {Paragraphen}\n\n",
    "addieren": "addieren /adˈiːrən/ <v>\nadd sth. <v>\n         Note: up/together, sum sth. up <v>, total sth. up "
                "<v>\n   Synonyms: {zusammenzählen}, {hinzuzählen}, {summieren}\n\n see: {zusammenzählend}, "
                "{hinzuzählend}, {addierend}, {summierend}, {zusammengezählt}, {hinzugezählt}, {addiert}, "
                "{summiert}, {zählt zusammen}, {zählt hinzu}, {addiert}, {summiert}, {zählte zusammen}, {zählte "
                "hinzu}, {addierte}, {summierte}, {quer addieren}, {Addiere/Summiere 6 und 9:}, {Zähle 6 und 9 "
                "zusammen.}, {5 plus 5}\n\n",
    "abreibung": "jdm. eine (ordentliche) Abreibung verpassen /jˌɔtdˌeːˈɛm ˌaɪnə ˈɔɾdəntlɪçə ˈapɾˌaɪbʊŋ fɛɾpˈasən/ "
                 "<v>\n [sport] clean sb.'s clock <v> [Am.]  [fig.]\n         Note: jdn. vernichtend schlagen\n",
    "dublin": "Dubliner Übereinkommen /dʊblˈiːnɜ ˌyːbɜˈaɪnkˌɔmən/ <neut, n, sg>\nDublin Convention <n>, Convention "
              "determining the State responsible for examining applications for asylum lodged in one of the Member "
              "States of the EC <n>\n   Synonym: {Übereinkommen über die Bestimmung des zuständigen Staates für die "
              "Prüfung eines in einem Mitgliedstaat der EG gestellten Asylantrags}\n\n",
    "aconcagua": "Aconcagua /ˈɑkɔnkˌɑɡuːˌɑː/ <masc, n, sg>\nAconcagua <n>\n   Synonym: {Cerro Aconcagua}\n\n",
    "sentence": "Ihre Mutter fand, dass sie nicht standesgemäß geheiratet hatte. /ˌiːrə mˈʊtɜ fˈant das ziː nˈɪçt "
                "ʃtˈandɛsɡˌeːmɛːs ɡəhaɪrˈɑːtət hˌatə/\nHer mother felt she had married beneath her.\n see: {unter "
                "jds. Niveau/Würde/Stand sein}, {Das ist unter seiner Würde.}\n\n",
    "kormoran": "Kormoran /kˌɔɾmoːrˈɑːn/ <masc, n, sg>\n [ornith.] great black cormorant <n>, great cormorant <n>, "
                "black cormorant <n> [Austr.] , black shag <n> [NZ]\n         Note: Phalacrocorax carbo\n",
    "kohlpalmen": "Kohlpalmen /kˈoːlpalmən/ <pl>\n [bot.] açai palms\n         Note: botanical genus\n         "
                  "Note: Euterpe\n         Note: botanische Gattung\n",
    "meerbarbe": "Meerbarbe /mˈeːɾbaɾbə/ <fem, n, sg>\n [zool.] red mullet <n>\n see: {Meerbarben}\n\n",
    "krückstock": "Krückstock /kɾˈykstɔk/ <masc, n, sg>\n [veraltet] walking stick <n>, cane <n>\n      \"Das fühlt "
                  "doch (sogar) ein Blinder mit dem Krückstock!\"  - Anyone can see that with half an eye.\n   "
                  "Synonyms: {Spazierstock}, {Gehstock}\n\n see: {Spazierstöcke}, {Gehstöcke}, {Krückstöcke}\n\n",
}
# (index key, entry), in the real index's order: keys lower-cased and without punctuation, "" for
# "(§)"; two keys for the entry with an abbreviation.
INDEX = [("", "paragraph")] + [(key, key) for key, _ in HEADER] + [
    ("aconcagua", "aconcagua"), ("addieren", "addieren"), ("billiglohnländer", "billiglohnländer"),
    ("cotangens", "cotangens"), ("ddr", "ddr"),
    ("deutsche demokratische republik", "ddr"), ("dubliner übereinkommen", "dublin"), ("glatze", "glatze"),
    ("haus", "haus-establishment"), ("haus", "haus-house"), ("haus", "haus-prefix"), ("haus", "haus-volta"),
    ("ihre mutter fand dass sie nicht standesgemäß geheiratet hatte", "sentence"),
    ("jdm eine ordentliche abreibung verpassen", "abreibung"), ("kohlpalmen", "kohlpalmen"),
    ("konkurs abwenden", "konkurs abwenden"), ("kormoran", "kormoran"), ("krückstock", "krückstock"),
    ("meerbarbe", "meerbarbe"), ("wunderbar", "wunderbar")]
EXPECTED = [
    ("Paragraph", "section"),
    ("addieren", "add sth."), ("addieren", "sum sth. up"), ("addieren", "total sth. up"),
    ("Billiglohnländer", "low-wage countries"),
    ("Cotangens", "cotangent function"), ("Cotangens", "cotangent"),
    ("Deutsche Demokratische Republik", "German Democratic Republic"),
    ("Deutsche Demokratische Republik", "East Germany"),
    ("Dubliner Übereinkommen", "Dublin Convention"),
    ("Glatze", "bald head"), ("Glatze", "baldness"), ("Glatze", "calvities"), ("Glatze", "alopecia"),
    ("Haus", "establishment"), ("Haus", "institution"), ("Haus", "house"), ("Haus", "volta bracket"),
    ("jdm. eine Abreibung verpassen", "clean sb.'s clock"),
    ("Konkurs abwenden", "avert bankruptcy"), ("Konkurs abwenden", "avoid bankruptcy"),
    ("Meerbarbe", "red mullet"),
    ("wunderbar", "marvellous"), ("wunderbar", "marvelous"),
]


DATA_ORDER = [key for key, _ in HEADER] + sorted(ENTRIES, reverse=True)


def dictd_number(value: int) -> str:
    """``value`` in dictd's base64 digits, most significant first, as dictfmt writes it."""
    digits = DIGITS[value % 64]
    while value >= 64:
        value //= 64
        digits = DIGITS[value % 64] + digits
    return digits


def dictd_files(folder: Path, *, compress: bool = True) -> tuple[Path, Path]:
    """The fixture as ``freedict-deu-eng.index`` and ``.dict.dz`` (or ``.dict``) in ``folder``."""
    folder.mkdir(exist_ok=True)
    text, places = b"", {}
    for name in DATA_ORDER:
        article = (dict(HEADER).get(name) or ENTRIES[name]).encode("utf-8")
        places[name] = (len(text), len(article))
        text += article
    index = folder / "freedict-deu-eng.index"
    index.write_text("".join(f"{key}\t{dictd_number(places[name][0])}\t{dictd_number(places[name][1])}\n"
                             for key, name in INDEX), encoding="utf-8")
    data = folder / ("freedict-deu-eng.dict.dz" if compress else "freedict-deu-eng.dict")
    data.write_bytes(gzip.compress(text) if compress else text)
    return index, data


def test_dictd_numbers_as_in_the_real_index():
    # "00databaseutf8\tA\tB", "00databasedictfmt1130\tB\tb", "00databaseinfo\tc\t5S" in Debian's file
    assert [dictd_number(n) for n in (0, 1, 27, 28, 3666, 63, 64)] == ["A", "B", "b", "c", "5S", "/", "BA"]


def test_fixture_index_starts_like_the_real_one(tmp_path):
    index, _ = dictd_files(tmp_path / "fd")
    info_length = dictd_number(len(HEADER[2][1].encode("utf-8")))
    assert index.read_text(encoding="utf-8").splitlines()[1:4] == [
        "00databaseutf8\tA\tB", "00databasedictfmt1130\tB\tb", f"00databaseinfo\tc\t{info_length}"]


def test_reads_entries_in_index_order_cleaned(tmp_path):
    index, _ = dictd_files(tmp_path / "fd")
    assert read_freedict(index) == EXPECTED


@pytest.mark.parametrize("given", ["folder", "index", "data", "plain data", "folder with plain data"])
def test_the_folder_index_or_data_file_may_be_given(tmp_path, given):
    index, data = dictd_files(tmp_path / "fd", compress="plain" not in given)
    path = {"folder": index.parent, "index": index, "data": data, "plain data": data,
            "folder with plain data": index.parent}[given]
    assert read_freedict(path) == EXPECTED
    assert read_freedict(os.fspath(path)) == EXPECTED


def test_one_entry_per_rule():
    assert parse_entry(ENTRIES["haus-volta"]) == [("Haus", "volta bracket")]  # labels and glosses dropped
    assert parse_entry(ENTRIES["haus-prefix"]) == []                           # combining form
    assert parse_entry(ENTRIES["sentence"]) == []                              # example sentence kept as an entry
    assert parse_entry(ENTRIES["kormoran"]) == []                              # bird species
    assert parse_entry(ENTRIES["kohlpalmen"]) == []                            # genus
    assert parse_entry(ENTRIES["krückstock"]) == []                            # [veraltet]
    # the identical pair and the 130-character translation go in read_freedict, not here
    assert parse_entry(ENTRIES["aconcagua"]) == [("Aconcagua", "Aconcagua")]
    assert len(parse_entry(ENTRIES["dublin"])[1][1]) > 100


def test_numbered_senses():
    # FreeDict's dictd rendering (teientry2txt.xsl) numbers the senses of an entry that has several;
    # deu-eng 1.9-fd1 has one sense an entry, so this entry is made up in that shape.
    entry = ("Bank /bˈaŋk/ <fem, n, sg>\n  1. bench <n>\n         Note: in a public area\n  2. [fin.] bank <n>, "
             "bench <n>\n see: {Bänke}\n")
    assert parse_entry(entry) == [("Bank", "bench"), ("Bank", "bank"), ("Bank", "bench")]
    # numbers are part of a translation unless every sense line has one
    assert parse_entry("3. /dɾˈaɪ/ <num>\nthird <num>, 3rd <num>\n") == [("3.", "third"), ("3.", "3rd")]
    assert parse_entry("Jubiläum /jˌuːbiːlˈɛːʊm/ <neut, n, sg>\n1. Jahrestag <n>\n") == [("Jubiläum", "1. Jahrestag")]


def test_duplicates_are_kept_once_at_their_first_place(tmp_path):
    folder = tmp_path / "fd"
    folder.mkdir()
    first, second = ENTRIES["wunderbar"].encode(), ENTRIES["haus-house"].encode() + ENTRIES["wunderbar"].encode()
    (folder / "freedict-deu-eng.dict").write_bytes(first + second)
    (folder / "freedict-deu-eng.index").write_text(
        f"wunderbar\tA\t{dictd_number(len(first))}\n"
        f"haus\t{dictd_number(len(first))}\t{dictd_number(len(ENTRIES['haus-house'].encode()))}\n"
        f"wunderbar\t{dictd_number(len(first) + len(ENTRIES['haus-house'].encode()))}\t{dictd_number(len(first))}\n",
        encoding="utf-8")
    assert read_freedict(folder) == [("wunderbar", "marvellous"), ("wunderbar", "marvelous"), ("Haus", "house")]


def _missing(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "nowhere"
    return path, f"FreeDict dictionary not found: {str(path)!r}"


def _empty_folder(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "empty"
    path.mkdir()
    return path, f"FreeDict dictionary not found: {str(path)!r} has no freedict-deu-eng.index"


def _index_only(tmp_path: Path) -> tuple[Path, str]:
    index, data = dictd_files(tmp_path / "fd")
    data.unlink()
    return index.parent, (f"FreeDict dictionary not found: {str(index.parent)!r} has no freedict-deu-eng.dict.dz "
                          "or freedict-deu-eng.dict")


def _data_only(tmp_path: Path) -> tuple[Path, str]:
    index, data = dictd_files(tmp_path / "fd")
    index.unlink()
    return data, f"FreeDict dictionary not found: {str(data)!r} has no index {str(index)!r}"


def _ding_file(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "de-en.txt"
    path.write_text("Haus {n} :: house\n", encoding="utf-8")
    return path, f"not a dictd index (line 1 is not 'headword<TAB>offset<TAB>length'): {str(path)!r}"


def _bad_digit(tmp_path: Path) -> tuple[Path, str]:
    index, _ = dictd_files(tmp_path / "fd")
    index.write_text(index.read_text(encoding="utf-8") + "haus\tBT*Op\tIP\n", encoding="utf-8")
    return index, f"not a dictd index (line {len(INDEX) + 1} is not 'headword<TAB>offset<TAB>length'): {str(index)!r}"


def _empty_index(tmp_path: Path) -> tuple[Path, str]:
    index, _ = dictd_files(tmp_path / "fd")
    index.write_bytes(b"")
    return index, f"not a dictd index (no entries): {str(index)!r}"


def _binary_index(tmp_path: Path) -> tuple[Path, str]:
    index, data = dictd_files(tmp_path / "fd")
    index.write_bytes(data.read_bytes())  # the .dict.dz given as the index
    return index, f"not a dictd index (not UTF-8 text): {str(index)!r}"


def _truncated_dz(tmp_path: Path) -> tuple[Path, str]:
    index, data = dictd_files(tmp_path / "fd")
    data.write_bytes(data.read_bytes()[:-100])
    return index, f"cannot read FreeDict dictionary {str(data)!r}: not a valid gzip (dictzip) file"


def _truncated_dict(tmp_path: Path) -> tuple[Path, str]:
    index, data = dictd_files(tmp_path / "fd", compress=False)
    text = data.read_bytes()
    data.write_bytes(text[:-10])
    last = next(key for key, name in INDEX if name == DATA_ORDER[-1])  # the entry stored last
    return index, (f"cannot read FreeDict dictionary {str(data)!r}: entry {last!r} ends at byte {len(text)}, past "
                   f"the end of the text ({len(text) - 10} bytes); truncated?")


@pytest.mark.parametrize("make", [_missing, _empty_folder, _index_only, _data_only, _ding_file, _bad_digit,
                                  _empty_index, _binary_index, _truncated_dz, _truncated_dict],
                         ids=lambda make: make.__name__.strip("_"))
def test_bad_input_is_a_one_line_corpus_error(tmp_path, make):
    path, message = make(tmp_path)
    with pytest.raises(CorpusError, match=f"^{re.escape(message)}$"):
        read_freedict(path)


def test_attribution_and_license():
    # debian/copyright of dict-freedict-deu-eng: "Files: deu-eng/*", "License: GPL-3+"
    assert FREEDICT_LICENSE == "GPL-3.0-or-later"
    assert "Frank Richter" in FREEDICT_ATTRIBUTION and "Einhard Leichtfuß" in FREEDICT_ATTRIBUTION


@pytest.mark.skipif(not os.path.exists(FREEDICT), reason=f"{FREEDICT} absent (apt install dict-freedict-deu-eng)")
def test_real_dictionary():
    pairs = read_freedict(FREEDICT)
    assert 650_000 < len(pairs) < 850_000
    assert len(set(pairs)) == len(pairs)
    found = set(pairs)
    for pair in [("Haus", "house"), ("Haus", "home"), ("wunderbar", "marvellous"),
                 ("Konkurs abwenden", "avoid bankruptcy"), ("Deutsche Demokratische Republik", "East Germany"),
                 ("addieren", "sum sth. up"), ("Billiglohnländer", "low-wage countries"), ("Meerbarbe", "red mullet")]:
        assert pair in found
    for pair in [("Haus…", "domestic"), ("Kormoran", "great cormorant"), ("Krückstock", "walking stick"),
                 ("German - English Ding/FreeDict dictionary", "Maintainer: Einhard Leichtfuß")]:
        assert pair not in found
    assert not [pair for pair in pairs if re.search(r"[<\[\]{}ˈ]", "\t".join(pair))]  # no tags, labels, IPA
    assert all(0 < len(de) <= 100 and 0 < len(en) <= 100 and de != en for de, en in pairs)


def test_spec_kind(tmp_path):
    path, _ = _index_only(tmp_path)
    spec = CorpusSpec.parse(f"freedict:{path}@0.1")
    assert (spec.kind, spec.path, spec.weight, spec.domain) == ("freedict", str(path), 0.1, None)
