"""SearchOptions: the one owner of the search knobs, its checks, and the named searches."""

from __future__ import annotations

import math

import pytest

from model.search.options import DEFAULT, SERVED, SearchOptions


@pytest.mark.parametrize("options, message", [
    ({"beam_size": 0}, "beam_size must be an integer >= 1, got 0"),
    ({"beam_size": 2.0}, "beam_size must be an integer >= 1, got 2.0"),
    ({"batch_size": 0}, "batch_size must be an integer >= 1, got 0"),
    ({"n_best": 0}, "n_best must be an integer >= 1, got 0"),
    ({"beam_size": 2, "n_best": 3}, "n_best must be between 1 and beam_size 2, got 3"),
    ({"max_len_b": -1}, "max_len_b must be an integer >= 0, got -1"),
    ({"min_len": -1}, "min_len must be an integer >= 0, got -1"),
    ({"min_len": 1.0}, "min_len must be an integer >= 0, got 1.0"),
    ({"min_len": True}, "min_len must be an integer >= 0, got True"),
    ({"no_repeat_ngram_size": -2}, "no_repeat_ngram_size must be an integer >= 0, got -2"),
    ({"no_repeat_ngram_size": "3"}, "no_repeat_ngram_size must be an integer >= 0, got '3'"),
    ({"no_repeat_ngram_size": None}, "no_repeat_ngram_size must be an integer >= 0, got None"),
    ({"no_repeat_ngram_size": 1.5}, "no_repeat_ngram_size must be an integer >= 0, got 1.5"),
    ({"length_penalty": -0.1}, "length_penalty must be a number >= 0, got -0.1"),
    ({"length_penalty": math.nan}, "length_penalty must be a number >= 0, got nan"),
    ({"max_len_a": "1.5"}, "max_len_a must be a number >= 0, got '1.5'"),
])
def test_bad_values_are_refused_when_made(options, message):
    with pytest.raises(ValueError) as error:
        SearchOptions(**options)
    assert str(error.value) == message


def test_the_named_searches():
    # The bare model: greedy, nothing blocked; served: a beam of 4 with the pipeline's loop guard.
    assert DEFAULT == SearchOptions(beam_size=1, length_penalty=0.6, n_best=1, max_len_a=1.5, max_len_b=10,
                                    min_len=1, no_repeat_ngram_size=0, batch_size=64)
    assert SERVED == SearchOptions(beam_size=4, no_repeat_ngram_size=6)


def test_budget_penalty_and_output_key():
    options = SearchOptions(beam_size=3, length_penalty=1, batch_size=8, no_repeat_ngram_size=2)
    assert options.budget(6) == 19                      # int(6 * 1.5 + 10)
    assert options.penalty(7) == 2.0                    # ((5 + 7) / 6) ** 1
    assert SearchOptions(length_penalty=0).penalty(7) == 1.0
    assert DEFAULT.penalty(1) == 1.0                    # ((5 + 1) / 6) ** 0.6
    assert options.output_key == (3, 1.0, 2)            # the batch size is no part of it
    assert isinstance(options.output_key[1], float)
