"""A class reached from one of its objects (``type(x)``): its methods are the class's own code,
which runs as it is called. Each ``by_`` function reaches outside (``os.system``) only through
a method called that way (it was taken to only read); each ``kept_`` function only reads."""

from __future__ import annotations

import os


class Stored:
    """A record whose class's methods store it."""

    def save(self) -> None:
        os.system("echo save")

    @classmethod
    def make(cls) -> Stored:
        os.system("echo make")
        return cls()

    def save_again(self) -> None:
        type(self).save(self)

    def copied(self) -> Stored:
        return type(self).make()

    def kind(self) -> str:
        return type(self).__name__


class Dated(Stored):
    """Derives it, and has its own ``make``."""


def by_its_class_method_called_on_itself() -> None:
    Stored().save_again()


def by_a_class_method_of_its_class() -> Stored:
    return Stored().copied()


def by_the_class_of_what_was_given(item: Stored) -> Stored:
    return type(item).make()


def by_the_class_of_a_derived_one(item: Dated) -> None:
    type(item).save(item)


def kept_the_name_of_its_class(item: Stored) -> str:
    return item.kind().upper()


class Labelled:
    """Its method only computes."""

    def label(self) -> str:
        return "labelled"


def kept_a_method_of_its_class(item: Labelled) -> str:
    return type(item).label(item).upper()
