"""Tools that change something, in the shapes real toolkits write them, many with the write out of
sight: behind helpers in another module, methods of the environment, ``setattr``, mutating
container methods, ``__setitem__``, properties with setters, sessions and the outside world.
`tests/test_effects.py` expects none of them to be found to only read."""

from __future__ import annotations

import datetime
import functools
import heapq
import random
import shutil
import smtplib
import uuid
from decimal import Decimal
from pathlib import Path

from sqlalchemy import delete, select, update

from signoff.exceptions import NotFound
from tests.effects_corpus import toolkit_helpers as helpers
from tests.effects_corpus.environment import (
    Account,
    Cal,
    Chat,
    CloudFile,
    Db,
    Drive,
    Email,
    EmailStatus,
    EventStatus,
    Holder,
    MailBox,
    Message,
    Pages,
    Reservation,
    ReservationKind,
    Transaction,
    Trip,
)
from tests.effects_corpus.helpers import httpx, post_it
from tests.effects_corpus.records import Customer, Repair

SENT_LOG: list[str] = []

# --- mail ---------------------------------------------------------------------------------------


def send_email(inbox: MailBox, recipients: list[str], subject: str, body: str) -> str:
    """Send an email (kept in the mailbox by the environment's own method)."""
    return inbox.send(recipients, subject, body).id_


def delete_email(inbox: MailBox, email_id: str) -> str:
    """Delete an email."""
    return inbox.delete(email_id).subject


def mark_as_read(inbox: MailBox, email_id: str) -> None:
    """Mark an email read, through a helper."""
    helpers.mark_read(inbox.emails[email_id])


def mark_all_read(inbox: MailBox) -> int:
    """Mark every email read."""
    count = 0
    for email in inbox.emails.values():
        email.read = True
        count += 1
    return count


def save_draft(inbox: MailBox, subject: str, body: str) -> str:
    """Keep a draft, through a helper's ``__setitem__``."""
    draft = Email(id_=uuid.uuid4().hex, sender=inbox.account_email, recipients=[], subject=subject,
                  body=body, status=EmailStatus.DRAFT, timestamp=datetime.datetime.now())
    helpers.file_away(inbox, draft)
    return draft.id_


def add_contact(inbox: MailBox, name: str, email: str) -> None:
    """Add a contact."""
    from tests.effects_corpus.environment import Contact

    inbox.contacts.append(Contact(name=name, email=email))


def forget_contacts_at(inbox: MailBox, domain: str) -> None:
    """Remove the contacts of a domain, in place."""
    inbox.contacts[:] = [c for c in inbox.contacts if not c.email.endswith(domain)]


def relabel_email(inbox: MailBox, email_id: str, field: str, value: str) -> None:
    """Set any field of an email."""
    setattr(inbox.emails[email_id], field, value)


def send_smtp(to: str, body: str) -> None:
    """Send through a mail server."""
    with smtplib.SMTP("localhost") as server:
        server.sendmail("me@example.org", [to], body)


def forward_email(inbox: MailBox, email_id: str, to: str) -> str:
    """Forward an email, out of the toolkit."""
    email = inbox.emails[email_id]
    post_it(f"{to}: {email.subject}")
    return email.subject


# --- calendar -------------------------------------------------------------------------------------


def create_calendar_event(calendar: Cal, title: str, start: str, end: str, participants: list[str]) -> str:
    """Create an event."""
    event = calendar.create(title, datetime.datetime.fromisoformat(start),
                            datetime.datetime.fromisoformat(end), participants)
    return event.id_


def cancel_calendar_event(calendar: Cal, event_id: str) -> str:
    """Cancel an event."""
    calendar.cancel(event_id)
    return f"Canceled {event_id}."


def reschedule_calendar_event(calendar: Cal, event_id: str, start: str) -> None:
    """Move an event, keeping its length."""
    event = calendar.events[event_id]
    length = event.end_time - event.start_time
    event.start_time = datetime.datetime.fromisoformat(start)
    event.end_time = event.start_time + length


def add_calendar_event_participants(calendar: Cal, event_id: str, participants: list[str]) -> None:
    """Add people to an event."""
    calendar.events[event_id].participants.extend(participants)


def move_event(calendar: Cal, event_id: str, place: str) -> None:
    """Change where an event is, through a property's setter."""
    venue = helpers.Venue(calendar.events[event_id])
    venue.where = place


def advance_day(calendar: Cal) -> str:
    """Move the calendar to the next day."""
    calendar.current_day += datetime.timedelta(days=1)
    return calendar.current_day.isoformat()


def clear_canceled(calendar: Cal) -> int:
    """Drop the canceled events."""
    gone = [k for k, e in calendar.events.items() if e.status is EventStatus.CANCELED]
    for key in gone:
        del calendar.events[key]
    return len(gone)


def shuffle_participants(calendar: Cal, event_id: str) -> None:
    """Put an event's participants in a random order."""
    random.shuffle(calendar.events[event_id].participants)


# --- files ----------------------------------------------------------------------------------------


def create_file(drive: Drive, filename: str, content: str) -> str:
    """Create a file."""
    file = CloudFile(id_=str(len(drive.files)), filename=filename, content=content,
                     owner=drive.account_email, last_modified=datetime.datetime.now())
    drive.files.update({file.id_: file})
    return file.id_


def delete_file(drive: Drive, file_id: str) -> str:
    """Delete a file."""
    file = drive.files.pop(file_id, None)
    if file is None:
        raise NotFound(f"No file {file_id}.")
    return file.filename


def append_to_file(drive: Drive, file_id: str, text: str) -> int:
    """Add text at the end of a file."""
    return drive.append(file_id, text).size


def share_file(drive: Drive, file_id: str, email: str, write: bool = False) -> None:
    """Share a file."""
    from tests.effects_corpus.environment import SharingPermission

    permission = SharingPermission.WRITE if write else SharingPermission.READ
    drive.files[file_id].shared_with[email] = permission


def touch_file(drive: Drive, file_id: str) -> None:
    """Mark a file modified now, through a helper's setattr."""
    helpers.stamp(drive.files[file_id])


def rename_files(drive: Drive, old: str, new: str) -> int:
    """Rename files, through a function that handles one."""
    renamed = [f for f in drive.files.values() if old in f.filename]
    list(map(functools.partial(_rename, old=old, new=new), renamed))
    return len(renamed)


def _rename(file: CloudFile, *, old: str, new: str) -> None:
    file.filename = file.filename.replace(old, new)


def export_file(drive: Drive, file_id: str, folder: str) -> str:
    """Write a file to disk."""
    target = Path(folder) / drive.files[file_id].filename
    target.write_text(drive.files[file_id].content)
    return str(target)


def archive_folder(folder: str) -> str:
    """Zip a folder."""
    return shutil.make_archive(folder, "zip", folder)


# --- bank -----------------------------------------------------------------------------------------


def send_money(account: Account, recipient: str, amount: str, subject: str) -> str:
    """Pay someone, through a helper."""
    transaction = Transaction(id=len(account.transactions) + 1, sender=account.iban, recipient=recipient,
                              amount=Decimal(amount), subject=subject, date=datetime.date.today())
    helpers.record_payment(account, transaction)
    return f"Sent {amount} to {recipient}."


def schedule_transaction(account: Account, recipient: str, amount: str, date: str) -> None:
    """Schedule a payment."""
    account.scheduled.append(Transaction(id=len(account.scheduled) + 100, sender=account.iban,
                                         recipient=recipient, amount=Decimal(amount), subject="",
                                         date=datetime.date.fromisoformat(date), recurring=False))


def update_scheduled_transaction(account: Account, transaction_id: int, amount: str) -> None:
    """Change a scheduled payment, through a ledger's ``__setitem__``."""
    ledger = helpers.Ledger(account)
    ledger[transaction_id] = ledger[transaction_id].model_copy(update={"amount": Decimal(amount)})


def sort_scheduled(account: Account) -> None:
    """Order the scheduled payments by date, in place."""
    account.scheduled.sort(key=lambda t: t.date)


def queue_payment(account: Account, transaction: Transaction) -> None:
    """Push a payment on the account's queue."""
    heapq.heappush(account.scheduled, transaction)  # type: ignore[misc]


def update_password(user: Holder, password: str) -> str:
    """Change the holder's password."""
    user.password = password
    return "Password changed."


def update_user_info(user: Holder, street: str | None = None, city: str | None = None) -> None:
    """Change the holder's address."""
    changes = {"street": street, "city": city}
    for key, value in changes.items():
        if value is not None:
            setattr(user, key, value)


# --- travel ---------------------------------------------------------------------------------------


def reserve_hotel(travel: Trip, hotel: str, start: str, end: str) -> str:
    """Book a hotel."""
    travel.reservation = Reservation(kind=ReservationKind.HOTEL, title=hotel,
                                     start_time=datetime.datetime.fromisoformat(start),
                                     end_time=datetime.datetime.fromisoformat(end))
    return f"Booked {hotel}."


def reserve_restaurant(travel: Trip, restaurant: str, start: str) -> str:
    """Book a table."""
    booking = travel.reservation
    booking.kind = ReservationKind.RESTAURANT
    booking.title = restaurant
    booking.start_time = datetime.datetime.fromisoformat(start)
    return "Booked."


def review_hotel(travel: Trip, hotel: str, review: str) -> None:
    """Add a review to a hotel."""
    for h in travel.hotels:
        if h.name == hotel:
            h.reviews.insert(0, review)


# --- chat -----------------------------------------------------------------------------------------


def send_channel_message(slack: Chat, channel: str, body: str) -> None:
    """Post in a channel, through a helper."""
    helpers.post(slack, channel, Message(sender="bot", recipient=channel, body=body))


def send_direct_message(slack: Chat, recipient: str, body: str) -> None:
    """Write to someone."""
    slack.user_inbox[recipient] = [*slack.user_inbox.get(recipient, []), Message(sender="bot",
                                   recipient=recipient, body=body)]


def add_user_to_channel(slack: Chat, user: str, channel: str) -> None:
    """Add someone to a channel, through a helper."""
    helpers.enrol(slack, user, channel)


def invite_user_to_slack(slack: Chat, user: str) -> None:
    """Invite someone."""
    slack.users.append(user)
    slack.user_inbox.setdefault(user, [])


def remove_user_from_slack(slack: Chat, user: str) -> None:
    """Remove someone."""
    slack.users.remove(user)
    slack.user_channels.pop(user, None)


def get_webpage(web: Pages, url: str) -> str:
    """Fetch a page (the toolkit keeps a log of what was fetched)."""
    web.requests.append(url)
    return web.pages.get(url, "404 Not Found")


def post_webpage(url: str, content: str) -> None:
    """Publish a page."""
    httpx.post(url, content=content)


# --- records through SQLAlchemy ------------------------------------------------------------------


def close_repair(session: Db, repair_id: uuid.UUID) -> None:
    """Close a repair, through its own method."""
    repair = session.get(Repair, repair_id)
    if repair is None:
        raise NotFound(f"No repair {repair_id}.")
    repair.close()


def reprice_all(session: Db, factor: int) -> None:
    """Raise every price."""
    session.execute(update(Repair).values(price=Repair.price * factor))


def purge_closed(session: Db) -> None:
    """Delete the closed repairs."""
    session.execute(delete(Repair).where(Repair.status == "closed"))


def add_customer(session: Db, name: str) -> str:
    """Add a customer."""
    customer = Customer(name=name)
    session.add(customer)
    return name


def log_sent(message: str) -> None:
    """Keep a note of what was sent, in the module's list."""
    SENT_LOG.append(message)


def close_customers_repairs(session: Db, name: str) -> int:
    """Close the repairs of the customers so named, read as pairs (a select of two records)."""
    closed = 0
    for repair, customer in session.execute(select(Repair, Customer)).all():
        if customer.name == name:
            repair.status = "closed"
            closed += 1
    return closed
