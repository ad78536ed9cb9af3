"""Waiting for the browser, and a port for it to fail on: the one polling helper and the one free-port helper of
the test suite."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["free_port", "wait_until"]

T = TypeVar("T")


def wait_until(probe: Callable[[], T], timeout: float = 5.0, interval: float = 0.05) -> T:
    """Poll `probe` until it returns something truthy; fail the test with its last value after `timeout`."""
    deadline = time.monotonic() + timeout
    value = probe()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = probe()
    assert value, f"condition not met within {timeout} s (last value {value!r})"
    return value


def free_port() -> int:
    """A local port nothing listens on (for connection-refused navigations)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
