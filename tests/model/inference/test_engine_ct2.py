"""model/engine_ct2.py: CTranslate2 gives our outputs (float32 exactly, int8 nearly), and the CLI's --engine."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest
import sacrebleu
import torch

pytest.importorskip("ctranslate2")

from commands import translate  # noqa: E402
from model.search import decoding  # noqa: E402
from model.inference.alignment import align_outputs, single_layer  # noqa: E402
from model.inference.ct2_engine import CT2Translator  # noqa: E402
from model.network.batch import Batch  # noqa: E402
from model.search.options import DEFAULT, SearchOptions  # noqa: E402
from model.network.transformer import Transformer  # noqa: E402
from model.inference.translator import Translator  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def torch_translator(tiny_checkpoint) -> Translator:
    return Translator.from_checkpoint(tiny_checkpoint, device="cpu")


@pytest.fixture(scope="module")
def ct2_float32(torch_translator) -> CT2Translator:
    return CT2Translator(torch_translator, quantization="float32", threads=1)


@pytest.fixture(scope="module")
def ct2_int8(torch_translator) -> CT2Translator:
    return CT2Translator(torch_translator, quantization="int8", threads=1)


@pytest.fixture(scope="module")
def corpus(pairs40) -> list[str]:
    """The 40 sources, 18 longer texts made of 2, 3 and 5 of them, and three it never saw."""
    de = [d for d, _ in pairs40]
    longer = [" ".join(de[i:i + k]) for k in (2, 3, 5) for i in range(0, 40, 7)]
    return de + longer + ["Der Hund bellt laut im Garten und die Katze schläft auf dem Sofa.",
                          "Morgen fahren wir mit dem Zug nach Berlin.", "Xylophon Quark Zebra"]


def test_length_rule_is_decodings():
    """CT2's limits come from ``SearchOptions.budget``, the searches' from ``decoding.max_lengths``."""
    sources = [[5] * n for n in (1, 4, 10, 30)]
    options = SearchOptions(max_len_a=1.2, max_len_b=3)
    for search in (DEFAULT, options):
        limits = decoding.max_lengths(Batch.make(sources).src_mask, search, 1000).tolist()
        assert limits == [search.budget(len(s) + 1) for s in sources]
    assert DEFAULT.budget(11) == int(11 * 1.5 + 10)


@pytest.mark.parametrize("beam, no_repeat", [(1, 0), (4, 0), (1, 2), (4, 2), (4, 6)])
def test_float32_outputs_are_ours(torch_translator, ct2_float32, corpus, beam, no_repeat):
    options = SearchOptions(beam_size=beam, no_repeat_ngram_size=no_repeat)
    assert ct2_float32.translate(corpus, options) == torch_translator.translate(corpus, options)


def test_float32_outputs_do_not_depend_on_batch_size(ct2_float32, corpus):
    assert ct2_float32.translate(corpus, SearchOptions(beam_size=4, batch_size=3)) == ct2_float32.translate(
        corpus, SearchOptions(beam_size=4))


@pytest.mark.parametrize("beam, n_best, penalty", [(4, 4, 0.6), (4, 2, 1.0), (4, 3, 0.0), (1, 1, 0.6)])
def test_float32_n_best_lists_are_ours(torch_translator, ct2_float32, corpus, beam, n_best, penalty):
    options = SearchOptions(beam_size=beam, n_best=n_best, length_penalty=penalty)
    ours, theirs = torch_translator.translate_n_best(corpus, options), ct2_float32.translate_n_best(corpus, options)
    # Both engines normalize over the same pieces (decoding.piece_logp), so the lists are the same.
    # Scores differ by what CT2 renormalizes after forbidding EOS first (engine_ct2's docstring):
    # this tiny model gives EOS up to ~3e-3 at the first step.
    assert [[t for t, _ in x] for x in ours] == [[t for t, _ in y] for y in theirs]
    diffs = [abs(a - b) for x, y in zip(ours, theirs) for (_, a), (_, b) in zip(x, y)]
    assert max(diffs) < 1e-2, max(diffs)


def test_float32_continuations_are_ours(torch_translator, ct2_float32, corpus):
    """After the first word of each best translation: the same next words, scored as the n-best
    lists are, each beginning with the prefix, then a distinct word; the model's own next word
    completed the same. (Completions of improbable words may end differently: the two beam searches
    after a forced prefix agree on the best, not on every hypothesis.)"""
    beam = SearchOptions(beam_size=4)
    texts = corpus[:12]
    best = torch_translator.output_ids(texts, beam)
    index = torch_translator.piece_index
    prefixes = [ids[:next((k for k in range(1, len(ids)) if index.starts_word(ids[k])), len(ids))] for ids in best]
    ours = torch_translator.continue_n_best(texts, prefixes, beam, n=3)
    theirs = ct2_float32.continue_n_best(texts, prefixes, beam, n=3)
    tokenizer = torch_translator.tokenizer

    def next_pieces(found, prefix):
        return sorted(tokenizer.encode(text)[len(prefix)] for text, _ in found)

    assert [next_pieces(x, p) for x, p in zip(ours, prefixes)] == [next_pieces(y, p) for y, p in zip(theirs, prefixes)]
    assert [x[0][0] for x in ours] == [y[0][0] for y in theirs]
    same = [(a, b) for x, y in zip(ours, theirs) for text, a in x for other, b in y if text == other]
    # CT2's scores within 1% of ours (``score_outputs``)
    assert len(same) >= len(texts) and all(abs(a - b) < 1e-2 * max(1.0, abs(a)) for a, b in same)
    for prefix, found in zip(prefixes, ours):
        assert 1 <= len(found) <= 3 and [s for _, s in found] == sorted((s for _, s in found), reverse=True)
        nexts = []
        for text, _ in found:
            ids = tokenizer.encode(text)
            assert ids[:len(prefix)] == prefix and index.starts_word(ids[len(prefix)])
            nexts.append(ids[len(prefix)])
        assert len(set(nexts)) == len(nexts)
    # the model's own next word is among them, completed as the beam completed it
    assert all(tokenizer.decode(ids) in [text for text, _ in found] for ids, found in zip(best, ours))


def test_continuations_of_nothing(torch_translator, ct2_float32):
    beam = SearchOptions(beam_size=2)
    full = [5] * (torch_translator.config.max_len - 1)   # fills the output's length limit
    for engine in (torch_translator, ct2_float32):
        assert engine.continue_n_best(["", "Gut."], [[], full], beam, n=2) == [[], []]
        assert engine.continue_n_best([], [], beam, n=2) == []
        with pytest.raises(ValueError, match="^1 texts but 2 prefixes$"):
            engine.continue_n_best(["Gut."], [[], []], beam, n=2)


@pytest.fixture(scope="module")
def untrained(torch_translator):
    """An untrained model never ends: every output runs to its sentence's own length limit."""
    torch.manual_seed(0)
    model = Transformer(torch_translator.config).eval()
    translator = Translator(model, torch_translator.tokenizer, {}, torch.device("cpu"), "untrained")
    ct2 = CT2Translator(translator, quantization="float32")
    return translator, ct2


def test_greedy_outputs_are_ours_up_to_the_length_limit(untrained, pairs40):
    untrained, ct2 = untrained
    texts = [de for de, _ in pairs40[:12]]
    ids = untrained.source_ids(texts)
    ours = untrained._output_ids(ids, DEFAULT)
    assert [len(out) for out in ours] == [int((len(s) + 1) * 1.5 + 10) - 1 for s in ids]
    assert ct2.output_ids(texts) == ours
    blocked = SearchOptions(no_repeat_ngram_size=2)
    assert ct2.output_ids(texts, blocked) == untrained._output_ids(ids, blocked)


def test_beam_outputs_at_the_length_limit_do_not_depend_on_batching(untrained, pairs40):
    """Sentences of different limits share one CT2 call; those that reach their own limit are
    searched again under it, so each gets what it gets alone (at the limit CT2's beams end
    without EOS's log-probability, ours with it: there the engines may differ)."""
    _, ct2 = untrained
    texts = [de for de, _ in pairs40[:12]]
    every = SearchOptions(beam_size=4, n_best=4)
    alone = [ct2.translate_n_best([t], every)[0] for t in texts]
    batched = ct2.translate_n_best(texts, every)
    assert [[t for t, _ in hyps] for hyps in batched] == [[t for t, _ in hyps] for hyps in alone]
    assert all(abs(a - b) < 1e-4 for x, y in zip(batched, alone) for (_, a), (_, b) in zip(x, y))
    assert ct2.translate(texts, SearchOptions(beam_size=4)) == [hyps[0][0] for hyps in alone]


def test_aligned_and_align_read_one_layer_of_ctranslate2s_attention(torch_translator, ct2_float32, corpus):
    """CTranslate2 aligns by its own attention of decoder layer ``single_layer`` over all heads:
    in float32 the links the PyTorch model's attention of that layer gives, and the PyTorch model
    never runs for it (serving keeps its weights out of memory)."""
    beam = SearchOptions(beam_size=4)
    layer = (single_layer(torch_translator.config.decoder_layers),)
    ran = []
    hook = ct2_float32.torch.model.register_forward_pre_hook(lambda module, args: ran.append(module))
    try:
        aligned = ct2_float32.translate_aligned(corpus[:45], beam)
        outputs = [torch_translator.tokenizer.encode("Thank you.")] * 2 + [torch_translator.tokenizer.encode("Yes")]
        forced = ct2_float32.align([*corpus[:2], ""], outputs)
    finally:
        hook.remove()
    assert ran == []
    assert aligned == align_outputs(torch_translator.model, torch_translator.tokenizer, corpus[:45],
                                    ct2_float32.output_ids(corpus[:45], beam), layers=layer)
    assert sum(len(a.links) for a in aligned) > 45 and all(a.links for a in aligned if a.target)
    assert forced == align_outputs(torch_translator.model, torch_translator.tokenizer, [*corpus[:2], ""], outputs,
                                   layers=layer)
    assert forced[2].links == []  # an empty source has nothing to link


def test_int8_stays_close(torch_translator, ct2_int8, pairs40, corpus):
    """Stated margin for int8 weights: the 40 learned pairs still all right (BLEU 100 greedy and
    beam 4), and at most 1 in 10 outputs of the whole test corpus different from float32 ours."""
    de, en = [d for d, _ in pairs40], [e for _, e in pairs40]
    for beam in (SearchOptions(beam_size=1), SearchOptions(beam_size=4)):
        hyps = ct2_int8.translate(de, beam)
        assert round(sacrebleu.corpus_bleu(hyps, [en]).score, 2) == 100.0
        same = sum(a == b for a, b in zip(ct2_int8.translate(corpus, beam), torch_translator.translate(corpus, beam)))
        assert same >= 0.9 * len(corpus)


def test_empty_and_overlong_input(torch_translator, ct2_float32):
    assert ct2_float32.translate(["", "  ", "\u200b", "Guten Morgen."]) == ["", "", "", "Good morning."]
    two = SearchOptions(beam_size=2, n_best=2)
    assert ct2_float32.translate_n_best(["", "Guten Morgen."], two)[0] == [("", 0.0)]
    assert ct2_float32.translate([]) == [] and ct2_float32.translate_n_best([], two) == []
    overlong = "Hallo " * torch_translator.config.max_len
    with pytest.raises(ValueError) as theirs:
        ct2_float32.translate(["Gut.", overlong])
    with pytest.raises(ValueError) as ours:
        torch_translator.translate(["Gut.", overlong])
    assert str(theirs.value) == str(ours.value)


def test_everything_else_is_the_pytorch_translators(torch_translator, ct2_float32):
    """The engine interface's other attributes come from the PyTorch translator (``torch``); what
    no engine interface has (the attention view) is only reached through ``torch``."""
    assert ct2_float32.engine == "ct2" and ct2_float32.torch is torch_translator
    assert ct2_float32.tokenizer is torch_translator.tokenizer and ct2_float32.meta is torch_translator.meta
    assert ct2_float32.device == torch.device("cpu") and ct2_float32.checkpoint == torch_translator.checkpoint
    assert ct2_float32.config == torch_translator.config
    assert ct2_float32.num_parameters() == torch_translator.num_parameters()
    assert ct2_float32.source_ids(["Guten Morgen."]) == torch_translator.source_ids(["Guten Morgen."])
    assert ct2_float32.torch.attention("Guten Morgen.") == torch_translator.attention("Guten Morgen.")
    assert not hasattr(ct2_float32, "attention") and torch_translator.torch is torch_translator
    assert ct2_float32.engine_translator() is ct2_float32.engine_translator()


def test_a_forked_child_makes_its_own_ct2_translator(ct2_float32):
    """A ctranslate2.Translator's threads do not survive fork: the child must not use the parent's
    (it would wait forever), as gunicorn's workers would after preload_app."""
    parent = ct2_float32.engine_translator()
    expected = ct2_float32.translate(["Vielen Dank."])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: translate, report, and leave without running pytest's teardown
        try:
            os.write(write, (ct2_float32.translate(["Vielen Dank."])[0] + "|"
                             + str(ct2_float32.engine_translator() is not parent)).encode())
        finally:
            os._exit(0)
    os.close(write)
    import select
    ready = select.select([read], [], [], 60)[0]
    if not ready:
        os.kill(pid, 9)
    data = os.read(read, 1000).decode() if ready else "timed out"
    os.waitpid(pid, 0)
    os.close(read)
    assert data == expected[0] + "|True"
    assert ct2_float32.engine_translator() is parent


def test_model_files_live_in_a_private_directory_that_the_writer_alone_removes(tiny_checkpoint, tmp_path):
    """The CT2 files are written once, to a directory of their own, loaded from there by each process,
    written again if something removed them, and removed when the process that wrote them exits,
    not when a forked worker does (gunicorn's workers run their parent's exit hooks)."""
    import subprocess

    script = f"""
import os, shutil, sys
sys.path.insert(0, {str(ROOT)!r})
from model.inference.ct2_engine import CT2Translator
engine = CT2Translator.from_checkpoint({str(tiny_checkpoint)!r}, "cpu", quantization="float32", threads=1)
path = engine.files.path
print(oct(path.stat().st_mode & 0o777), sorted(os.listdir(path)))
expected = engine.translate(["Vielen Dank."])
shutil.rmtree(path)  # a temp cleaner; the next process to load writes the files again
pid = os.fork()
if pid == 0:
    print(engine.translate(["Vielen Dank."]) == expected, flush=True)
    sys.exit(0)  # a normal exit: the exit hooks run
os.waitpid(pid, 0)
print(sorted(os.listdir(path)), flush=True)
with open({str(tmp_path / "path")!r}, "w") as f:
    f.write(str(path))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    files = "['config.json', 'model.bin', 'shared_vocabulary.json']"
    # The PyTorch weights' file stays mapped when removed (Translator.map_weights): not written again.
    with_weights = "['config.json', 'model.bin', 'shared_vocabulary.json', 'torch-weights.pt']"
    assert done.stdout.splitlines() == [f"0o700 {with_weights}", "True", files]
    assert not Path((tmp_path / "path").read_text()).exists()  # gone with the process that wrote it


def mapped_from(tensor) -> str | None:
    """The file a tensor's memory is mapped from (/proc/self/maps), None for the process's own memory."""
    address = tensor.data_ptr()
    with open("/proc/self/maps") as maps:
        for line in maps:
            span, _, _, _, _, *path = line.split(maxsplit=5)
            start, end = (int(x, 16) for x in span.split("-"))
            if start <= address < end:
                name = path[0].strip() if path else ""
                return name if name.startswith("/") else None
    return None


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_the_pytorch_weights_are_mapped_from_a_file_bit_for_bit(tiny_checkpoint, corpus, precision):
    """CTranslate2 translates and aligns, so the PyTorch weights are only read for the model
    views: they are mapped from a file of their own, in the engine's private directory, the same
    values, and the outputs and alignments are unchanged."""
    own = Translator.from_checkpoint(tiny_checkpoint, device="cpu", precision=precision)
    before = {name: tensor.clone() for name, tensor in own.model.state_dict().items()}
    aligned = own.translate_aligned(corpus[:12])
    engine = CT2Translator(Translator.from_checkpoint(tiny_checkpoint, device="cpu", precision=precision),
                           quantization="float32", threads=1)
    state = engine.torch.model.state_dict()
    assert {mapped_from(tensor) for tensor in state.values()} == {str(engine.files.path / "torch-weights.pt")}
    assert all(torch.equal(state[name], tensor) and state[name].dtype == tensor.dtype for name, tensor in before.items())
    assert engine.torch.translate_aligned(corpus[:12]) == aligned
    assert engine.torch.precision == precision


def test_bfloat16_weights_bound_the_shapes_onednn_keeps(tiny_checkpoint, monkeypatch):
    """Left at their 1,024 shapes, oneDNN's two caches grew a process that aligns by about 440 MiB
    (bench/memory.py); set before the first product, unless the operator has set them."""
    monkeypatch.delenv("LRU_CACHE_CAPACITY", raising=False)
    monkeypatch.setenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0")
    Translator.from_checkpoint(tiny_checkpoint, device="cpu", precision="fp32")
    assert "LRU_CACHE_CAPACITY" not in os.environ  # float32 runs on MKL, without them
    Translator.from_checkpoint(tiny_checkpoint, device="cpu", precision="bf16")
    assert (os.environ["LRU_CACHE_CAPACITY"], os.environ["ONEDNN_PRIMITIVE_CACHE_CAPACITY"]) == ("16", "0")


def test_only_weights_on_the_cpu_are_mapped(torch_translator, tmp_path, monkeypatch):
    monkeypatch.setattr(torch_translator, "device", torch.device("cuda"))
    with pytest.raises(ValueError, match="^only weights on the CPU can be mapped from a file, these are on cuda$"):
        torch_translator.map_weights(tmp_path / "weights.pt")
    assert not (tmp_path / "weights.pt").exists()


def test_a_freed_engine_removes_its_files(torch_translator):
    engine = CT2Translator(torch_translator, quantization="float32", threads=1)
    path = engine.files.path
    assert (path / "model.bin").is_file()
    del engine
    import gc
    gc.collect()
    assert not path.exists()


@pytest.mark.parametrize("threads, parallel, expected", [
    (2, 0, (2, 1)),   # a CPU: one batch per thread
    (4, 2, (2, 2)),   # PARALLEL_BATCHES=2 on 4 threads: two threads each
    (2, 3, (3, 1)),   # more batches than threads: one thread each
    (0, 0, (1, 0)),   # CTranslate2's own thread count, one batch
])
def test_batches_at_once_share_the_threads(tiny_checkpoint, threads, parallel, expected):
    from model.inference.engines import load_engine

    engine = load_engine(tiny_checkpoint, engine="ct2", device="cpu", threads=threads, parallel=parallel)
    assert (engine.parallel, engine.threads) == expected
    assert engine.translate(["Vielen Dank."]) == engine.torch.translate(["Vielen Dank."])


# ------------------------------------------------------------------------------------------ command


def run_translate(args, stdin: str, capsys, monkeypatch) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = translate.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("engine", ["ct2", "torch", "auto"])
def test_translate_command_engines(tiny_checkpoint, pairs40, capsys, monkeypatch, engine):
    stdin = "".join(de + "\n" for de, _ in pairs40)
    code, out, err = run_translate(["--checkpoint", tiny_checkpoint, "--engine", engine, "--quantization", "float32"],
                                   stdin, capsys, monkeypatch)
    assert (code, err) == (0, "")
    assert out == "".join(en + "\n" for _, en in pairs40)


def test_translate_command_ct2_n_best_raw(tiny_checkpoint, torch_translator, capsys, monkeypatch):
    code, out, err = run_translate(["--checkpoint", tiny_checkpoint, "--engine", "ct2", "--raw", "--beam", "4",
                                    "--n-best", "2"], "Guten Morgen.\n", capsys, monkeypatch)
    assert (code, err) == (0, "")
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[0][0] == "0" and rows[0][2] == "Good morning." and len(rows) == 2


def test_translate_command_without_ctranslate2(tiny_checkpoint, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ctranslate2", None)
    assert run_translate(["--checkpoint", tiny_checkpoint, "--engine", "ct2"], "Gut.\n", capsys, monkeypatch) == (
        2, "", "python -m commands.translate: error: engine 'ct2' needs the ctranslate2 package: pip install ctranslate2\n")
    code, out, err = run_translate(["--checkpoint", tiny_checkpoint, "--engine", "auto"], "Guten Morgen.\n",
                                   capsys, monkeypatch)
    assert (code, out, err) == (0, "Good morning.\n", "")


def test_translate_command_bad_engine(capsys, monkeypatch):
    code, out, err = run_translate(["--engine", "onnx"], "", capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("python -m commands.translate: error: argument --engine: invalid choice: 'onnx' "
                   "(choose from 'auto', 'ct2', 'torch')\n")


# ------------------------------------------------------------------------------------------ bench


def test_engines_bench_model_part(tiny_checkpoint, corpus_path, capsys):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import engines as bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert bench.main(["--checkpoint", str(tiny_checkpoint), "--data", str(corpus_path), "--quick",
                       "--skip-served", "--threads", "1", "--bleu"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("  beam 4, batched ")]
    assert [row[3] for row in rows] == [
        "torch", "ct2-float32", "ct2-int8", "ct2-int8-raw"]
    assert rows[1][-1] == "32/32"  # float32 gives our outputs
    bleu = [line.split() for line in out.splitlines() if line.startswith(("  torch ", "  ct2-"))]
    assert [(row[0], row[1]) for row in bleu] == [("torch", "100.00"), ("ct2-float32", "100.00"), ("ct2-int8", "100.00")]
    from types import SimpleNamespace

    from bench import server
    assert server.pss_mib(SimpleNamespace(pid=os.getpid())) > 0 and os.getpid() in server.children(os.getppid())


@pytest.mark.parametrize("quantization, device, message", [
    ("float16", "cpu", "quantization float16 needs a GPU (device cuda); on the CPU use int8 or float32"),
    ("int8_float16", "cpu", "quantization int8_float16 needs a GPU (device cuda); on the CPU use int8 or float32"),
    ("int4", "cuda", "quantization must be one of int8, float32, float16, int8_float16, got 'int4'"),
])
def test_compute_types(quantization, device, message):
    from model.inference.ct2_engine import WEIGHTS, check_compute_type

    with pytest.raises(ValueError) as error:
        check_compute_type(quantization, device)
    assert str(error.value) == message
    for ok in WEIGHTS:
        check_compute_type(ok, "cuda")
    assert WEIGHTS["float16"] == "float32" and WEIGHTS["int8_float16"] == "int8"


def test_float16_on_the_cpu_is_refused(tiny_checkpoint):
    with pytest.raises(ValueError, match="^quantization float16 needs a GPU"):
        CT2Translator.from_checkpoint(tiny_checkpoint, "cpu", quantization="float16")


def test_auto_falls_back_to_torch_with_a_log_line(caplog):
    """ENGINE=auto on a GPU whose CTranslate2 CUDA libraries do not load serves with PyTorch."""
    from model.inference.engines import with_fallback

    def ct2():
        raise OSError("libcublas.so.12: cannot open shared object file: No such file or directory\nmore")

    with caplog.at_level("WARNING", logger="model.inference.engines"):
        assert with_fallback(ct2, lambda: "torch engine") == "torch engine"
    assert caplog.messages == ["ENGINE=auto: CTranslate2 cannot run here (libcublas.so.12: cannot open shared "
                               "object file: No such file or directory); using the PyTorch engine"]
