"""Which chat model answers, and why none does: the Ollama connection test and the fallback notice."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.backends.chat import ChatModel, LLMError
from assistant.backends.ollama import OllamaChat
from assistant.components import build_chat_model
from assistant.secrets import KeyringUnavailable, get_secret
from assistant.settings import Settings

# ------------------------------------------------------------------------------------------------ the LLM


@dataclass
class LLMState:
    model: ChatModel | None
    notice: str  # which model answers, or why none does
    help: str = ""  # when Ollama is not usable: how to start it and pull the model
    extractive: bool = False  # no model: answers quote the sources' sentences


def _ollama_problem(settings: Settings, token: str | None) -> str:
    with OllamaChat(settings.ollama_host, settings.ollama_model, timeout_s=min(5.0, settings.ollama_timeout_s),
                    token=token) as client:
        try:
            client.ping()
            if not client.has_model():
                return f"Model '{settings.ollama_model}' is not pulled on {settings.ollama_host}."
        except LLMError as exc:
            return exc.message
    return ""


def connect_llm(settings: Settings) -> LLMState:
    backend = settings.llm_backend.lower()
    token, problem = None, ""
    if settings.ollama_token_name and backend in ("ollama", "auto"):
        try:
            token = get_secret(settings.ollama_token_name)
        except KeyringUnavailable as exc:
            problem = exc.message
    if backend in ("ollama", "auto"):
        problem = problem or _ollama_problem(settings, token)
    how = ""
    if problem:
        how = (f"Start Ollama with `ollama serve`, pull the model with `ollama pull {settings.ollama_model}`, then "
               "press *Retry connection*; or pick another model or the embedded one on the Settings page.")
    if backend == "ollama" and problem:
        return LLMState(None, f"No language model is reachable: {problem} Answers show ranked sources only "
                              "(search-only).", how)
    choice = build_chat_model(settings, token)
    return LLMState(choice.model, choice.notice, how, choice.extractive)


def model_status(settings: Settings) -> list[str]:
    """Where the models run, where the embedding model and the reranker come from (or why there is no reranker)."""
    from assistant.backends.device import DeviceUnavailable
    from assistant.backends.embedder import resolve_embedding_model
    from assistant.components import build_reranker, device_summary

    try:
        device = f"Models run on {device_summary(settings)} (ASSISTANT_DEVICE={settings.device})."
    except DeviceUnavailable as exc:
        return [str(exc)]
    return [device, resolve_embedding_model(settings)[1].capitalize() + ".", build_reranker(settings).notice]


def check_connection(host: str, token_name: str | None, timeout_s: float = 5.0) -> tuple[bool, str, list[str]]:
    """(reachable, message, models) for the Settings page."""
    token = None
    if token_name:
        try:
            token = get_secret(token_name)
        except KeyringUnavailable as exc:
            return False, exc.message, []
    with OllamaChat(host, "", timeout_s=timeout_s, token=token) as client:
        try:
            client.ping()
            models = client.list_models()
        except LLMError as exc:
            return False, exc.message, []
    return True, f"Ollama answers at {host} with {len(models)} model(s).", models
