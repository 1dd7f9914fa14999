"""One app deployed twice on one SQLite file — its source written out and loaded as the app's
file is, then written again changed — for the tests of what a standing rule stands for: the
labeller's app, whose `label` action and agent both deployments keep."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

from signoff.testing import ScriptedModel, says

__all__ = ["deployed", "label"]


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
