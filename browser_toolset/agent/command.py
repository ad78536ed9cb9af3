"""`browser-toolset run`: the loop's options on the command line, and the command itself on a toolset the CLI built
(`cli.commands` adds the driver's options, builds the toolset and calls `run_from_args`)."""

from __future__ import annotations

import argparse
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

__all__ = ["EXIT_CODES", "add_arguments", "run_from_args"]

EXIT_CODES: Final[Mapping[str, int]] = {"end_turn": 0, "stop_sequence": 0, "interrupted": 130}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The loop's options of `browser-toolset run`; the CLI adds the driver's options and builds the toolset."""
    parser.add_argument("task", help="what Claude should do in the browser")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="default: %(default)s")
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS, help="per reply (default %(default)s)")
    parser.add_argument("--max-turns", type=int, default=DEFAULT_MAX_TURNS, help="default: %(default)s")
    parser.add_argument("--start-url", help="open this page before the first request")
    parser.add_argument("--system", help="a system prompt")
    parser.add_argument("--max-images", type=int, default=MAX_IMAGES, help="images kept before older ones go")
    parser.add_argument("--keep-images", type=int, default=KEEP_IMAGES, help="images left after older ones go")
    parser.add_argument("--no-threads", action="store_true", help="send the whole history with every request")
    parser.add_argument("--transcript", help="write the conversation to this file as JSON")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only Claude's final answer")


def run_from_args(
    args: argparse.Namespace,
    toolset: BetaAbstractBrowserToolset20260801,
    *,
    client: anthropic.Anthropic | None = None,
    out: TextIO | None = None,
) -> int:
    """Run `browser-toolset run` on a toolset the CLI built: progress on standard error, Claude's final answer on
    standard output. Exits 0 when Claude finished, 130 when interrupted, 1 otherwise."""
    result = run_task(
        toolset,
        args.task,
        client=client,
        model=args.model,
        max_tokens=args.max_tokens,
        max_turns=args.max_turns,
        start_url=args.start_url,
        system=args.system,
        quiet=args.quiet,
        max_images=args.max_images,
        keep_images=args.keep_images,
        threads=not args.no_threads,
    )
    if args.transcript:
        Path(args.transcript).write_text(json.dumps(list(result.messages), ensure_ascii=False, indent=1), "utf-8")
    if result.final_text:
        print(result.final_text, file=out if out is not None else sys.stdout)
    return EXIT_CODES.get(result.stop_reason, 1)
