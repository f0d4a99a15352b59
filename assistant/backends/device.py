"""Which processor runs the models (the embedder, the cross-encoder, the embedded LLM): `ASSISTANT_DEVICE`.

`auto` takes a CUDA GPU, then Apple's MPS, then the CPU. A GPU runs in half precision with larger batches; a
forced device that is not there fails with one clear message instead of a traceback deep in PyTorch. The index
recipe does not depend on the device: float16 vectors agree with float32 ones to a cosine of 0.9999 and more
(tests/test_device.py), so an index built on a GPU answers on a CPU and the other way round."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DeviceName = Literal["auto", "cpu", "cuda", "mps"]

# Texts per forward pass. A CPU gains nothing past ~32 (32 x 256 tokens already fill its matrix products), and a pass
# of 64 full-length texts holds ~500 MB of activations at once, the sync's peak (tests/test_reliability_hostile.py);
# a GPU needs big batches to fill its cores, and MiniLM-sized models at 256 tokens fit hundreds per batch.
BATCH_SIZES = {"cpu": 32, "cuda": 256, "mps": 128}


class DeviceUnavailable(RuntimeError):
    """A forced device PyTorch cannot use here; the message says what to set instead."""


@dataclass(frozen=True)
class Device:
    name: str  # cpu | cuda | mps: what torch is given
    detail: str = ""  # the GPU's name, for people

    @property
    def is_gpu(self) -> bool:
        return self.name != "cpu"

    @property
    def half(self) -> str | None:
        """The half-precision dtype used on this device (None on a CPU, where precision is chosen separately)."""
        return None if self.name == "cpu" else "float16"

    def batch_size(self, configured: int | None = None) -> int:
        return configured or BATCH_SIZES[self.name]

    def label(self) -> str:
        return f"{self.name} ({self.detail})" if self.detail else self.name


def _cuda() -> tuple[bool, str]:
    import torch

    if not torch.cuda.is_available():
        return False, ""
    return True, torch.cuda.get_device_name(0)


def _mps() -> bool:
    import torch

    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def resolve_device(wanted: str = "auto") -> Device:
    """The device to run on; raises DeviceUnavailable when a forced GPU is absent."""
    wanted = (wanted or "auto").lower()
    if wanted not in ("auto", "cpu", "cuda", "mps"):
        raise DeviceUnavailable(f"ASSISTANT_DEVICE={wanted!r} is not a device: use auto, cpu, cuda or mps.")
    if wanted == "cpu":
        return Device("cpu")
    if wanted in ("auto", "cuda"):
        has_cuda, gpu = _cuda()
        if has_cuda:
            return Device("cuda", gpu)
        if wanted == "cuda":
            import torch

            build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
            raise DeviceUnavailable(
                f"ASSISTANT_DEVICE=cuda, but PyTorch {torch.__version__} ({build}) finds no CUDA GPU on this machine. "
                "Install a CUDA build of PyTorch and the NVIDIA driver, or set ASSISTANT_DEVICE=auto (or cpu).")
    if wanted in ("auto", "mps"):
        if _mps():
            return Device("mps", "Apple GPU")
        if wanted == "mps":
            raise DeviceUnavailable("ASSISTANT_DEVICE=mps, but PyTorch finds no Apple MPS GPU on this machine. "
                                    "Set ASSISTANT_DEVICE=auto (or cpu).")
    return Device("cpu")
