"""Questions that ask how many, that compare two things, or that name a word that is only the
beginning of a longer name: answered by what answers them, or declined."""

from __future__ import annotations

from pathlib import Path

from signoff.research.asks import compared, told_by
from signoff.research.relevance import question_terms

from .asking import answer_of, app_over, claims_of

_CART = {"cart.md": "# The samovar cart\n\nThe samovar cart takes wheels from the old wagon.\n\n"
                    "The samovar cart is painted red.\n",
         "barn.md": "# The barn\n\nThe barn keeps hay for the winter.\n"}


def test_a_question_of_how_many_needs_a_number(tmp_path: Path) -> None:
    """"How many wheels does the samovar cart take?" is declined where the sentences about the
    cart tell no number (it quoted "The samovar cart takes wheels from the old wagon." as how
    many), and answered by the sentence that tells one."""
    answer = answer_of(app_over(tmp_path / "a", _CART), "How many wheels does the samovar cart take?")
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert "how many wheels, in a number" in answer.declined.reason
    files = {**_CART, "cart.md": _CART["cart.md"] + "\nThe samovar cart has four wheels.\n"}
    answer = answer_of(app_over(tmp_path / "b", files), "How many wheels does the samovar cart take?")
    assert claims_of(answer) == ["The samovar cart has four wheels."]


def test_how_many_asks_a_number_not_a_figure_in_a_name() -> None:
    [(_, number)] = told_by("How many bytes does utf8 use?")
    assert number.search("It takes 4 bytes at most.")
    assert not number.search("The utf8 codec is used when file is None.")
    [(_, number)] = told_by("How many times is it called?")
    assert number.search("It is called at most 3 times.")
    [(_, number)] = told_by("How many are there?")  # (no thing named: any number)
    assert number.search("There are 3.")
    assert "take" not in question_terms("How many arguments does range take?")
    assert told_by("What does the samovar do?") == []


_KITCHEN = {"speed.md": "# Speed\n\nThe kettle is faster than the stove.\n",
            "samovar.md": "# The samovar\n\nThe samovar holds tea.\n",
            "teapot.md": "# The teapot\n\nThe teapot pours tea.\n"}


def test_a_comparison_is_answered_only_by_a_sentence_naming_both(tmp_path: Path) -> None:
    """"Is a samovar faster than a teapot?" is not answered by "The kettle is faster than the
    stove." (it was: "faster" and "than" weighed as much as the two things compared; the
    offline reader answered "Is a tuple faster than a list?" with "ECDH is significantly faster
    than regular DH …"), and is by a sentence that compares the two."""
    answer = answer_of(app_over(tmp_path / "a", _KITCHEN), "Is a samovar faster than a teapot?")
    assert not answer.answered, claims_of(answer)
    files = {**_KITCHEN, "race.md": "# The race\n\nA samovar is faster than a teapot at "
                                    "boiling water.\n"}
    answer = answer_of(app_over(tmp_path / "b", files), "Which is faster, a samovar or a teapot?")
    assert claims_of(answer) == ["A samovar is faster than a teapot at boiling water."]


def test_the_two_things_a_question_compares() -> None:
    assert compared("Is a tuple faster than a list?") == ("a tuple", "a list")
    assert compared("Which is faster, a list or a tuple?") == ("a list", "a tuple")
    assert compared("Can a function return more than one value?") == ("", "")
    assert compared("What does the with statement do?") == ("", "")


def test_a_word_is_no_kin_of_a_longer_name_it_begins(tmp_path: Path) -> None:
    """"print" is not print_exception: a sentence under print_exception's heading is not about
    print (the offline reader answered "How many arguments does print take?" from traceback's
    print_exception)."""
    files = {"traceback.md": "# traceback.print_exception\n\nThe first argument may be an "
                             "exception object.\n",
             "garden.md": "# The garden\n\nAn argument about the garden went on all summer.\n",
             "sides.md": "# Sides\n\nEvery argument has two sides.\n"}
    answer = answer_of(app_over(tmp_path, files), "What are print's arguments?")
    assert not answer.answered, claims_of(answer)


def test_how_many_asks_a_number_of_the_thing_it_counts() -> None:
    """"How many arguments does range take?" is not told by a number of something else ("range(10)
    generates 10 values", which the offline reader quoted as its answer), and is by a number of
    arguments, in figures or in words, a few words before them."""
    [(asks, number)] = told_by("How many arguments does range take?")
    assert asks == "how many arguments, in a number"
    assert not number.search("The given end point is never part of the generated sequence; "
                             "range(10) generates 10 values.")
    for told in ("It takes no arguments.", "It takes any number of positional arguments.",
                 "range takes 1 to 3 integer arguments.", "It needs two arguments."):
        assert number.search(told), told
