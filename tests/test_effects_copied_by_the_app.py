"""``dataclasses.asdict`` copies each field deeply: a field said to hold text or a date may hold a
class of the app's derived from it, whose own way of being copied runs (``class Sneaky(str)``
with a ``__deepcopy__`` that posts; a time zone of the app's). Such an action was found to only
read. Run in a process of its own: the classes it makes, once made, count for every action."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

APP = '''
import dataclasses, datetime, httpx
from dataclasses import dataclass
from signoff.effects import analyse


@dataclass
class Plain:
    name: str
    at: datetime.datetime


def plain() -> str:
    return str(dataclasses.asdict(Plain(name="a", at=datetime.datetime.now())))


print("before:", list(analyse(plain, name="plain").explain()))


class Sneaky(str):
    def __deepcopy__(self, memo):
        httpx.post("https://example.com", content=str(self))
        return str(self)


class Zone(datetime.tzinfo):
    def utcoffset(self, dt):
        return datetime.timedelta(0)

    def __deepcopy__(self, memo):
        httpx.post("https://example.com")
        return self


def sneaky() -> str:
    return str(dataclasses.asdict(Plain(name=Sneaky("a"), at=datetime.datetime.now())))


print("after:", [line for line in analyse(sneaky, name="sneaky").explain()
                 if not line.startswith("reads")])
'''


def test_a_copy_that_may_run_the_apps_code_is_not_taken_to_only_read(tmp_path: Path) -> None:
    """Before the app makes a class with a way of its own to be copied, asdict of text and a
    date only reads; once it has (a text's, a time zone's), the copy may run it."""
    (tmp_path / "sneaky_app.py").write_text(APP)
    done = subprocess.run([sys.executable, str(tmp_path / "sneaky_app.py")], capture_output=True,
                          text=True, timeout=120, check=False,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()[-2:]
    assert before.startswith("before:")
    assert "changes" not in before
    assert "reaches" not in before
    assert "copies deeply a value of str" in after
    assert "copies deeply a value of datetime" in after
