"""A password is what a person types at the login form: one with a line break, which a
browser's password field cannot hold (it drops it, or makes it a space), is refused when it is
set, rather than set and never matched; what the field does hold (a tab, a space at either end)
logs in, in a real Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from playwright.sync_api import Browser

from signoff import UserError
from signoff.cli import main
from tests.workshop_web import PASSWORD, open_workshop, served_shop

APP = ["--app", "examples/workshop.py"]


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop with passwords, served by uvicorn on 127.0.0.1."""
    with served_shop(open_workshop(tmp_path, monkeypatch, passwords=True)) as shop:
        yield shop


@pytest.mark.parametrize("password", ["pedal\ncrank-17", "pedal\rcrank-17", "pedal-crank-17\r\n"])
def test_a_password_with_a_line_break_is_refused(shop: SimpleNamespace, password: str) -> None:
    """set_password refuses it, saying why; the password Ola had still works."""
    with pytest.raises(UserError, match="A password is one line"):
        shop.app.credentials.set_password(shop.ola, password)
    assert shop.app.credentials.check_password("ola@workshop.example", PASSWORD) == shop.ola


def test_users_password_refuses_a_line_break_given_with_password(shop: SimpleNamespace) -> None:
    """`signoff users password HANDLE --password` with a line break in it sets nothing and says
    why (it used to say "Ola's password is set.")."""
    done = CliRunner().invoke(main, ["users", "password", "ola@workshop.example", "--password",
                                     "pedal\ncrank-17", *APP])
    assert done.exit_code != 0, done.output
    assert "A password is one line" in " ".join(done.output.split())
    assert shop.app.credentials.check_password("ola@workshop.example", PASSWORD) == shop.ola


@pytest.mark.parametrize("password", ["pedal\tcrank-17", " pedal-crank-17 "])
def test_what_a_password_field_holds_logs_in_in_a_browser(shop: SimpleNamespace,
                                                         browser: Browser, password: str) -> None:
    """A password with a tab, or a space at either end, is set, typed into Chromium's login
    form, and opens the inbox."""
    shop.app.credentials.set_password(shop.ola, password)
    page = browser.new_page()
    try:
        page.goto(f"{shop.url}/login")
        page.fill("input[name=handle]", "ola@workshop.example")
        page.fill("input[name=password]", password)
        with page.expect_navigation():
            page.click("form[action='/login'] button")
        assert page.url == f"{shop.url}/"
    finally:
        page.close()
