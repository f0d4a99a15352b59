"""Command line: everything the app does, scriptable and measurable.

    assistant ingest SRC --product P --release R [--json]
    assistant sync [--product P] [--release R] [--json]
    assistant ask QUESTION [...]          (see `assistant ask --help`)
    assistant eval DATASET [...]
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import signal
import sqlite3
import sys
import threading
from pathlib import Path

from assistant.settings import Settings


def _progress_printer(stream=sys.stderr):
    def show(p) -> None:
        width = 28
        filled = int(width * p.files_done / max(p.files_total, 1))
        eta = f"{p.eta_s:5.0f}s" if p.eta_s is not None else "    ?"
        name = p.current if len(p.current) <= 40 else "…" + p.current[-39:]
        stream.write(f"\r{p.product}/{p.release} [{'#' * filled}{'.' * (width - filled)}] "
                     f"{p.files_done}/{p.files_total} files, {p.chunks} chunks, ETA {eta}  {name:<40}")
        if p.files_done == p.files_total:
            stream.write("\n")
        stream.flush()

    return show


def _print_reports(reports, as_json: bool) -> None:
    if as_json:
        payload = [r.to_json() for r in reports]
        print(json.dumps(payload[0] if len(payload) == 1 else payload))
        return
    for r in reports:
        print(f"{r.product}/{r.release}: {r.files_indexed} indexed, {r.files_unchanged} unchanged, "
              f"{r.files_removed} removed, {len(r.files_failed)} failed, {len(r.files_skipped)} skipped, "
              f"{r.chunks} chunks in {r.seconds:.1f}s" + (" (cancelled)" if r.cancelled else ""))
        for f in r.files_failed:
            print(f"  failed  {f['path']}: {f['error']}")
        for f in r.files_skipped:
            print(f"  skipped {f['path']}: {f['reason']}")


def _cancel_on_sigint() -> threading.Event:
    """Ctrl-C stops between files; what was indexed stays indexed."""
    event = threading.Event()

    def handler(signum, frame):
        if event.is_set():
            raise KeyboardInterrupt
        event.set()
        sys.stderr.write("\nstopping after the current batch (Ctrl-C again to abort)\n")

    signal.signal(signal.SIGINT, handler)
    return event


def cmd_ingest(args, settings: Settings) -> int:
    from assistant.components import build_indexer
    from assistant.library import LibraryError, safe_name

    indexer = build_indexer(settings)
    try:
        indexer.library.add(Path(args.src), args.product, args.release)
    except (LibraryError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    reports = indexer.sync(safe_name(args.product), safe_name(args.release),
                           progress=None if args.json else _progress_printer(), cancel=_cancel_on_sigint())
    _print_reports(reports, args.json)
    return 0


def cmd_sync(args, settings: Settings) -> int:
    from assistant.components import build_indexer

    indexer = build_indexer(settings)
    reports = indexer.sync(args.product, args.release, progress=None if args.json else _progress_printer(),
                           cancel=_cancel_on_sigint())
    _print_reports(reports, args.json)
    return 0


def cmd_product(args, settings: Settings) -> int:
    """Show or set a product's display name, description, aliases and release order."""
    from assistant.library import Library

    library = Library(settings.library_dir)
    if args.name not in library.products():
        print(f"error: no product {args.name!r} in {settings.library_dir}", file=sys.stderr)
        return 2
    meta = library.meta(args.name)
    if args.display_name is not None:
        meta.display_name = args.display_name
    if args.description is not None:
        meta.description = args.description
    if args.alias:
        meta.aliases = sorted(set(meta.aliases) | set(args.alias))
    if args.release_order:
        meta.release_order = args.release_order
    if any(v for v in (args.display_name, args.description, args.alias, args.release_order)):
        library.set_meta(args.name, meta)
    print(json.dumps({"product": args.name, "releases": library.releases(args.name), **meta.__dict__}, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assistant", description="Docs Assistant: answers from your documentation.")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="copy a folder or file into the library under PRODUCT/RELEASE and index it")
    p.add_argument("src")
    p.add_argument("--product", required=True)
    p.add_argument("--release", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("sync", help="rescan the library folder and bring the index in line with it")
    p.add_argument("--product")
    p.add_argument("--release")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sync)

    p = sub.add_parser("product", help="show or set a product's description, aliases and release order")
    p.add_argument("name")
    p.add_argument("--display-name")
    p.add_argument("--description")
    p.add_argument("--alias", action="append", help="a name the product goes by in questions (repeatable)")
    p.add_argument("--release-order", nargs="+", help="releases oldest to newest, overriding version order")
    p.set_defaults(func=cmd_product)

    for extra in _extra_commands():
        extra(sub)
    return parser


def _extra_commands():
    """Commands defined beside the stage they drive, so this file stays a thin dispatcher."""
    from assistant import cli_ask, cli_eval

    return [cli_ask.register, cli_eval.register]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    settings = Settings()
    from assistant.components import StoreLocked

    try:
        return args.func(args, settings)
    except StoreLocked as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except (OSError, sqlite3.Error) as exc:  # a full disk, a read-only folder: a message, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        if isinstance(exc, sqlite3.Error) or exc.errno in _WRITE_ERRORS:
            print(f"Writing under {settings.data_dir} failed. What was indexed before is kept and still answers; "
                  "free some space (or fix the folder's permissions) and run `assistant sync` again.", file=sys.stderr)
        return 4


_WRITE_ERRORS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EIO}
