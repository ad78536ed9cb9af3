"""`browser-toolset run`: Claude does a task in the browser the settings describe, through the Messages API
(`browser_toolset.agent.command`), with progress on stderr and the final answer on stdout.

Nothing is sent before the run can start: an API client without a key, or a start page the URL policy refuses,
ends the command first. On the mock driver the first line says that the pages Claude will see are not real.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import attrs

from ..agent.command import run_command
from ..agent.options import LoopOptions
from ..agent.trimming import KEEP_IMAGES, MAX_IMAGES
from ..config import Settings, url_policy
from ..config.toolsets import save_storage_on_close
from ..safety.secrets import with_secret_names
from ..safety.urls import address_for_navigation
from .browser import make_toolset, start_driver, terminal_asker
from .record import Timed, record_transcript, recorder_for

__all__ = ["MOCK_NOTICE", "TaskRequest", "run_task_command"]

MOCK_NOTICE = (
    "browser-toolset: NOTICE: the mock driver is an in-memory test browser: Claude will see the pages of --site "
    "(without it, a 404 page at every address), not the real web. Leave --driver out to use a real browser."
)


@attrs.frozen
class TaskRequest:
    """What `run` is asked beyond the settings: the task and how the conversation goes."""

    task: str
    start_url: str | None = None
    system: str | None = None
    quiet: bool = False
    max_images: int = MAX_IMAGES
    keep_images: int = KEEP_IMAGES
    threads: bool = True
    transcript: str | None = None


def _client(settings: Settings) -> Any:
    import anthropic

    options: dict[str, Any] = {}
    if settings.loop.api_key:
        options["api_key"] = settings.loop.api_key
    if settings.loop.base_url:
        options["base_url"] = settings.loop.base_url
    if settings.timeouts.api:
        options["timeout"] = settings.timeouts.api
    client = anthropic.Anthropic(**options)
    if not any(getattr(client, name, None) for name in ("api_key", "auth_token", "credentials")):
        raise ValueError("no API key: set ANTHROPIC_API_KEY, or loop.api_key (BROWSER_TOOLSET_LOOP_API_KEY)")
    return client


def start_url_refusal(settings: Settings, start_url: str) -> str | None:
    """Why the URL policy of `settings` refuses `start_url` (as `navigate` would read it), or None."""
    return url_policy(settings).refusal(address_for_navigation(start_url))


def run_task_command(settings: Settings, request: TaskRequest) -> int:
    """Run `request` with the browser `settings` describe (its browser chosen already). Exits 0 when Claude
    finished, 130 when interrupted, 2 when the run could not start, 1 otherwise."""
    if settings.driver == "mock":
        print(MOCK_NOTICE, file=sys.stderr, flush=True)
    if request.start_url is not None:
        refusal = start_url_refusal(settings, request.start_url)
        if refusal is not None:
            print(
                f"browser-toolset: --start-url {request.start_url} is refused: {refusal} (see --allow-host and "
                "--allow-private); nothing was sent to Claude",
                file=sys.stderr,
            )
            return 2
    try:
        LoopOptions(max_images=request.max_images, keep_images=request.keep_images)
    except ValueError as exc:
        print(f"browser-toolset: {exc}", file=sys.stderr)
        return 2
    recorder = recorder_for(settings, {"task": request.task, "start_url": request.start_url})
    try:
        client = _client(settings)
    except Exception as exc:
        print(f"browser-toolset: no Messages API client: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    driver = start_driver(settings)
    if driver is None:
        return 2
    # stdin is free in `run`: a person at the terminal is asked; without one, `ask` means deny
    asker = terminal_asker() if sys.stdin.isatty() and "ask" in settings.confirm.decisions().values() else None
    toolset = make_toolset(settings, driver, asker)
    if toolset is None:
        return 2
    save_storage_on_close(toolset, settings)  # the run closes the toolset, however it ends
    if recorder is None:
        return _run(toolset, settings, request, client, request.transcript)
    timed = Timed(toolset)
    folder = None
    transcript = request.transcript
    if not transcript:
        folder = tempfile.mkdtemp(prefix="browser-toolset-run-")
        transcript = os.path.join(folder, "transcript.json")
    try:
        status = _run(toolset, settings, request, client, transcript)
        with recorder:
            record_transcript(recorder, json.loads(Path(transcript).read_text("utf-8")), timed)
        return status
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _run(toolset: Any, settings: Settings, request: TaskRequest, client: Any, transcript: str | None) -> int:
    return run_command(
        toolset,
        request.task,
        client=client,
        model=settings.loop.model,
        max_tokens=settings.loop.max_tokens,
        max_turns=settings.loop.max_turns,
        start_url=request.start_url,
        system=with_secret_names(request.system, getattr(toolset.options, "secrets", None)),
        quiet=request.quiet,
        threads=request.threads,
        transcript=transcript,
        max_images=request.max_images,
        keep_images=request.keep_images,
    )
