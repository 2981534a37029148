"""REDIS_URL: the file store and the translation cache shared through a real redis-server."""

from __future__ import annotations

import io
import time

import pytest
import redis

from app.filestore import FileStore, RedisFileStore, StoreFull
from app.shared import RETRY_AFTER, RedisCacheStore, StoreUnavailable, connect, model_namespace

OK = {"source": "de", "target": "en"}


def store(url: str, **limits) -> RedisFileStore:
    return RedisFileStore(connect(url), **{"max_files": 3, "max_bytes": 10_000, "ttl": 60, **limits})


def upload(client, data: bytes, name: str):
    return client.post("/translate_file", data={"file": (io.BytesIO(data), name), **OK},
                       content_type="multipart/form-data")


def path_of(response) -> str:
    url = response.get_json()["translatedFileUrl"]
    assert url.startswith("http://localhost/download_file/")
    return url[len("http://localhost"):]


# ------------------------------------------------------------------------------ RedisFileStore

def test_put_and_take_once(redis_url):
    files = store(redis_url)
    token = files.put(b"data", "a_en.txt")
    assert len(token) == 32
    assert files.take(token, "b_en.txt") is None               # another name: nothing, and kept
    assert files.take(token, "a_en.txt", consume=False).data == b"data"
    taken = files.take(token, "a_en.txt")
    assert (taken.name, taken.data) == ("a_en.txt", b"data")
    assert files.take(token, "a_en.txt") is None and files.files() == []
    assert files.take("../../etc/passwd", "a_en.txt") is None


def test_two_stores_on_one_server_share_files(redis_url):
    # Two replicas: separate clients, separate processes in production.
    first, second = store(redis_url), store(redis_url)
    token = first.put(b"\x00binary\xff", "a.docx")
    assert second.take(token, "a.docx").data == b"\x00binary\xff"
    assert first.take(token, "a.docx") is None


def test_oldest_files_are_evicted_by_count_and_by_bytes(redis_url):
    files = store(redis_url, max_files=2, max_bytes=190)  # a file counts its data and name
    tokens = []
    for i in range(3):
        tokens.append(files.put(b"x" * 10, f"{i}.txt"))
        time.sleep(0.002)  # distinct creation times (milliseconds, Redis's clock)
    assert [t for t, _, _ in files.files()] == tokens[1:]                    # count: the first went
    assert files.take(tokens[0], "0.txt") is None
    big = files.put(b"y" * 170, "big.txt")
    assert [(t, size) for t, size, _ in files.files()] == [(big, 177)]       # bytes: both others went
    with pytest.raises(StoreFull, match=r"^the translated file \(300 bytes\) does not fit in the store \(190 bytes\)$"):
        files.put(b"z" * 300, "huge.txt")


def test_files_expire(redis_url):
    files = store(redis_url, ttl=0.2)
    token = files.put(b"data", "a.txt")
    time.sleep(0.3)
    assert files.take(token, "a.txt") is None


def test_the_local_store_and_the_redis_store_agree(redis_url, tmp_path):
    for files in (FileStore(tmp_path, max_files=3, max_bytes=10_000, ttl=60), store(redis_url)):
        token = files.put(b"data", "a.txt")
        assert [t for t, _, _ in files.files()] == [token]
        assert files.take(token, "a.txt", consume=False).data == b"data"
        assert files.take(token, "a.txt").data == b"data" and files.take(token, "a.txt") is None


def test_an_outage_is_store_unavailable_and_fails_fast(own_redis):
    files = store(own_redis.url)
    token = files.put(b"data", "a.txt")
    own_redis.stop()
    with pytest.raises(StoreUnavailable, match=r"^the file store \(Redis\) is unavailable: ConnectionError$"):
        files.take(token, "a.txt")
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match=r"^the file store \(Redis\) is unavailable; retrying in a few seconds$"):
        files.put(b"data", "b.txt")
    assert time.monotonic() - started < 0.1 < RETRY_AFTER  # the breaker answers without trying


# ------------------------------------------------------------------------------ RedisCacheStore

def test_cache_store_round_trip_and_namespaces(redis_url):
    client = connect(redis_url)
    a, b = RedisCacheStore(client, "model-a"), RedisCacheStore(client, "model-b")
    key, empty = ("Hallo.", 4, 0.6, 0), ("Leer.", 4, 0.6, 0)
    assert a.get_many([key]) == {}
    a.put_many({key: [5, 17, 2], empty: []})
    assert a.get_many([key, empty, ("Nie.", 4, 0.6, 0)]) == {key: [5, 17, 2], empty: []}
    assert b.get_many([key]) == {}                    # another model: its own entries
    assert len(a) == 2 and len(b) == 0
    a.clear()
    assert len(a) == 0 and a.get_many([key]) == {}


def test_cache_store_outage_is_a_miss(own_redis, caplog):
    cache = RedisCacheStore(connect(own_redis.url), "m")
    cache.put_many({("Hallo.", 1, 0.6, 0): [1, 2]})
    own_redis.stop()
    assert cache.get_many([("Hallo.", 1, 0.6, 0)]) == {}
    cache.put_many({("Tschüss.", 1, 0.6, 0): [3]})   # dropped, no error
    assert len(cache) == 0
    warnings = [r.getMessage() for r in caplog.records if r.name == "app.shared"]
    assert len(warnings) == 1 and warnings[0].startswith("the translation cache: Redis failed (ConnectionError")


def test_model_namespace_names_checkpoint_and_engine(tiny_checkpoint, tmp_path):
    first = model_namespace(tiny_checkpoint, "ct2", "int8")
    assert first.endswith(":ct2:int8") and len(first.split(":")[0]) == 16
    assert model_namespace(tiny_checkpoint, "torch", "int8").endswith(":torch:float32")
    other = tmp_path / "other.pt"
    other.write_bytes(tiny_checkpoint.read_bytes() + b"\0")
    assert model_namespace(other, "ct2", "int8").split(":")[0] != first.split(":")[0]
    # reranked by a channel: its checkpoint and weight too
    reranked = model_namespace(tiny_checkpoint, "ct2", "int8", other, 2.0)
    # the contenders of the served choice too: outputs cached under other ones are not served
    assert reranked == f"{first}:channel:{model_namespace(other, 'ct2', 'int8').split(':')[0]}:2.0:1.5:3:8:8"
    # English->German searches its beam as asked (SERVED_WIDE_BEAM): a namespace of its own
    assert model_namespace(tiny_checkpoint, "ct2", "int8", other, 2.0, "en-de") == reranked[:-2] + ":0"
    assert model_namespace(tiny_checkpoint, "ct2", "int8", other, 1.0) != reranked


# ------------------------------------------------------------------------------ the app with REDIS_URL

def test_a_file_uploaded_through_one_instance_downloads_once_through_another(make_app, redis_url):
    one, two = make_app(REDIS_URL=redis_url).test_client(), make_app(REDIS_URL=redis_url).test_client()
    response = upload(one, b"Guten Morgen.\n", "brief.txt")
    assert response.status_code == 200
    path = path_of(response)
    assert two.head(path).status_code == 200                  # HEAD does not use up the download
    got = two.get(path)
    assert got.status_code == 200 and got.data == b"Good morning.\n"
    assert got.headers["Content-Disposition"] == "attachment; filename=brief_en.txt"
    assert one.get(path).status_code == 404 and two.get(path).status_code == 404


def test_instances_share_the_translation_cache(make_app, redis_url):
    one = make_app(REDIS_URL=redis_url, TRANSLATION_CACHE=100).extensions["translation_service"]
    two = make_app(REDIS_URL=redis_url, TRANSLATION_CACHE=100).extensions["translation_service"]
    assert isinstance(one.cache.store, RedisCacheStore)
    assert one.translate(["Guten Morgen. Vielen Dank."]) == ["Good morning. Thank you very much."]
    assert (one.cache.hits, one.cache.misses) == (0, 2)
    assert two.translate(["Vielen Dank. Guten Morgen."]) == ["Thank you very much. Good morning."]
    assert (two.cache.hits, two.cache.misses) == (2, 0)


def test_a_redis_outage_gives_503_for_files_and_never_stops_translation(make_app, own_redis, no_logged_errors):
    client = make_app(REDIS_URL=own_redis.url, TRANSLATION_CACHE=100).test_client()
    path = path_of(upload(client, b"Guten Morgen.\n", "brief.txt"))
    own_redis.stop()
    response = client.post("/translate", json={"q": "Guten Morgen.", **OK})
    assert response.status_code == 200 and response.get_json()["translatedText"] == "Good morning."
    for response in (upload(client, b"Hallo.\n", "a.txt"), client.get(path)):
        assert response.status_code == 503
        assert response.get_json()["error"].startswith("Service unavailable: the file store (Redis) is unavailable")
    assert client.get("/health").status_code == 200


@pytest.mark.parametrize("value, message", [
    ("localhost:6379", "REDIS_URL must start with redis://, rediss:// or unix://, got 'localhost:6379'"),
    ("http://redis", "REDIS_URL must start with redis://, rediss:// or unix://, got 'http://redis'"),
])
def test_invalid_redis_url(make_app, value, message):
    from app import StartupError

    with pytest.raises(StartupError) as info:
        make_app(REDIS_URL=value)
    assert str(info.value) == message


def test_redis_client_times_out_instead_of_hanging():
    client = connect("redis://127.0.0.1:1/0")
    with pytest.raises(redis.ConnectionError):
        client.ping()
