"""Read-only tools in the shapes real toolkits write them: mail, calendar, files, bank, travel and
chat over a pydantic environment given as a provided parameter, and records through SQLAlchemy.
`tests/test_effects.py` expects each to be found to only read."""

from __future__ import annotations

import collections
import csv
import datetime
import io
import itertools
import json
import re
import statistics
import uuid
from decimal import Decimal
from functools import reduce
from typing import TypedDict

from sqlalchemy import case, func, select
from sqlalchemy.orm import aliased, load_only

from signoff.actions.cause import current_cause
from signoff.exceptions import Invalid, NotFound
from tests.effects_corpus import toolkit_helpers as helpers
from tests.effects_corpus.environment import (
    Account,
    Cal,
    CalendarEvent,
    Chat,
    CloudFile,
    Db,
    Drive,
    Email,
    EmailStatus,
    EventStatus,
    Holder,
    Hotel,
    MailBox,
    Message,
    Pages,
    Restaurant,
    SearchQuery,
    SharingPermission,
    Transaction,
    Trip,
)
from tests.effects_corpus.records import Customer, Repair

# --- mail ---------------------------------------------------------------------------------------


def get_unread_emails(inbox: MailBox) -> list[Email]:
    """The emails not read yet."""
    return [e for e in inbox.emails.values() if not e.read]


def search_emails(inbox: MailBox, query: str, sender: str | None = None) -> list[Email]:
    """Emails that mention `query`."""
    found = inbox.search(query, sender)
    if not found:
        raise NotFound(f"No emails match {query!r}.")
    return found


def get_received_emails(inbox: MailBox) -> str:
    """The received emails, one a line."""
    return "\n".join(helpers.email_line(e) for e in inbox.received())


def get_sent_emails(inbox: MailBox) -> list[Email]:
    """The emails sent."""
    return [e for e in inbox.emails.values() if e.status == EmailStatus.SENT]


def get_draft_subjects(inbox: MailBox) -> list[str]:
    """The subjects of the drafts."""
    return [e.subject.strip().title() for e in inbox.emails.values() if e.status is EmailStatus.DRAFT]


def count_emails_by_sender(inbox: MailBox) -> dict[str, int]:
    """How many emails each sender sent."""
    return dict(collections.Counter(e.sender.lower() for e in inbox.emails.values()))


def search_contacts_by_name(inbox: MailBox, query: str) -> list[str]:
    """Contacts whose name holds `query`."""
    wanted = query.casefold()
    return [f"{c.name} <{c.email}>" for c in inbox.contacts if wanted in c.name.casefold()]


def search_contacts_by_email(inbox: MailBox, query: str) -> list[dict[str, str | None]]:
    """Contacts whose address holds `query`."""
    return [c.model_dump() for c in inbox.contacts if query.lower() in c.email.lower()]


def get_email_by_id(inbox: MailBox, email_id: str) -> str:
    """One email as JSON."""
    email = inbox.emails.get(email_id)
    if email is None:
        raise NotFound(f"No email {email_id}.")
    return json.dumps(email.model_dump(mode="json"), sort_keys=True)


def latest_email_from(inbox: MailBox, sender: str) -> str:
    """The newest email from `sender`."""
    theirs = [e for e in inbox.emails.values() if e.sender == sender]
    if not theirs:
        return ""
    newest = max(theirs, key=lambda e: e.timestamp)
    return f"{newest.subject} ({newest.timestamp:%d %b})"


def emails_with_attachments(inbox: MailBox) -> list[tuple[str, int]]:
    """Each email with attachments, and how many."""
    return [(e.id_, len(e.attachments)) for e in inbox.emails.values() if e.attachments]


def find_links_in_emails(inbox: MailBox) -> list[str]:
    """Every link in every email body."""
    links: list[str] = []
    for email in helpers.newest_first(list(inbox.emails.values())):
        links.extend(re.findall(r"https?://\S+", email.body))
    return sorted(set(links))


def address_of(inbox: MailBox, name: str) -> str:
    """A contact's address."""
    found = helpers.contact_of(inbox, name)
    if found is None:
        raise Invalid(f"{name} is not in the address book.")
    return found


def thread_of(inbox: MailBox, subject: str) -> list[str]:
    """The ids of the emails in a thread, in order."""
    base = re.sub(r"^(re|fwd?):\s*", "", subject, flags=re.I).lower()
    thread = [e for e in inbox.emails.values() if base in e.subject.lower()]
    thread.sort(key=lambda e: e.timestamp)  # a fresh list: sorting it changes nothing
    return [e.id_ for e in thread]


def email_word_counts(inbox: MailBox) -> list[tuple[str, int]]:
    """Each email's id and word count."""
    counts = []
    for email_id, email in inbox.emails.items():
        counts.append((email_id, len(email.body.split())))
    return counts


# --- calendar -------------------------------------------------------------------------------------


def get_current_day(calendar: Cal) -> str:
    """Today, as the calendar sees it."""
    return calendar.current_day.isoformat()


def get_day_calendar_events(calendar: Cal, day: str) -> list[str]:
    """The events on a day, one a line."""
    date = datetime.date.fromisoformat(day)
    return [helpers.event_line(e) for e in calendar.on_day(date)]


def search_calendar_events(calendar: Cal, query: str, day: str | None = None) -> list[CalendarEvent]:
    """Events whose title or description holds `query`."""
    wanted = query.lower()
    found = [e for e in calendar.events.values()
             if wanted in e.title.lower() or wanted in e.description.lower()]
    if day is not None:
        on = datetime.datetime.strptime(day, "%Y-%m-%d").date()
        found = [e for e in found if e.start_time.date() == on]
    return found


def free_slots(calendar: Cal, day: str, minutes: int = 30) -> list[str]:
    """The free slots of a day between nine and five."""
    date = datetime.date.fromisoformat(day)
    start = datetime.datetime.combine(date, datetime.time(9))
    end = datetime.datetime.combine(date, datetime.time(17))
    busy = sorted(helpers.overlapping(calendar.events.values(), start, end), key=lambda e: e.start_time)
    slots: list[str] = []
    cursor = start
    for event in busy:
        if event.start_time - cursor >= datetime.timedelta(minutes=minutes):
            slots.append(f"{cursor:%H:%M}–{event.start_time:%H:%M}")
        cursor = max(cursor, event.end_time)
    if end - cursor >= datetime.timedelta(minutes=minutes):
        slots.append(f"{cursor:%H:%M}–{end:%H:%M}")
    return slots


def events_with(calendar: Cal, person: str) -> list[str]:
    """The titles of the events `person` is in."""
    return [e.title for e in calendar.events.values() if person in e.participants]


def canceled_events(calendar: Cal) -> int:
    """How many events are canceled."""
    return sum(1 for e in calendar.events.values() if e.status is EventStatus.CANCELED)


def event_statuses(calendar: Cal) -> dict[str, str]:
    """Each event's status by name."""
    return {e.id_: e.status.name.lower() for e in calendar.events.values()}


def week_ahead(calendar: Cal) -> list[str]:
    """The events of the coming seven days."""
    until = calendar.current_day + datetime.timedelta(days=7)
    upcoming = [e for e in calendar.events.values() if calendar.current_day <= e.start_time.date() < until]
    return [f"{e.start_time.strftime('%a %H:%M')} {e.title}" for e in upcoming]


def longest_meeting(calendar: Cal) -> str:
    """The longest event's title and length."""
    if not calendar.events:
        return "none"
    event = max(calendar.events.values(), key=lambda e: e.end_time - e.start_time)
    hours = (event.end_time - event.start_time).total_seconds() / 3600
    return f"{event.title}: {hours:.1f} h"


def participants_overview(calendar: Cal) -> list[str]:
    """Everyone in any event, once, in order."""
    everyone = itertools.chain.from_iterable(e.participants for e in calendar.events.values())
    return sorted({p.lower() for p in everyone})


def is_busy(calendar: Cal, at: datetime.datetime) -> bool:
    """Whether something is on at `at`."""
    return any(e.start_time <= at < e.end_time for e in calendar.events.values())


# --- files ----------------------------------------------------------------------------------------


def list_files(drive: Drive) -> list[str]:
    """Every file's name."""
    return [f.filename for f in drive.files.values()]


def get_file_by_id(drive: Drive, file_id: str) -> CloudFile:
    """One file."""
    if file_id not in drive.files:
        raise NotFound(f"No file {file_id}.")
    return drive.files[file_id]


def search_files_by_filename(drive: Drive, filename: str) -> list[CloudFile]:
    """Files by name."""
    return drive.by_name(filename)


def search_files(drive: Drive, query: str) -> list[str]:
    """Ids of the files that hold every word of `query`."""
    words = query.split()
    return [file_id for file_id, f in drive.files.items() if helpers.matches(f, words)]


def largest_files(drive: Drive, count: int = 3) -> list[tuple[str, int]]:
    """The largest files and their sizes."""
    ranked = sorted(drive.files.values(), key=lambda f: f.size, reverse=True)
    return [(f.filename, f.size) for f in ranked[:count]]


def files_shared_with(drive: Drive, email: str) -> list[str]:
    """The files shared with `email`, and how."""
    return [f"{f.filename} ({f.shared_with[email].value})" for f in drive.files.values()
            if email in f.shared_with]


def files_editable_by(drive: Drive, email: str) -> list[str]:
    """The files `email` may change."""
    return [f.id_ for f in drive.files.values()
            if f.shared_with.get(email) is SharingPermission.WRITE]


def recently_modified(drive: Drive, days: int) -> list[str]:
    """Files modified in the last `days` days."""
    since = datetime.datetime.now() - datetime.timedelta(days=days)
    return [f.filename for f in drive.files.values() if f.last_modified >= since]


def file_preview(drive: Drive, file_id: str, lines: int = 5) -> str:
    """The first lines of a file."""
    file = drive.files[file_id]
    head = file.content.splitlines()[:lines]
    return "\n".join(line.rstrip() for line in head)


def csv_column(drive: Drive, file_id: str, column: int) -> list[str]:
    """One column of a CSV file."""
    rows = [line.split(",") for line in drive.files[file_id].content.splitlines() if line]
    return [row[column].strip() for row in rows if len(row) > column]


def owners(drive: Drive) -> dict[str, list[str]]:
    """The files of each owner."""
    grouped: dict[str, list[str]] = collections.defaultdict(list)
    for file in drive.files.values():
        grouped[file.owner].append(file.filename)  # a dict made here: filling it changes nothing
    return dict(grouped)


# --- bank -----------------------------------------------------------------------------------------


def get_balance(account: Account) -> str:
    """The balance."""
    return f"{account.balance.quantize(Decimal('0.01'))} EUR"


def get_iban(account: Account) -> str:
    """The account's IBAN, grouped by four."""
    iban = account.iban.replace(" ", "")
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))


def get_most_recent_transactions(account: Account, n: int = 10) -> list[Transaction]:
    """The last `n` transactions."""
    return sorted(account.transactions, key=lambda t: t.date)[-n:]


def get_scheduled_transactions(account: Account) -> list[dict[str, object]]:
    """The scheduled transactions."""
    return [t.model_dump(mode="json") for t in account.scheduled]


def spending_by_recipient(account: Account) -> dict[str, str]:
    """How much went to each recipient."""
    spent: dict[str, Decimal] = {}
    for t in account.transactions:
        if t.sender == account.iban:
            spent[t.recipient] = spent.get(t.recipient, Decimal(0)) + t.amount
    return {k: str(v) for k, v in spent.items()}


def monthly_total(account: Account, year: int, month: int) -> str:
    """What went out in a month."""
    out = [t for t in account.transactions if t.date.year == year and t.date.month == month]
    return str(helpers.total(out))


def average_payment(account: Account) -> float:
    """The mean amount paid."""
    amounts = [float(t.amount) for t in account.transactions]
    return statistics.fmean(amounts) if amounts else 0.0


def recurring_payments(account: Account) -> list[str]:
    """The subjects of the recurring payments."""
    return [t.subject for t in itertools.chain(account.transactions, account.scheduled) if t.recurring]


def get_user_info(user: Holder) -> dict[str, str]:
    """The holder's name and address (never the password)."""
    return {"name": f"{user.first_name} {user.last_name}", "address": f"{user.street}, {user.city}"}


# --- travel ---------------------------------------------------------------------------------------


def get_all_hotels_in_city(travel: Trip, city: str) -> str:
    """The hotels of a city, by name."""
    return ", ".join(h.name for h in travel.hotels_in(city))


def get_hotels_prices(travel: Trip, names: list[str]) -> dict[str, str]:
    """Each named hotel's price range."""
    return {h.name: f"{h.price_min} - {h.price_max}" for h in travel.hotels if h.name in names}


def get_rating_reviews_for_hotels(travel: Trip, names: list[str]) -> dict[str, str]:
    """Each named hotel's rating and reviews."""
    return {h.name: f"{h.rating}: " + " / ".join(h.reviews) for h in travel.hotels if h.name in names}


def top_hotels(travel: Trip, city: str, count: int = 3) -> list[str]:
    """The best-rated hotels of a city."""
    return [h.name for h in helpers.best_rated(travel.hotels_in(city), count)]


def cheapest_hotel(travel: Trip, city: str) -> Hotel | None:
    """The cheapest hotel of a city."""
    here = travel.hotels_in(city)
    return min(here, key=lambda h: h.price_min) if here else None


def restaurants_for_diet(travel: Trip, city: str, diet: str) -> list[str]:
    """Restaurants of a city that cater for `diet`."""
    wanted = diet.lower()
    return [r.name for r in travel.restaurants
            if r.city == city and any(wanted == d.lower() for d in r.dietary)]


def restaurants_by_cuisine(travel: Trip) -> dict[str, list[str]]:
    """The restaurants grouped by cuisine."""
    ordered = sorted(travel.restaurants, key=lambda r: r.cuisine)
    return {c: [r.name for r in group] for c, group in itertools.groupby(ordered, key=lambda r: r.cuisine)}


def price_for_party(travel: Trip, name: str, people: int) -> str:
    """What a meal for `people` costs."""
    found: Restaurant | None = next((r for r in travel.restaurants if r.name == name), None)
    if found is None:
        raise NotFound(f"No restaurant {name}.")
    return str(found.price_per_person * people)


def current_reservation(travel: Trip) -> str:
    """The booking held, if any."""
    booked = travel.reservation
    if booked.kind is None:
        return "nothing booked"
    when = booked.start_time.isoformat() if booked.start_time else "?"
    return f"{booked.kind.value}: {booked.title} from {when}"


# --- chat -----------------------------------------------------------------------------------------


def get_channels(slack: Chat) -> list[str]:
    """The channels."""
    return list(slack.channels)


def read_channel_messages(slack: Chat, channel: str) -> str:
    """A channel's messages."""
    return helpers.message_text(slack.channel_inbox.get(channel, []))


def read_inbox(slack: Chat, user: str) -> list[Message]:
    """A user's direct messages."""
    if user not in slack.users:
        raise NotFound(f"No user {user}.")
    return slack.user_inbox.get(user, [])


def get_users_in_channel(slack: Chat, channel: str) -> list[str]:
    """The members of a channel."""
    return slack.members(channel)


def busiest_channel(slack: Chat) -> str:
    """The channel with the most messages."""
    counts = {name: len(messages) for name, messages in slack.channel_inbox.items()}
    return max(counts, key=lambda name: counts[name]) if counts else ""


def mentions_of(slack: Chat, user: str) -> list[str]:
    """Messages anywhere that mention `user`."""
    tag = f"@{user}".lower()
    return [m.body for messages in slack.channel_inbox.values() for m in messages if tag in m.body.lower()]


def read_webpage(web: Pages, url: str) -> str:
    """A page the toolkit holds."""
    page = web.pages.get(url.rstrip("/"))
    return page if page is not None else "404 Not Found"


# --- records through SQLAlchemy ------------------------------------------------------------------


def open_repairs(session: Db) -> list[str]:
    """The titles of the open repairs."""
    rows = session.scalars(select(Repair).where(Repair.status == "open").order_by(Repair.title))
    return [r.title for r in rows]


def repair_summary(session: Db, repair_id: uuid.UUID) -> str:
    """One repair in words."""
    repair = session.get(Repair, repair_id)
    if repair is None:
        raise NotFound(f"No repair {repair_id}.")
    return repair.describe()


def revenue(session: Db) -> int:
    """What the closed repairs brought in."""
    return session.scalar(select(func.sum(Repair.price)).where(Repair.status == "closed")) or 0


def customers_named(session: Db, prefix: str) -> list[str]:
    """Customers whose name starts with `prefix`."""
    found = session.execute(select(Customer).where(Customer.name.startswith(prefix))).scalars().all()
    return [c.name.upper() for c in found]


def price_band(repair: Repair) -> str:
    """A repair's price band."""
    return "high" if repair.price > 100 else "low"


def why_asked(repair: Repair) -> str:
    """Why this runs (the cause signoff's own `current_cause` reads: it was taken to change
    everything and reach outside, its context variable's type not known)."""
    return f"{repair.title}: {current_cause()}"


def repair_titles_csv(session: Db) -> str:
    """The open repairs as CSV text, written to a buffer (csv's writer was taken to do anything)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["title", "price"])
    for r in session.scalars(select(Repair).where(Repair.status == "open")):
        writer.writerow([r.title, r.price])
    return buffer.getvalue()


def repairs_read_from_csv(text: str) -> list[str]:
    """The titles in CSV text, tidied (its rows are lists of text)."""
    return [row[0].strip() for row in csv.reader(io.StringIO(text)) if row]


def days_ahead(start: datetime.date, days: int) -> list[str]:
    """The next `days` dates (``d += timedelta``, in a loop: the date was taken to be changed,
    and then of no known type)."""
    d = start
    found = []
    for _ in range(days):
        d += datetime.timedelta(days=1)
        found.append(d.isoformat())
    return found


def search_filters(query: SearchQuery) -> list[str]:
    """A search's filters in words, from its model's data (``model_dump`` gave no known type)."""
    return [f"{name}={value}" for name, value in query.model_dump(exclude_none=True).items()]


def status_words(value: str) -> str:
    """A status given as its stored text, in words (``EmailStatus(value)``: looking a member up
    by its value made the analysis recurse until it gave up, and take it to do anything)."""
    return EmailStatus(value).name.replace("_", " ").lower()


def repair_titles_labelled(session: Db) -> list[str]:
    """Titles by a label (a column's own ``label`` was walked into SQLAlchemy, and unknown)."""
    return [row.t for row in session.execute(select(Repair.title.label("t")))]


def share_closed(session: Db) -> list[float]:
    """The closed share, in percent (arithmetic on a SQL expression had no known type)."""
    pct = (func.count(Repair.id) * 100.0 / func.max(Repair.price)).label("pct")
    return [float(row.pct or 0) for row in session.execute(select(pct))]


def status_bands(session: Db) -> list[str]:
    """Each repair's band (``case`` with ``in_``)."""
    band = case((Repair.status.in_(["open", "waiting"]), "open"), else_="done").label("band")
    return [str(row.band) for row in session.execute(select(band))]


def repairs_with_customers(session: Db) -> list[str]:
    """Each repair with each customer, in words (the rows of a select of two records were
    tuples of no known type)."""
    rows = session.execute(select(Repair, Customer)).all()
    return [f"{repair.title.upper()} for {customer.name.title()}" for repair, customer in rows]


def same_priced_repairs(session: Db) -> list[str]:
    """Repairs priced as another is (an alias of the record, and a loader option, were walked
    into SQLAlchemy's internals, and unknown)."""
    other = aliased(Repair)
    stmt = (select(Repair).join(other, Repair.price == other.price)
            .where(Repair.id != other.id).options(load_only(Repair.title)))
    return [r.title.strip() for r in session.scalars(stmt)]



def every_title(session: Db, extra: list[str]) -> list[str]:
    """Every title and the extra ones, the list grown in place (``+=``, ``|=``: it was taken to
    be of no known type after)."""
    titles = [r.title for r in session.scalars(select(Repair))]
    titles += extra
    titles.append("(end)")
    seen = set(titles)
    seen |= {"(start)"}
    seen.discard("")
    return sorted(seen)


def dearest_status(prices: dict[str, int]) -> str:
    """The status whose price is highest (a pair's first part, by its place)."""
    best = max(prices.items(), key=lambda pair: pair[1])
    return best[0].upper()


class Address(TypedDict):
    """Where a customer lives."""

    city: str
    street: str


def city_of(address: Address) -> str:
    """A TypedDict's item (it had no known type)."""
    return address["city"].title()


def total_of(amounts: list[int]) -> int:
    """``reduce`` imported by name (it is ``_functools.reduce``: C code outside the allow-list)."""
    return reduce(lambda a, b: a + b, amounts, 0)


def opening_in_utc(day: datetime.date) -> str:
    """A date and a time combined, in UTC (what ``combine`` made had no known type)."""
    opens = datetime.datetime.combine(day, datetime.time(9))
    return opens.astimezone(datetime.UTC).isoformat()


class _Buffer(io.StringIO):
    """A buffer of the app's own."""

    def lines(self) -> list[str]:
        return self.getvalue().splitlines()


def repair_lines(session: Db) -> list[str]:
    """The titles through a buffer entered with ``with`` and one of the app's (both were of no
    known type, and the buffer of the app's made by C code outside the allow-list)."""
    with io.StringIO() as written:
        for r in session.scalars(select(Repair)):
            written.write(r.title + "\n")
        text = written.getvalue()
    mine = _Buffer()
    mine.write(text)
    return mine.lines()
