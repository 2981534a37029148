"""model/training/signals.py: SIGTERM and SIGINT stop a run after its step."""

from __future__ import annotations

import os
import signal

import pytest

from model.training.signals import StopSignals


@pytest.fixture
def sigint_as_python_sets_it():
    """SIGINT handled as Python does by default, whatever this process inherited: under nohup or in
    a shell script's background job SIGINT is ignored, and StopSignals rightly leaves it so."""
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, inherited)


def test_stop_signals_are_caught_once_and_the_handlers_restored(sigint_as_python_sets_it):
    before = signal.getsignal(signal.SIGTERM)
    with StopSignals() as signals:
        assert signals.received is None and signal.getsignal(signal.SIGTERM) is not before
        os.kill(os.getpid(), signal.SIGINT)   # caught: no KeyboardInterrupt
        assert signals.received == "SIGINT"
        assert signal.getsignal(signal.SIGTERM) is before   # a second signal acts as it did before
    assert signal.getsignal(signal.SIGTERM) is before and signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_sigint_is_left_ignored():
    inherited = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with StopSignals() as signals:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            assert signals.received is None
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, inherited)
