"""Storage: the database engine and signoff's own tables, beside the app's records."""

from signoff.store.database import Database

__all__ = ["Database"]
