"""A source that many of a corpus's others link to is read before one that few do, when both
have the question's words: Python's documentation links every mention of ``len()`` to the
built-in functions' page, and none to `xdrlib`'s, whose "n is the length of the list" was
quoted for "How do I get the length of a list?"."""

from __future__ import annotations

from pathlib import Path

from signoff import TaskStatus
from signoff.research import Corpus, ask, research_app
from signoff.research.links import links_in, priors

QUESTION = "How do I get the length of a list?"


def _page(root: Path, name: str, title: str, body: str) -> None:
    (root / name).write_text(f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
                             f"{body}</body></html>")


def _docs(tmp_path: Path, *, obscure_title: str) -> Corpus:
    """A reference page eight others link to, and a page none does whose words match the
    question as well or better."""
    root = tmp_path / "docs"
    (root / "library").mkdir(parents=True)
    _page(root / "library", "xdr.html", obscure_title,
          "<p>Packs the length of a list into the buffer, before its items: the length of the "
          "list comes first.</p>")
    _page(root / "library", "functions.html", "Built-in Functions",
          "<dl><dt id='len'>len(s)</dt><dd><p>Return the length of a list, a tuple or a "
          "string.</p></dd></dl>")
    for i in range(8):
        _page(root / "library", f"m{i}.html", f"Module {i}",
              f"<p>Module {i} counts sheep; see <a href='functions.html#len'>len()</a> for "
              "sizes.</p>")
    return Corpus.from_folder(root, index=tmp_path / "index.sqlite")


def test_the_page_the_others_link_to_is_searched_first(tmp_path: Path) -> None:
    """Titled with the question's words, the page none links to was found first."""
    corpus = _docs(tmp_path, obscure_title="xdr — Packing the length of a list")
    found = [hit.source_id for hit in corpus.search(QUESTION)]
    assert found[:2] == ["library/functions.html", "library/xdr.html"], found


def test_the_answer_quotes_the_page_the_others_link_to_and_not_a_corner_beside_it(
        tmp_path: Path) -> None:
    """The offline reader quoted both pages; the one none links to, beside the point, is no
    longer claimed."""
    corpus = _docs(tmp_path, obscure_title="xdr — Encode and decode data")
    outcome = ask(research_app(corpus, database="sqlite://"), QUESTION)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert outcome.result is not None
    assert outcome.result.claims, outcome.result
    cited = [c.source_id for claim in outcome.result.claims for c in claim.citations]
    assert cited == ["library/functions.html"], outcome.result


def test_only_relative_links_between_the_folders_sources_count() -> None:
    page = ("<a href='functions.html#len'>len</a> <a href=\"../tutorial/intro.html\">intro</a> "
            "<a href='https://example.com/x.html'>out</a> <a href='/abs.html'>abs</a> "
            "<a href='#here'>here</a> <a href='stdtypes.html'>once</a> "
            "<a href='stdtypes.html#str'>twice</a> <a href='../../outside.html'>up</a> "
            "<a href='os.html'>self</a> <a href='mailto:a@b.example'>mail</a>")
    assert links_in(page, "library/os.html", html=True) == (
        "library/functions.html", "tutorial/intro.html", "library/stdtypes.html")
    assert links_in("See [the guide](guide/start.md#top) and [site](https://x.example).",
                    "index.md", html=False) == ("guide/start.md",)


def test_a_corpus_without_links_has_no_priors_and_a_page_few_link_to_is_not_held_back() -> None:
    assert priors({}, ["a", "b", "c"]) == {}
    linked = {"ref": {"a", "b", "c", "d"}, "a": {"b"}, "b": {"a"}, "c": {"a"}, "d": {"a"}}
    found = priors(linked, ["ref", "a", "b", "c", "d", "lonely"])
    assert set(found) == {"ref"}, found
    assert found["ref"] > 0
