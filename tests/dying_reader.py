"""A reader process that dies on certain files, for tests/test_parse_pool.py.

`init` replaces parse_pool._init_worker in the test's process; spawned workers import this module by name and run
it, so only they read through `read`: `dies-here.md` ends the process every time (as a parser that crashes would),
`dies-once.md` only the first time (as a kill from outside would), marked in the folder DYING_READER_MARKS;
`bug-here.md` raises an error no reader should (a bug, which stops the sync as in the serial path).
"""

from __future__ import annotations

import os
from pathlib import Path

from assistant.library import parse_pool

ALWAYS, ONCE, BUG = "dies-here.md", "dies-once.md", "bug-here.md"
EXIT_CODE = 3


def init(*args) -> None:
    parse_pool._init_worker(*args)  # in a spawned worker: the module's own, not this one
    real = parse_pool.read_document

    def read(path: Path):
        if path.name == BUG:
            raise ValueError("a bug in a reader")
        mark = Path(os.environ["DYING_READER_MARKS"]) / path.name
        if path.name == ALWAYS or (path.name == ONCE and not mark.exists()):
            mark.touch()
            os._exit(EXIT_CODE)
        return real(path)

    parse_pool.read_document = read
