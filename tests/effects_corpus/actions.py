"""Corpus actions, one per case; `tests/test_effects.py` holds what each is expected to do."""

from __future__ import annotations

import dataclasses
import datetime
import http.client
import json
import math
import os
import random
import shutil
import smtplib
import socket
import subprocess
import urllib.request
import uuid
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import inflection
import pydantic
from mcp import Client
from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from signoff.actions.declare import ActionFunction, ActionOptions
from signoff.effects import sends
from signoff.exceptions import Invalid
from tests.effects_corpus import helpers
from tests.effects_corpus.helpers import AuditFile, Notifier, Shape, post_it, requests
from tests.effects_corpus.records import Repair

COUNTER = 0
CACHE: dict[str, int] = {}
HANDLERS: dict[str, Callable[[], None]] = {"ping": lambda: post_it("ping")}


class Box:
    """A plain object with a value."""

    def __init__(self, value: int) -> None:
        self.value = value


@dataclasses.dataclass
class Point:
    """A dataclass."""

    x: int
    y: int


class Model(pydantic.BaseModel):
    """A pydantic model with a pure validator."""

    name: str

    @pydantic.field_validator("name")
    @classmethod
    def tidy(cls, value: str) -> str:
        """Pure."""
        return value.strip()


class Node:
    """A tree."""

    def __init__(self) -> None:
        self.seen = False
        self.children: list[Node] = []


# --- pure ---------------------------------------------------------------------------------------


def add_numbers(a: int, b: int) -> int:
    return a + b


def format_title(title: str) -> str:
    return title.strip().title()


def use_json(data: dict[str, int]) -> str:
    return json.dumps(data, sort_keys=True)


def fresh_list(n: int) -> list[int]:
    out = []
    for i in range(n):
        out.append(i * i)
    out.sort(reverse=True)
    return out


def math_and_dates(x: float) -> str:
    return f"{math.sqrt(x):.2f} {datetime.date(2024, 1, 1).isoformat()} {uuid.uuid4()}"


def read_file(path: str) -> str:
    with open(path) as f:
        return f.read()


def read_file_binary(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def path_read(path: Path) -> str:
    return path.read_text()


def slug(title: str) -> str:
    return inflection.underscore(inflection.camelize(title))


def print_only(x: int) -> None:
    print(x)


def callback_local() -> list[int]:
    return sorted([3, 1, 2], key=lambda v: -v)


def callback_map_known(items: list[str]) -> list[str]:
    return list(map(helpers.shout, items))


def recursive_fact(n: int) -> int:
    return 1 if n <= 1 else n * recursive_fact(n - 1)


def fresh_helper_mutation() -> list[str]:
    out: list[str] = []
    helpers.fill(out)
    return out


def pydantic_model(data: dict[str, Any]) -> Model:
    return Model(**data)


def dataclass_make(x: int) -> Point:
    return Point(x, 0)


def pure_override(square: helpers.Square) -> float:
    return square.area()


def annotated_param(title: Annotated[str, "a title"]) -> str:
    return title.lower()


# --- reads --------------------------------------------------------------------------------------


def read_repair(repair: Repair) -> str:
    return f"{repair.title}: {repair.price}"


def read_repair_method(repair: Repair) -> str:
    return repair.describe()


def get_repair(session: Session, repair_id: uuid.UUID) -> Repair | None:
    return session.get(Repair, repair_id)


def list_repairs(session: Session) -> list[Repair]:
    return list(session.scalars(select(Repair).where(Repair.price > 10)))


def count_sql(session: Session) -> int:
    return int(session.execute(text("SELECT count(*) FROM repair")).scalar_one())


def through_pure_helper(repair: Repair) -> str:
    return helpers.describe(repair)


def quiet_method(notifier: Notifier, repair: Repair) -> str:
    return notifier.quiet(repair)


def constant_getattr(repair: Repair) -> object:
    return getattr(repair, "title")  # noqa: B009 - a constant name is the case under test


# --- changes ------------------------------------------------------------------------------------


def set_price(repair: Repair, price: int) -> None:
    repair.price = price


def bump_price(repair: Repair) -> None:
    repair.price += 1


def alias_change(repair: Repair) -> None:
    r = repair
    r.title = "renamed"


def create_repair(session: Session, title: str) -> Repair:
    repair = Repair(title=title, price=0)
    session.add(repair)
    return repair


def delete_repair(session: Session, repair: Repair) -> None:
    session.delete(repair)


def sql_update(session: Session) -> None:
    session.execute(text("UPDATE repair SET price = 0"))


def sql_delete_raw(session: Session) -> None:
    session.execute(text("DELETE FROM audit_log WHERE age > 30"))


def sql_insert(session: Session) -> None:
    session.execute(text("INSERT INTO repair (title) VALUES ('x')"))


def sql_unknown_text(session: Session, statement: str) -> None:
    session.execute(text(statement))


def orm_update(session: Session) -> None:
    session.execute(update(Repair).values(price=1))


def loaded_change(session: Session, repair_id: uuid.UUID) -> None:
    repair = session.get(Repair, repair_id)
    if repair is not None:
        repair.price = 5


def loop_change(repairs: list[Repair]) -> None:
    for repair in repairs:
        repair.status = "checked"


def session_unknown_method(session: Session) -> None:
    session.bulk_save_objects([])


def mutate_param_list(items: list[str]) -> None:
    items.append("x")


def mutate_param_dict(d: dict[str, int]) -> None:
    d["k"] = 1


def del_param_key(d: dict[str, int]) -> None:
    del d["k"]


def setattr_param(box: Box) -> None:
    setattr(box, "value", 3)  # noqa: B010 - setattr itself is the case under test


def nested_param_change(boxes: dict[str, Box]) -> None:
    boxes["a"].value = 2


def global_counter() -> int:
    global COUNTER
    COUNTER += 1
    return COUNTER


def global_dict_write(key: str) -> None:
    CACHE[key] = 1


def module_attr_write() -> None:
    helpers.ENABLED = False


def change_through_helper(repair: Repair) -> None:
    helpers.rename(repair, "new")


def change_through_unannotated_helper(repair: Repair) -> None:
    helpers.touch(repair)


def method_on_record(repair: Repair) -> None:
    repair.close()


def param_helper_mutation(items: list[str]) -> None:
    helpers.fill(items)


def dataclass_param_change(p: Point) -> None:
    p.x = 1


def local_closure_change(items: list[str]) -> None:
    def add(value: str) -> None:
        items.append(value)

    add("x")


def random_shuffle(items: list[int]) -> None:
    random.shuffle(items)


def mutable_default(items: list[int] = []) -> None:  # noqa: B006 - the shared default is the case
    items.append(1)


def recursive_walk(node: Node) -> None:
    node.seen = True
    for child in node.children:
        recursive_walk(child)


# --- outside reach ------------------------------------------------------------------------------


def notify(repair: Repair) -> None:
    helpers.post_it(repair.title)


def method_on_annotated_param(notifier: Notifier, repair: Repair) -> None:
    notifier.notify(repair)


async def call_mcp_tool(client: Client, name: str) -> str:
    answer = await client.call_tool("lookup", {"name": name})
    return str(answer.structured_content)


def open_socket() -> None:
    socket.create_connection(("example.org", 80))


def fetch_url() -> bytes:
    return urllib.request.urlopen("https://example.org").read()


def http_client() -> None:
    http.client.HTTPSConnection("example.org")


def send_mail() -> None:
    with smtplib.SMTP("localhost") as server:
        server.sendmail("a@example.org", ["b@example.org"], "hello")


def run_process() -> None:
    subprocess.run(["ls"], check=True)


def os_system() -> None:
    os.system("ls")


def write_file(path: str) -> None:
    with open(path, "w") as f:
        f.write("x")


def open_with_mode(path: str, mode: str) -> None:
    open(path, mode).close()


def path_write(path: Path) -> None:
    path.write_text("x")


def remove_file(path: str) -> None:
    os.remove(path)


def copy_tree(source: str, target: str) -> None:
    shutil.copytree(source, target)


def requests_get() -> None:
    requests.get("https://example.org")


def callback_map_effect(items: list[str]) -> None:
    list(map(helpers.post_it, items))


def constructor_effect(path: str) -> None:
    AuditFile(path)


def context_manager_helper() -> None:
    with helpers.temp_dir() as where:
        print(where)


def decorated_helper(message: str) -> None:
    helpers.decorated_post(message)


def subclass_override(shape: Shape) -> float:
    return shape.area()


def mutual_a(n: int) -> None:
    if n > 0:
        mutual_b(n - 1)


def mutual_b(n: int) -> None:
    post_it("b")
    mutual_a(n)


# --- declared -----------------------------------------------------------------------------------


def text_customer(repair: Repair) -> None:
    helpers.sms("+100", repair.title)


def charge_card(amount: int) -> int:
    return helpers.charge(amount)


@sends
def declared_action(message: str) -> str:
    return message


# --- cannot be seen -----------------------------------------------------------------------------


def dynamic_dispatch(handler, x: int) -> None:  # type: ignore[no-untyped-def]
    handler.run(x)


def callback_param(callback: Callable[[int], int]) -> int:
    return callback(1)


def computed_getattr(repair: Repair, field: str) -> object:
    return getattr(repair, field)


def eval_code(source: str) -> object:
    return eval(source)


def dict_dispatch(kind: str) -> None:
    HANDLERS[kind]()


def c_outside_allowlist(data: bytes) -> bytes:
    return zlib.compress(data)


def callback_to_helper(items: list[int], fn) -> list[int]:  # type: ignore[no-untyped-def]
    return sorted(items, key=fn)


wrapped_set_price = ActionFunction(set_price, ActionOptions())
"""The object signoff wraps an action in: it carries ``__wrapped__``, and only calls it."""


class AuditedCall:
    """A decorator made of a class: its ``__call__`` runs, whatever ``__wrapped__`` says."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.__wrapped__ = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        os.system("logger called")
        return self.__wrapped__(*args, **kwargs)


audited_set_price = AuditedCall(set_price)


def call_an_audited_helper(repair: Repair, price: int) -> None:
    audited_set_price(repair, price)


# --- raising ------------------------------------------------------------------------------------


def raise_directly(amount: int) -> None:
    if amount < 0:
        raise ValueError("negative")


def raise_refusal(amount: int) -> None:
    if amount < 0:
        raise Invalid("The amount must not be negative.")


def raise_through_helper(count: int) -> None:
    helpers.check_stock(count)


def raise_caught(count: int) -> None:
    try:
        helpers.check_stock(count)
    except helpers.OutOfStock:
        return


def raise_reraised(count: int) -> None:
    try:
        helpers.check_stock(count)
    except helpers.OutOfStock:
        print("out of stock")
        raise


def raise_caught_other(count: int) -> None:
    try:
        helpers.check_stock(count)
    except KeyError:
        return


class Shelf:
    """A container whose item access, storing and iteration run code that reaches outside."""

    def __getitem__(self, key: str) -> str:
        post_it(f"read {key}")
        return key

    def __setitem__(self, key: str, value: str) -> None:
        helpers.post_it(f"{key}={value}")

    def __iter__(self) -> Any:
        post_it("listed")
        return iter(())


def item_of_a_shelf(shelf: Shelf) -> str:
    return shelf["a"]


def store_on_a_shelf(key: str) -> None:
    shelf = Shelf()
    shelf[key] = "x"


def list_a_shelf(shelf: Shelf) -> list[str]:
    return [x for x in shelf]
