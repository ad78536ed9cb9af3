"""`file_upload`'s `document_ids`: the application's document store, and the local files the browser is given.

The contract leaves ids to the application ("identifiers the application defines for files it prepared"), so the
store is the application's: a callable taking an id and answering a `Document` (a file name and its bytes or a local
path) or simply a local path, and raising `LookupError` (`UnknownDocument`, `KeyError`) for an id it does not have.
`FolderDocuments` is the store the configuration builds: a folder of prepared documents whose file names are the ids.

Claude writes ids while reading untrusted pages, exactly as it writes upload paths, so a document is held to the
rules of a path (`safety.uploads.vet_file`): a regular, readable file within the size limit, never from the
browser's download directory, and, for the folder store, nothing outside the folder (symbolic links followed).
Documents the store hands over as bytes are written to a private folder of the toolset, removed when it closes, and
the browser is given that file; from there on a document is an upload like any other (through a Selenium Grid it
is sent to the node the same way).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
from anthropic.tools import ToolsetConfigError

from ..safety.sanitize import one_line
from ..safety.uploads import DEFAULT_MAX_BYTES, UploadRefused, size_text, vet_file, within
from .errors import ActionError

__all__ = [
    "Document",
    "DocumentFiles",
    "DocumentResolver",
    "FolderDocuments",
    "UnknownDocument",
    "UnknownDocuments",
]

log = logging.getLogger("browser_toolset")

_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]')


def _path_text(value: str | os.PathLike[str] | None) -> str | None:
    return None if value is None else os.fspath(value)


@attrs.frozen
class Document:
    """One document as the store answers it: the file `name` the page sees, and either its `data` or the `path` of
    a local file holding it (exactly one of the two). A `path` document with no `name` keeps its file's name."""

    name: str | None = None
    data: bytes | None = attrs.field(default=None, repr=lambda data: "None" if data is None else f"<{len(data)} bytes>")
    path: str | None = attrs.field(default=None, converter=_path_text)

    def __attrs_post_init__(self) -> None:
        if (self.data is None) == (self.path is None):
            raise TypeError("a Document has either data or a path, not both and not neither")
        if self.data is not None and not self.name:
            raise TypeError("a Document given as data needs a file name")


DocumentResolver = Callable[[str], "Document | str | os.PathLike[str]"]
"""The document store: a vetted `file_upload` document id to the document (or the local path of its file). Raises
`LookupError` for an id it does not have, which the error to Claude names."""


class UnknownDocument(LookupError):
    """What a store raises for an id it does not have."""

    def __init__(self, document_id: str) -> None:
        self.document_id = document_id
        super().__init__(document_id)


class UnknownDocuments(ActionError):
    """Document ids the store does not have, all named, so Claude can correct every one at once."""

    def __init__(self, document_ids: Sequence[str]) -> None:
        self.document_ids = tuple(document_ids)
        named = ", ".join(repr(one_line(document_id, 200)) for document_id in document_ids[:10])
        more = f" and {len(document_ids) - 10} more" if len(document_ids) > 10 else ""
        noun = "id" if len(document_ids) == 1 else "ids"
        super().__init__(
            f"file_upload refused document {noun} {named}{more}: the application's document store has no such "
            "document. Use only document ids the application gave you, or paths."
        )


def plain_name(name: str) -> str | None:
    """`name` when it is a plain file name (no folder, no control or reserved character, not `.` or `..`), else
    None."""
    if not name or name != name.strip() or name in (".", "..") or _UNSAFE_NAME.search(name) or len(name) > 255:
        return None
    return name


class FolderDocuments:
    """The document store of a folder of prepared documents: the id is a file name in `folder`. An id that names
    no file there, or that is no plain file name (a folder, `..`, a path), is unknown; a file that resolves outside
    the folder through a symbolic link is refused. The folder must be outside the browser's `download_dir`, and
    the download directory outside it: a page-triggered download must never become a document. `max_bytes` is the
    largest document (the toolset's upload limit applies as well)."""

    def __init__(
        self,
        folder: str | os.PathLike[str],
        *,
        max_bytes: int | None = None,
        download_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.folder = Path(os.path.abspath(os.fspath(folder)))
        if not self.folder.is_dir():
            raise ToolsetConfigError(f"documents folder {str(self.folder)!r} does not exist or is not a directory")
        if max_bytes is not None and max_bytes <= 0:
            raise ToolsetConfigError(f"max_bytes must be positive, not {max_bytes}")
        self.max_bytes = max_bytes
        self._resolved = Path(os.path.realpath(self.folder))
        self.download_dir = None if download_dir is None else Path(os.path.realpath(os.fspath(download_dir)))
        if self.download_dir is not None and (
            within(self.download_dir, self._resolved) or within(self._resolved, self.download_dir)
        ):
            raise ToolsetConfigError(
                f"documents folder {str(self.folder)!r} and download directory {str(self.download_dir)!r} must "
                "not contain one another: a page-triggered download would become a document"
            )

    def __call__(self, document_id: str) -> Document:
        name = plain_name(document_id)
        if name is None:
            raise UnknownDocument(document_id)
        candidate = self.folder / name
        resolved = Path(os.path.realpath(candidate))
        if not within(resolved, self._resolved):
            raise UploadRefused(document_id, "it leads outside the documents folder", document=True)
        if not os.path.lexists(candidate):
            raise UnknownDocument(document_id)
        return Document(name=name, path=str(resolved))

    def __repr__(self) -> str:
        return f"FolderDocuments({str(self.folder)!r})"


def _download_dir(holder: object) -> Path | None:
    found = getattr(holder, "resolved_download", None) or getattr(holder, "download_dir", None)
    return None if found is None else Path(os.path.realpath(os.fspath(found)))


class DocumentFiles:
    """The local files a toolset's browser is given for document ids, through the application's `store` (None: the
    toolset has none, and refuses every id): each document held to the rules of an upload path, the ones given as
    bytes (or under another name than their file's) written to a private folder removed by `close()`. Thread-safe."""

    def __init__(
        self, store: DocumentResolver | None, *, max_bytes: int = DEFAULT_MAX_BYTES, download_dirs: Sequence[Path] = ()
    ) -> None:
        self.store = store
        self.max_bytes = max_bytes
        self.download_dirs = tuple(Path(os.path.realpath(folder)) for folder in download_dirs)
        self._lock = threading.Lock()
        self._folder: str | None = None
        self._count = 0

    @classmethod
    def for_toolset(cls, store: DocumentResolver | None, file_policy: object, driver: object) -> DocumentFiles:
        """The document files of a toolset with `store`. The size limit is the smallest of the store's own
        (`FolderDocuments.max_bytes`) and the upload policy's (`UploadPolicy.max_bytes`), else the default; no
        document comes from the policy's, the store's or the driver's download directory."""
        if store is None:
            return cls(None)
        limits = [getattr(holder, "max_bytes", None) for holder in (store, file_policy)]
        declared = [limit for limit in limits if isinstance(limit, int) and not isinstance(limit, bool)]
        downloads = [found for holder in (file_policy, store, driver) if (found := _download_dir(holder)) is not None]
        return cls(store, max_bytes=min(declared, default=DEFAULT_MAX_BYTES), download_dirs=downloads)

    def paths(self, document_ids: Sequence[str]) -> list[str]:
        """The local file of each id, in order. Raises `UnknownDocuments` naming every id the store lacks, or
        `UploadRefused` for a document that breaks an upload rule, before any file is written."""
        if self.store is None:
            raise ActionError(
                "document_ids cannot be used here: this executor has no document store. Use paths instead."
            )
        found: list[tuple[str, Document]] = []
        unknown: list[str] = []
        for document_id in document_ids:
            try:
                answer = self.store(document_id)
            except LookupError:
                unknown.append(document_id)
                continue
            except UploadRefused:
                raise
            except Exception:
                log.exception("the document store failed for %r", one_line(document_id, 200))
                raise UploadRefused(document_id, "the document store could not provide it", document=True) from None
            found.append((document_id, answer if isinstance(answer, Document) else Document(path=os.fspath(answer))))
        if unknown:
            raise UnknownDocuments(unknown)
        checked = [(document_id, self._checked(document_id, document)) for document_id, document in found]
        return [self._local(document_id, document) for document_id, document in checked]

    def _checked(self, document_id: str, document: Document) -> Document:
        """The document after the upload rules, with the name the page will see."""
        name = plain_name(document.name) if document.name else None
        if document.name and name is None:
            raise UploadRefused(document_id, "the document store gave it no plain file name", document=True)
        if document.data is not None:
            if len(document.data) > self.max_bytes:
                reason = f"it is {size_text(len(document.data))}, over the upload limit of {size_text(self.max_bytes)}"
                raise UploadRefused(document_id, reason, document=True)
            return document
        assert document.path is not None
        resolved = vet_file(
            Path(os.path.realpath(document.path)),
            document_id,
            max_bytes=self.max_bytes,
            download_dirs=self.download_dirs,
            missing="the document store named a file that does not exist",
            document=True,
        )
        return Document(name=name or Path(document.path).name, path=resolved)

    def _local(self, document_id: str, document: Document) -> str:
        """A file the browser can read under the document's name: the store's own file when the names agree, else
        a copy (or the bytes) in a subfolder of the private folder, one per document so names never collide."""
        assert document.name is not None
        if document.path is not None and Path(document.path).name == document.name:
            return document.path
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.mkdtemp(prefix="browser-toolset-documents-")
            self._count += 1
            target = Path(self._folder) / str(self._count)
        target.mkdir(mode=0o700)
        file = target / document.name
        try:
            if document.data is not None:
                with open(file, "xb") as out:
                    out.write(document.data)
            else:
                assert document.path is not None
                shutil.copyfile(document.path, file)
        except OSError as exc:
            raise UploadRefused(document_id, f"it could not be staged ({exc.strerror or exc})", document=True) from exc
        return str(file)

    def close(self) -> None:
        """Remove the private folder (the browser has read what it needed: the session is over)."""
        with self._lock:
            folder, self._folder = self._folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
