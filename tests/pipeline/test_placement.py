"""pipeline/placement.py: where each inline tag goes among the aligned output words.

Placement is tested end to end through ``translate_html`` in test_markup.py; here, its functions
that are tested by name.
"""

from __future__ import annotations

import pytest

from pipeline.placement import covered_words


@pytest.mark.parametrize(("span", "expected"), [
    ((0, 3), [0]), ((2, 5), [0, 1]), ((3, 4), []), ((4, 4), []), ((4, 11), [1, 2]), ((10, 20), [2]),
])
def test_covered_words(span, expected):
    assert covered_words(span, [(0, 3), (4, 7), (8, 11)]) == expected
