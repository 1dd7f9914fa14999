"""One app deployed twice on one SQLite file — its source written out and loaded as the app's
file is, then written again changed — for the tests of what a standing rule stands for: the
labeller's app, whose `label` action and agent both deployments keep."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

from signoff import TaskStatus
from signoff.testing import ScriptedModel, says

__all__ = ["deployed", "label", "labeller_source", "ruled_alone"]


def deployed(tmp: Path, version: str, source: str) -> dict[str, Any]:
    """`source` written to `tmp`/`version`.py and run as the app's file: what it defines."""
    path = tmp / f"{version}.py"
    path.write_text(source)
    return runpy.run_path(str(path))


def label(app_module: dict[str, Any], shelf_id: Any, text: str) -> Any:
    """The labeller's task for Mia: label the shelf `shelf_id` with `text`, then hand back."""
    app = app_module["app"]
    mia = app.people.find("mia@x.example")
    with app.session(as_=app.system) as session:
        shelf = session.get(app_module["Shelf"], shelf_id)
    model = ScriptedModel(says.tool(app_module["label"], shelf=shelf_id, text=text),
                          says.hand_back(app_module["Out"](ok=True)))
    return app.agent(app_module["Labeller"]).do(app_module["Labelling"](), shelf, for_=mia,
                                                model=model)


_LABELLER_HEAD = '''
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column
from signoff import Agent, App, Permits, Skill, allow, policy
{imports}

app = App("{name}", database="sqlite:///{database}", key=b"g" * 32)
app.oversight.supervises_agents = policy.role("manager")


class Out(BaseModel):
    ok: bool


class Shelf(app.Record):
    label: Mapped[str] = mapped_column(String(80), default="")
    __security__ = [allow("read", "update", "create", when=policy.anyone)]

'''

_LABELLER_TAIL = '''

class Labelling(Skill[Shelf, Out]):
    description = "Label a shelf."
    tools = [label]

    def brief(self, shelf: Shelf) -> str:
        return f"Shelf {shelf.id}."


class Labeller(Agent):
    purpose = "You label shelves."
    skills = [Labelling()]
    may = Permits()
    roles = ["bot"]


app.add_agent(Labeller, sponsor="noor@x.example")
'''


def labeller_source(*, name: str, database: Path, imports: str, tool: str) -> str:
    """The labeller's app file: app `name` on the SQLite file `database` (managers supervise
    agents), a Shelf anyone may label, `tool` (the source of the `label` action, and what it
    uses: more `imports`), a skill labelling a shelf with it, and the Labeller agent (role
    "bot", proposing everything) Noor sponsors."""
    return (_LABELLER_HEAD.format(imports=imports, name=name, database=database) + tool
            + _LABELLER_TAIL)


def ruled_alone(app_module: dict[str, Any]) -> tuple[Any, Any]:
    """On a first deployment: Noor (a manager) and Mia, a shelf, Mia's standing rule letting the
    labeller label alone, and a first label that ran alone under it; its database let go.
    The shelf's id, and the rule."""
    app = app_module["app"]
    app.people.add("noor@x.example", "Noor", roles=["manager"])
    mia = app.people.add("mia@x.example", "Mia", roles=[])
    with app.session(as_=app.system) as session:
        shelf = app_module["Shelf"]()
        session.add(shelf)
    rule = app.allow_alone("labeller", "label", by=mia)
    assert label(app_module, shelf.id, "one").status is TaskStatus.DONE
    app.database.dispose()
    return shelf.id, rule
