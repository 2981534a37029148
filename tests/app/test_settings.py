"""app/settings.py and create_app: defaults, then environment, then test mapping; clear startup errors."""

from pathlib import Path

import pytest
import torch

from app import StartupError, create_app
from app.settings import DEFAULTS, ROOT, SHIPPED_EN_DE, SettingsError, from_env, search_options, validate
from model.search.options import SearchOptions


def valid(**changes):
    config = dict(DEFAULTS, **changes)
    validate(config)
    return config


def test_defaults_are_valid_and_point_to_the_shipped_model():
    config = valid()
    assert config["MODEL_PATH"].endswith("checkpoints/de-en.pt")
    # Random works out of the box: the attributed sample ships beside the model
    assert config["CORPUS_PATH"].endswith("checkpoints/random-sample.tsv") and Path(config["CORPUS_PATH"]).is_file()
    assert config["HELD_OUT_PATH"].endswith("checkpoints/random-held-out.tsv") and Path(config["HELD_OUT_PATH"]).is_file()
    assert config["DEVICE"] == "auto"
    assert config["MAX_CONTENT_LENGTH"] == DEFAULTS["MAX_CONTENT_LENGTH"]
    assert config["API_KEYS"] == frozenset()


def test_the_search_of_the_settings():
    assert DEFAULTS["BEAM_SIZE"] == 4
    assert search_options(valid()) == SearchOptions(beam_size=4, no_repeat_ngram_size=6)
    assert search_options(valid(BEAM_SIZE=" 2 ")) == SearchOptions(beam_size=2, no_repeat_ngram_size=6)


def test_from_env_reads_only_known_names():
    env = {"MAX_CHARS": "10", "BEAM_SIZE": "2", "HOME": "/root", "max_chars": "3"}
    assert from_env(env) == {"MAX_CHARS": "10", "BEAM_SIZE": "2"}


def test_strings_from_the_environment_are_converted():
    config = valid(MAX_CHARS=" 10 ", TORCH_THREADS="0", API_KEYS="a, b,,", DEVICE=" cpu ", CHANNEL_WEIGHT=" 1.5 ")
    assert config["MAX_CHARS"] == 10 and config["TORCH_THREADS"] == 0
    assert config["CHANNEL_WEIGHT"] == 1.5 and valid(CHANNEL_WEIGHT="0")["CHANNEL_WEIGHT"] == 0.0
    assert config["API_KEYS"] == frozenset({"a", "b"})
    assert config["DEVICE"] == "cpu"


@pytest.mark.parametrize("name, value, message", [
    ("MAX_CHARS", "abc", "MAX_CHARS must be an integer >= 1, got 'abc'"),
    ("MAX_CHARS", "0", "MAX_CHARS must be an integer >= 1, got '0'"),
    ("BATCH_LIMIT", -1, "BATCH_LIMIT must be an integer >= 1, got -1"),
    ("BEAM_SIZE", 2.5, "BEAM_SIZE must be an integer >= 1, got 2.5"),
    ("BEAM_SIZE", True, "BEAM_SIZE must be an integer >= 1, got True"),
    ("MAX_CONTENT_LENGTH", "10", "MAX_CONTENT_LENGTH must be an integer >= 1024, got '10'"),
    ("PARALLEL_BATCHES", "-1", "PARALLEL_BATCHES must be an integer >= 0, got '-1'"),
    ("DEVICE", "tpu", "DEVICE must be one of auto, cpu, cuda, got 'tpu'"),
    ("MODEL_PATH", "", "MODEL_PATH must name a checkpoint file, got ''"),
    ("CORPUS_PATH", 3, "CORPUS_PATH must be a string, got 3"),
    ("HELD_OUT_PATH", 3, "HELD_OUT_PATH must be a string, got 3"),
    ("CHANNEL_WEIGHT", "-1", "CHANNEL_WEIGHT must be a number >= 0, got '-1'"),
    ("CHANNEL_WEIGHT", "strong", "CHANNEL_WEIGHT must be a number >= 0, got 'strong'"),
    ("CHANNEL_WEIGHT", "inf", "CHANNEL_WEIGHT must be a number >= 0, got 'inf'"),
    ("CHANNEL_WEIGHT", "nan", "CHANNEL_WEIGHT must be a number >= 0, got 'nan'"),
    ("CHANNEL_WEIGHT", True, "CHANNEL_WEIGHT must be a number >= 0, got True"),
    ("CHANNEL_WEIGHT", None, "CHANNEL_WEIGHT must be a number >= 0, got None"),
])
def test_bad_settings(name, value, message):
    with pytest.raises(SettingsError) as info:
        valid(**{name: value})
    assert str(info.value) == message


@pytest.mark.parametrize("value, origin", [
    ("", ""),
    (" https://Translate.Example.com ", "https://translate.example.com"),
    ("https://translate.example.com/", "https://translate.example.com"),
    ("https://translate.example.com:443", "https://translate.example.com"),   # the default port, as browsers leave it out
    ("http://localhost:80", "http://localhost"),
    ("http://127.0.0.1:5000", "http://127.0.0.1:5000"),
    ("https://[::1]:8443", "https://[::1]:8443"),
])
def test_api_keys_origin_is_kept_as_browsers_write_an_origin(value, origin):
    assert valid(API_KEYS_ORIGIN=value)["API_KEYS_ORIGIN"] == origin


@pytest.mark.parametrize("value", ["translate.example.com", "null", "ftp://translate.example.com",
                                   "https://translate.example.com/translate", "https://translate.example.com/?a=1",
                                   "https://translate.example.com#top", "https://user@translate.example.com",
                                   "https://translate.example.com:99999", "https://:8080"])
def test_api_keys_origin_must_be_an_origin(value):
    with pytest.raises(SettingsError) as info:
        valid(API_KEYS_ORIGIN=value)
    assert str(info.value) == ("API_KEYS_ORIGIN must be an origin such as https://translate.example.com "
                               f"(http or https, a host and an optional port; no path), got {value!r}")


def test_environment_overrides_defaults_and_test_config_overrides_environment(monkeypatch, app_config):
    monkeypatch.setenv("MAX_CHARS", "123")
    monkeypatch.setenv("BATCH_LIMIT", "7")
    config = {k: v for k, v in app_config.items() if k not in ("MAX_CHARS", "BATCH_LIMIT")}
    app = create_app({**config, "BATCH_LIMIT": 9})
    assert app.config["MAX_CHARS"] == 123  # from the environment
    assert app.config["BATCH_LIMIT"] == 9  # test mapping wins
    assert app.config["MAX_CONTENT_LENGTH"] == DEFAULTS["MAX_CONTENT_LENGTH"]
    assert not app.debug


def test_bad_environment_value_stops_create_app(monkeypatch, app_config):
    monkeypatch.setenv("MAX_CHARS", "many")
    config = {k: v for k, v in app_config.items() if k != "MAX_CHARS"}
    with pytest.raises(StartupError, match=r"^MAX_CHARS must be an integer >= 1, got 'many'$"):
        create_app(config)


def test_missing_checkpoint_is_one_clear_line(make_app, tmp_path):
    path = tmp_path / "nope.pt"
    with pytest.raises(StartupError) as info:
        make_app(MODEL_PATH=str(path))
    message = str(info.value)
    assert message.startswith("MODEL_PATH: ") and "not found" in message and repr(str(path)) in message
    assert "\n" not in message


@pytest.mark.parametrize("content", [b"", b"not a checkpoint", b"PK\x03\x04broken zip"])
def test_broken_checkpoint_is_one_clear_line(make_app, tmp_path, content):
    path = tmp_path / "broken.pt"
    path.write_bytes(content)
    with pytest.raises(StartupError) as info:
        make_app(MODEL_PATH=str(path))
    message = str(info.value)
    # the reason itself is model.checkpoint's wording; the app adds the setting's name
    assert message.startswith("MODEL_PATH: ") and repr(str(path)) in message
    assert "\n" not in message


def test_a_reverse_model_is_refused_as_the_one_model(make_app, reverse_checkpoint):
    with pytest.raises(StartupError) as info:
        make_app(MODEL_PATH=str(reverse_checkpoint))
    assert str(info.value) == (f"MODEL_PATH: {str(reverse_checkpoint)!r} translates en-de; MODEL_PATH names the "
                               "de-en model (serve en-de beside it with MODEL_PATHS=de-en:PATH,en-de:PATH)")


# ------------------------------------------------------------------------------ MODEL_PATHS

def test_model_path_alone_is_the_de_en_model():
    assert valid(MODEL_PATH=__file__)["MODELS"] == {"de-en": __file__}


def test_model_paths_name_one_checkpoint_per_direction(tmp_path):
    forward, reverse = tmp_path / "a:b.pt", tmp_path / "r.pt"   # a colon in the path is the path's
    forward.touch()
    reverse.touch()
    config = valid(MODEL_PATHS=f" en-de : {reverse} ,de-en:{forward}")
    assert config["MODELS"] == {"de-en": str(forward), "en-de": str(reverse)}   # de-en first
    assert list(config["MODELS"]) == ["de-en", "en-de"] and config["MODEL_PATH"] == str(forward)
    assert valid(MODEL_PATHS=f"de-en:{forward}")["MODELS"] == {"de-en": str(forward)}


def test_the_shipped_models_are_served_both_ways_by_default(tmp_path):
    own = tmp_path / "own.pt"
    own.touch()
    assert valid()["MODELS"] == {"de-en": DEFAULTS["MODEL_PATH"], "en-de": SHIPPED_EN_DE}
    assert SHIPPED_EN_DE == str(ROOT / "checkpoints" / "en-de.pt")
    # a model of one's own replaces the shipped pair; MODEL_PATHS serves the shipped de-en one alone
    assert valid(MODEL_PATH=str(own))["MODELS"] == {"de-en": str(own)}
    assert valid(MODEL_PATHS=f"de-en:{DEFAULTS['MODEL_PATH']}")["MODELS"] == {"de-en": DEFAULTS["MODEL_PATH"]}


@pytest.mark.parametrize("listed, message", [
    ("de-en", "MODEL_PATHS: each entry must be DIRECTION:PATH, got 'de-en'"),
    ("de-en:{f},", "MODEL_PATHS: each entry must be DIRECTION:PATH, got ''"),
    (":{f}", "MODEL_PATHS: each entry must be DIRECTION:PATH, got ':{f}'"),
    ("de-en:{f},fr-en:{f}", "MODEL_PATHS: unknown direction 'fr-en' (one of de-en, en-de)"),
    ("de-en:{f},en-de:{f},de-en:{f}", "MODEL_PATHS: de-en is named twice"),
    ("de-en:{f},en-de:{d}/missing.pt", "MODEL_PATHS: en-de: checkpoint not found: '{d}/missing.pt'"),
    ("de-en:{d}", "MODEL_PATHS: de-en: checkpoint not found: '{d}'"),   # a directory is no checkpoint
    ("en-de:{f}", "MODEL_PATHS must name a de-en checkpoint too: the pages, the inspector and Random "
                  "translate German"),
])
def test_bad_model_paths(tmp_path, listed, message):
    f = tmp_path / "model.pt"
    f.touch()
    with pytest.raises(SettingsError) as info:
        valid(MODEL_PATHS=listed.format(f=f, d=tmp_path))
    assert str(info.value) == message.format(f=f, d=tmp_path)


def test_model_path_beside_model_paths_is_refused(tmp_path):
    with pytest.raises(SettingsError) as info:
        valid(MODEL_PATH=__file__, MODEL_PATHS=f"de-en:{__file__}")
    assert str(info.value) == ("MODEL_PATH and MODEL_PATHS are both set: MODEL_PATHS names every model "
                               "(de-en:PATH,en-de:PATH), so leave MODEL_PATH unset")


def test_model_paths_from_the_environment_stop_create_app_with_one_line(monkeypatch, app_config, tmp_path):
    monkeypatch.setenv("MODEL_PATHS", f"de-en:{tmp_path}/nope.pt")
    config = {k: v for k, v in app_config.items() if k not in ("MODEL_PATH", "MODEL_PATHS")}
    with pytest.raises(StartupError, match=r"^MODEL_PATHS: de-en: checkpoint not found: '.*/nope.pt'$"):
        create_app(config)


@pytest.mark.parametrize("listed, message", [
    ("de-en:{reverse},en-de:{tiny}", "MODEL_PATHS: {reverse!r} is listed as de-en but translates en-de"),
    ("de-en:{tiny},en-de:{tiny}", "MODEL_PATHS: {tiny!r} is listed as en-de but translates de-en"),
])
def test_a_checkpoint_listed_under_another_direction_is_refused(make_app, tiny_checkpoint, reverse_checkpoint,
                                                              listed, message):
    paths = {"tiny": str(tiny_checkpoint), "reverse": str(reverse_checkpoint)}
    with pytest.raises(StartupError) as info:
        make_app(MODEL_PATH=DEFAULTS["MODEL_PATH"], MODEL_PATHS=listed.format(**paths))
    assert str(info.value) == message.format(**paths)


def test_a_broken_checkpoint_in_model_paths_names_its_direction(make_app, tiny_checkpoint, tmp_path):
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"")
    with pytest.raises(StartupError) as info:
        make_app(MODEL_PATH=DEFAULTS["MODEL_PATH"], MODEL_PATHS=f"de-en:{tiny_checkpoint},en-de:{broken}")
    assert str(info.value) == f"MODEL_PATHS: en-de: cannot load checkpoint {str(broken)!r}: the file is empty"


def test_foreign_checkpoint_is_refused(make_app, tmp_path):
    path = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(2)}, path)
    with pytest.raises(StartupError, match="not a de-en-nmt checkpoint"):
        make_app(MODEL_PATH=str(path))


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_gpu_names_the_device_setting(make_app):
    with pytest.raises(StartupError, match=r"^DEVICE: device 'cuda' was asked for"):
        make_app(DEVICE="cuda")


@pytest.mark.parametrize("setting", ["CORPUS_PATH", "HELD_OUT_PATH"])
def test_broken_corpus_is_one_clear_line(make_app, tmp_path, setting):
    with pytest.raises(StartupError, match=rf"^{setting}: corpus not found: "):
        make_app(**{setting: str(tmp_path / "missing.tsv")})
    bad = tmp_path / "bad.tsv"
    bad.write_text("only one column\n", encoding="utf-8")
    with pytest.raises(StartupError, match=rf"^{setting}: cannot read corpus .*line 1 has 1 column"):
        make_app(**{setting: str(bad)})
