"""`signoff rules revoke` says what is true after it: the agent proposes the tool again only
when no other standing rule stands where the one taken back did (docs/how-to/cli.md)."""

from __future__ import annotations

from types import SimpleNamespace

from tests.test_cli_people import _login, cli, shop

__all__ = ["shop"]  # (the fixture, used by name)


def test_revoking_a_rule_another_still_covers_says_the_other_stands(
        shop: SimpleNamespace) -> None:
    """Noor's rule for her own work is taken back while her rule for everybody's work stands:
    the command names the one that stands (it said the agent proposes the tool again, which
    it did not: it ran it alone under the other); once that one goes too, it says so."""
    _login("noor@workshop.example")
    own = shop.app.allow_alone("estimator", shop.set_price, by=shop.noor)
    everybody = shop.app.allow_alone("estimator", shop.set_price, by=shop.noor,
                                     for_everybody=True)
    code, out = cli("rules", "--as", "noor@workshop.example", "revoke", own.id)
    assert code == 0, out
    assert " ".join(out.split()) == (
        "Revoked. Another standing rule stands where this one did: from now on estimator runs "
        "set_price alone, without proposing it, in any of its skills, in work for everybody — "
        f"with any values (rule {everybody.id}). Revoke it too for estimator to propose "
        "set_price there.")
    code, out = cli("rules", "--as", "noor@workshop.example", "revoke", everybody.id)
    assert (code, out.strip()) == (0, "Revoked: estimator proposes set_price again.")
