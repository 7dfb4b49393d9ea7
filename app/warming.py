"""Whether the server's start-up imports are done: the first page run waits for them.

``app.serve`` starts the server while a thread of its own imports what the first page run needs
(the entry point's and the Overview's libraries); a page run that began meanwhile waits here
instead of importing the same packages beside it. Outside ``app.serve`` (AppTest, ``streamlit
run``) nothing is being warmed and nothing waits.
"""

from __future__ import annotations

import threading

_done = threading.Event()
_done.set()


def begin() -> None:
    """Called before the warming thread starts: page runs wait from now on."""
    _done.clear()


def finish() -> None:
    """Called when the warming thread ends, whether or not its imports succeeded."""
    _done.set()


def wait() -> None:
    """Until the start-up imports are done (at once when none are under way)."""
    _done.wait()
