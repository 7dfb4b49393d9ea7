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
#: Set when a page run has finished: the other pages' libraries are imported after it, so the
#: first visitor's page does not share the interpreter with those imports.
_page_ran = threading.Event()


def begin() -> None:
    """Called before the warming thread starts: page runs wait from now on."""
    _done.clear()


def finish() -> None:
    """Called when the warming thread ends, whether or not its imports succeeded."""
    _done.set()


def wait() -> None:
    """Until the start-up imports are done (at once when none are under way)."""
    _done.wait()


def page_ran() -> None:
    """Called at the end of every page run."""
    _page_ran.set()


def wait_for_a_page(timeout: float) -> None:
    """Until a page run has finished, or ``timeout`` seconds (nobody has visited yet)."""
    _page_ran.wait(timeout)
