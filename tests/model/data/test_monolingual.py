"""model.data.monolingual: the texts that back-translation translates, from CoNLL-U and text files."""

from __future__ import annotations

import gzip

import pytest

from model.data import CorpusError
from model.data.monolingual import read_texts

# Two sentences of a document in UD's layout, written for this test.
CONLLU = """# newdoc id = email-0001
# sent_id = email-0001-0001
# newpar id = email-0001-p0001
# text = Thanks for the   quick reply.
1	Thanks	thanks	NOUN	NN	_	0	root	0:root	_
2	for	for	ADP	IN	_	5	case	5:case	_

# sent_id = email-0001-0002
# text = See you on Monday!
1	See	see	VERB	VB	_	0	root	0:root	_

"""


def test_a_conllu_file_gives_its_text_comments_in_order(tmp_path):
    path = tmp_path / "doc.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    assert read_texts(path) == ["Thanks for the quick reply.", "See you on Monday!"]


def test_a_text_file_gives_its_lines_without_blank_ones(tmp_path):
    path = tmp_path / "lines.txt.gz"
    path.write_bytes(gzip.compress("Where is it?\n\n  \nIt is\there.\r\n".encode("utf-8")))
    assert read_texts(path) == ["Where is it?", "It is here."]


def test_a_folder_gives_every_text_file_below_it_in_path_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "doc.conllu").write_text(CONLLU, encoding="utf-8")
    (tmp_path / "a" / "z.txt").write_text("First.\n", encoding="utf-8")
    (tmp_path / "a" / "notes.md").write_text("Not read.\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("Last.\n", encoding="utf-8")
    assert read_texts(tmp_path) == ["First.", "Thanks for the quick reply.", "See you on Monday!", "Last."]


@pytest.mark.parametrize(("name", "content", "message"), [
    (None, None, "file not found: '{path}/missing.txt'"),
    ("empty.conllu", "1\tWord\tword\tNOUN\tNN\t_\t0\troot\t0:root\t_\n",
     "cannot read '{path}/empty.conllu': a CoNLL-U file without any '# text = ...' line"),
    ("bad.txt", b"caf\xe9\n", "cannot read file '{path}/bad.txt': line 1 is not valid UTF-8"),
    ("folder/", None, "no .conllu or .txt file below '{path}/folder'"),
])
def test_bad_input_is_one_line_naming_the_file(tmp_path, name, content, message):
    if name is None:
        target = tmp_path / "missing.txt"
    elif name.endswith("/"):
        target = tmp_path / name.rstrip("/")
        target.mkdir()
        (target / "readme.md").write_text("x\n", encoding="utf-8")
    else:
        target = tmp_path / name
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusError) as raised:
        read_texts(target)
    assert str(raised.value) == message.format(path=tmp_path)
