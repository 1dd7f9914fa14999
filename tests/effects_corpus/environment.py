"""The environment a toolkit's tools are given: pydantic models of a mailbox, a calendar, a cloud
drive, a bank account, travel bookings and a chat workspace, with the methods real toolkits put on
them (searching reads, sending and booking change the model)."""

from __future__ import annotations

import datetime
import enum
from decimal import Decimal
from typing import Annotated

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from signoff.actions.declare import Provided


class EmailStatus(enum.Enum):
    """Where an email stands."""

    SENT = "sent"
    RECEIVED = "received"
    DRAFT = "draft"


class Email(BaseModel):
    """One email."""

    id_: str
    sender: str
    recipients: list[str]
    cc: list[str] = Field(default_factory=list)
    subject: str
    body: str
    status: EmailStatus = EmailStatus.RECEIVED
    read: bool = False
    timestamp: datetime.datetime
    attachments: list[str] = Field(default_factory=list)


class Contact(BaseModel):
    """Someone in the address book."""

    name: str
    email: str
    phone: str | None = None


class Inbox(BaseModel):
    """A mailbox."""

    account_email: str
    emails: dict[str, Email] = Field(default_factory=dict)
    contacts: list[Contact] = Field(default_factory=list)

    def received(self) -> list[Email]:
        """The emails received, newest first."""
        found = [e for e in self.emails.values() if e.status is EmailStatus.RECEIVED]
        return sorted(found, key=lambda e: e.timestamp, reverse=True)

    def search(self, query: str, sender: str | None = None) -> list[Email]:
        """The emails whose subject or body holds `query`."""
        wanted = query.lower()
        return [
            e for e in self.emails.values()
            if (wanted in e.subject.lower() or wanted in e.body.lower())
            and (sender is None or e.sender.lower() == sender.lower())
        ]

    def next_id(self) -> str:
        """The id the next email gets."""
        return str(len(self.emails))

    def send(self, recipients: list[str], subject: str, body: str) -> Email:
        """Send an email: it is kept as sent."""
        email = Email(id_=self.next_id(), sender=self.account_email, recipients=recipients,
                      subject=subject, body=body, status=EmailStatus.SENT,
                      timestamp=datetime.datetime.now())
        self.emails[email.id_] = email
        return email

    def delete(self, email_id: str) -> Email:
        """Take an email out of the mailbox."""
        return self.emails.pop(email_id)


class EventStatus(enum.Enum):
    """Whether an event goes ahead."""

    CONFIRMED = "confirmed"
    CANCELED = "canceled"


class CalendarEvent(BaseModel):
    """One event."""

    id_: str
    title: str
    description: str = ""
    start_time: datetime.datetime
    end_time: datetime.datetime
    location: str | None = None
    participants: list[str] = Field(default_factory=list)
    all_day: bool = False
    status: EventStatus = EventStatus.CONFIRMED


class Calendar(BaseModel):
    """A calendar."""

    current_day: datetime.date
    account_email: str
    events: dict[str, CalendarEvent] = Field(default_factory=dict)

    def on_day(self, day: datetime.date) -> list[CalendarEvent]:
        """The events on `day`."""
        return [e for e in self.events.values() if e.start_time.date() == day]

    def create(self, title: str, start: datetime.datetime, end: datetime.datetime,
               participants: list[str]) -> CalendarEvent:
        """Put a new event in the calendar."""
        event = CalendarEvent(id_=str(len(self.events)), title=title, start_time=start,
                              end_time=end, participants=participants)
        self.events[event.id_] = event
        return event

    def cancel(self, event_id: str) -> None:
        """Cancel an event."""
        self.events[event_id].status = EventStatus.CANCELED


class SharingPermission(enum.Enum):
    """What someone a file is shared with may do."""

    READ = "r"
    WRITE = "rw"


class CloudFile(BaseModel):
    """A file in the cloud drive."""

    id_: str
    filename: str
    content: str
    owner: str
    last_modified: datetime.datetime
    shared_with: dict[str, SharingPermission] = Field(default_factory=dict)

    @property
    def size(self) -> int:
        """Its size in characters."""
        return len(self.content)


class CloudDrive(BaseModel):
    """A cloud drive."""

    account_email: str
    files: dict[str, CloudFile] = Field(default_factory=dict)

    def by_name(self, filename: str) -> list[CloudFile]:
        """The files called `filename`."""
        return [f for f in self.files.values() if f.filename.lower() == filename.lower()]

    def append(self, file_id: str, text: str) -> CloudFile:
        """Add text at the end of a file."""
        file = self.files[file_id]
        file.content += text
        file.last_modified = datetime.datetime.now()
        return file


class Transaction(BaseModel):
    """A payment in or out of the account."""

    id: int
    sender: str
    recipient: str
    amount: Decimal
    subject: str
    date: datetime.date
    recurring: bool = False


class BankAccount(BaseModel):
    """A bank account."""

    iban: str
    balance: Decimal
    transactions: list[Transaction] = Field(default_factory=list)
    scheduled: list[Transaction] = Field(default_factory=list)


class UserAccount(BaseModel):
    """The account holder."""

    first_name: str
    last_name: str
    street: str
    city: str
    password: str


class Hotel(BaseModel):
    """A hotel."""

    name: str
    city: str
    rating: float
    price_min: Decimal
    price_max: Decimal
    address: str
    reviews: list[str] = Field(default_factory=list)


class Restaurant(BaseModel):
    """A restaurant."""

    name: str
    city: str
    cuisine: str
    rating: float
    price_per_person: Decimal
    opening_hours: str
    dietary: list[str] = Field(default_factory=list)


class ReservationKind(enum.Enum):
    """What was booked."""

    HOTEL = "hotel"
    RESTAURANT = "restaurant"
    CAR = "car"


class Reservation(BaseModel):
    """A booking."""

    kind: ReservationKind | None = None
    title: str = ""
    start_time: datetime.datetime | None = None
    end_time: datetime.datetime | None = None
    contact: str = ""


class Travel(BaseModel):
    """What a travel toolkit works on."""

    hotels: list[Hotel] = Field(default_factory=list)
    restaurants: list[Restaurant] = Field(default_factory=list)
    reservation: Reservation = Field(default_factory=Reservation)

    def hotels_in(self, city: str) -> list[Hotel]:
        """The hotels in `city`."""
        return [h for h in self.hotels if h.city.lower() == city.lower()]


class Message(BaseModel):
    """A chat message."""

    sender: str
    recipient: str
    body: str


class Slack(BaseModel):
    """A chat workspace."""

    users: list[str] = Field(default_factory=list)
    channels: list[str] = Field(default_factory=list)
    user_channels: dict[str, list[str]] = Field(default_factory=dict)
    user_inbox: dict[str, list[Message]] = Field(default_factory=dict)
    channel_inbox: dict[str, list[Message]] = Field(default_factory=dict)

    def members(self, channel: str) -> list[str]:
        """The users in `channel`."""
        return [u for u, chans in self.user_channels.items() if channel in chans]


class Web(BaseModel):
    """Pages the toolkit can read, and what it was asked to fetch."""

    pages: dict[str, str] = Field(default_factory=dict)
    requests: list[str] = Field(default_factory=list)


# --- as tools are given them: each a provided parameter -------------------------------------------

MailBox = Annotated[Inbox, Provided("inbox")]
Cal = Annotated[Calendar, Provided("calendar")]
Drive = Annotated[CloudDrive, Provided("drive")]
Account = Annotated[BankAccount, Provided("account")]
Holder = Annotated[UserAccount, Provided("user")]
Trip = Annotated[Travel, Provided("travel")]
Chat = Annotated[Slack, Provided("slack")]
Pages = Annotated[Web, Provided("web")]
Db = Annotated[Session, Provided("session")]


class SearchQuery(BaseModel):
    """What a search looks for."""

    text: str
    sender: str | None = None
    unread: bool | None = None
