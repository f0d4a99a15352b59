"""Secrets (API keys, bearer tokens) live only in the system keyring; settings hold entry names, never values."""

from __future__ import annotations

import keyring
import keyring.errors
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail

SERVICE = "docs-assistant"

_NO_KEYRING = (
    "No usable system keyring was found, so Docs Assistant cannot store or read secrets "
    "(it never writes them to files). Start your desktop keyring (GNOME Keyring, KWallet, macOS Keychain, "
    "Windows Credential Locker), or select a trusted backend with the PYTHON_KEYRING_BACKEND environment "
    "variable; `keyring diagnose` shows what was found."
)


class KeyringUnavailable(RuntimeError):
    def __init__(self, message: str = _NO_KEYRING) -> None:
        super().__init__(message)
        self.message = message


def _backend() -> KeyringBackend:
    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring):
        raise KeyringUnavailable()
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        raise KeyringUnavailable()
    # The null backend accepts writes and forgets them: worse than failing, for a secret.
    if type(backend).__module__ == "keyring.backends.null":
        raise KeyringUnavailable()
    return backend


def get_secret(name: str) -> str | None:
    try:
        return _backend().get_password(SERVICE, name)
    except keyring.errors.NoKeyringError as exc:
        raise KeyringUnavailable() from exc
    except keyring.errors.KeyringLocked as exc:
        raise KeyringUnavailable(f"The system keyring is locked; unlock it to read '{name}'.") from exc


def set_secret(name: str, value: str) -> None:
    if not value:
        raise ValueError("Refusing to store an empty secret; use delete_secret to remove one.")
    try:
        _backend().set_password(SERVICE, name, value)
    except keyring.errors.NoKeyringError as exc:
        raise KeyringUnavailable() from exc
    except keyring.errors.KeyringLocked as exc:
        raise KeyringUnavailable(f"The system keyring is locked; unlock it to store '{name}'.") from exc
    except keyring.errors.PasswordSetError as exc:
        raise KeyringUnavailable(f"The system keyring refused to store '{name}': {exc}") from exc


def delete_secret(name: str) -> None:
    """Remove the entry; deleting one that does not exist is not an error."""
    try:
        _backend().delete_password(SERVICE, name)
    except keyring.errors.PasswordDeleteError:
        pass
    except keyring.errors.NoKeyringError as exc:
        raise KeyringUnavailable() from exc
