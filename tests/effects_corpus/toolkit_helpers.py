"""Helpers the toolkits' tools call from another module: ones that only read and format, and
ones that write where the tool that calls them does not show it."""

from __future__ import annotations

import datetime
import heapq
from collections.abc import Iterable
from decimal import Decimal
from operator import attrgetter

from tests.effects_corpus.environment import (
    BankAccount,
    CalendarEvent,
    CloudFile,
    Email,
    Hotel,
    Inbox,
    Message,
    Slack,
    Transaction,
)

# --- reading ----------------------------------------------------------------------------------


def email_line(email: Email) -> str:
    """One email as a line."""
    when = email.timestamp.strftime("%Y-%m-%d %H:%M")
    return f"[{email.status.value}] {when} {email.sender}: {email.subject.strip()}"


def event_line(event: CalendarEvent) -> str:
    """One event as a line."""
    place = f" at {event.location}" if event.location else ""
    return f"{event.start_time.isoformat()}–{event.end_time.time().isoformat()} {event.title}{place}"


def overlapping(events: Iterable[CalendarEvent], start: datetime.datetime,
                end: datetime.datetime) -> list[CalendarEvent]:
    """The events that overlap [start, end)."""
    return [e for e in events if e.start_time < end and start < e.end_time]


def newest_first(emails: list[Email]) -> list[Email]:
    """The emails, newest first (a sorted copy)."""
    return sorted(emails, key=attrgetter("timestamp"), reverse=True)


def matches(file: CloudFile, words: list[str]) -> bool:
    """Whether a file holds every word."""
    text = file.content.casefold()
    return all(w.casefold() in text for w in words)


def total(transactions: Iterable[Transaction]) -> Decimal:
    """The sum of the amounts."""
    return sum((t.amount for t in transactions), Decimal(0))


def best_rated(hotels: list[Hotel], count: int) -> list[Hotel]:
    """The `count` best-rated hotels."""
    return heapq.nlargest(count, hotels, key=lambda h: h.rating)


def message_text(messages: list[Message]) -> str:
    """Messages as text."""
    return "\n".join(f"{m.sender}: {m.body}" for m in messages)


def contact_of(inbox: Inbox, name: str) -> str | None:
    """The address of a contact, if there is one by that name."""
    for contact in inbox.contacts:
        if contact.name.lower() == name.lower():
            return contact.email
    return None


# --- writing, out of the tool's sight ------------------------------------------------------------


def mark_read(email: Email) -> None:
    """Mark an email read (a change of the inbox it belongs to)."""
    email.read = True


def file_away(inbox: Inbox, email: Email) -> None:
    """Put an email in the mailbox."""
    inbox.emails.__setitem__(email.id_, email)


def record_payment(account: BankAccount, transaction: Transaction) -> None:
    """Book a payment on the account."""
    account.transactions.append(transaction)
    account.balance -= transaction.amount


def stamp(file: CloudFile) -> None:
    """Touch a file."""
    setattr(file, "last_modified", datetime.datetime.now())  # noqa: B010  (the corpus writes through setattr on purpose)


def post(slack: Slack, channel: str, message: Message) -> None:
    """Post a message in a channel."""
    slack.channel_inbox.setdefault(channel, []).append(message)


def enrol(slack: Slack, user: str, channel: str) -> None:
    """Add a user to a channel."""
    channels = slack.user_channels.get(user)
    if channels is not None:
        channels.append(channel)


class Ledger:
    """A view of an account's scheduled payments by id; assigning through it changes them."""

    def __init__(self, account: BankAccount) -> None:
        self.account = account

    def __getitem__(self, key: int) -> Transaction:
        return next(t for t in self.account.scheduled if t.id == key)

    def __setitem__(self, key: int, transaction: Transaction) -> None:
        kept = [t for t in self.account.scheduled if t.id != key]
        self.account.scheduled[:] = [*kept, transaction]


class Venue:
    """An event's place, with a property whose setter writes through to the event."""

    def __init__(self, event: CalendarEvent) -> None:
        self._event = event

    @property
    def where(self) -> str | None:
        """The event's place."""
        return self._event.location

    @where.setter
    def where(self, place: str) -> None:
        self._event.location = place
