"""A container made in a function whose items' types the analysis knows, filled with something
else out of its sight: through another name for it, a function it is handed, a lazy iterator
or generator over it, a local function, or a container holding it. Each ``by_`` function
reaches outside only through `Loud.run`, on an item it put there that way, and looks as if it
only calls `Calm.run` (it was taken to only read). Each ``kept_`` function only reads, its
containers used in the ways honest code uses them (it must still be found to only read)."""

from __future__ import annotations

import copy
import functools
import html
import itertools
import json
import operator
import os
import shlex
import textwrap
from collections import Counter, OrderedDict, defaultdict, deque
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, field_validator


class Calm:
    """Its `run` only computes."""

    def run(self) -> int:
        return 1


class Loud:
    """Its `run` reaches outside."""

    def run(self) -> int:
        os.system("echo run")
        return 2


class Remote:
    """Reading its `body` reaches outside."""

    @property
    def body(self) -> str:
        os.system("echo body")
        return ""


def _fill(items: list[object]) -> None:
    items.append(Loud())


def _show(items: list[Remote]) -> None:
    """Only reads (the analysis cannot know that from the call alone)."""


def by_another_name() -> list[int]:
    items = [Calm()]
    alias = items
    alias.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_the_first_name_after_another() -> list[int]:
    items = [Calm()]
    alias = items
    items.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in alias]


def by_a_function_it_is_handed() -> list[int]:
    items = [Calm()]
    _fill(items)  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_the_method_taken_from_its_class() -> list[int]:
    items = [Calm()]
    list.append(items, Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_filling_it_while_it_is_iterated() -> list[int]:
    items = [Calm()]
    ran = []
    for x in items:
        ran.append(x.run())
        if len(items) < 2:
            items.append(Loud())  # type: ignore[arg-type]
    return ran


def by_a_lazy_iterator() -> list[int]:
    items = [Calm()]
    later = iter(items)
    items.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in later]


def by_a_generator_run_later() -> list[int]:
    items = [Calm()]
    later = (x.run() for x in items)
    items.append(Loud())  # type: ignore[arg-type]
    return list(later)


def by_a_local_function() -> list[int]:
    items = [Calm()]

    def fill() -> None:
        items.append(Loud())  # type: ignore[arg-type]

    fill()
    return [x.run() for x in items]


def by_a_lambda() -> list[int]:
    items = [Calm()]
    fill = lambda: items.append(Loud())  # type: ignore[arg-type]  # noqa: E731
    fill()
    return [x.run() for x in items]


def by_a_tuple_holding_it() -> list[int]:
    items = [Calm()]
    pair = (items, 1)
    pair[0].append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_a_default_given_back() -> list[int]:
    items = [Calm()]
    found = {}.get("absent", items)
    found.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_the_larger_of_two() -> list[int]:
    items = [Calm()]
    larger = max(items, [])
    larger.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_a_walrus() -> list[int]:
    items = [Calm()]
    if alias := items:
        alias.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_an_item_filled_in_place() -> list[int]:
    rows = [[Calm()] for _ in range(2)]
    rows[0].append(Loud())  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_an_item_filled_under_its_own_name() -> list[int]:
    rows = [[Calm()] for _ in range(2)]
    row = rows[0]
    row.append(Loud())  # type: ignore[arg-type]
    return [x.run() for each in rows for x in each]


def by_an_item_handed_to_a_function() -> list[int]:
    rows = [[Calm()] for _ in range(2)]
    _fill(rows[0])  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_an_item_stored_into() -> list[int]:
    rows = [[Calm()] for _ in range(2)]
    rows[0][0] = Loud()  # type: ignore[call-overload]
    return [x.run() for row in rows for x in row]


def kept_read_many_ways() -> str:
    """Only reads: a list grown where the walk sees it, iterated, counted, sorted, zipped,
    enumerated, summed, tested, formatted and handed back."""
    items = [Calm()]
    items.append(Calm())
    names: dict[int, int] = {}
    for i, x in enumerate(items):
        names[i] = x.run()
    pairs = list(zip(range(2), items, strict=True))
    total = sum(x.run() for x in items) + pairs[0][1].run()
    if items and items[0].run():
        total += len(items)
    first = max(items, key=lambda c: c.run())
    ranked = ", ".join(str(x.run()) for x in sorted(items, key=lambda c: c.run()))
    return f"{ranked} {items} {total} {first.run()} {[x.run() for x in items]}"


def kept_nested_rows(text: str) -> list[str]:
    """Only reads: rows of cells, each row read where it was made."""
    rows = [line.split(",") for line in text.splitlines() if line]
    firsts = []
    for row in rows:
        firsts.append(row[0].strip())
    return [row[1].upper() for row in rows if len(row) > 1] + firsts


def kept_yielded(count: int) -> Iterator[int]:
    """Only reads: a list iterated by a generator as it yields."""
    items = [Calm() for _ in range(count)]
    for x in items:
        yield x.run()


def by_a_property_of_what_it_held_once_handed_on() -> list[str]:
    """Handed on, what it holds may be of any class — and still of those it was known to hold:
    their code (a property, here) still runs as their objects are read."""
    pages = [Remote() for _ in range(2)]
    _show(pages)
    return [page.body for page in pages]


def by_a_property_after_another_name() -> list[str]:
    pages = [Remote()]
    alias = pages
    return [page.body for page in alias]


def _fill_each(row: list[object]) -> int:
    row.append(Loud())
    return 0


def by_a_list_in_a_tuple() -> list[int]:
    pair = ([Calm()], 1)
    pair[0].append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in pair[0]]


def by_a_copy_of_a_list_of_lists() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    copied = list(rows)
    _fill(copied[0])  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_a_sorted_copy() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    ordered = sorted(rows, key=len)
    _fill(ordered[0])  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_the_copy_method() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    copied = rows.copy()
    copied[0].append(Loud())  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_extending_another() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    flat: list[list[Calm]] = []
    flat.extend(rows)
    _fill(flat[0])  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_adding_to_another() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    flat: list[list[Calm]] = []
    flat += rows
    _fill(flat[0])  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_its_items_handed_on_starred() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    _fill(*rows)  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_its_items_handed_to_a_mapped_function() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    list(map(_fill_each, rows))  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_its_items_handed_to_a_sort_key() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    sorted(rows, key=_fill_each)  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_a_default_max_gives_back() -> list[int]:
    items = [Calm()]
    found = max([], default=items)
    found.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_a_keyword_a_method_keeps() -> list[int]:
    items = [Calm()]
    holder: dict[str, list[Calm]] = {}
    holder.update(kept=items)
    holder["kept"].append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_a_local_function_made_before_the_name() -> list[int]:
    def fill() -> None:
        items.append(Loud())  # type: ignore[arg-type]

    items = [Calm()]
    fill()
    return [x.run() for x in items]


def by_two_names_at_once() -> list[int]:
    items = alias = [Calm()]
    alias.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_the_names_of_the_function() -> list[int]:
    items = [Calm()]
    vars()["items"].append(Loud())
    return [x.run() for x in items]


def by_two_hops_in_a_loop() -> list[int]:
    first = [Calm()]
    second = [Calm()]
    ran = []
    for x in first:
        ran.append(x.run())
        if len(first) < 4:
            first.append(second[-1])
            second.append(Loud())  # type: ignore[arg-type]
    return ran


def by_a_sum_of_lists() -> list[int]:
    cube = [[[Calm()] for _ in range(1)] for _ in range(1)]
    flat = sum(cube, [])  # noqa: RUF017  (the way honest code flattens, too)
    _fill(flat[0])  # type: ignore[arg-type]
    return [x.run() for plane in cube for row in plane for x in row]


def kept_logged_and_dumped(text: str) -> str:
    """Only reads: a list logged, dumped as JSON inside a dict, counted and written as CSV rows
    (none of which keeps it), then its items' methods called."""
    import csv
    import io
    import json
    import logging
    from collections import Counter

    names = [Calm() for _ in text.split()]
    logging.getLogger(__name__).info("names: %s", names)
    words = text.split()
    payload = json.dumps({"words": words, "count": len(names)})
    counts = Counter(words)
    rows = [[word, str(counts[word])] for word in words]
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return payload + "".join(str(x.run()) for x in names) + rows[0][0].upper() + buffer.getvalue()


def _hand_on(items: list[object]) -> None:
    _fill(items)


def _total(items: list[Calm]) -> int:
    return sum(item.run() for item in items)


def _made() -> list[Calm]:
    made = []
    for _ in range(2):
        made.append(Calm())
    return made


def by_a_function_that_hands_it_on() -> list[int]:
    items = [Calm()]
    _hand_on(items)  # type: ignore[arg-type]
    return [x.run() for x in items]


def kept_by_functions_that_only_read_it() -> list[int]:
    """Only reads: a helper that only reads the list it is given, one that makes and gives
    back a list, a local function reading it, and one of two lists chosen to be filled."""
    items = _made()
    total = _total(items)
    evens: list[Calm] = []
    odds: list[Calm] = []
    for i, item in enumerate(items):
        (evens if i % 2 == 0 else odds).append(item)

    def nth(i: int) -> int:
        return items[i].run()

    return [total, nth(0), *(x.run() for x in evens), *(x.run() for x in odds)]


class Basket(BaseModel):
    """A model whose making runs no code of the app's: its list is made anew."""

    model_config = {"arbitrary_types_allowed": True}
    items: list[Calm]


class Grabbing(BaseModel):
    """A model whose validator is given the caller's very list, before it is checked."""

    model_config = {"arbitrary_types_allowed": True}
    items: list[object]

    @field_validator("items", mode="before")
    @classmethod
    def grab(cls, given: list[object]) -> list[object]:
        given.append(Loud())
        return given


def kept_by_a_model_made_of_it() -> list[int]:
    items = [Calm()]
    Basket(items=items)
    return [x.run() for x in items]


def by_a_models_validator() -> list[int]:
    items = [Calm()]
    Grabbing(items=items)  # type: ignore[arg-type]
    return [x.run() for x in items]


def _link(holder: list[object], items: list[object]) -> None:
    _link_on(holder, items)


def _link_on(holder: list[object], items: list[object]) -> None:
    holder.append(items)


def _first(rows: list[list[object]]) -> list[object]:
    return rows[0]


def _forward(*given: list[object]) -> None:
    _fill(*given)


def _take_in(holder: list[list[object]], rows: list[list[object]]) -> None:
    holder.extend(rows)


def _run_now(made: object) -> object:
    made()  # type: ignore[operator]
    return made


def by_a_second_function_that_keeps_it() -> list[int]:
    items = [Calm()]
    holder: list[object] = []
    _link(holder, items)  # type: ignore[arg-type]
    _fill(holder[0])  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_an_item_a_function_gives_back() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    _fill(_first(rows))  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_a_function_handing_on_what_it_packs() -> list[int]:
    items = [Calm()]
    _forward(items)  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_a_function_taking_in_its_items() -> list[int]:
    rows = [[Calm()] for _ in range(1)]
    holder: list[list[object]] = []
    _take_in(holder, rows)  # type: ignore[arg-type]
    _fill(holder[0])
    return [x.run() for row in rows for x in row]


def by_a_local_function_kept_in_a_list() -> list[int]:
    items = [Calm()]

    def fill() -> None:
        items.append(Loud())  # type: ignore[arg-type]

    kept = [fill]
    kept[0]()
    return [x.run() for x in items]


def by_a_local_function_its_decorator_runs() -> list[int]:
    items = [Calm()]

    @_run_now
    def fill() -> None:
        items.append(Loud())  # type: ignore[arg-type]

    return [x.run() for x in items]


def by_one_of_two_chosen_by_and() -> list[int]:
    first = [Calm()]
    second = [Calm()]
    (first and second).append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in second]


def by_one_of_two_stored_into() -> list[int]:
    first = [Calm()]
    second = [Calm()]
    (first if len(first) > 5 else second)[0] = Loud()  # type: ignore[call-overload]
    return [x.run() for x in second]


def by_a_chain_a_local_function_loops_over() -> list[int]:
    first, second, third = [Calm()], [Calm()], [Calm()]

    def go() -> list[int]:
        ran = []
        for _ in range(6):
            ran.append(first[-1].run())
            first.append(second[-1])
            second.append(third[-1])
            third.append(Loud())  # type: ignore[arg-type]
        return ran

    return go()


def by_a_chain_a_local_function_recurses_over() -> list[int]:
    first, second, third = [Calm()], [Calm()], [Calm()]
    ran: list[int] = []

    def step(n: int) -> None:
        ran.append(first[-1].run())
        first.append(second[-1])
        second.append(third[-1])
        third.append(Loud())  # type: ignore[arg-type]
        if n:
            step(n - 1)

    step(4)
    return ran


def _kept_of(items: list[Calm]) -> list[Calm]:
    return [item for item in items if item.run()]


def kept_by_a_function_giving_back_a_new_list_of_its_items() -> list[int]:
    """Only reads: a helper gives back a new list of the items it is given (not the list, nor
    containers of it), so the caller's list stays with its name."""
    items = [Calm()]
    chosen = _kept_of(items)
    return [len(chosen), *(x.run() for x in items)]


class Holding(BaseModel):
    """A model that keeps what it is given as it is (``Any``)."""

    held: Any


def _fill_said_to_be_text(items: str) -> None:
    items.append(Loud())  # type: ignore[attr-defined]


def _run_said_to_be_text(item: str) -> int:
    return item.run()  # type: ignore[attr-defined]


def by_a_deque_filled_where_seen() -> list[int]:
    items = deque([Calm()])
    items.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_a_set_filled_by_its_difference() -> list[int]:
    kinds = {Calm()}
    kinds.symmetric_difference_update({Loud()})  # type: ignore[arg-type]
    return [x.run() for x in kinds]


def by_a_model_keeping_it_as_given() -> list[int]:
    items = [Calm()]
    made = Holding(held=items)
    _fill(made.held)
    return [x.run() for x in items]


def by_a_helper_whose_annotation_is_wrong() -> list[int]:
    items = [Calm()]
    _fill_said_to_be_text(items)  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_an_object_a_helper_says_is_text() -> int:
    return _run_said_to_be_text(Loud())  # type: ignore[arg-type]


def kept_under_another_name() -> list[int]:
    """Only reads: a list given another name, read through both."""
    items = [Calm()]
    chosen = items
    return [x.run() for x in chosen] + [x.run() for x in items]


def by_another_name_handed_on() -> list[int]:
    items = [Calm()]
    chosen = items
    _fill(chosen)  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_a_chain_of_names() -> list[int]:
    items = [Calm()]
    first = items
    second = first
    second.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def kept_a_name_each_comprehension_binds_afresh(text: str) -> list[bool]:
    """Only reads: ``v`` is a word in one comprehension and a number in the next."""
    values = [float(v) for v in text.split()]
    return [v.is_integer() for v in values]


def kept_a_list_of_lists_written_out(text: str) -> list[str]:
    """Only reads: what a list written out holds, at every depth, is what it was written of."""
    table = [["a", "b"], [text]]
    return [cell.upper() for row in table for cell in row]


def kept_dicts_written_out_and_comprehended(text: str) -> list[str]:
    """Only reads: a dict written out, or made by a comprehension, holds what it was made of."""
    index = {word: i for i, word in enumerate(text.split())}
    calm = {"one": Calm()}
    return [word.upper() for word in sorted(index, key=index.get)] + [
        str(item.run()) for item in calm.values()]


def kept_containers_combined(a: str, b: str) -> list[str]:
    """Only reads: two sets joined, two lists added, a dict merged, rows turned to columns."""
    both = set(a.split()) & set(b.split())
    rows = [line.split("|") for line in a.splitlines()]
    merged = {"a": Calm()} | {"b": Calm()}
    return ([x.upper() for x in both] + [w.lower() for w in a.split() + b.split()]
            + [c.strip() for column in zip(*rows, strict=False) for c in column]
            + [str(x.run()) for x in merged.values()])


def kept_an_ordered_dict_and_a_queue(text: str) -> list[str]:
    """Only reads: an ``OrderedDict`` and a ``deque`` made empty hold what is put in them."""
    seen: OrderedDict[str, str] = OrderedDict()
    for word in text.split():
        seen.setdefault(word.lower(), word)
    todo = deque(text.split())
    return [v.upper() for v in seen.values()] + [todo.popleft().title()]


def by_a_dict_updated_from_another() -> list[int]:
    held = {"a": [Calm()]}
    copied: dict[str, list[object]] = {}
    copied.update(held)  # type: ignore[arg-type]
    copied["a"].append(Loud())
    return [x.run() for x in held["a"]]


def by_a_dict_updated_from_anothers_items() -> list[int]:
    held = {"a": [Calm()]}
    copied: dict[str, list[object]] = {}
    copied.update(held.items())  # type: ignore[arg-type]
    _fill(copied["a"])
    return [x.run() for v in held.values() for x in v]


def by_a_dict_updated_by_keyword() -> list[int]:
    held = {"a": Calm()}
    held.update(b=Loud())  # type: ignore[arg-type]
    return [v.run() for v in held.values()]


def by_a_dict_made_with_a_keyword() -> list[int]:
    made = dict({"a": Calm()}, b=Loud())
    return [v.run() for v in made.values()]


def by_an_iterator_over_a_list_of_lists() -> list[int]:
    rows = [[Calm()]]
    for row in iter(rows):
        row.append(Loud())  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_lists_added_sharing_a_list() -> list[int]:
    rows = [[Calm()]]
    both = [*rows, [Calm()]]
    both[0].append(Loud())  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_a_list_repeated() -> list[int]:
    rows = [[Calm()]]
    _fill((rows * 2)[1])  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_a_dict_merged() -> list[int]:
    held = {"a": [Calm()]}
    merged = held | {}
    merged["a"].append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in held["a"]]


def by_a_dict_unpacked_into_another() -> list[int]:
    held = {"a": [Calm()]}
    copied = {**held}
    copied["a"].append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in held["a"]]


def by_what_json_gave_filled() -> list[int]:
    given = json.loads("[]")
    given.append(Loud())
    return [x.run() for x in given]


def by_what_json_gave_filled_by_a_function() -> list[int]:
    given = json.loads("[]")
    _fill(given)
    return [x.run() for x in given]


def by_what_json_gave_stored_into() -> list[int]:
    given = json.loads("{}")
    given["k"] = Loud()
    return [v.run() for v in given.values()]


def by_what_json_gave_in_a_list_filled() -> list[int]:
    rows = [json.loads("[]")]
    rows[0].append(Loud())
    return [x.run() for row in rows for x in row]


def by_a_view_taken_before_it_is_filled() -> list[int]:
    held = {"a": Calm()}
    values = held.values()
    held["b"] = Loud()  # type: ignore[assignment]
    return [v.run() for v in values]


def _fill_what_it_gets(get: Any) -> None:
    get("a").append(Loud())


def by_a_method_giving_out_its_lists_handed_on() -> list[int]:
    held = {"a": [Calm()]}
    _fill_what_it_gets(held.get)
    return [x.run() for x in held["a"]]


def _first_few(items, count):  # type: ignore[no-untyped-def]
    return items[:count]


def _priced(items):  # type: ignore[no-untyped-def]
    return [item for item in items if item.run() > 0]


def _by_kind(items):  # type: ignore[no-untyped-def]
    return sorted(items, key=lambda item: type(item).__name__)


def kept_by_unannotated_helpers_giving_back_new_lists() -> list[int]:
    """Only reads: helpers with no annotations are walked with what they are given, lists of
    Calm: each gives back a new list of them (a slice, a filter, a sort), which holds no list."""
    items = [Calm(), Calm()]
    few, priced, ordered = _first_few(items, 1), _priced(items), _by_kind(items)
    return [x.run() for x in few + priced + ordered] + [x.run() for x in items]


def _fill_first(rows):  # type: ignore[no-untyped-def]
    rows[0].append(Loud())


def by_an_unannotated_helper_filling_what_its_list_holds() -> list[int]:
    rows = [[Calm()]]
    _fill_first(rows)
    return [x.run() for row in rows for x in row]


def by_a_slice_sharing_its_lists() -> list[int]:
    rows = [[Calm()]]
    copied = rows[:]
    copied[0].append(Loud())  # type: ignore[arg-type]
    return [x.run() for row in rows for x in row]


def by_a_part_of_a_tuple_chosen_at_run_time(which: int) -> int:
    pair = (Calm(), Loud())
    return pair[which].run()


def by_a_lambda_giving_it_back() -> list[int]:
    items = [Calm()]
    given = (lambda: items)()
    given.append(Loud())  # type: ignore[arg-type]
    return [x.run() for x in items]


def by_another_name_filled_in_a_comprehension_of_the_same_name() -> list[int]:
    items = [Calm()]
    alias = items
    [alias.append(Loud()) for items in [[]]]  # type: ignore[arg-type, func-returns-value]
    return [x.run() for x in items]


def by_a_local_function_reading_the_name_a_comprehension_binds() -> list[int]:
    item = Loud()

    def run() -> int:
        return item.run()

    return [run() for item in [Calm()]]  # type: ignore[misc]


def by_a_list_made_anew_by_its_init() -> list[int]:
    items = [Calm()]
    items.__init__([Loud()])  # type: ignore[misc, list-item]
    return [x.run() for x in items]


def by_a_set_joined_in_place_by_its_operator_method() -> list[int]:
    kinds = {Calm()}
    kinds.__ixor__({Loud()})  # type: ignore[arg-type]
    return [x.run() for x in kinds]


def by_what_json_gave_filled_while_a_list_held_it() -> list[int]:
    given = json.loads("[]")
    box = [given]
    given.append(Loud())
    return [x.run() for x in box[0]]


def by_what_json_gave_copied_into_a_dict() -> list[int]:
    given = json.loads('{"a": []}')
    copied = {**given}
    copied["a"].append(Loud())
    return [x.run() for x in given["a"]]


def by_what_json_gave_extended_by_a_generator() -> list[int]:
    given = json.loads("[]")
    given.extend(x for x in [Loud()])
    return [x.run() for x in given]


def kept_what_json_gave_extended_by_text(text: str) -> list[str]:
    """Only reads: a list ``json.loads`` gave, extended by text and a dict of numbers, is read."""
    names = json.loads(text)
    names.extend(("b", "c"))
    rows = json.loads(text)
    rows.append({"n": 2})
    return [n.upper() for n in names] + [str(r.get("n")) for r in rows]


def kept_rows_sorted_by_a_lambda() -> list[str]:
    """Only reads: dicts of text, sorted by a lambda (walked with them), read."""
    people = [{"name": "b", "age": "2"}, {"name": "a", "age": "1"}]
    return [p["name"].title() for p in sorted(people, key=lambda p: p["age"])]


def by_a_slice_assigned() -> list[int]:
    items = [Calm()]
    items[:] = [Loud()]  # type: ignore[list-item]
    return [x.run() for x in items]


def by_a_slice_inserted() -> list[int]:
    items = [Calm()]
    items[0:0] = [Loud()]  # type: ignore[list-item]
    return [x.run() for x in items]


def _fill_one_read_the_other(filled, read):  # type: ignore[no-untyped-def]
    filled.append(Loud())
    return [x.run() for x in read]


def by_one_list_given_to_a_helper_twice() -> list[int]:
    items = [Calm()]
    return _fill_one_read_the_other(items, items)  # type: ignore[no-any-return]


def by_a_list_and_a_list_holding_it_given_to_a_helper() -> list[int]:
    items = [Calm()]
    _fill_one_read_the_other([items][0], items)
    return [x.run() for x in items]


def by_a_local_function_mapped_in_a_comprehension_of_its_name() -> list[list[int]]:
    item = Loud()

    def run(_: int) -> int:
        return item.run()

    return [list(map(run, [0])) for item in [Calm()]]  # type: ignore[misc]


def by_a_reading_method_kept_while_the_dict_is_filled() -> int:
    held = {"k": Calm()}
    copy = held.copy
    held["k"] = Loud()  # type: ignore[assignment]
    return copy()["k"].run()


def by_what_json_gave_filled_through_what_its_setdefault_gave() -> list[int]:
    given = json.loads("{}")
    given.setdefault("k", []).append(Loud())
    return [x.run() for x in given["k"]]


def by_a_name_that_is_none_unless_it_is_loud(loud: bool) -> int:
    chosen = None
    if loud:
        chosen = Loud()
    return chosen.run() if chosen is not None else 0


def _run_default(item: Calm = Loud()) -> int:  # type: ignore[assignment]  # noqa: B008
    return item.run()


def by_a_default_that_is_not_what_it_is_said_to_be() -> int:
    return _run_default()


def _fill_through_and_read(items, rows):  # type: ignore[no-untyped-def]
    for row in rows:
        row.append(Loud())
    return [x.run() for x in items]


def by_a_list_given_to_a_helper_beside_an_iterator_over_it() -> list[int]:
    items = [Calm()]
    return _fill_through_and_read(items, reversed([items]))  # type: ignore[no-any-return]


def by_the_second_of_two_chained() -> list[int]:
    return [x.run() for x in itertools.chain([Calm()], [Loud()])]


def by_a_slice_object_assigned() -> list[int]:
    items = [Calm()]
    everything = slice(None)
    items[everything] = [Loud()]  # type: ignore[list-item]
    return [x.run() for x in items]


def by_its_own_default_not_being_what_it_is_said_to_be(item: Calm = Loud()) -> int:  # type: ignore[assignment]  # noqa: B008
    return item.run()


def kept_a_name_that_is_none_until_a_calm_is_found(count: int) -> int:
    """Only reads: ``None`` until one is found, then read where it is not ``None``."""
    found = None
    for _ in range(count):
        found = Calm()
    return found.run() if found is not None else 0


def by_what_fills_a_short_one_zipped() -> list[int]:
    return [y.run() for _, y in itertools.zip_longest([Calm()], [], fillvalue=Loud())]


def _fill_through_its_bound(items, bounds):  # type: ignore[no-untyped-def]
    bounds.stop.append(Loud())
    return [x.run() for x in items]


def by_a_list_given_to_a_helper_beside_a_slice_reaching_it() -> list[int]:
    items = [Calm()]
    return _fill_through_its_bound(items, slice(None, items))  # type: ignore[no-any-return]


_KINDS: dict[str, type] = {"calm": Calm, "loud": Loud}


def by_a_class_or_maybe_one_a_registry_holds(name: str) -> int:
    kind: type = Calm
    if name:
        kind = _KINDS[name]
    return kind().run()  # type: ignore[no-any-return]


def by_a_part_of_what_json_gave_bound_to_a_name_then_filled() -> list[int]:
    given = json.loads('{"k": []}')
    part = given["k"]
    part.append(Loud())
    return [x.run() for x in given["k"]]


def by_what_setdefault_gave_of_what_json_gave_then_filled() -> list[int]:
    given = json.loads("{}")
    part = given.setdefault("k", [])
    part.append(Loud())
    return [x.run() for x in given["k"]]


def by_a_view_of_what_json_gave_read_after_it_was_filled() -> list[int]:
    given = json.loads("{}")
    values = given.values()
    given["k"] = Loud()
    return [x.run() for x in values]


def by_a_bound_method_of_what_json_gave_kept_then_called() -> list[int]:
    given = json.loads("[]")
    add = given.append
    add(Loud())
    return [x.run() for x in given]


def by_what_json_gave_filled_through_getattr() -> list[int]:
    given = json.loads("[]")
    given.append(Loud())
    return [x.run() for x in given]


def by_what_json_gave_filled_by_the_unbound_method() -> list[int]:
    given = json.loads("[]")
    list.append(given, Loud())
    return [x.run() for x in given]


def by_what_json_gave_filled_by_a_map_of_its_method() -> list[int]:
    given = json.loads("[]")
    list(map(given.append, [Loud()]))
    return [x.run() for x in given]


def by_what_json_gave_made_again_by_its_init() -> list[int]:
    given = json.loads("[]")
    given.__init__([Loud()])  # type: ignore[misc]
    return [x.run() for x in given]


def by_what_json_gave_joined_by_its_operator_method() -> int:
    given = json.loads("{}")
    given.__ior__({"k": Loud()})
    return given["k"].run()  # type: ignore[no-any-return]


def by_what_json_gave_named_by_a_walrus_and_filled() -> list[int]:
    (given := json.loads("[]")).append(Loud())
    return [x.run() for x in given]


def by_a_list_named_by_a_walrus_inside_a_display_filled_through_it() -> list[int]:
    rows = [(named := [Calm()])]
    rows[0].append(Loud())
    return [x.run() for x in named]


def by_what_json_gave_filled_by_a_local_function() -> list[int]:
    given = json.loads("[]")

    def fill(target):  # type: ignore[no-untyped-def]
        target.append(Loud())

    fill(given)
    return [x.run() for x in given]


def by_a_copy_of_what_json_gave_whose_shared_list_is_filled() -> list[int]:
    given = json.loads("[[]]")
    copied = copy.copy(given)
    copied[0].append(Loud())
    return [x.run() for x in given[0]]


def kept_the_rows_json_gave_read_after_a_row_of_numbers_is_added(text: str) -> list[Any]:
    """Only reads: a dict of numbers added, then each row's ``get``."""
    rows = json.loads(text)
    rows.append({"n": 2})
    return [r.get("n") for r in rows]


def kept_what_json_gave_read_by_its_items_and_a_helper(text: str) -> list[Any]:
    """Only reads: its items counted, by a helper and in a comprehension."""
    data = json.loads(text)
    total = _count_values(data)
    return [(k.upper(), len(v)) for k, v in data.items()] + [total]


def _count_values(d):  # type: ignore[no-untyped-def]
    return sum(len(v) for v in d.values())


def kept_two_lists_json_gave_added_and_a_copy_read(text: str) -> list[str]:
    """Only reads: two lists joined by ``+``, a dict copied and read."""
    a, b = json.loads(text), json.loads(text)
    copied = json.loads(text).copy()
    return [n.upper() for n in a + b] + [k.upper() for k in copied]


def kept_what_json_gave_tested_checked_and_named_by_a_walrus(text: str) -> list[str]:
    """Only reads: ``isinstance`` asks its type; a walrus names it."""
    if isinstance(data := json.loads(text), dict):
        return [k.upper() for k in data]
    return [v.upper() for v in data]



def kept_words_grouped_by_setdefault(words: list[str]) -> dict[int, list[str]]:
    """Only reads: words grouped in lists a dict makes as it goes, then read."""
    groups: dict[int, list[str]] = {}
    for word in words:
        groups.setdefault(len(word), []).append(word)
    return {size: [w.upper() for w in group] for size, group in groups.items()}


def kept_words_grouped_by_a_defaultdict(words: list[str]) -> list[str]:
    """Only reads: words grouped in a ``defaultdict(list)``, then read."""
    groups = defaultdict(list)
    for word in words:
        groups[word[:1]].append(word)
    return [w.upper() for group in groups.values() for w in group]


def kept_the_commonest_words_counted(text: str) -> list[str]:
    """Only reads: a ``Counter``'s ``most_common`` pairs, each a word and its count."""
    counted = Counter(text.split())
    return [word.upper() for word, _ in counted.most_common(3)]


def kept_paragraphs_wrapped(text: str) -> list[str]:
    """Only reads: ``textwrap``'s lines and text, in lists."""
    wrapped = [textwrap.wrap(p, 40) for p in text.split("\n\n")]
    filled = [textwrap.fill(p, 40) for p in text.split("\n\n")]
    return [line.strip() for lines in wrapped for line in lines] + [f.splitlines()[0] for f in filled]


def by_a_list_a_dict_makes_as_it_goes_filled_where_it_is_held() -> list[int]:
    groups: dict[int, list[Any]] = {}
    for size in (1, 2):
        groups.setdefault(size, []).append(Loud() if size > 1 else Calm())
    return [x.run() for group in groups.values() for x in group]


def by_a_defaultdict_list_filled_where_it_is_held() -> list[int]:
    groups = defaultdict(list)
    groups[1].extend([Loud()])
    return [x.run() for group in groups.values() for x in group]


def by_a_list_stored_in_a_dict_then_filled_through_the_dict() -> list[int]:
    inner = [Calm()]
    groups: dict[str, list[Any]] = {}
    groups["a"] = inner
    groups["a"].append(Loud())
    return [x.run() for x in inner]


def by_a_named_default_filled_where_setdefault_stored_it() -> list[int]:
    extra = [Calm()]
    groups = {"a": [Calm()]}
    groups.setdefault("b", extra).append(Loud())
    return [x.run() for x in extra]


def by_a_list_two_dicts_hold_filled_through_one() -> list[int]:
    first = {"k": [Calm()]}
    second: dict[str, list[Any]] = {}
    second.update(first)
    first["k"].append(Loud())
    return [x.run() for x in second["k"]]


def by_a_counter_of_loud_ones() -> list[int]:
    counted = Counter([Loud()])
    return [x.run() for x, _ in counted.most_common(1)]


def kept_the_rest_of_a_list_unpacked_and_read() -> int:
    """Only reads: ``head, *rest`` of a list of calm objects."""
    head, *rest = [Calm(), Calm()]
    return head.run() + sum(x.run() for x in rest)


def kept_a_slice_named_then_assigned_and_a_deque_read() -> list[str]:
    """Only reads: text put in a list by a named slice; a deque's item read."""
    names = ["a", "b"]
    first = slice(0, 1)
    names[first] = ["c"]
    queue = deque(["x", "y"], 5)
    return [n.upper() for n in names] + [queue[0].upper()]


def by_one_of_two_lists_picked_then_grown_in_place(pick_first: bool) -> list[int]:
    first, second = [Calm()], [Calm()]
    chosen = first if pick_first else second
    chosen += [Loud()]
    return [x.run() for x in second]


def by_the_rest_of_a_list_of_lists_filled_through_the_rest() -> list[int]:
    rows = [[Calm()], [Calm()]]
    _, *rest = rows
    rest[0].append(Loud())
    return [x.run() for x in rows[1]]


def by_a_copy_of_a_deque_whose_shared_list_is_filled() -> list[int]:
    rows = deque([[Calm()]])
    copied = rows.copy()
    copied[0].append(Loud())
    return [x.run() for x in rows[0]]


def kept_lists_sorted_by_their_length_and_read() -> list[int]:
    """Only reads: a sorted copy of a list of lists, sorted by ``len``, read."""
    rows = [[Calm()], [Calm(), Calm()]]
    ordered = sorted(rows, key=len)
    return [x.run() for row in ordered for x in row] + [x.run() for x in rows[0]]


def by_a_list_a_sorted_copy_shares_filled_through_the_copy() -> list[int]:
    rows = [[Calm()]]
    ordered = sorted(rows, key=len)
    ordered[0].append(Loud())
    return [x.run() for x in rows[0]]


def by_a_list_a_sorted_copy_shares_read_there_after_it_is_filled() -> list[int]:
    rows = [[Calm()]]
    ordered = sorted(rows, key=len)
    rows[0].append(Loud())
    return [x.run() for x in ordered[0]]


class _Shelf:
    """Its slice and its copy are its very list."""

    def __init__(self) -> None:
        self.items: list[Any] = [Calm()]

    def __getitem__(self, key: object) -> list[Any]:
        return self.items


def by_what_an_object_of_the_app_gives_as_its_slice_filled() -> list[int]:
    shelf = _Shelf()
    part = shelf[:]
    part.append(Loud())
    return [x.run() for x in shelf.items]


def by_a_list_of_lists_added_to_what_json_gave_then_filled_through_the_sum() -> list[int]:
    given = json.loads("[]")
    rows = [[Calm()]]
    first = operator.getitem(rows + given, 0)
    first.append(Loud())
    return [x.run() for x in rows[0]]


def by_the_words_split_grown_by_their_own_operator_method() -> int:
    words = []
    words.__iadd__([Loud()])
    return words[0].run()  # type: ignore[no-any-return]


def by_a_view_of_the_words_split_taken_by_its_method_then_filled() -> list[int]:
    words: list[Any] = []
    view = words.__iter__()
    words.append(Loud())
    return [w.run() for w in view]


def by_a_copy_sharing_a_list_grown_in_place_through_the_copy() -> list[int]:
    rows = [[Calm()]]
    copied = rows[:]
    copied[0] += [Loud()]
    return [x.run() for x in rows[0]]


def kept_what_json_gave_sorted_in_place_and_tagged_by_a_local_function(text: str) -> list[str]:
    """Only reads: a list in what ``json.loads`` gave sorted by a key, text added to it."""
    given = json.loads(text)
    given["names"].sort(key=str.lower)

    def tag(record):  # type: ignore[no-untyped-def]
        record.setdefault("tags", []).append("seen")

    tag(given)
    return [n.upper() for n in given["names"]] + [t.upper() for t in given["tags"]]


def kept_what_json_gave_read_beside_the_app_objects(text: str, item: Calm) -> list[str]:
    """Only reads: what ``json.loads`` gave handed with an object to what only reads them."""
    given = json.loads(text)
    first = max(given, key=lambda name: str(item.run()) + name)
    print(given, item.run())
    found = given.get("k", item) if isinstance(given, dict) else None
    return [str(first), str(found)] + [n.lower() for n in given]


def kept_copies_of_what_json_gave_filled_with_the_app_objects(text: str) -> list[str]:
    """Only reads: copies of what ``json.loads`` gave, and a list of its parts, filled with an
    object: the original is read."""
    given = json.loads(text)
    copied = copy.copy(given)
    copied.append(Calm())
    sliced = given[:]
    sliced.append(Calm())
    parts = [given[0], given[1]]
    parts.append(Calm())
    return [n.upper() for n in given]


def by_a_list_named_by_a_walrus_inside_a_call_that_keeps_it() -> list[int]:
    groups = {"k": [[Calm()]]}
    groups["k"].append(named := [Calm()])
    named.append(Loud())
    return [x.run() for row in groups["k"] for x in row]


def by_the_values_of_a_defaultdict_starred_into_a_list_then_filled() -> list[int]:
    groups = defaultdict(list)
    groups["k"].append(Calm())
    values = [*groups.values()]
    values[0].append(Loud())
    return [x.run() for x in groups["k"]]


def by_the_rest_of_a_display_whose_own_part_is_starred() -> list[int]:
    more = (Loud(),)
    _, *rest = Calm(), *more
    return [x.run() for x in rest]


def by_a_counter_of_a_mapping_whose_values_are_not_counts() -> list[int]:
    counted = Counter({"a": Loud()})  # type: ignore[dict-item]
    return [v.run() for v in counted.values()]  # type: ignore[attr-defined]


def by_a_set_a_defaultdict_makes_updated_by_two_iterables() -> list[int]:
    groups = defaultdict(set)
    groups["k"].update([Calm()], [Loud()])
    return [x.run() for x in groups["k"]]


def by_the_lines_textwrap_gave_stored_by_setdefault_then_filled() -> list[int]:
    groups: dict[str, list[Any]] = {}
    groups.setdefault("k", textwrap.wrap("a b", 1)).append(Loud())
    return [line.run() for line in groups["k"] if not isinstance(line, str)]


class _Escaped:
    """What ``html.unescape`` gives back as it was given (there is no ``&`` in it)."""

    def __contains__(self, _: object) -> bool:
        return False

    def upper(self) -> str:
        os.system("echo upper")
        return ""


def by_what_html_unescape_gave_back_not_text() -> list[str]:
    return [s.upper() for s in [html.unescape(_Escaped())]]  # type: ignore[arg-type]


def kept_a_list_appended_to_through_another_name_and_read() -> list[str]:
    """Only reads: text appended through one name of a list, read through the other."""
    names = ["x"]
    same = names
    names.append("y")
    return [n.upper() for n in same]


class _Touchy:
    """Compared, or hashed, it reaches outside."""

    def __lt__(self, other: object) -> bool:
        os.system("echo lt")
        return False

    def __gt__(self, other: object) -> bool:
        os.system("echo gt")
        return False

    def __eq__(self, other: object) -> bool:
        os.system("echo eq")
        return False

    def __hash__(self) -> int:
        os.system("echo hash")
        return 1


def by_what_a_reduction_gives_back_handed_to_it_again() -> Any:
    return functools.reduce(lambda acc, x: acc.run() and Loud(), [Calm(), Calm(), Calm()])


def by_what_an_accumulation_starts_with() -> list[Any]:
    return list(itertools.accumulate([1, 2], lambda acc, x: acc.run() and Calm(), initial=Loud()))


def by_the_keys_a_sort_compares() -> list[str]:
    index = {"a": _Touchy(), "b": _Touchy()}
    return sorted(index, key=index.get)  # type: ignore[arg-type]


def by_the_items_a_search_compares() -> bool:
    found = [_Touchy()]
    return 1 in found


def by_what_a_set_looks_up_by_its_hash() -> list[Any]:
    seen = {1}
    return list(filter(seen.__contains__, [_Touchy()]))


def _grow_the_first_of_a_copy(rows):  # type: ignore[no-untyped-def]
    copied = sorted(rows, key=len)
    copied[0] += [Loud()]
    return 0


def by_a_caller_list_grown_in_place_through_a_helper_copy() -> list[int]:
    rows = [[Calm()]]
    _grow_the_first_of_a_copy(rows)
    return [x.run() for row in rows for x in row]


def _fill_through_a_tuple_of(rows):  # type: ignore[no-untyped-def]
    parts = tuple(rows)
    parts[0].append(Loud())
    return 0


def by_a_caller_list_filled_through_a_tuple_a_helper_made_of_it() -> list[int]:
    rows = [[Calm()]]
    _fill_through_a_tuple_of(rows)
    return [x.run() for row in rows for x in row]


def by_a_deque_a_copy_shares_grown_in_place_by_a_loop() -> list[int]:
    rows = [deque([Calm()])]
    copied = rows.copy()
    for row in copied:
        row += [Loud()]
    return [x.run() for row in rows for x in row]


class _Text(str):
    """Text whose ``upper`` reaches outside."""

    def upper(self) -> str:
        os.system("echo upper")
        return ""


class _Shown:
    def __str__(self) -> str:
        return _Text("x")


def by_text_quoted_as_it_was_given() -> list[str]:
    quoted = [shlex.quote(str(_Shown()))]
    return [q.upper() for q in quoted]


def by_a_part_of_what_json_gave_unpacked_then_filled() -> list[int]:
    given = json.loads('{"k": []}')
    part, _ = given["k"], 0
    part.append(Loud())
    return [x.run() for x in given["k"]]


def by_a_function_put_in_what_json_gave() -> int:
    given = json.loads("[]")
    given.append(lambda: Loud())
    return given[0]().run()


def by_a_method_put_in_what_json_gave() -> int:
    given = json.loads("{}")
    given["run"] = Loud().run
    return given["run"]()


def by_a_generator_filling_what_json_gave() -> list[int]:
    given = json.loads("[]")
    given.__init__(Loud() for _ in "x")
    return [x.run() for x in given]


def by_a_generator_given_with_what_json_gave() -> list[int]:
    given = json.loads("[]")
    list.extend(given, (Loud() for _ in "x"))
    return [x.run() for x in given]


def by_its_class_filling_what_json_gave() -> int:
    given = json.loads("[]")
    type(given).append(given, Loud())
    return given[0].run()


def by_the_default_of_the_largest() -> int:
    given = json.loads("[]")
    return max(given, default=Loud()).run()


def by_what_a_reduction_gave_back() -> int:
    return functools.reduce(lambda _, b: b, [Calm(), Loud()]).run()


def kept_text_generated_into_what_json_gave(n: int) -> list[str]:
    given = json.loads("[]")
    given.extend(str(i) for i in range(n))
    return [x.upper() for x in given]


def kept_the_largest_or_none(text: str) -> list[Any]:
    given = json.loads(text)
    largest = max(given, default=None)
    return [largest]


def by_a_copy_of_what_json_gave_filled_by_its_own_dunder() -> int:
    given = json.loads("[1]")
    copied = given.copy()
    copied.__setitem__(0, Loud())
    return copied[0].run()


def by_a_copy_of_what_json_gave_grown_by_its_own_dunder() -> int:
    given = json.loads("[]")
    copied = given.copy()
    copied.__iadd__([Loud()])
    return copied[0].run()


def kept_a_copy_of_what_json_gave_grown_with_text(text: str) -> list[str]:
    given = json.loads(text)
    copied = given.copy()
    copied.__iadd__(["more"])
    return [str(x).upper() for x in copied]
