"""Mia, Noor and ticket T-7 in the shop, and a way to start the estimator on it (found, when an
earlier page's code made them in this folder's shop.db)."""
from sqlalchemy import select

from signoff.testing import ScriptedModel, says

mia = app.people.find("mia@shop.example") or app.people.add("mia@shop.example", "Mia", roles=["mechanic"])
noor = app.people.find("noor@shop.example") or app.people.add("noor@shop.example", "Noor", roles=["manager"])
with app.session(as_=mia) as s:
    repair = s.scalars(select(Repair).where(Repair.ticket == "T-7")).first()
    if repair is None:
        repair = Repair(ticket="T-7", fault="rear brake does not bite")
        s.add(repair)


def estimate(*turns: object) -> str:
    """Start the estimator on T-7 for Mia with a scripted model; the task's id."""
    return app.agent(Estimator).do(EstimateRepair(), repair, for_=mia, model=ScriptedModel(*turns)).task
