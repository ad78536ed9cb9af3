"""Ctrl-C held back while a few steps run that must not be cut in half.

Starting and closing a browser records what exists (a folder, the WebDriver binary's process) and later ends it;
a `KeyboardInterrupt` raised between creating a thing and recording it, or halfway through ending it, would leave
it behind. Those steps run inside `interrupts_deferred()`, which raises the interrupt once they are done.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

__all__ = ["interrupts_deferred"]


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[Callable[[], bool]]:
    """Hold SIGINT back while the block runs, then raise the `KeyboardInterrupt` it would have raised. Yields a
    function saying whether one came, so a long wait inside the block (a graceful quit) can cut itself short.

    Only where Python's own handler is installed and only on the main thread (the one `KeyboardInterrupt` is raised
    in): a program with a SIGINT handler of its own (asyncio's, a CLI's) keeps it, and a nested use leaves the
    outer one in charge."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    try:
        installed = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    except ValueError:
        installed = False
    if not installed:
        yield lambda: False
        return
    caught: list[int] = []

    def hold(number: int, frame: FrameType | None) -> None:
        caught.append(number)

    signal.signal(signal.SIGINT, hold)
    try:
        yield lambda: bool(caught)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if caught:
            raise KeyboardInterrupt
