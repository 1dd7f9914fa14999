"""`signoff lint` reads an action declared inside a function as its effects were read: with the
names local to where it was declared (under ``from __future__ import annotations`` its parameter
types are text, which only those names resolve), so what a parameter's own method raises is found."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from signoff import App
from signoff.cli.actions import lint


def test_lint_follows_a_local_parameter_type(tmp_path: Path) -> None:
    """The ValueError an order's check raises is found through `order: Order`, a local class."""
    app = App("lintlocal", database=f"sqlite:///{tmp_path / 'l.db'}")

    class Order(BaseModel):
        n: int

        def check(self) -> None:
            if self.n < 0:
                raise ValueError("negative")

    @app.action("Take an order")
    def take(order: Order) -> str:
        order.check()
        return "ok"

    found = [f.message for f in lint(app)]
    assert any("ValueError" in m for m in found), found
