"""Effects as actions see them: the names of `signoff.effects`, where actions have always found
them (``from signoff.actions.effects import sends``)."""

from signoff.effects import Effect, EffectKind, Effects, RaiseSite, analyse, raises, sends, spends

__all__ = ["Effect", "EffectKind", "Effects", "RaiseSite", "analyse", "raises", "sends", "spends"]
