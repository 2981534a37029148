"""Tests for the command-line tools: commands.translate, commands.info, commands.evaluate (and commands.cli).

A few tests run the commands as real subprocesses (each pays ~2 s of torch import); the rest,
including the bad-input matrix, call ``main(argv)`` in-process and read stdout/stderr via capsys.
"""

from __future__ import annotations

import collections
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from commands import cli, evaluate, info, translate
from model.data import ding as ding_module

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"translate": translate, "info": info, "evaluate": evaluate}


class Sneaky(collections.OrderedDict):
    """Any class outside torch's weights_only allow-list: unpickling it would import and run code."""


def run_cmd(module: str, args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", f"commands.{module}", *map(str, args)], input=stdin,
                          capture_output=True, cwd=ROOT, timeout=120)


def run_inprocess(module: str, args: list[str], capsys, monkeypatch, stdin: bytes = b"") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = COMMANDS[module].main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def texts(tmp_path_factory, pairs40):
    """src.de / ref.en from the 40 pairs, a second reference file, and a 5-line reference."""
    d = tmp_path_factory.mktemp("texts")
    (d / "src.de").write_text("".join(de + "\n" for de, _ in pairs40), encoding="utf-8")
    (d / "ref.en").write_text("".join(en + "\n" for _, en in pairs40), encoding="utf-8")
    (d / "ref2.en").write_text("".join(en.upper() + "\n" for _, en in pairs40), encoding="utf-8")
    (d / "short.en").write_text("".join(en + "\n" for _, en in pairs40[:5]), encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def bad(tmp_path_factory, tiny_checkpoint):
    """Files that are not usable checkpoints."""
    d = tmp_path_factory.mktemp("bad")
    (d / "truncated.pt").write_bytes(tiny_checkpoint.read_bytes()[:100])
    (d / "notes.txt").write_text("Das ist kein Modell.\n", encoding="utf-8")
    torch.save({"format": "de-en-nmt/1", "meta": Sneaky(step=1)}, d / "pickled.pt")
    (d / "empty.pt").write_bytes(b"")
    (d / "broken.po").write_text('msgid "a"\nmsgid "b"\n', encoding="utf-8")
    with zipfile.ZipFile(d / "deu-eng.zip", "w") as archive:  # a corpus given as --checkpoint
        archive.writestr("deu.txt", "Hi.\tHallo!\n")
    return d


def expected_lines(pairs40) -> tuple[bytes, list[str]]:
    """stdin with an empty and an all-blank line inserted, CRLF on some lines; and the expected stdout."""
    de = [d for d, _ in pairs40]
    en = [e for _, e in pairs40]
    de[5:5], en[5:5] = [""], [""]
    de[20:20], en[20:20] = ["   \t "], [""]
    stdin = "".join(line + ("\r\n" if i % 3 == 0 else "\n") for i, line in enumerate(de)).encode()
    return stdin, en


# ------------------------------------------------------------------------------------ translate


def test_translate_subprocess_greedy(tiny_checkpoint, pairs40):
    stdin, expected = expected_lines(pairs40)
    proc = run_cmd("translate", ["--checkpoint", tiny_checkpoint, "--beam", "1"], stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""
    assert proc.stdout.decode("utf-8").split("\n") == expected + [""]


@pytest.mark.parametrize("options", [["--beam", "4"], ["--beam", "4", "--batch-size", "3"],
                                     ["--beam", "1", "--batch-size", "3"]])
def test_translate_beam_and_batch_size(tiny_checkpoint, pairs40, capsys, monkeypatch, options):
    stdin, expected = expected_lines(pairs40)
    code, out, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint, *options], capsys, monkeypatch, stdin)
    assert (code, err) == (0, "")
    assert out.split("\n") == expected + [""]


@pytest.mark.parametrize("engine", ["torch", "ct2"])
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_translate_with_the_pytorch_weights_in_either_precision(tiny_checkpoint, pairs40, capsys, monkeypatch,
                                                                  engine, precision):
    if engine == "ct2":
        pytest.importorskip("ctranslate2")
    stdin, expected = expected_lines(pairs40)
    args = ["--checkpoint", tiny_checkpoint, "--engine", engine, "--torch-precision", precision, "--quantization", "float32"]
    code, out, err = run_inprocess("translate", args, capsys, monkeypatch, stdin)
    assert (code, err) == (0, "")
    assert out.split("\n") == expected + [""]


@pytest.mark.parametrize("engine", ["torch", "ct2"])
def test_translate_reranked_by_the_reverse_model(tiny_checkpoint, reverse_checkpoint, pairs40, capsys, monkeypatch,
                                                 engine):
    # Both tiny models know the 40 pairs by heart: reranked, every line is still its reference,
    # and with a weight so large that the channel alone decides too.
    if engine == "ct2":
        pytest.importorskip("ctranslate2")
    stdin, expected = expected_lines(pairs40)
    for weight in ("2", "40"):
        args = ["--checkpoint", tiny_checkpoint, "--engine", engine, "--beam", "4", "--channel", reverse_checkpoint,
                "--channel-weight", weight]
        code, out, err = run_inprocess("translate", args, capsys, monkeypatch, stdin)
        assert (code, err) == (0, "")
        assert out.split("\n") == expected + [""]


def test_translate_refuses_a_channel_that_translates_the_same_way(tiny_checkpoint, capsys, monkeypatch):
    args = ["--checkpoint", tiny_checkpoint, "--engine", "torch", "--channel", tiny_checkpoint]
    code, out, err = run_inprocess("translate", args, capsys, monkeypatch, b"Hallo\n")
    assert (code, out) == (2, "")
    assert err == (f"python -m commands.translate: error: the channel {str(tiny_checkpoint)!r} scores en-de, but "
                   f"{str(tiny_checkpoint)!r} translates de-en\n")


@pytest.mark.parametrize("weight", ["-1", "inf", "nan"])
def test_translate_refuses_a_bad_channel_weight(tiny_checkpoint, reverse_checkpoint, capsys, monkeypatch, weight):
    args = ["--checkpoint", tiny_checkpoint, "--channel", reverse_checkpoint, "--channel-weight", weight]
    code, out, err = run_inprocess("translate", args, capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == (f"python -m commands.translate: error: --channel-weight must be a number >= 0, "
                                    f"got {float(weight)!r}")


def test_bad_torch_precision(tiny_checkpoint, capsys, monkeypatch):
    code, out, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint, "--torch-precision", "fp16"],
                                   capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == ("python -m commands.translate: error: argument --torch-precision: invalid choice: "
                                    "'fp16' (choose from 'auto', 'fp32', 'bf16')")


def test_translate_file_txt_and_catalog(tiny_checkpoint, pairs40, tmp_path, capsys, monkeypatch):
    import polib

    source = tmp_path / "brief.txt"
    source.write_bytes(f"{pairs40[0][0]}\n\n  {pairs40[1][0]}\r\n".encode())
    code, out, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint, "--beam", "1", "--file", source,
                                                 "--out", tmp_path / "brief_en.txt", "--no-progress"],
                                   capsys, monkeypatch, b"")
    assert (code, out) == (0, "")
    assert err == f"wrote {tmp_path / 'brief_en.txt'}: {len(pairs40[0][0]) + 2 + len(pairs40[1][0]) + 4} characters translated\n"
    assert (tmp_path / "brief_en.txt").read_bytes().decode() == f"{pairs40[0][1]}\n\n  {pairs40[1][1]}\r\n"
    catalog = tmp_path / "app.pot"
    catalog.write_text(f'msgid ""\nmsgstr ""\n"Language: de\\n"\n\nmsgid "{pairs40[2][0]}"\nmsgstr ""\n', encoding="utf-8")
    code, _, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint, "--file", catalog,
                                               "--out", tmp_path / "app_en.pot"], capsys, monkeypatch, b"")
    assert code == 0 and "100%" in err and "1/1" in err  # the progress bar, on stderr
    out_catalog = polib.pofile(str(tmp_path / "app_en.pot"))
    assert [(e.msgid, e.msgstr) for e in out_catalog] == [(pairs40[2][0], pairs40[2][1])]


def test_translate_file_with_a_reverse_model_writes_german_files(reverse_checkpoint, pairs40, tmp_path, capsys,
                                                                   monkeypatch):
    """The checkpoint's direction (en-de) decides: English in, German out, and the file names German."""
    import polib

    catalog = tmp_path / "app.po"
    catalog.write_text(f'msgid ""\nmsgstr ""\n"Language: en_US\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                       f'msgid "{pairs40[0][1]}"\nmsgstr ""\n', encoding="utf-8")
    code, out, err = run_inprocess("translate", ["--checkpoint", reverse_checkpoint, "--file", catalog,
                                                 "--out", tmp_path / "app_de.po", "--no-progress"], capsys, monkeypatch, b"")
    assert (code, out) == (0, ""), err
    translated = polib.pofile(str(tmp_path / "app_de.po"))
    assert translated.metadata["Language"] == "de"
    assert [(e.msgid, e.msgstr) for e in translated] == [(pairs40[0][1], pairs40[0][0])]
    page = tmp_path / "page.html"
    page.write_text(f'<html lang="en-GB"><body><p>{pairs40[1][1]}</p></body></html>', encoding="utf-8")
    code, out, err = run_inprocess("translate", ["--checkpoint", reverse_checkpoint, "--file", page,
                                                 "--out", tmp_path / "page_de.html", "--no-progress"], capsys, monkeypatch, b"")
    assert (code, out) == (0, ""), err
    assert (tmp_path / "page_de.html").read_text(encoding="utf-8") == (
        f'<html lang="de"><body><p>{pairs40[1][0]}</p></body></html>')


@pytest.mark.parametrize("formality", ["formal", "informal", "any"])
def test_translate_with_a_formality(reverse_checkpoint, capsys, monkeypatch, formality):
    # the tiny en-de model has no formal hypothesis for this one: its own is written in each case
    code, out, err = run_inprocess("translate", ["--checkpoint", reverse_checkpoint, "--formality", formality],
                                   capsys, monkeypatch, "How old are you?\n".encode())
    assert (code, out) == (0, "Wie alt bist du?\n"), err


def test_translate_file_pdf_gives_docx(tiny_checkpoint, pairs40, tmp_path, capsys, monkeypatch):
    import docx

    from tests.pipeline.documents.office_files import pdf_file

    source = tmp_path / "brief.pdf"
    source.write_bytes(pdf_file([[pairs40[0][0]]]))
    code, out, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint, "--beam", "1", "--file", source,
                                                 "--out", tmp_path / "brief_en.docx", "--no-progress"],
                                   capsys, monkeypatch, b"")
    assert (code, out) == (0, ""), err
    paragraphs = [p.text for p in docx.Document(str(tmp_path / "brief_en.docx")).paragraphs if p.text]
    assert paragraphs == [pairs40[0][1]]


def test_translate_n_best(tiny_checkpoint, pairs40, capsys, monkeypatch):
    stdin = "\n".join([pairs40[0][0], "", pairs40[1][0]]).encode()  # no final newline
    code, out, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint, "--beam", "4", "--n-best", "3"],
                                   capsys, monkeypatch, stdin)
    assert (code, err) == (0, "")
    rows = [line.split("\t") for line in out.splitlines()]
    assert all(len(row) == 3 for row in rows)
    groups: dict[int, list[tuple[float, str]]] = {}
    for index, score, text in rows:
        groups.setdefault(int(index), []).append((float(score), text))
    assert sorted(groups) == [0, 1, 2]
    assert groups[1] == [(0.0, "")]
    for index, english in ((0, pairs40[0][1]), (2, pairs40[1][1])):
        assert 1 <= len(groups[index]) <= 3
        assert groups[index][0][1] == english
        scores = [s for s, _ in groups[index]]
        assert scores == sorted(scores, reverse=True)


def test_read_chunks_lines_and_chunking():
    data = b"\xef\xbb\xbfeins\r\nzwei\n\n  \nf\xc3\xbcnf"
    chunks = list(translate.read_chunks(io.BytesIO(data), max_lines=2))
    assert chunks == [["eins", "zwei"], ["", "  "], ["fünf"]]
    assert list(translate.read_chunks(io.BytesIO(b""))) == []


# ----------------------------------------------------------------------------------------- info


def test_info_subprocess(tiny_run, tiny_checkpoint):
    proc = run_cmd("info", [tiny_checkpoint])
    assert proc.returncode == 0, proc.stderr.decode()
    data = json.loads(proc.stdout)
    last = json.loads((tiny_run / "metrics.jsonl").read_text().splitlines()[-1])
    assert data["step"] == last["step"] > 0
    assert data["parameters"] > 0
    assert data["config"]["vocab_size"] == data["vocab_size"]
    assert data["file_size_bytes"] == tiny_checkpoint.stat().st_size
    assert data["has_train_state"] is False
    assert data["format"] == "de-en-nmt/1"
    assert "curves" in data and "versions" in data  # all of meta is there


def test_info_last_checkpoint_has_train_state(tiny_run, capsys, monkeypatch):
    code, out, err = run_inprocess("info", ["--checkpoint", tiny_run / "last.pt"], capsys, monkeypatch)
    assert (code, err) == (0, "")
    assert json.loads(out)["has_train_state"] is True


# ------------------------------------------------------------------------------------- evaluate


def test_evaluate_subprocess_json(tiny_checkpoint, texts):
    proc = run_cmd("evaluate", ["--checkpoint", tiny_checkpoint, "--src", texts / "src.de",
                                "--ref", texts / "ref.en", "--json"])
    assert proc.returncode == 0, proc.stderr.decode()
    (line,) = proc.stdout.decode().splitlines()
    data = json.loads(line)
    assert (data["bleu"], data["chrf"], data["length_ratio"]) == (100.0, 100.0, 1.0)
    assert data["bleu_signature"].startswith("nrefs:1|") and "tok:13a" in data["bleu_signature"]
    assert data["chrf_signature"].startswith("nrefs:1|")
    assert (data["sentences"], data["beam"]) == (40, 4)


def test_evaluate_two_references_and_output(tiny_checkpoint, texts, pairs40, tmp_path, capsys, monkeypatch):
    hyps = tmp_path / "hyps.en"
    code, out, err = run_inprocess("evaluate", ["--checkpoint", tiny_checkpoint, "--src", texts / "src.de",
                                                "--ref", texts / "ref.en", "--ref", texts / "ref2.en",
                                                "--beam", "1", "--output", hyps], capsys, monkeypatch)
    assert (code, err) == (0, "")
    bleu, chrf = out.splitlines()
    assert bleu.startswith("BLEU = 100.00 ") and "signature: nrefs:2|case:mixed|eff:no|tok:13a" in bleu
    assert chrf.startswith("chrF2 = 100.00 signature: nrefs:2|")
    assert hyps.read_text(encoding="utf-8").splitlines() == [en for _, en in pairs40]
    assert [p.name for p in tmp_path.iterdir()] == ["hyps.en"]  # no temp file left behind


def test_evaluate_data_corpus(tiny_checkpoint, corpus_path, capsys, monkeypatch):
    code, out, err = run_inprocess("evaluate", ["--checkpoint", tiny_checkpoint, "--data", corpus_path, "--json",
                                                "--beam", "1"], capsys, monkeypatch)
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["bleu"], data["chrf"], data["sentences"]) == (100.0, 100.0, 40)
    assert data["bleu_signature"].startswith("nrefs:1|")


def test_evaluate_scores_a_reverse_model_on_the_swapped_corpus(reverse_checkpoint, corpus_path, capsys, monkeypatch):
    code, out, err = run_inprocess("evaluate", ["--checkpoint", reverse_checkpoint, "--data", corpus_path, "--json",
                                                "--beam", "1", "--raw"], capsys, monkeypatch)
    assert (code, err) == (0, "")
    assert (json.loads(out)["bleu"], json.loads(out)["sentences"]) == (100.0, 40)
    code, out, err = run_inprocess("evaluate", ["--checkpoint", reverse_checkpoint, "--data", corpus_path, "--json",
                                                "--beam", "1"], capsys, monkeypatch)   # through the pipeline
    assert (code, err) == (0, "")
    assert (json.loads(out)["bleu"], json.loads(out)["sentences"], json.loads(out)["pipeline"]) == (100.0, 40, True)


def test_evaluate_load_corpus_groups_all_references(tmp_path):
    corpus = tmp_path / "test.tsv"
    corpus.write_text("Hi.\tHallo!\nHello.\tHallo!\nRun!\tLauf!\n", encoding="utf-8")
    sources, streams = evaluate.load_corpus(str(corpus))
    assert sources == ["Hallo!", "Lauf!"]
    assert streams == [["Hi.", "Run!"], ["Hello.", None]]
    sources, streams = evaluate.load_corpus(str(corpus), "en-de")  # a reverse model's: English sources
    assert sources == ["Hi.", "Hello.", "Run!"]
    assert streams == [["Hallo!", "Hallo!", "Lauf!"]]


# ------------------------------------------------------------------------------ errors matrix

# (command, argv, expected message); {ckpt}, {bad}, {texts} are filled in by the test.
SRC_REF = ["--src", "{texts}/src.de", "--ref", "{texts}/ref.en"]
ERRORS = {
    "missing-checkpoint": ("translate", ["--checkpoint", "{bad}/missing.pt"],
                           "checkpoint not found: '{bad}/missing.pt'"),
    "truncated-checkpoint": ("info", ["{bad}/truncated.pt"],
                             "cannot load checkpoint '{bad}/truncated.pt': the file is truncated or corrupted"),
    "text-as-checkpoint": ("evaluate", ["--checkpoint", "{bad}/notes.txt", *SRC_REF],
                           "not a de-en-nmt checkpoint: '{bad}/notes.txt' is not a file written by torch.save"),
    "empty-checkpoint": ("info", ["{bad}/empty.pt"], "cannot load checkpoint '{bad}/empty.pt': the file is empty"),
    "zip-corpus-as-checkpoint": ("translate", ["--checkpoint", "{bad}/deu-eng.zip"],
                                 "not a de-en-nmt checkpoint: '{bad}/deu-eng.zip' is not a file written by torch.save"),
    "pickled-objects": ("translate", ["--checkpoint", "{bad}/pickled.pt"],
                        "cannot load checkpoint '{bad}/pickled.pt': it contains pickled Python objects, "
                        "which are refused for safety"),
    "beam-0": ("translate", ["--checkpoint", "{ckpt}", "--beam", "0"], "--beam must be >= 1, got 0"),
    "batch-size-0": ("evaluate", ["--checkpoint", "{ckpt}", *SRC_REF, "--batch-size", "0"],
                     "--batch-size must be >= 1, got 0"),
    "n-best-over-beam": ("translate", ["--checkpoint", "{ckpt}", "--beam", "4", "--n-best", "5"],
                         "--n-best 5 needs --beam >= 5, got --beam 4"),
    "bad-int": ("translate", ["--beam", "many"], "argument --beam: invalid int value: 'many'"),
    "file-without-out": ("translate", ["--file", "{texts}/src.de"], "--file and --out go together"),
    "file-and-raw": ("translate", ["--file", "{bad}/a.txt", "--out", "{bad}/b.txt", "--raw"],
                     "--file translates through the text pipeline, with one translation: not with --raw or --n-best"),
    "formality-and-raw": ("translate", ["--checkpoint", "{ckpt}", "--raw", "--formality", "informal"],
                          "--formality and --checks are the text pipeline's: not with --raw"),
    "checks-and-raw": ("translate", ["--checkpoint", "{ckpt}", "--raw", "--checks", "negation"],
                       "--formality and --checks are the text pipeline's: not with --raw"),
    "checks-unknown": ("translate", ["--checks", "negation,rudeness"],
                       "argument --checks: unknown check 'rudeness' (known: negation, profanity)"),
    "formality-unknown": ("translate", ["--formality", "polite"],
                          "argument --formality: invalid choice: 'polite' (choose from 'formal', 'informal', 'any')"),
    "file-format": ("translate", ["--checkpoint", "{ckpt}", "--file", "{texts}/src.de", "--out", "{bad}/out.de"],
                    "'{texts}/src.de': unsupported file format; use .docx, .epub, .html, .json, .md, .odp, .odt, "
                    ".pdf, .po, .pot, .pptx, .srt, .txt or .vtt"),
    "file-out-extension": ("translate", ["--checkpoint", "{ckpt}", "--file", "{bad}/notes.txt",
                                         "--out", "{bad}/notes.html"],
                           "--out '{bad}/notes.html' must have the extension .txt (--file is .txt)"),
    "file-broken": ("translate", ["--checkpoint", "{ckpt}", "--file", "{bad}/broken.po", "--out", "{bad}/a.po"],
                    "file is not a valid gettext catalog: Syntax error in po file (line 2)"),
    "missing-src": ("evaluate", ["--checkpoint", "{ckpt}", "--src", "{bad}/missing.de", "--ref", "{texts}/ref.en"],
                    "file not found: '{bad}/missing.de'"),
    "line-count-mismatch": ("evaluate", ["--checkpoint", "{ckpt}", "--src", "{texts}/src.de",
                                         "--ref", "{texts}/ref.en", "--ref", "{texts}/short.en"],
                            "--ref '{texts}/short.en' has 5 lines but --src '{texts}/src.de' has 40"),
    "coverage-weight-negative": ("evaluate", ["--checkpoint", "{ckpt}", *SRC_REF, "--coverage-weight", "-1"],
                                 "--coverage-weight must be a number >= 0, got -1.0"),
    "coverage-weight-nan": ("evaluate", ["--checkpoint", "{ckpt}", *SRC_REF, "--coverage-weight", "nan"],
                            "--coverage-weight must be a number >= 0, got nan"),
    "gap-words-negative": ("evaluate", ["--checkpoint", "{ckpt}", *SRC_REF, "--gap-words", "-1"],
                           "--gap-words must be >= 0, got -1"),
    "data-and-src": ("evaluate", ["--data", "{texts}/src.de", *SRC_REF],
                     "--data cannot be combined with --src/--ref"),
    "src-without-ref": ("evaluate", ["--src", "{texts}/src.de"], "--src needs at least one --ref FILE"),
    "missing-dictionary": ("translate", ["--checkpoint", "{ckpt}", "--dictionary", "{bad}/de-en"],
                           "--dictionary: no such file: '{bad}/de-en'"),
    "missing-dictionary-evaluate": ("evaluate", ["--checkpoint", "{ckpt}", *SRC_REF, "--dictionary", "{bad}/de-en"],
                                    "--dictionary: no such file: '{bad}/de-en'"),
    "two-checkpoints": ("info", ["a.pt", "--checkpoint", "b.pt"],
                        "two different checkpoints given: 'a.pt' and --checkpoint 'b.pt'"),
}


def fill(value: str, **paths) -> str:
    return value.format(**{k: str(v) for k, v in paths.items()})


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_are_one_line(case, tiny_checkpoint, bad, texts, capsys, monkeypatch):
    command, argv, message = ERRORS[case]
    paths = {"ckpt": tiny_checkpoint, "bad": bad, "texts": texts}
    code, out, err = run_inprocess(command, [fill(a, **paths) for a in argv], capsys, monkeypatch, b"Hallo!\n")
    assert (code, out) == (2, "")
    assert err == f"python -m commands.{command}: error: {fill(message, **paths)}\n"


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
@pytest.mark.parametrize("command", ["translate", "evaluate"])
def test_device_cuda_without_gpu(command, tiny_checkpoint, texts, capsys, monkeypatch):
    argv = ["--checkpoint", tiny_checkpoint, "--device", "cuda"]
    if command == "evaluate":
        argv += [fill(a, texts=texts) for a in SRC_REF]
    code, out, err = run_inprocess(command, argv, capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err == f"python -m commands.{command}: error: device 'cuda' was asked for, but no CUDA GPU is available\n"


def test_default_checkpoint_missing(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "checkpoints" / "de-en.pt"  # as in a clone without the release file
    monkeypatch.setattr(cli, "DEFAULT_CHECKPOINT", missing)
    code, out, err = run_inprocess("info", [], capsys, monkeypatch)
    assert code == 2
    assert err == f"python -m commands.info: error: checkpoint not found: {str(missing)!r}\n"


def test_invalid_utf8_on_stdin(tiny_checkpoint, capsys, monkeypatch):
    code, out, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint], capsys, monkeypatch,
                                   b"Guten Morgen.\nkaputt \xff\n")
    assert (code, out) == (2, "")
    assert err == "python -m commands.translate: error: stdin line 2 is not valid UTF-8\n"


def test_errors_in_real_processes(bad, tiny_checkpoint):
    """The same one-liners from real processes: no traceback, exit 2 (argument errors skip torch)."""
    proc = run_cmd("evaluate", ["--checkpoint", bad / "truncated.pt", "--data", ROOT / "tests/data/pairs40.tsv"])
    assert proc.returncode == 2
    assert proc.stderr.decode() == (f"python -m commands.evaluate: error: cannot load checkpoint "
                                    f"'{bad / 'truncated.pt'}': the file is truncated or corrupted\n")
    proc = run_cmd("translate", ["--checkpoint", tiny_checkpoint, "--n-best", "2", "--beam", "1"])
    assert proc.returncode == 2
    assert proc.stderr.decode() == "python -m commands.translate: error: --n-best 2 needs --beam >= 2, got --beam 1\n"


def test_interrupt_and_closed_stdout(tiny_checkpoint, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr("model.inference.translator.Translator.translate", interrupted)
        code, out, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint, "--engine", "torch"], capsys,
                                       monkeypatch, b"Hallo!\n")
    assert (code, err) == (130, "python -m commands.translate: error: interrupted\n")

    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    code, _, err = run_inprocess("translate", ["--checkpoint", tiny_checkpoint, "--beam", "1"], capsys, monkeypatch,
                                 b"Hallo!\n")
    assert (code, err) == (141, "")


def test_set_threads(monkeypatch):
    before = torch.get_num_threads()
    try:
        assert cli.set_threads(1) == 1 and torch.get_num_threads() == 1
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
        monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
        assert 1 <= cli.set_threads() <= min(cli.available_cpus(), 16)
    finally:
        torch.set_num_threads(before)


def test_place_names_come_from_the_dictionary_given(tmp_path, monkeypatch):
    ding = tmp_path / "de-en"
    ding.write_text("Köln (Stadt in Deutschland) [geogr.] :: Cologne (city in Germany)\n", encoding="utf-8")
    parser = cli.make_parser("test", None)
    cli.add_dictionary_arg(parser)
    places = lambda argv, env: cli.load_places(parser.parse_args(argv), env)  # noqa: E731
    assert places(["--dictionary", str(ding)], {}) == {"Köln": "Cologne"}
    assert places([], {"DICTIONARY_PATH": str(ding)}) == {"Köln": "Cologne"}
    assert places(["--dictionary", ""], {"DICTIONARY_PATH": str(ding)}) == {}   # '' turns them off
    assert places([], {"DICTIONARY_PATH": ""}) == {}
    monkeypatch.setattr(ding_module, "DEBIAN_PATH", str(tmp_path / "absent"))
    assert places([], {}) == {}                                                    # not installed: none


def test_the_coverage_check_comes_from_the_dictionary_given(tmp_path, monkeypatch):
    ding = tmp_path / "de-en"
    ding.write_text("Fieber {n} :: fever\n", encoding="utf-8")
    parser = cli.make_parser("test", None)
    cli.add_dictionary_arg(parser)
    coverage = lambda argv, env: cli.load_coverage(parser.parse_args(argv), env)  # noqa: E731
    assert coverage(["--dictionary", str(ding)], {}).missing("Er hat Fieber.", "He is ill.") == ["Fieber"]
    assert coverage([], {"DICTIONARY_PATH": str(ding)}).missing("Er hat Fieber.", "He has a fever.") == []
    assert coverage(["--dictionary", ""], {"DICTIONARY_PATH": str(ding)}) is None   # '' turns it off
    monkeypatch.setattr(ding_module, "DEBIAN_PATH", str(tmp_path / "absent"))
    assert coverage([], {}) is None                                                 # not installed: none
