"""`browser-toolset replay SESSION`: run a recorded session's browser calls again, and say where results differ.

The calls of `calls.jsonl` are run turn by turn with the batch rule (`run_batch`), on any driver (`--driver NAME`,
default the one the session was recorded with, else `mock`; `--site FILE` and `-o KEY=VALUE` are its options).
Each call's new result is compared with the recorded one:

- its text (the text blocks, the tab inventory and state changes of `browser_state`, and the error flag), shown as
  a bounded unified diff;
- its images: count, size, and a pixel-difference score (the mean absolute difference of the RGB channels, 0..1;
  images of different sizes are compared after scaling the new one to the recorded size). A score above
  `--pixel-threshold` (default 0) counts as a difference.

Exit status: 0 when nothing differed, 1 when something did, 2 on bad input (no such session, a malformed file, a
driver that cannot start).
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TextIO

import attrs
from PIL import Image, ImageChops, ImageStat

from .recording import RecordedCall, Session, mask_secrets

__all__ = [
    "CallComparison",
    "ImageComparison",
    "add_arguments",
    "compare_images",
    "main",
    "replay_session",
    "result_text",
    "run",
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

    def differs(self, threshold: float) -> bool:
        if self.recorded_size != self.new_size:
            return True
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
    threshold: float

    @property
    def differs(self) -> bool:
        return bool(self.text_diff) or any(image.differs(self.threshold) for image in self.images)


# --- Comparing -----------------------------------------------------------------------------------------------------


def _blocks(content: object) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list | tuple) else []


def _state_lines(block: Mapping[str, Any]) -> list[str]:
    lines = []
    for tab in block.get("tabs") or ():
        if isinstance(tab, Mapping):
            mark = "*" if tab.get("active") else " "
            lines.append(f"[tab] {mark}{tab.get('tab_id')} {tab.get('title', '')} <{tab.get('url', '')}>")
    for change in block.get("state_changes") or ():
        if isinstance(change, Mapping):
            shown = {k: (os.path.basename(str(v)) if k == "path" else v) for k, v in change.items()}
            lines.append("[change] " + json.dumps(shown, sort_keys=True, ensure_ascii=False))
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


def compare_call(session: Session, call: RecordedCall, new: Mapping[str, Any], threshold: float) -> CallComparison:
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


def replay_session(session: Session, toolset: Any, *, threshold: float = 0.0) -> list[CallComparison]:
    """Run the session's calls on `toolset`, turn by turn with the batch rule, and compare each result."""
    from ..executor.batch import run_batch

    comparisons: list[CallComparison] = []
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
    return comparisons


def _setting(settings: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        value = settings.get(name)
        if value is not None and value != "***":
            return value
    return None


def _driver_options(args: argparse.Namespace, settings: Mapping[str, Any], same_driver: bool) -> dict[str, str]:
    options: dict[str, str] = {}
    if same_driver:
        recorded = _setting(settings, "driver_options")
        if isinstance(recorded, Mapping):
            options.update({str(k): str(v) for k, v in recorded.items() if v is not None and v != "***"})
        for item in _setting(settings, "option") or ():
            key, sep, value = str(item).partition("=")
            if sep and key and value != "***":
                options[key] = value
    if args.site:
        options["site"] = args.site
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"-o takes KEY=VALUE, not {item!r}")
        options[key] = value
    return options


def build_toolset(args: argparse.Namespace, settings: Mapping[str, Any]) -> Any:
    from ..executor.images import ImageLimits
    from ..executor.toolset import BrowserToolset
    from ..registry import load_driver
    from ..safety.urls import URLPolicy

    recorded_driver = _setting(settings, "driver")
    name = args.driver or (str(recorded_driver) if recorded_driver else "mock")
    options = _driver_options(args, settings, same_driver=name == recorded_driver or args.driver is None)
    hosts = _setting(settings, "allowed_hosts", "allow_host")
    allow_private = bool(args.allow_private or _setting(settings, "allow_private"))
    enabled = [str(member) for member in _setting(settings, "enable") or ()]
    image_format = str(_setting(settings, "image_format") or "png")
    quality = int(_setting(settings, "image_quality") or 85)
    driver = load_driver(name, options)
    try:
        return BrowserToolset(
            driver,
            navigation=URLPolicy(allowed_hosts=list(hosts) if hosts else None, allow_private=allow_private),
            image_limits=ImageLimits(format=image_format, quality=quality),  # type: ignore[arg-type]
            configs={member: {"enabled": True} for member in enabled} or None,
            confirm=(lambda context: True) if enabled else None,
        )
    except Exception:
        driver.close()
        raise


def print_comparisons(comparisons: Sequence[CallComparison], out: TextIO) -> None:
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
    differing = sum(1 for item in comparisons if item.differs)
    print(f"{differing} of {len(comparisons)} calls differ", file=out)


# --- Command line --------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `browser-toolset replay`."""
    parser.add_argument("session", help="a session directory written by --record")
    parser.add_argument("--driver", help="driver name (default: the recorded one, else mock)")
    parser.add_argument("--site", help="mock driver: a JSON site file")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="a driver option")
    parser.add_argument("--allow-private", action="store_true", help="allow localhost and private-network addresses")
    parser.add_argument(
        "--pixel-threshold", type=float, default=0.0, metavar="SCORE",
        help="a pixel-difference score above this counts as a difference (0..1, default %(default)s)",
    )  # fmt: skip


def run(args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        session = Session(args.session)
    except (OSError, ValueError) as exc:
        print(f"browser-toolset replay: {exc}", file=err)
        return 2
    if not session.calls:
        print(f"browser-toolset replay: {args.session} records no browser calls", file=err)
        return 2
    try:
        toolset = build_toolset(args, session.settings)
    except Exception as exc:
        shown = mask_secrets(f"{type(exc).__name__}: {exc}")
        print(f"browser-toolset replay: could not start the driver: {shown}", file=err)
        return 2
    try:
        comparisons = replay_session(session, toolset, threshold=args.pixel_threshold)
    finally:
        try:
            toolset.close()
        except Exception as exc:
            print(f"browser-toolset replay: closing the browser failed: {exc}", file=err)
    print_comparisons(comparisons, out)
    return 1 if any(item.differs for item in comparisons) else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="browser-toolset replay", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
