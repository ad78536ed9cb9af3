"""`Site`: every URL the mock browser can load, and what each serves.

The driver reads the site on every load rather than copying it, so a test may add pages, redirects or unreachable
hosts between navigations and the next load sees them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

import attrs

from .behaviours import Behaviour
from .elements import Element
from .resources import FileResponse, Page, Redirect, Resource, ScriptError
from .site_json import _read_site, _read_site_file, _SiteData


def normalize_url(url: str) -> str:
    """The URL as a browser would show it: lower-case scheme and host, `/` for an empty path."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, parts.fragment))


def _lookup_key(url: str) -> str:
    return normalize_url(url).split("#", 1)[0]


@attrs.define
class Site:
    """Every URL the mock browser can load. Any other http(s) URL gets a 404 page; a host in `unreachable_hosts`
    fails to load at all. Paths are resolved against `base_url`, so most sites never spell a host. The builder
    methods return the site, so they chain; the driver reads the site on each load, so changes apply to the next
    navigation."""

    base_url: str = "https://example.test/"
    start: str | None = None
    pages: dict[str, Resource] = attrs.field(factory=dict)
    unreachable_hosts: set[str] = attrs.field(factory=set)

    def url(self, path: str) -> str:
        """`path` as an absolute URL against `base_url`."""
        return normalize_url(urljoin(self.base_url, path))

    def add(self, path: str, resource: Resource) -> Site:
        self.pages[_lookup_key(self.url(path))] = resource
        return self

    def page(
        self,
        path: str,
        title: str = "",
        *elements: Element,
        status: int = 200,
        on_load: Iterable[Behaviour] = (),
        scripts: Mapping[str, str | ScriptError] | None = None,
    ) -> Site:
        return self.add(path, Page(title, elements, status, on_load, dict(scripts or {})))

    def redirect(self, path: str, to: str, status: int = 302) -> Site:
        return self.add(path, Redirect(to, status))

    def file(self, path: str, content: str | bytes, filename: str = "", *, error: str = "") -> Site:
        return self.add(path, FileResponse(content, filename, error))

    def unreachable(self, *hosts: str) -> Site:
        self.unreachable_hosts.update(host.lower() for host in hosts)
        return self

    def resolve(self, url: str) -> Resource | None:
        """What `url` serves: an exact match (query included) first, then the same path without its query, so a
        `/search` page answers `/search?q=shoes`."""
        key = _lookup_key(url)
        if key in self.pages:
            return self.pages[key]
        return self.pages.get(key.split("?", 1)[0])

    @classmethod
    def from_json(cls, path: str | Path) -> Site:
        """A site from a JSON file in the format `docs/mock-driver.md` describes."""
        return cls._from_data(_read_site_file(path))

    @classmethod
    def from_dict(cls, data: object, *, where: str = "site") -> Site:
        return cls._from_data(_read_site(data, where=where))

    @classmethod
    def _from_data(cls, data: _SiteData) -> Site:
        site = cls(base_url=data.base_url, start=data.start)
        site.unreachable(*data.unreachable)
        for path, resource in data.pages:
            site.add(path, resource)
        return site
