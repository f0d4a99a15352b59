"""`assistant ingest`, `sync` and `product`: the library commands, with progress on stderr."""

from __future__ import annotations

import json
import signal
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


def _print_reports(reports, as_json: bool, device: str = "") -> None:
    if as_json:
        payload = [{**r.to_json(), "device": device} for r in reports]
        print(json.dumps(payload[0] if len(payload) == 1 else payload))
        return
    if device:
        print(f"embedding on {device}")
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
    from assistant.components import build_indexer, device_summary
    from assistant.library.catalogue import LibraryError, safe_name

    device = device_summary(settings)  # a forced GPU that is absent stops here, before anything is copied
    indexer = build_indexer(settings)
    try:
        indexer.library.add(Path(args.src), args.product, args.release)
    except (LibraryError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    reports = indexer.sync(safe_name(args.product), safe_name(args.release),
                           progress=None if args.json else _progress_printer(), cancel=_cancel_on_sigint())
    _print_reports(reports, args.json, device)
    return 0


def cmd_sync(args, settings: Settings) -> int:
    from assistant.components import build_indexer, device_summary

    device = device_summary(settings)
    indexer = build_indexer(settings)
    reports = indexer.sync(args.product, args.release, progress=None if args.json else _progress_printer(),
                           cancel=_cancel_on_sigint())
    _print_reports(reports, args.json, device)
    return 0


def cmd_product(args, settings: Settings) -> int:
    """Show or set a product's display name, description, aliases and release order."""
    from assistant.library.catalogue import Library

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
