"""`browser-toolset replay`: a recorded session run again, call by call, on a site that changed or did not."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import anthropic
import pytest
from PIL import Image

from browser_toolset import BrowserToolset
from browser_toolset.cli import main
from browser_toolset.drivers.mock import MockDriver
from browser_toolset.sessions.recording import record_run
from browser_toolset.sessions.replay import compare_images
from browser_toolset.testing.fake_api import FakeMessagesAPI

SCRIPTS = Path(__file__).parent.parent / "scripts"


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("replay") / "session"
    site = SCRIPTS / "shop_site.json"
    with FakeMessagesAPI(SCRIPTS / "shop_session.json") as api:
        client = anthropic.Anthropic(api_key="test-key", base_url=api.base_url, max_retries=0)
        record_run(
            BrowserToolset(MockDriver.from_json(site, sleep=lambda seconds: None)),
            "What do hats cost?",
            directory,
            settings={"driver": "mock", "driver_options": {"site": str(site)}},
            client=client,
            start_url="https://shop.test/",
            quiet=True,
        )
    return directory


def replay(*argv: str) -> tuple[int, str, str]:
    """`browser-toolset replay ARGV...`: its status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["replay", *argv])
    return status, out.getvalue(), err.getvalue()


def test_an_unchanged_site_replays_the_same(session: Path) -> None:
    status, out, err = replay(str(session))
    assert (status, err) == (0, "")
    assert out.splitlines()[-1] == "0 of 18 calls differ"
    assert "DIFFERS" not in out


def test_a_changed_page_is_found_with_a_text_diff_and_a_pixel_score(session: Path, tmp_path: Path) -> None:
    site = json.loads((SCRIPTS / "shop_site.json").read_text(encoding="utf-8"))
    site["pages"]["/pricing"]["elements"][1]["text"] = "Hats cost 15."
    site["pages"]["/"]["elements"][0]["name"] = "Welcome to our new shop"
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(site), encoding="utf-8")

    status, out, _ = replay(str(session), "--driver", "mock", "--site", str(changed))
    assert status == 1
    assert out.splitlines()[-1] == "3 of 18 calls differ"
    # The text diff, call by call.
    assert "[  7] turn 3 get_page_text: DIFFERS (ok)" in out
    assert "      -Hats cost 12." in out and "      +Hats cost 15." in out
    # Both screenshots of the home page now differ, with their size and score.
    screenshots = [line for line in out.splitlines() if "pixel difference" in line]
    assert len(screenshots) == 2
    for line in screenshots:
        assert "1280x800 -> 1280x800" in line
        assert 0 < float(line.rsplit(" ", 1)[1]) < 0.05
    # The read_page tree has no heading, so it is the same.
    assert "[  4] turn 2 read_page: same (ok)" in out

    # A threshold above the score lets the screenshots pass; the text still differs.
    status, out, _ = replay(str(session), "--site", str(changed), "--pixel-threshold", "0.05")
    assert (status, out.splitlines()[-1]) == (1, "1 of 18 calls differ")


def test_a_different_outcome_is_reported(session: Path, tmp_path: Path) -> None:
    site = json.loads((SCRIPTS / "shop_site.json").read_text(encoding="utf-8"))
    del site["pages"]["/"]["elements"][1]  # no Pricing link: the refs Claude used now point elsewhere
    changed = tmp_path / "nolink.json"
    changed.write_text(json.dumps(site), encoding="utf-8")
    status, out, _ = replay(str(session), "--site", str(changed))
    assert status == 1
    # No Pricing tab opens: switching to it fails and the rest of that turn is not run; the later turn's refs
    # (one fewer element before them) no longer name what Claude filled in.
    assert [line for line in out.splitlines() if ", was " in line] == [
        "[  6] turn 3 switch_tab: DIFFERS (error, was ok)",
        "[  7] turn 3 get_page_text: DIFFERS (not_executed, was ok)",
        "[ 14] turn 6 form_input: DIFFERS (error, was ok)",
        "[ 15] turn 6 left_click: DIFFERS (not_executed, was ok)",
        "[ 16] turn 6 new_tab: DIFFERS (not_executed, was ok)",
        "[ 17] turn 6 close_tab: DIFFERS (not_executed, was ok)",
        "[ 18] turn 6 list_tabs: DIFFERS (not_executed, was ok)",
    ]
    assert out.splitlines()[-1] == "14 of 18 calls differ"


def test_bad_input_exits_2(tmp_path: Path, session: Path) -> None:
    status, _, err = replay(str(tmp_path / "missing"))
    assert status == 2 and "not a recorded session" in err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "calls.jsonl").write_text('{"index": 1}\n[1, 2]\n', encoding="utf-8")
    status, _, err = replay(str(broken))
    assert status == 2 and "line 2" in err
    status, _, err = replay(str(session), "--driver", "no-such-driver")
    assert status == 2 and "driver = 'no-such-driver' (from flag --driver) is not an installed driver" in err


def png(color: tuple[int, int, int], size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def test_the_pixel_score_runs_from_0_to_1() -> None:
    white, black = png((255, 255, 255)), png((0, 0, 0))
    assert compare_images(white, white).score == 0.0
    assert compare_images(white, black).score == 1.0
    half = compare_images(png((255, 255, 255)), png((255, 0, 255)))
    assert half.score == pytest.approx(1 / 3)
    resized = compare_images(white, png((255, 255, 255), (80, 60)))
    assert (resized.recorded_size, resized.new_size, resized.score) == ((40, 30), (80, 60), 0.0)
    assert resized.differs(0.0)
    missing = compare_images(white, None)
    assert missing.new_size is None and missing.differs(1.0)
