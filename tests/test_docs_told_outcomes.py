"""What the documentation says of an outcome or an error is what the code does."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

import signoff
from signoff import ActionOutcome, App, SignoffError, allow, policy
from signoff.models import errors as model_errors

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _sentence_on(page: Path, start: str) -> str:
    """The sentence of `page` that begins with `start`, its lines joined."""
    text = " ".join(page.read_text().split())
    found = re.search(re.escape(start) + r".*?\.[\")]*(?=\s|$)", text)
    assert found, f"{page.name} no longer says {start!r}: correct this test."
    return found[0]


def test_an_unreadable_record_is_told_as_the_run_tells_it(tmp_path: Path) -> None:
    """A record the caller may not read, named in an action's values, is refused as the actions
    page says: the run's outcome is the one its sentence names."""
    app = App("told", database=f"sqlite:///{tmp_path / 'told.db'}")
    gardener = policy.role("gardener")

    class Bed(app.Record):
        name: Mapped[str] = mapped_column(String(40))
        crop: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "create", "update", when=gardener)]

    @app.action("Sow a bed")
    def sow(bed: Bed, crop: str) -> str:
        """Sow a crop in a bed."""
        bed.crop = crop
        return crop

    ada = app.people.add("ada@garden.example", "Ada", roles=["gardener"])
    bob = app.people.add("bob@garden.example", "Bob", roles=[])
    with app.session(as_=ada) as s:
        bed = Bed(name="North bed")
        s.add(bed)

    result = app.actions.run("sow", {"bed": bed, "crop": "beans"}, as_=bob)
    assert result.outcome is ActionOutcome.GONE
    told = _sentence_on(DOCS / "concepts" / "actions.md",
                        "A record its values name that the caller may not read")
    named = {o for o in ActionOutcome if f"`{o.value}`" in told}
    assert named == {result.outcome}, told


def test_the_errors_page_says_where_each_error_is_imported_from() -> None:
    """Every error signoff raises derives from SignoffError, and is importable from where the
    errors page says: the library's from signoff, a model's from signoff.models."""
    said = _sentence_on(DOCS / "reference" / "errors.md", "Every exception signoff")
    for module, where in [(signoff.exceptions, "`signoff`"), (model_errors, "`signoff.models`")]:
        home = signoff if where == "`signoff`" else signoff.models
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                assert issubclass(cls, SignoffError), name
                assert getattr(home, name, None) is cls, f"{name} is not importable from {where}"
        assert f"from {where}" in said, said
