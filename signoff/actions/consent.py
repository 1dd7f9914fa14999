"""Consent: an action, its values and its principal, sealed with the app's key (HMAC-SHA256).

A token names one action, cannot be edited, is honoured once, and runs as its principal under
their rights as they are when it is used.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from signoff.exceptions import ConsentError, UserError

__all__ = ["Consent", "ConsentSeal", "load_or_create_key"]

_VERSION = "c1"


@dataclass(frozen=True, kw_only=True)
class Consent:
    """What a token says, once its seal is found true."""

    action: str
    """The action consented to."""
    values: dict[str, Any]
    """The values consented to, as JSON."""
    principal_id: str
    """Who consented, and who it runs as."""
    nonce: str
    """What makes this token one of a kind (it is honoured once)."""
    issued_at: str
    """When it was made (ISO 8601, UTC)."""


class ConsentSeal:
    """Seals and opens consent tokens with one key."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise UserError("The app's key must be at least 16 bytes long.")
        self._key = key

    def seal(self, *, action: str, values: dict[str, Any], principal_id: str) -> str:
        """A token for running `action` with `values` as `principal_id`."""
        payload = {
            "a": action,
            "v": values,
            "p": principal_id,
            "n": secrets.token_hex(16),
            "t": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        body = _b64(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode())
        return f"{_VERSION}.{body}.{self._mac(body)}"

    def open(self, token: str) -> Consent:
        """What `token` says; a `ConsentError` if it was not sealed by this key as it reads now."""
        # A token this app made is ASCII (base64 and dots): anything else is refused as such
        # here, before it reaches the comparison (which takes ASCII text only) or the key.
        parts = token.split(".") if isinstance(token, str) and token.isascii() else []
        if len(parts) != 3 or parts[0] != _VERSION:
            raise ConsentError("This is not a consent token this app made.")
        _, body, mac = parts
        if not hmac.compare_digest(mac, self._mac(body)):
            raise ConsentError(
                "This consent token has been altered, or was not made by this app: it is refused."
            )
        try:
            payload = json.loads(_unb64(body))
            return Consent(
                action=str(payload["a"]),
                values=dict(payload["v"]),
                principal_id=str(payload["p"]),
                nonce=str(payload["n"]),
                issued_at=str(payload["t"]),
            )
        except (ValueError, KeyError, TypeError, binascii.Error) as error:
            raise ConsentError("This consent token cannot be read.") from error

    def _mac(self, body: str) -> str:
        return _b64(hmac.new(self._key, f"{_VERSION}.{body}".encode(), hashlib.sha256).digest())


def load_or_create_key(path: Path) -> bytes:
    """The key kept in `path`, made there (32 random bytes, mode 0600) on first use.

    A key file that others may read is refused: a leaked key lets anyone forge consent.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_key(path)
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "w") as file:
        file.write(key.hex() + "\n")
    return key


def _read_key(path: Path) -> bytes:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise UserError(
            f"The key file {path} may be read by others (mode {mode:o}): run `chmod 600 {path}`."
        )
    try:
        key = bytes.fromhex(path.read_text().strip())
    except ValueError:
        key = b""
    if len(key) < 16:
        raise UserError(f"The key file {path} holds no usable key: delete it to make a new one.")
    return key


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
