"""Command line: everything the app does, scriptable and measurable. In: arguments; out: text or JSON on stdout,
progress on stderr, and an exit code (2 bad input, 3 index in use, 4 disk full). One module per command group.

    assistant ingest SRC --product P --release R [--json]
    assistant sync [--product P] [--release R] [--json]
    assistant ask QUESTION [...]          (see `assistant ask --help`)
    assistant eval DATASET [...]
"""

from __future__ import annotations

import argparse
import errno
import logging
import sqlite3
import sys

from assistant.cli import library
from assistant.settings import Settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assistant", description="Docs Assistant: answers from your documentation.")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="copy a folder or file into the library under PRODUCT/RELEASE and index it")
    p.add_argument("src")
    p.add_argument("--product", required=True)
    p.add_argument("--release", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=library.cmd_ingest)

    p = sub.add_parser("sync", help="rescan the library folder and bring the index in line with it")
    p.add_argument("--product")
    p.add_argument("--release")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=library.cmd_sync)

    p = sub.add_parser("product", help="show or set a product's description, aliases and release order")
    p.add_argument("name")
    p.add_argument("--display-name")
    p.add_argument("--description")
    p.add_argument("--alias", action="append", help="a name the product goes by in questions (repeatable)")
    p.add_argument("--release-order", nargs="+", help="releases oldest to newest, overriding version order")
    p.set_defaults(func=library.cmd_product)

    for extra in _extra_commands():
        extra(sub)
    return parser


def _extra_commands():
    """Commands defined beside the stage they drive, so this file stays a thin dispatcher."""
    from assistant.cli import ask as cli_ask
    from assistant.cli import evaluate as cli_eval

    return [cli_ask.register, cli_eval.register]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    settings = Settings()
    from assistant.backends.device import DeviceUnavailable
    from assistant.components import StoreLocked

    try:
        return args.func(args, settings)
    except DeviceUnavailable as exc:  # ASSISTANT_DEVICE names a GPU this machine lacks
        print(f"error: {exc}", file=sys.stderr)
        return 2
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
