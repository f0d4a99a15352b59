"""The document library on disk: `data/library/<product>/<release>/...`, any depth of sub-folders.

A product folder may hold `.product.json` with a display name, a description of its documents (shown to the LLM
beside retrieved text, as DECO does for sources), aliases used to recognise it in questions, and a release order
that overrides natural version order.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from assistant.library.versions import sort_releases

META_FILE = ".product.json"
_SAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def _is_text(name: str) -> bool:
    """False for a name with bytes that are not UTF-8: no database, collection name or JSON can hold it."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _usable_folder(path: Path) -> bool:
    return path.is_dir() and not path.name.startswith(".") and _is_text(path.name)


@dataclass
class ProductInfo:
    name: str  # the library folder name
    display_name: str
    aliases: list[str] = field(default_factory=list)
    releases: list[str] = field(default_factory=list)  # release folder names


class LibraryError(ValueError):
    """A request the library refuses, with a message for the user."""


def safe_name(name: str) -> str:
    """A product or release folder name: no separators, no dot-dot, no shell surprises."""
    cleaned = _SAFE.sub("-", name.strip()).strip(".-")
    if not cleaned:
        raise LibraryError(f"{name!r} is not usable as a folder name")
    return cleaned[:100]


@dataclass
class ProductMeta:
    display_name: str = ""
    description: str = ""
    aliases: list[str] = field(default_factory=list)
    release_order: list[str] = field(default_factory=list)


class Library:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def products(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if _usable_folder(p))

    def releases(self, product: str) -> list[str]:
        folder = self.root / product
        if not folder.is_dir():
            return []
        names = [p.name for p in folder.iterdir() if _usable_folder(p)]
        order = [r for r in self.meta(product).release_order if r in names]
        return order + sort_releases([n for n in names if n not in order]) if order else sort_releases(names)

    def unusable_folders(self) -> list[str]:
        """Product and release folders left out because their names are not valid UTF-8 (the sync reports them)."""
        out = []
        for p in sorted(self.root.iterdir()):
            if p.is_dir() and not p.name.startswith("."):
                if not _is_text(p.name):
                    out.append(p.name)
                elif _usable_folder(p):
                    out += [f"{p.name}/{r.name}" for r in sorted(p.iterdir())
                            if r.is_dir() and not r.name.startswith(".") and not _is_text(r.name)]
        return [name.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for name in out]

    def newest(self, product: str) -> str | None:
        rels = self.releases(product)
        return rels[-1] if rels else None

    def release_dir(self, product: str, release: str) -> Path:
        return self.root / product / release

    def meta(self, product: str) -> ProductMeta:
        path = self.root / product / META_FILE
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return ProductMeta(display_name=product)
        known = {k: raw[k] for k in ProductMeta.__dataclass_fields__ if k in raw}
        meta = ProductMeta(**known)
        meta.display_name = meta.display_name or product
        return meta

    def set_meta(self, product: str, meta: ProductMeta) -> None:
        folder = self.root / product
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / (META_FILE + ".tmp")
        tmp.write_text(json.dumps(asdict(meta), indent=2), encoding="utf-8")
        tmp.replace(folder / META_FILE)

    def catalogue(self) -> list[ProductInfo]:
        out = []
        for product in self.products():
            meta = self.meta(product)
            out.append(ProductInfo(name=product, display_name=meta.display_name, aliases=list(meta.aliases),
                                   releases=self.releases(product)))
        return out

    def files(self, product: str, release: str) -> list[Path]:
        """Every regular file of a release, never following links out of the release folder."""
        return [path for path, escapes in self._walk(product, release) if not escapes]

    def outside_links(self, product: str, release: str) -> list[Path]:
        """Links to files or folders outside the release folder (or that cannot be resolved): never read, never
        followed; the sync reports each one as skipped."""
        return [path for path, escapes in self._walk(product, release) if escapes]

    def hidden(self, product: str, release: str) -> list[Path]:
        """Files and folders whose name starts with "." inside a release (a folder once, not its contents): never
        read, reported as skipped."""
        base = self.release_dir(product, release)
        found: list[Path] = []
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            found += [Path(dirpath) / n for n in sorted(dirnames + filenames) if n.startswith(".")]
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        return found

    def _walk(self, product: str, release: str) -> Iterator[tuple[Path, bool]]:
        base = self.release_dir(product, release)
        if not base.is_dir():
            return
        base_real = base.resolve()
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            # os.walk lists a link to a folder among the folders and does not enter it; one pointing out is reported.
            links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
            for name in sorted(links + [f for f in filenames if not f.startswith(".")]):
                path = Path(dirpath) / name
                if path.is_symlink():
                    try:
                        inside = path.resolve().is_relative_to(base_real)
                    except (OSError, RuntimeError):  # a link loop
                        inside = False
                    if not inside:
                        yield path, True
                        continue
                if name in filenames:
                    yield path, False

    def add(self, src: Path, product: str, release: str) -> Path:
        """Copy a folder or a file into product/release (the source itself is left untouched)."""
        product, release = safe_name(product), safe_name(release)
        dest = self.release_dir(product, release)
        src = src.expanduser()
        if not src.exists():  # checked before anything is created: a typo must not leave an empty release behind
            raise LibraryError(f"{src} does not exist")
        dest.mkdir(parents=True, exist_ok=True)
        if src.resolve().is_relative_to(dest.resolve()):
            return dest
        if src.is_dir():
            shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True)
        else:
            shutil.copy2(src, dest / src.name)
        return dest

    def delete_release(self, product: str, release: str) -> None:
        folder = self.release_dir(product, release)
        if folder.is_dir():
            shutil.rmtree(folder)

    def rename_product(self, old: str, new: str) -> str:
        new = safe_name(new)
        if (self.root / new).exists():
            raise LibraryError(f"a product named {new} already exists")
        (self.root / old).rename(self.root / new)
        return new
