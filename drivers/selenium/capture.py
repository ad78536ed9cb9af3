"""Captures of a viewport region at a raised device-pixel ratio, for `zoom`.

Enlarging a 1x screenshot gives Claude more image tokens and no more detail. A browser told to render at a higher
device-pixel ratio (`browsingContext.setViewport` with `devicePixelRatio`; Chromium and Firefox both honour it) paints
text and lines with that many more pixels, and `browsingContext.captureScreenshot` with a `box` clip returns just the
region at that ratio. The ratio is the page's to observe (`devicePixelRatio`, resolution media queries), so it is
raised only for the capture and put back in a `finally`, together with the driver's own viewport size.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Callable
from typing import Any

from browser_toolset.values import Rect

from .connection import BidiClosed, BidiConnection, BidiError, BidiTimeout
from .documents import Documents
from .errors import ContextGone

__all__ = ["ScaledCapture"]

log = logging.getLogger(__name__)

UNSUPPORTED_ERRORS = frozenset({"invalid argument", "unsupported operation", "unknown command"})
"""What a browser answers a `setViewport` with a `devicePixelRatio` it does not implement: the driver then captures
at the ratio it has, and the executor does not enlarge that beyond its pixels."""


class ScaledCapture:
    """Region captures at a device-pixel ratio. `viewport_params(handle)` are the `setViewport` parameters the driver
    keeps every tab at (its viewport size, ratio 1): what a capture restores. Thread-safe: one scaled capture at a
    time, so two never interleave their ratio changes."""

    def __init__(
        self,
        connection: BidiConnection,
        documents: Documents,
        viewport_params: Callable[[str], dict[str, Any]],
        timeout: float,
    ) -> None:
        self._conn = connection
        self._documents = documents
        self._viewport_params = viewport_params
        self._timeout = timeout
        self._lock = threading.Lock()
        self.supported = True
        """False once the browser refused a device-pixel ratio: later captures do not ask again."""

    def capture(self, handle: str, clip: Rect, scale: float) -> bytes:
        """A PNG of `clip` (viewport CSS pixels) at `scale` device pixels per CSS pixel, or at the tab's usual ratio
        when the browser cannot render at `scale`. Raises `BidiError`."""
        box = {"type": "box", "x": clip.x, "y": clip.y, "width": clip.width, "height": clip.height}
        if scale <= 1 or not self.supported:
            return self._screenshot(handle, box)
        with self._lock:
            if not self._raise_ratio(handle, scale):
                return self._screenshot(handle, box)
            # whatever happens to the capture, the ratio goes back
            try:
                png = self._screenshot(handle, box)
            except BidiTimeout:
                self._restore(handle, wait=False)
                raise
            except BaseException:
                self._restore(handle)
                raise
            self._restore(handle)
            return png

    def _raise_ratio(self, handle: str, scale: float) -> bool:
        """Set the ratio; False when the browser does not support it (nothing changed, nothing to restore)."""
        params = {**self._viewport_params(handle), "devicePixelRatio": scale}
        try:
            self._documents.command(handle, "browsingContext.setViewport", params, timeout=self._timeout)
        except (BidiClosed, ContextGone):
            raise  # the session or the tab is gone: nothing left to restore
        except BidiTimeout:
            # the command may still apply when the tab answers again: queue the restore behind it
            self._restore(handle, wait=False)
            raise
        except BidiError as exc:
            if exc.error not in UNSUPPORTED_ERRORS:
                self._restore(handle)
                raise
            log.info("the browser cannot render at device-pixel ratio %g, zooming at its own: %s", scale, exc)
            self.supported = False
            return False
        return True

    def _restore(self, handle: str, *, wait: bool = True) -> None:
        """Put the tab back at the driver's viewport and ratio 1. Without `wait` the command is only queued, for a
        tab that is not answering: the browser applies it after whatever it is stuck on, and waiting would only
        double the time the caller already waited. A failure is logged, not raised: it must not hide the capture's
        own outcome, and the next full capture re-applies the viewport when its size is off."""
        params = self._viewport_params(handle)
        try:
            if wait:
                self._documents.command(handle, "browsingContext.setViewport", params, timeout=self._timeout)
            else:
                self._conn.send("browsingContext.setViewport", params)
        except ContextGone:
            pass  # the tab closed: nothing left to restore
        except BidiError:
            log.warning("could not restore the viewport of %s after a zoom capture", handle, exc_info=True)

    def _screenshot(self, handle: str, box: dict[str, Any]) -> bytes:
        reply = self._documents.command(
            handle,
            "browsingContext.captureScreenshot",
            {"context": handle, "origin": "viewport", "clip": box},
            timeout=self._timeout,
        )
        return base64.b64decode(str(reply.get("data") or ""))
