"""bench/slow_clients.py refuses other hosts and unbounded attacks (its run against a live server:
tests/app/test_worker.py)."""

import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench import slow_clients  # noqa: E402


@pytest.mark.parametrize("argv, message", [
    (["--url", "http://example.com:80"], "--url must be a loopback address with a port, got 'http://example.com:80'"),
    (["--url", "http://127.0.0.1"], "--url must be a loopback address with a port, got 'http://127.0.0.1'"),
    (["--url", "http://127.0.0.1:1", "--connections", "501"], "argument --connections: must be from 1 to 500, got '501'"),
    (["--url", "http://127.0.0.1:1", "--interval", "x"], "argument --interval: must be a number from 0.05 to 5, got 'x'"),
])
def test_it_refuses_other_hosts_and_unbounded_attacks(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        slow_clients.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err

