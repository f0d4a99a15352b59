"""Uploads from the sidebar into a release folder, zips expanded safely (zip slip, zip bombs and links refused)."""

from __future__ import annotations

import io
import re
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from assistant.library.catalogue import Library, safe_name

# --------------------------------------------------------------------------------------------------- uploads


@dataclass(frozen=True)
class UploadLimits:
    max_file_bytes: int = 200 * 2**20
    max_zip_members: int = 20_000
    max_zip_bytes: int = 2 * 2**30  # expanded size of one zip
    # Expanded/compressed size of one member. Documentation compresses 3-10x; zip bombs 1000x and more.
    max_zip_ratio: float = 200.0


@dataclass
class UploadReport:
    product: str
    release: str
    saved: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    started: bool = False


class _ZipBomb(Exception):
    pass


def clean_name(part: str) -> str:
    """One path component: letters, digits and . _ + - only; no leading dots (no hidden files, no '..')."""
    return re.sub(r"[^\w.+-]+", "-", part, flags=re.ASCII).strip(".- ")[:150]


def clean_relpath(name: str) -> str | None:
    """A zip member's path made safe, or None when it tries to leave its folder (zip slip)."""
    parts = [p for p in re.split(r"[\\/]+", name) if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    cleaned = [clean_name(p) for p in parts]
    return "/".join(cleaned) if cleaned and all(cleaned) else None


def save_uploads(library: Library, product: str, release: str, files: list[tuple[str, bytes]],
                 limits: UploadLimits) -> UploadReport:
    """Write uploads (zips expanded) into product/release. Everything is staged first in a hidden folder of the
    library, so a refused zip leaves nothing behind and the index never sees half an upload."""
    report = UploadReport(safe_name(product), safe_name(release))
    staging = Path(tempfile.mkdtemp(prefix=".upload-", dir=library.root))
    try:
        for name, data in files:
            base = clean_name(re.split(r"[\\/]", name)[-1])
            if len(data) > limits.max_file_bytes:
                report.refused.append((name, f"larger than {limits.max_file_bytes // 2**20} MB"))
            elif not base:
                report.refused.append((name, "no usable file name"))
            elif base.lower().endswith(".zip"):
                _expand_zip(name, data, staging, report, limits)
            else:
                (staging / base).write_bytes(data)
                report.saved.append(base)
        dest = library.release_dir(report.product, report.release)
        for path in sorted(p for p in staging.rglob("*") if p.is_file()):
            target = dest / path.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(path), str(target))
        dest.mkdir(parents=True, exist_ok=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def _expand_zip(name: str, data: bytes, staging: Path, report: UploadReport, limits: UploadLimits) -> None:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        report.refused.append((name, "not a valid zip file"))
        return
    members = [i for i in zf.infolist() if not i.is_dir()]
    declared = sum(i.file_size for i in members)
    if len(members) > limits.max_zip_members or declared > limits.max_zip_bytes:
        report.refused.append((name, f"too large: {len(members)} files, {declared // 2**20} MB expanded"))
        return
    root = staging.resolve()
    written: list[Path] = []
    saved: list[str] = []
    total = 0
    try:
        for info in members:
            rel = clean_relpath(info.filename)
            if stat.S_ISLNK(info.external_attr >> 16):
                report.refused.append((f"{name}:{info.filename}", "symbolic link"))
                continue
            if rel is None:
                report.refused.append((f"{name}:{info.filename}", "path leaves the release folder (zip slip)"))
                continue
            target = (staging / rel).resolve()
            if not target.is_relative_to(root):
                report.refused.append((f"{name}:{info.filename}", "path leaves the release folder (zip slip)"))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            written.append(target)
            size = 0
            try:
                with zf.open(info) as src, target.open("wb") as out:
                    # Count real bytes: the sizes in the zip's headers can lie.
                    while chunk := src.read(1 << 16):
                        size += len(chunk)
                        total += len(chunk)
                        if total > limits.max_zip_bytes or (
                                size > 2**20 and size > limits.max_zip_ratio * max(info.compress_size, 1)):
                            raise _ZipBomb
                        out.write(chunk)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError, OSError) as exc:
                target.unlink(missing_ok=True)
                report.refused.append((f"{name}:{info.filename}", f"unreadable ({exc})"))
                continue
            saved.append(rel)
    except _ZipBomb:
        for path in written:
            path.unlink(missing_ok=True)
        report.refused.append((name, "expands far beyond its size (zip bomb?): nothing from it was kept"))
        return
    report.saved.extend(saved)
