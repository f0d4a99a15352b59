"""Settings the user saves on the Settings page (a JSON file in the data folder); secrets go to the keyring."""

from __future__ import annotations

import json
import os
from pathlib import Path

from assistant.answering.presets import PRESETS
from assistant.secrets import set_secret
from assistant.settings import Settings

# ------------------------------------------------------------------------------------------- settings on disk

SETTINGS_FILE = "settings.json"
# What the Settings page may change. Secrets are never among them: only keyring entry *names* are saved.
EDITABLE = ("device", "ollama_host", "ollama_model", "ollama_timeout_s", "ollama_token_name", "llm_backend",
            "embedding_model", "reranker_model", "preset", "top_k")
LLM_FIELDS = {"ollama_host", "ollama_model", "ollama_timeout_s", "ollama_token_name", "llm_backend", "preset", "top_k"}
BACKENDS = ("auto", "ollama", "embedded", "extractive", "none")
DEFAULT_TOKEN_NAME = "ollama-token"


def env_fixed() -> set[str]:
    """Editable settings that an ASSISTANT_* environment variable fixes; the environment wins over the file."""
    return {f for f in EDITABLE if f"ASSISTANT_{f.upper()}" in os.environ}


def _read_saved(data_dir: Path) -> dict:
    try:
        raw = json.loads((data_dir / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in raw.items() if k in EDITABLE} if isinstance(raw, dict) else {}


def load_settings() -> Settings:
    """Defaults, then data/settings.json (saved from the Settings page), then ASSISTANT_* variables."""
    base = Settings()
    fixed = env_fixed()
    saved = {k: v for k, v in _read_saved(base.data_dir).items() if k not in fixed}
    return Settings(**saved) if saved else base


def save_settings(data_dir: Path, changes: dict) -> Settings:
    """Validate and write the editable, non-secret settings; returns the settings now in force."""
    changes = {k: v for k, v in changes.items() if k in EDITABLE}
    if changes.get("preset", "default") not in PRESETS:
        raise ValueError(f"unknown preset {changes['preset']!r}")
    if changes.get("llm_backend", "auto") not in BACKENDS:
        raise ValueError(f"unknown LLM backend {changes['llm_backend']!r}")
    data = {**_read_saved(data_dir), **changes}
    checked = Settings(**data).model_dump(mode="json")  # raises pydantic's ValidationError on bad values
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / (SETTINGS_FILE + ".tmp")
    tmp.write_text(json.dumps({k: checked[k] for k in data}, indent=2), encoding="utf-8")
    tmp.replace(data_dir / SETTINGS_FILE)
    return load_settings()


def store_secret(name: str, value: str) -> None:
    """Into the OS keyring only; raises KeyringUnavailable (with a message for the user) when there is none."""
    set_secret(name, value)
