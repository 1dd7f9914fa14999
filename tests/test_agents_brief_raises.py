"""A skill whose brief raises (the app's code) is told by `do` in a sentence, a `UserError`
naming the skill and the exception, with the app's exception chained and its traceback in the
log; no task is begun (the app's own exception came out of `do` as itself)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from signoff import Agent, App, NotFound, Skill, UserError
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel


class Summarise(Skill[None, str]):
    """A skill whose brief fails (a lookup of something not there)."""

    description = "Summarise the week."

    def brief(self, subject: None) -> str:
        raise KeyError("week")


class Clerk(Agent):
    """Summarises."""

    purpose = "You summarise."
    skills = [Summarise()]


def test_a_brief_that_raises_is_told_as_a_user_error_with_its_cause(
        caplog: pytest.LogCaptureFixture) -> None:
    """`do` raises `UserError` in a sentence; its cause is the brief's KeyError, whose
    traceback is logged; no task was stored."""
    app = App("t", database="sqlite://")
    app.add_agent(Clerk, sponsor=None)
    with pytest.raises(UserError) as told:
        app.agent(Clerk).do(Summarise(), None, model=ScriptedModel())
    assert str(told.value) == ("Summarise.brief raised KeyError, so the task was not begun: "
                               "mend the brief; the app's log has the traceback.")
    assert isinstance(told.value.__cause__, KeyError)
    assert "Traceback" in caplog.text
    assert "KeyError: 'week'" in caplog.text
    with app.database.reading() as db:
        assert db.scalar(select(func.count()).select_from(tasks)) == 0
    app.database.dispose()


class SummariseAWeek(Skill[None, str]):
    """A skill whose brief refuses its subject in the app's own words."""

    description = "Summarise a week."

    def brief(self, subject: None) -> str:
        raise NotFound("There is no such week.")


class WeekClerk(Agent):
    """Summarises a week."""

    purpose = "You summarise weeks."
    skills = [SummariseAWeek()]


def test_a_brief_that_refuses_in_the_apps_words_is_told_in_them() -> None:
    """A refusal of signoff's kinds (the app's words for a subject it will not take) comes out
    as it was raised, not as the brief's failure."""
    app = App("t", database="sqlite://")
    app.add_agent(WeekClerk, sponsor=None)
    with pytest.raises(NotFound, match="There is no such week"):
        app.agent(WeekClerk).do(SummariseAWeek(), None, model=ScriptedModel())
    app.database.dispose()
