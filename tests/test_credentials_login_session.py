"""A login makes its session in the transaction that finds the password still the person's: a
new password set at that moment (an admin who knows the old one leaked) ends that session too.
On SQLite and PostgreSQL.

(Found in review: the web login checked the password, then made the session in a transaction
of its own. A new password set in between ended the person's sessions before this one
existed: the login with the leaked password kept its session for its whole twelve hours.)
"""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher

from signoff import App, UserError
from signoff.store import points

OLD, NEW = "an old password, leaked", "a new password, kept"


@pytest.fixture(params=["sqlite", "postgres"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    url = (f"sqlite:///{tmp_path / 'people.db'}" if request.param == "sqlite"
           else request.getfixturevalue("postgres_database"))
    app = App("people", database=url)
    app.credentials.use_hasher(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    person = app.people.add("ann@people.example", "Ann")
    app.credentials.set_password(person, OLD)
    yield app
    app.database.dispose()


def test_a_new_password_set_as_a_login_makes_its_session_ends_that_session(app: Any) -> None:
    """The login has found the old password still Ann's and is about to store its session when
    an admin sets a new one: the new password waits for the login, then ends its session."""
    setting: list[threading.Thread] = []

    def admin_sets_a_new_password(point: str, where: dict[str, Any]) -> None:
        if point == "login.checked" and not setting:
            thread = threading.Thread(target=app.credentials.set_password,
                                      args=("ann@people.example", NEW))
            setting.append(thread)
            thread.start()
            thread.join(timeout=2)  # (it is stored at once, were it let: the hash is quick)

    with points.pausing(admin_sets_a_new_password):
        logged = app.credentials.log_in("ann@people.example", OLD,
                                        expires_in=timedelta(hours=12))
    setting[0].join(timeout=30)
    assert logged is not None  # (the password was Ann's as it was checked)
    person, token = logged
    assert person.handle == "ann@people.example"
    assert app.credentials.principal_for_token(token) is None  # ended by the new password
    assert app.credentials.check_password("ann@people.example", NEW) is not None



@pytest.mark.parametrize("expires_in", [None, 3600, timedelta(0), timedelta(days=-1),
                                        timedelta(days=10**6)])
def test_a_login_given_an_odd_lifetime_is_refused_in_a_sentence(app: Any, expires_in: Any
                                                                ) -> None:
    """A session's lifetime that is no timedelta, none at all or beyond a year is refused in
    words before the password is checked, and no session is made."""
    with pytest.raises(UserError, match="expires in a timedelta of up to a year"):
        app.credentials.log_in("ann@people.example", OLD, expires_in=expires_in)
    assert all(t.label != "web session" for t in app.credentials.tokens("ann@people.example"))
