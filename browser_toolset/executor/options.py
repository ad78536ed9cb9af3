"""`ToolsetOptions`: every setting `BrowserToolset` and `AsyncBrowserToolset` take, as one value.

Both constructors take exactly these keywords, in this order and with these defaults, build this value once, and read
their settings only from it: a setting added here and to one constructor but not the other fails
tests/unit/test_toolset_options.py, so the two toolsets cannot drift apart again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import cast

import attrs
from anthropic.tools.browser import BetaAsyncConfirmCallable, BetaAsyncURLPolicy, BetaFilePolicy, BetaToolConfigs
from anthropic.types.beta import BetaBrowserToolsetConfigsParam

from ..safety.secrets import Secrets
from ..safety.urls import URLPolicy
from .document_store import DocumentResolver
from .images import ImageLimits
from .secret_driver import check_secrets_and_configs

__all__ = ["DocumentResolver", "ToolsetOptions"]


def _url_policy(policy: URLPolicy | None) -> URLPolicy:
    # no policy given means the default one, which refuses private addresses: never "no policy"
    return URLPolicy() if policy is None else policy


def _image_limits(limits: ImageLimits | None) -> ImageLimits:
    return ImageLimits() if limits is None else limits


@attrs.frozen(kw_only=True)
class ToolsetOptions:
    """The settings of one toolset. The executor's own: `navigation` (the URL policy for every navigation and, through
    the driver, everything the browser loads; None means the default `URLPolicy`), `image_limits` (None means the
    default `ImageLimits`), `documents` (the application's document store for `file_upload`'s `document_ids`: an id in,
    a `Document` or a local path out; see `document_store`), `sleep` (what `wait` and the covered-click retry sleep
    with), `annotate_screenshots` and `secrets` (placeholders `type` and `form_input` fill in on the secret's hosts, and
    values no output shows; see `browser_toolset.safety.secrets`). The SDK's own, passed through to its pipeline:
    `configs`, `confirm`, `url_policy`, `file_policy` and `tool_configs`. `confirm` and `url_policy` are typed as the
    async toolset takes them (plain or async callables); the SDK refuses an async one on the sync toolset with
    `ToolsetContractError`."""

    navigation: URLPolicy = attrs.field(default=None, converter=_url_policy)
    image_limits: ImageLimits = attrs.field(default=None, converter=_image_limits)
    documents: DocumentResolver | None = None
    sleep: Callable[[float], None] = time.sleep
    configs: BetaBrowserToolsetConfigsParam | Mapping[str, Mapping[str, bool]] | None = None
    confirm: BetaAsyncConfirmCallable | None = None
    url_policy: BetaAsyncURLPolicy | None = None
    file_policy: BetaFilePolicy | None = None
    tool_configs: BetaToolConfigs | None = None
    annotate_screenshots: bool = False
    secrets: Secrets | None = None

    def __attrs_post_init__(self) -> None:
        check_secrets_and_configs(self.secrets, self.configs)

    @property
    def wire_configs(self) -> BetaBrowserToolsetConfigsParam | None:
        """`configs` as the SDK's constructor types it: a plain mapping of the same shape is what it reads."""
        return cast("BetaBrowserToolsetConfigsParam | None", self.configs)

    def for_executor(self) -> ToolsetOptions:
        """These options without the SDK's hooks and `tools[]` settings: for the `BrowserToolset` an async toolset
        hands its browser work to. The async toolset's own pipeline applies those hooks before a call reaches it, and
        its pipeline is never entered, so it must not ask for a `confirm` of its own when `configs` enables an
        optional member."""
        return attrs.evolve(self, configs=None, confirm=None, url_policy=None, file_policy=None, tool_configs=None)
