"""`browser-toolset replay SESSION`: run a recorded session's browser calls again, and say where results differ.

The calls of `calls.jsonl` are run turn by turn with the batch rule (`run_batch`), with the settings the session
was recorded with (its driver and driver options, URL policy, enabled members, viewport, images, timeouts), as
`settings.json` holds them. `--config FILE` and the settings flags override them; nothing else does (neither
`./browser-toolset.toml` nor `BROWSER_TOOLSET_*` variables: a replay reproduces its recording). Naming another
driver drops the recorded options it does not take. Every call runs: nobody is asked to confirm anything again.
Each call's new result is compared with the recorded one:

- its text (the text blocks, the tab inventory and state changes of `browser_state`, and the error flag), shown as
  a bounded unified diff. Downloads are compared over the whole session instead (how each one ended, in order):
  which call reports a download started or finished depends on how fast the file arrives, which the contract
  leaves open. For the same reason a tab the call itself opened is compared by its id, not by how far its page had
  loaded when the call returned (the next call that reads it shows its page);
- its images: count, size, and a pixel-difference score (the mean absolute difference of the RGB channels, 0..1;
  images of different sizes are compared after scaling the new one to the recorded size). A score above the pixel
  threshold counts as a difference. The threshold defaults to 0 on the browser the session was recorded on and to
  "not compared" on another one (another renderer draws other pixels); `--pixel-threshold` sets it either way.

Exit status: 0 when nothing differed, 1 when something did, 2 on bad input (no such session, a malformed file,
refused settings, a driver that cannot start).
"""

from __future__ import annotations

import difflib
import io
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

import attrs
from PIL import Image, ImageChops, ImageStat

from .recording import RecordedCall, Session, mask_secrets

if TYPE_CHECKING:
    from ..config import Settings

__all__ = [
    "CallComparison",
    "ImageComparison",
    "Replay",
    "compare_images",
    "recorded_settings",
    "replay_command",
    "replay_session",
    "replay_settings",
    "result_text",
]

DIFF_LINES: Final = 40
DIFF_LINE_CHARS: Final = 200


@attrs.frozen
class ImageComparison:
    """One image pair: recorded size, new size, and the score (None when one of them is missing or unreadable)."""

    position: int
    recorded_size: tuple[int, int] | None
    new_size: tuple[int, int] | None
    score: float | None

    def differs(self, threshold: float | None) -> bool:
        """Whether the images differ: in size, by one of them missing, or (unless `threshold` is None, which
        compares no pixels) by a score above `threshold`."""
        if self.recorded_size != self.new_size:
            return True
        if threshold is None:
            return self.recorded_size is None
        return self.score is None or self.score > threshold

    def describe(self) -> str:
        def size(value: tuple[int, int] | None) -> str:
            return "missing" if value is None else f"{value[0]}x{value[1]}"

        score = "n/a" if self.score is None else f"{self.score:.6f}"
        return (
            f"image {self.position + 1}: {size(self.recorded_size)} -> {size(self.new_size)}, pixel difference {score}"
        )


@attrs.frozen
class CallComparison:
    call: RecordedCall
    outcome: str
    text_diff: tuple[str, ...]
    images: tuple[ImageComparison, ...]
    threshold: float | None

    @property
    def differs(self) -> bool:
        return bool(self.text_diff) or any(image.differs(self.threshold) for image in self.images)


# --- Comparing -----------------------------------------------------------------------------------------------------


def _blocks(content: object) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list | tuple) else []


def _state_lines(block: Mapping[str, Any]) -> list[str]:
    changes = [change for change in block.get("state_changes") or () if isinstance(change, Mapping)]
    opened = {change.get("tab_id") for change in changes if change.get("type") == "tab_opened"}
    lines = []
    for tab in block.get("tabs") or ():
        if isinstance(tab, Mapping):
            mark = "*" if tab.get("active") else " "
            if tab.get("tab_id") in opened:  # how far its page has loaded is the browser's timing (see the module)
                lines.append(f"[tab] {mark}{tab.get('tab_id')} (opened by this call)")
                continue
            lines.append(f"[tab] {mark}{tab.get('tab_id')} {tab.get('title', '')} <{tab.get('url', '')}>")
    for change in changes:
        if str(change.get("type", "")).startswith("download_"):
            continue  # compared over the whole session (see the module)
        lines.append("[change] " + _change_line(change))
    return lines


def _change_line(change: Mapping[str, Any]) -> str:
    """A state change as one line; a download's path is reduced to its file name (it differs from run to run)."""
    shown = {k: (os.path.basename(str(v)) if k == "path" else v) for k, v in change.items()}
    return json.dumps(shown, sort_keys=True, ensure_ascii=False)


def download_lines(results: Iterable[object]) -> list[str]:
    """How the session's downloads ended, in order, from the results of its calls: one line per completed or
    failed download (a started one says nothing the end does not)."""
    lines = []
    for content in results:
        for block in _blocks(content):
            if not (isinstance(block, Mapping) and block.get("type") == "browser_state"):
                continue
            for change in block.get("state_changes") or ():
                if isinstance(change, Mapping) and change.get("type") in ("download_completed", "download_failed"):
                    lines.append("[download] " + _change_line(change))
    return lines


def result_text(content: object, is_error: bool = False) -> list[str]:
    """The comparable text of a result: its text blocks, its `browser_state` as lines, and the error flag.
    Download paths are reduced to their file names (they differ from run to run)."""
    lines = ["[error]"] if is_error else []
    for block in _blocks(content):
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text":
            lines.extend(str(block.get("text", "")).splitlines() or [""])
        elif block.get("type") == "browser_state":
            lines.extend(_state_lines(block))
        elif block.get("type") == "image":
            lines.append("[image]")
    return lines


def _bounded_diff(before: Sequence[str], after: Sequence[str]) -> tuple[str, ...]:
    if list(before) == list(after):
        return ()
    lines = list(difflib.unified_diff(list(before), list(after), "recorded", "replayed", lineterm="", n=2))
    shown = [line if len(line) <= DIFF_LINE_CHARS else line[: DIFF_LINE_CHARS - 1] + "…" for line in lines]
    if len(shown) > DIFF_LINES:
        shown = [*shown[:DIFF_LINES], f"… {len(shown) - DIFF_LINES} more diff lines"]
    return tuple(shown)


def _open(data: bytes | None) -> Image.Image | None:
    if data is None:
        return None
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


def compare_images(recorded: bytes | None, new: bytes | None, position: int = 0) -> ImageComparison:
    """Sizes and the mean absolute pixel difference (0 = identical, 1 = black against white) of two images."""
    before, after = _open(recorded), _open(new)
    score: float | None = None
    if before is not None and after is not None:
        scaled = after if after.size == before.size else after.resize(before.size)
        stat = ImageStat.Stat(ImageChops.difference(before, scaled))
        score = sum(stat.mean) / (len(stat.mean) * 255.0)
    return ImageComparison(
        position,
        None if before is None else (int(before.width), int(before.height)),
        None if after is None else (int(after.width), int(after.height)),
        score,
    )


def _images(session: Session, content: object) -> list[bytes | None]:
    found: list[bytes | None] = []
    for block in _blocks(content):
        if isinstance(block, Mapping) and block.get("type") == "image":
            loaded = session.image_bytes(block)
            found.append(None if loaded is None else loaded[0])
    return found


def compare_call(
    session: Session, call: RecordedCall, new: Mapping[str, Any], threshold: float | None
) -> CallComparison:
    from .recording import outcome_of

    recorded_error = call.outcome != "ok"
    diff = _bounded_diff(
        result_text(call.result, recorded_error), result_text(new.get("content"), bool(new.get("is_error")))
    )
    before = _images(session, call.result)
    after = _images(session, new.get("content"))
    images = tuple(
        compare_images(before[i] if i < len(before) else None, after[i] if i < len(after) else None, i)
        for i in range(max(len(before), len(after)))
    )
    return CallComparison(call, outcome_of(new), diff, images, threshold)


# --- Replaying -----------------------------------------------------------------------------------------------------


def _turns(calls: Iterable[RecordedCall]) -> list[list[RecordedCall]]:
    turns: list[list[RecordedCall]] = []
    for call in calls:
        if turns and turns[-1][0].turn == call.turn and call.turn != 0:
            turns[-1].append(call)
        else:
            turns.append([call])
    return turns


@attrs.frozen
class Replay:
    """A replayed session: each call compared, and the diff of how the session's downloads ended."""

    calls: tuple[CallComparison, ...]
    downloads: tuple[str, ...]

    @property
    def differs(self) -> bool:
        return bool(self.downloads) or any(item.differs for item in self.calls)


def replay_session(session: Session, toolset: Any, *, threshold: float | None = 0.0) -> Replay:
    """Run the session's calls on `toolset`, turn by turn with the batch rule, and compare each result (pixels
    only when `threshold` is not None) and the downloads."""
    from ..executor.batch import run_batch

    comparisons: list[CallComparison] = []
    replayed: list[object] = []
    for turn in _turns(session.calls):
        blocks = [
            {
                "type": "tool_use",
                "id": call.tool_use_id,
                "name": call.member,
                "input": dict(call.input),
                "toolset_name": "browser",
            }
            for call in turn
        ]
        answer = run_batch(toolset, {"role": "assistant", "content": blocks}, contain_usage_errors=True)
        results = {block["tool_use_id"]: block for block in answer["content"]}
        for call in turn:
            new = results.get(call.tool_use_id, {"content": [], "is_error": True})
            comparisons.append(compare_call(session, call, new, threshold))
            replayed.append(new.get("content"))
    recorded = download_lines(call.result for call in session.calls)
    return Replay(tuple(comparisons), _bounded_diff(recorded, download_lines(replayed)))


LEGACY_KEYS: Final[Mapping[str, str]] = {
    "allowed_hosts": "urls.allow_hosts",
    "allow_host": "urls.allow_hosts",
    "allow_private": "urls.allow_private",
    "image_format": "images.format",
    "image_quality": "images.quality",
}
"""Keys of sessions recorded before the settings were one model, and the keys they are now."""
NOT_REPLAYED: Final = ("loop.", "confirm.")
"""Recorded keys a replay leaves out: the loop is not run again, and every recorded call runs."""


def _masked(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip("*") == "" and value != "")


def recorded_settings(recorded: Mapping[str, Any]) -> dict[str, object]:
    """The configuration keys of a session's `settings.json` (dotted keys, as `exec` and `run` record them, or the
    older flat ones), without masked values and without what a replay leaves out."""
    from ..config import setting_keys

    known = {key.name for key in setting_keys()}
    found: dict[str, object] = {}
    for name, value in recorded.items():
        key = LEGACY_KEYS.get(name, name)
        if _masked(value) or key.startswith(NOT_REPLAYED):
            continue
        if key == "driver_options" and isinstance(value, Mapping):
            found.update({f"driver_options.{k}": v for k, v in value.items() if not _masked(v)})
        elif key == "option" and isinstance(value, list):
            for item in value:
                option, sep, text = str(item).partition("=")
                if sep and option and not _masked(text):
                    found[f"driver_options.{option}"] = text
        elif key in known or key.startswith("driver_options."):
            found[key] = value
    return found


def _for_driver(recorded: Mapping[str, object], driver: str) -> dict[str, object]:
    """The recorded keys that apply to `driver` when it is not the recorded one: its own options (and the
    settings that are such options) only if it declares them."""
    from ..config import declared_for
    from ..config.settings import SHORTCUTS

    declared = {option.key for option in declared_for(driver) or ()}
    kept: dict[str, object] = {}
    for key, value in recorded.items():
        option = key.split(".", 1)[1] if key.startswith("driver_options.") else SHORTCUTS.get(key)
        if key == "driver" or (option is not None and option not in declared and key not in QUIET_KEYS):
            continue
        kept[key] = value
    return kept


QUIET_KEYS: Final = ("timeouts.navigation", "timeouts.command", "timeouts.script")
"""Settings a driver without the option ignores, so they are kept whatever the driver."""


def replay_settings(
    session: Session, config_file: str | None = None, flags: Iterable[tuple[str, object, str]] = ()
) -> Settings:
    """The settings to replay `session` with: the recorded ones, then `config_file`, then `flags`, every call
    allowed to run. Raises `ConfigError`."""
    from ..config import ConfirmSettings, load_settings
    from ..safety.confirm import CATEGORIES

    given = list(flags)
    recorded = recorded_settings(session.settings)
    where = str(session.directory)

    def load(base: Mapping[str, object], check: bool) -> Settings:
        return load_settings(
            config_file, env={}, flags=given, use_default_file=False, check_driver=check, recorded=base,
            recorded_in=where,
        )  # fmt: skip

    driver = load({"driver": recorded["driver"]} if "driver" in recorded else {}, False).driver
    if driver != recorded.get("driver", driver):
        recorded = _for_driver(recorded, driver)
    settings = load(recorded, True)
    return attrs.evolve(settings, confirm=ConfirmSettings(**dict.fromkeys(CATEGORIES, "allow")))


def _renderer(driver: object, options: object) -> tuple[str, str]:
    browser = options.get("browser") if isinstance(options, Mapping) else None
    return str(driver), str(browser or "")


def recorded_renderer(session: Session) -> tuple[str, str]:
    """The driver and browser the session was recorded on, as `_renderer` gives them."""
    recorded = recorded_settings(session.settings)
    options = {k.split(".", 1)[1]: v for k, v in recorded.items() if k.startswith("driver_options.")}
    if "browser" in recorded and "browser" not in options:
        options["browser"] = recorded["browser"]
    return _renderer(recorded.get("driver", ""), options)


def build_toolset(settings: Settings) -> Any:
    """A toolset on a started driver for `settings` (the default browser when they name none)."""
    from ..config import toolset_on
    from ..registry import load_driver

    return toolset_on(load_driver(settings.driver, settings.driver_options), settings)


def print_replay(replay: Replay, out: TextIO) -> None:
    """One line per call (with a diff under each one that differs), the downloads, and a summary line."""
    comparisons = replay.calls
    for item in comparisons:
        call = item.call
        head = f"[{call.index:>3}] turn {call.turn} {call.member}"
        if not item.differs:
            print(f"{head}: same ({item.outcome})", file=out)
            continue
        change = f", was {call.outcome}" if call.outcome != item.outcome else ""
        print(f"{head}: DIFFERS ({item.outcome}{change})", file=out)
        for line in item.text_diff:
            print(f"      {line}", file=out)
        for image in item.images:
            if image.differs(item.threshold):
                print(f"      {image.describe()}", file=out)
    if replay.downloads:
        print("downloads: DIFFER", file=out)
        for line in replay.downloads:
            print(f"      {line}", file=out)
    differing = sum(1 for item in comparisons if item.differs)
    also = ", and the downloads do" if replay.downloads else ""
    print(f"{differing} of {len(comparisons)} calls differ{also}", file=out)


# --- Command line --------------------------------------------------------------------------------------------------


def replay_command(
    session_dir: str | Path,
    *,
    config_file: str | None = None,
    flags: Iterable[tuple[str, object, str]] = (),
    pixel_threshold: float | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """`browser-toolset replay`: replay the session in `session_dir` with its recorded settings, `config_file` and
    `flags` (as `replay_settings` combines them), print each call's comparison, and exit as the module says."""
    from ..config import ConfigError, with_default_browser
    from ..safety.secrets import missing_secrets

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        session = Session(session_dir)
    except (OSError, ValueError) as exc:
        print(f"browser-toolset replay: {exc}", file=err)
        return 2
    if not session.calls:
        print(f"browser-toolset replay: {session_dir} records no browser calls", file=err)
        return 2
    try:
        settings = with_default_browser(replay_settings(session, config_file, flags))
    except ConfigError as exc:
        print(f"browser-toolset replay: {exc}", file=err)
        return 2
    missing = missing_secrets((call.input for call in session.calls), settings.secrets)
    if missing:
        print(
            f"browser-toolset replay: the session types the secret(s) {', '.join(missing)}, which the configuration "
            "does not declare: add [secrets.NAME] (env or file, and hosts) to the file given with --config",
            file=err,
        )
        return 2
    recorded_on = recorded_renderer(session)
    replayed_on = _renderer(settings.driver, settings.driver_options)
    threshold = pixel_threshold
    if threshold is None and recorded_on == replayed_on:
        threshold = 0.0
    try:
        toolset = build_toolset(settings)
    except Exception as exc:
        shown = mask_secrets(f"{type(exc).__name__}: {exc}")
        print(f"browser-toolset replay: could not start the {settings.driver} driver: {shown}", file=err)
        return 2
    if threshold is None:
        print(
            f"Pixels not compared: recorded on {_describe(recorded_on)}, replayed on {_describe(replayed_on)} "
            "(--pixel-threshold compares them anyway)",
            file=out,
        )
    try:
        replay = replay_session(session, toolset, threshold=threshold)
    finally:
        try:
            toolset.close()
        except Exception as exc:
            print(f"browser-toolset replay: closing the browser failed: {exc}", file=err)
    print_replay(replay, out)
    return 1 if replay.differs else 0


def _describe(renderer: tuple[str, str]) -> str:
    driver, browser = renderer
    return f"{driver} ({browser})" if browser else driver or "an unrecorded driver"
