"""pipeline/tables: the rules' word tables are data files, read the same way everywhere."""

import pytest

from pipeline import tables
from pipeline.numbers import COUNTING, NUMBERS, number_word
from pipeline.rules.verbatim import MONTHS, find_spans
from pipeline.rules.years import without_years


def test_pairs_keep_file_order_and_skip_comments():
    months = tables.pairs("months")
    assert list(months)[:3] == ["Januar", "Jänner", "Februar"]
    assert months["Jänner"] == months["Januar"] == "January"
    assert not any(key.startswith("#") for key in months)


def test_words_of_a_list():
    assert "aus" in tables.words("command_stops")
    assert tables.words("command_stops").count("im") == 1


@pytest.mark.parametrize("name, columns, message", [
    ("months", 3, "months.tsv line 4: expected 3 non-empty tab-separated fields, got 'Januar\\tJanuary'"),
    ("nonexistent", 2, "no table 'nonexistent.tsv' in pipeline.tables"),
])
def test_a_malformed_or_missing_table_is_a_one_line_error(name, columns, message):
    with pytest.raises(tables.TableError) as error:
        tables.rows(name, columns)
    assert str(error.value) == message


def test_one_list_of_number_words():
    assert NUMBERS["vierzehn"] == (14, "fourteen")
    assert number_word("vierundzwanzig") == (24, "twenty-four")
    assert number_word("hundert") == (100, "a hundred")
    assert COUNTING["zwölf"] == "twelve" and "ein" not in COUNTING and "sechzig" not in COUNTING


@pytest.mark.parametrize("text, english", [
    ("am 3. Jänner 2027", "3 January 2027"),   # Austrian German: one table of months for every rule
    ("am 3. Januar 2027", "3 January 2027"),
])
def test_every_month_spelling_is_a_date(text, english):
    [date] = find_spans(text)
    assert (date.kind, date.target) == ("date", english)
    assert MONTHS["Jänner"] == "January"


def test_a_year_after_jaenner_stays_a_year():
    text = "Im Jänner 2020 war es kalt."
    assert [s.text for s in without_years(text, find_spans(text))] == []
