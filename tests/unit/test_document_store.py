"""`file_upload`'s `document_ids` through the application's document store: the folder store the configuration
builds (ids are file names in it), any store the library is given (a file name and its bytes, or a local path),
the rules every document is held to (those of an upload path: size limit, nothing outside the store, never the
download directory), unknown ids named in the error, and the same setting reaching `exec`/`run` and the MCP server
through the configuration. On the mock driver; tests/browser/test_grid_files.py does it on real browsers, locally
and through a Selenium Grid."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic.tools import ToolsetConfigError

from browser_toolset import BrowserToolset
from browser_toolset.cli.parsers import build_parser, settings_flags
from browser_toolset.config import load_settings, open_toolset
from browser_toolset.drivers.mock import MockDriver, Site, file_input
from browser_toolset.executor.document_store import (
    Document,
    DocumentFiles,
    FolderDocuments,
    UnknownDocument,
    UnknownDocuments,
)
from browser_toolset.mcp.server import BrowserService
from browser_toolset.safety.uploads import UploadPolicy, UploadRefused
from tests.support.session import Session, error, ok, text

SITE = Path(__file__).resolve().parents[2] / "examples" / "shop.json"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/documents (the store: invoice-7.pdf, notes.txt), tmp/outside/secret, tmp/downloads."""
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "invoice-7.pdf").write_bytes(b"%PDF-1.7 invoice")
    (documents / "notes.txt").write_text("notes")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("key")
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "statement.csv").write_text("a,b")
    return tmp_path


@pytest.fixture
def store(tree: Path) -> FolderDocuments:
    return FolderDocuments(tree / "documents", download_dir=tree / "downloads")


def refused(files: DocumentFiles, *ids: str) -> str:
    with pytest.raises(UploadRefused) as caught:
        files.paths(ids)
    return str(caught.value)


# --- the folder store ------------------------------------------------------------------------------------------------


def test_an_id_is_a_file_name_in_the_folder(store: FolderDocuments, tree: Path) -> None:
    document = store("invoice-7.pdf")
    assert document == Document(name="invoice-7.pdf", path=str((tree / "documents" / "invoice-7.pdf").resolve()))


@pytest.mark.parametrize("document_id", ["missing.pdf", "../outside/secret", "sub/x", "", ".", "..", " notes.txt"])
def test_ids_that_name_no_file_of_the_folder_are_unknown(store: FolderDocuments, document_id: str) -> None:
    with pytest.raises(UnknownDocument):
        store(document_id)


def test_a_symbolic_link_out_of_the_folder_is_refused(store: FolderDocuments, tree: Path) -> None:
    (tree / "documents" / "escape.txt").symlink_to(tree / "outside" / "secret")
    with pytest.raises(UploadRefused, match=r"'escape\.txt': it leads outside the documents folder"):
        store("escape.txt")


def test_the_folder_and_the_download_directory_never_contain_one_another(tree: Path) -> None:
    for documents, downloads in [
        (tree / "downloads", tree / "downloads" / "inner"),
        (tree / "documents", tree / "documents"),
        (tree / "documents" / "inner", tree / "documents"),
    ]:
        documents.mkdir(exist_ok=True)
        with pytest.raises(ToolsetConfigError, match="must not contain one another"):
            FolderDocuments(documents, download_dir=downloads)
    with pytest.raises(ToolsetConfigError, match="does not exist"):
        FolderDocuments(tree / "nowhere")


# --- the rules every document is held to -----------------------------------------------------------------------------


def test_unknown_ids_are_all_named_and_nothing_is_uploaded(store: FolderDocuments) -> None:
    files = DocumentFiles(store)
    with pytest.raises(UnknownDocuments) as caught:
        files.paths(["invoice-7.pdf", "nope.pdf", "../outside/secret"])
    assert caught.value.document_ids == ("nope.pdf", "../outside/secret")
    assert str(caught.value) == (
        "Error: file_upload refused document ids 'nope.pdf', '../outside/secret': the application's document store "
        "has no such document. Use only document ids the application gave you, or paths."
    )


def test_documents_over_the_size_limit_are_refused(tree: Path) -> None:
    (tree / "documents" / "big.bin").write_bytes(b"x" * 2000)
    files = DocumentFiles.for_toolset(
        FolderDocuments(tree / "documents", max_bytes=1500), UploadPolicy(None, max_bytes=5000), None
    )
    assert files.max_bytes == 1500  # the smaller of the store's and the policy's
    assert "document 'big.bin': it is 2,000 bytes, over the upload limit of 1,500 bytes" in refused(files, "big.bin")
    in_memory = DocumentFiles(lambda document_id: Document(name="a.bin", data=b"y" * 20), max_bytes=10)
    assert "it is 20 bytes, over the upload limit of 10 bytes" in refused(in_memory, "a")


def test_a_store_cannot_hand_over_the_download_directory(tree: Path) -> None:
    def leaky(document_id: str) -> str:
        return str(tree / "downloads" / "statement.csv")

    files = DocumentFiles.for_toolset(leaky, UploadPolicy(None, download_dir=tree / "downloads"), None)
    assert "it is in the browser's download directory, which uploads never read from" in refused(files, "x")
    # the driver's download directory counts as well, with no policy naming one
    driver = MockDriver(download_dir=tree / "downloads")
    from_driver = DocumentFiles.for_toolset(leaky, None, driver)
    assert "download directory" in refused(from_driver, "x")


def test_a_store_must_name_regular_files(tree: Path) -> None:
    os.mkfifo(tree / "documents" / "pipe")
    files = DocumentFiles(FolderDocuments(tree / "documents"))
    assert "it is not a regular file" in refused(files, "pipe")
    gone = DocumentFiles(lambda document_id: str(tree / "documents" / "vanished.pdf"))
    assert "the document store named a file that does not exist" in refused(gone, "v")


def test_a_failing_store_is_refused_without_its_message(tree: Path, caplog: pytest.LogCaptureFixture) -> None:
    def broken(document_id: str) -> str:
        raise RuntimeError("database password=hunter2 rejected")

    message = refused(DocumentFiles(broken), "q1")
    assert message == "Error: file_upload refused document 'q1': the document store could not provide it."
    assert "hunter2" in caplog.text  # for the application's log, not for Claude


def test_documents_given_as_bytes_or_under_another_name_are_staged_until_close(tree: Path) -> None:
    def store(document_id: str) -> Document:
        if document_id == "memo":
            return Document(name="memo.txt", data=b"hello memo")
        return Document(name="Invoice (final).pdf", path=tree / "documents" / "invoice-7.pdf")

    files = DocumentFiles(store)
    memo, invoice = (Path(path) for path in files.paths(["memo", "inv"]))
    assert (memo.name, memo.read_bytes()) == ("memo.txt", b"hello memo")
    assert (invoice.name, invoice.read_bytes()) == ("Invoice (final).pdf", b"%PDF-1.7 invoice")
    assert memo.parent != invoice.parent  # one folder per document: two of one name never collide
    files.close()
    assert not memo.exists() and not invoice.exists()
    with pytest.raises(TypeError):
        Document(name="x")
    with pytest.raises(TypeError):
        Document(data=b"no name")
    for name in ("../x", "a/b", "a\x00b", ".."):
        staged = DocumentFiles({"bad": Document(name=name, data=b"1")}.__getitem__)
        assert "the document store gave it no plain file name" in refused(staged, "bad")


# --- through the toolset, on the mock --------------------------------------------------------------------------------


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    site = Site(base_url="https://forms.test/").page("/", "Upload", file_input("Attachment"))
    site.start = "/"
    with MockDriver(site) as mock:
        yield mock


def upload_session(driver: MockDriver, documents: Any, policy: UploadPolicy) -> tuple[Session, dict[str, str]]:
    toolset = BrowserToolset(
        driver,
        documents=documents,
        file_policy=policy,
        configs={"file_upload": {"enabled": True}},
        confirm=lambda c: True,
    )
    session = Session(toolset)
    ref = text(ok(session.call("find", query="attachment"))).split("[")[-1].rstrip("]")
    return session, {"type": "ref", "ref": ref}


def test_document_ids_upload_from_the_store_on_the_mock(driver: MockDriver, store: FolderDocuments, tree: Path) -> None:
    session, target = upload_session(driver, store, UploadPolicy(None, documents=True))
    result = ok(session.call("file_upload", target=target, document_ids=["invoice-7.pdf", "notes.txt"]))
    assert text(result).endswith(": invoice-7.pdf, notes.txt.")
    (set_files,) = driver.calls_to("set_files")
    assert [Path(path).read_bytes() for path in set_files.paths] == [b"%PDF-1.7 invoice", b"notes"]
    assert "invoice-7.pdf, notes.txt" in text(ok(session.call("read_page", filter="all")))
    message = error(session.call("file_upload", target=target, document_ids=["notes.txt", "nope", "gone.pdf"]))
    assert "document ids 'nope', 'gone.pdf'" in message and "notes.txt" not in message
    # no upload directory: the store's documents only, never a path
    assert "no upload directory is configured" in error(
        session.call("file_upload", target=target, paths=[str(tree / "documents" / "notes.txt")])
    )
    assert len(driver.calls_to("set_files")) == 1


def test_a_store_of_bytes_through_the_toolset(driver: MockDriver, tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "cv.pdf").write_bytes(b"%PDF cv")
    documents = {"letter-1": Document(name="letter.txt", data=b"Dear team")}
    session, target = upload_session(driver, documents.__getitem__, UploadPolicy(uploads, documents=True))
    ok(session.call("file_upload", target=target, paths=["cv.pdf"], document_ids=["letter-1"]))
    (set_files,) = driver.calls_to("set_files")
    cv, letter = (Path(path) for path in set_files.paths)
    assert cv == (uploads / "cv.pdf").resolve() and (letter.name, letter.read_bytes()) == ("letter.txt", b"Dear team")
    assert "'letter-2'" in error(session.call("file_upload", target=target, document_ids=["letter-2"]))
    session.toolset.close()
    assert not letter.exists()


def test_without_a_store_document_ids_are_refused(driver: MockDriver, tmp_path: Path) -> None:
    session, target = upload_session(driver, None, UploadPolicy(tmp_path, documents=True))
    assert "this executor has no document store" in error(
        session.call("file_upload", target=target, document_ids=["invoice-7.pdf"])
    )
    # the SDK's own allowlist still applies to a policy that does not hand ids to a store
    session, target = upload_session(driver, FolderDocuments(tmp_path), UploadPolicy(tmp_path))
    assert "allowlist" in error(session.call("file_upload", target=target, document_ids=["invoice-7.pdf"]))
    assert driver.calls_to("set_files") == []


# --- the configuration: exec and run, and the MCP server -------------------------------------------------------------


def test_the_configured_documents_folder_is_the_store(tree: Path) -> None:
    settings = load_settings(
        None,
        env={},
        use_default_file=False,
        flags={
            "driver": "mock",
            "driver_options.site": str(SITE),
            "enable": "file_upload",
            "files.documents_dir": str(tree / "documents"),
            "files.upload_max_mib": "0.00001",  # 10 bytes: invoice-7.pdf is larger
        },
    )
    assert settings.files.documents_dir == str(tree / "documents")
    with open_toolset(settings) as toolset:
        assert isinstance(toolset.documents, FolderDocuments)
        session = Session(toolset)
        ok(session.call("navigate", url="https://shop.test/checkout"))
        ref = text(ok(session.call("find", query="proof of address"))).split("[")[-1].rstrip("]")
        target = {"type": "ref", "ref": ref}
        ok(session.call("file_upload", target=target, document_ids=["notes.txt"]))
        assert "over the upload limit" in error(
            session.call("file_upload", target=target, document_ids=["invoice-7.pdf"])
        )
        assert "'nope'" in error(session.call("file_upload", target=target, document_ids=["nope"]))


def test_the_mcp_server_takes_the_same_setting(tree: Path) -> None:
    documents = f"files.documents_dir={tree / 'documents'}"
    argv = ["mcp", "--driver", "mock", "--site", str(SITE), "--enable", "file_upload", "--set", documents]
    args = build_parser().parse_args(argv)
    service = BrowserService(load_settings(args.config, env={}, flags=settings_flags(args)))
    with service.open() as toolset:
        assert isinstance(toolset.documents, FolderDocuments)
        assert toolset.documents.folder == tree / "documents"
