"""Runnable examples of signoff; the test suite executes each."""
