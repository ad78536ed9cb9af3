"""`browser-toolset run` on a toolset the CLI built (`browser_toolset.cli` reads the flags and the settings, starts
the driver and calls `run_command`): the loop's progress on standard error, Claude's final answer on standard
output, the exit status from how the run stopped."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final, TextIO

import anthropic
from anthropic.tools.browser import BetaAbstractBrowserToolset20260801

from .options import DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS, DEFAULT_MODEL
from .run import run_task
from .trimming import KEEP_IMAGES, MAX_IMAGES

__all__ = ["EXIT_CODES", "run_command"]

EXIT_CODES: Final[Mapping[str, int]] = {"end_turn": 0, "stop_sequence": 0, "interrupted": 130}


def run_command(
    toolset: BetaAbstractBrowserToolset20260801,
    task: str,
    *,
    client: anthropic.Anthropic | None = None,
    model: str = DEFAULT_MODEL,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_turns: int = DEFAULT_MAX_TURNS,
    start_url: str | None = None,
    system: str | None = None,
    quiet: bool = False,
    max_images: int = MAX_IMAGES,
    keep_images: int = KEEP_IMAGES,
    threads: bool = True,
    transcript: str | Path | None = None,
    out: TextIO | None = None,
) -> int:
    """Run `task` (`run_task`, which closes the toolset), write the conversation to `transcript` as JSON when given,
    and print Claude's final answer to `out` (standard output). Exits 0 when Claude finished, 130 when
    interrupted, 1 otherwise."""
    result = run_task(
        toolset,
        task,
        client=client,
        model=model,
        max_tokens=max_tokens,
        max_turns=max_turns,
        start_url=start_url,
        system=system,
        quiet=quiet,
        max_images=max_images,
        keep_images=keep_images,
        threads=threads,
    )
    if transcript:
        Path(transcript).write_text(json.dumps(list(result.messages), ensure_ascii=False, indent=1), "utf-8")
    if result.final_text:
        print(result.final_text, file=out if out is not None else sys.stdout)
    return EXIT_CODES.get(result.stop_reason, 1)
