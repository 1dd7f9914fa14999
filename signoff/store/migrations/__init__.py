"""Alembic migrations of signoff's own tables (the app's records are the app's to migrate).

They run by themselves: the first time an app touches its database, signoff upgrades its own
tables to the newest revision (`signoff.store.migrate.upgrade`).
"""
