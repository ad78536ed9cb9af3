"""`file_upload` reads only regular files in the upload directory (docs/contract.md §6): traversal, symlink escapes,
directories, missing files, FIFOs, oversized files and the download directory are each refused, saying why."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic.tools import ToolsetConfigError
from anthropic.tools.browser import BetaURLContext

from browser_toolset import BrowserToolset
from browser_toolset.drivers.mock import MockDriver, Site, file_input
from browser_toolset.safety.uploads import MAX_FILES, UploadPolicy, UploadRefused
from tests.support.session import Session, error, ok, text

CONTEXT = BetaURLContext(member="file_upload")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/uploads (the upload directory), tmp/outside, tmp/downloads."""
    uploads = tmp_path / "uploads"
    (uploads / "sub").mkdir(parents=True)
    (uploads / "report.pdf").write_bytes(b"%PDF-1.7")
    (uploads / "sub" / "photo.png").write_bytes(b"\x89PNG")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "statement.csv").write_text("a,b")
    return tmp_path


@pytest.fixture
def policy(tree: Path) -> UploadPolicy:
    return UploadPolicy(tree / "uploads", max_bytes=1000, download_dir=tree / "downloads")


def refusal(policy: UploadPolicy, path: str) -> str:
    with pytest.raises(UploadRefused) as caught:
        policy.resolve_upload_paths(CONTEXT, [path])
    message = str(caught.value)
    assert message.startswith("Error: file_upload refused '")
    return message


def test_files_inside_the_directory_resolve_to_their_real_paths(policy: UploadPolicy, tree: Path) -> None:
    uploads = tree / "uploads"
    assert policy.resolve_upload_paths(CONTEXT, [str(uploads / "report.pdf"), "sub/photo.png"]) == [
        str((uploads / "report.pdf").resolve()),
        str((uploads / "sub" / "photo.png").resolve()),
    ]
    (uploads / "alias.pdf").symlink_to(uploads / "report.pdf")
    assert policy.resolve_upload_paths(CONTEXT, ["alias.pdf"]) == [str((uploads / "report.pdf").resolve())]


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("../outside/id_rsa", "'..' component"),
        ("sub/../../outside/id_rsa", "'..' component"),
        ("sub/../report.pdf", "'..' component"),
        ("{tree}/outside/id_rsa", "outside the upload directory"),
        ("/etc/passwd", "outside the upload directory"),
        ("{tree}/uploads/../outside/id_rsa", "'..' component"),
        ("{tree}/uploadsX/report.pdf", "outside the upload directory"),
        ("missing.txt", "there is no such file in the upload directory"),
        ("sub", "it is a directory"),
        (".", "it is a directory"),
        ("", "the path is empty"),
        ("a\x00b", "NUL character"),
        ("x" * 5000, "the path is too long"),
    ],
)
def test_each_refusal_says_why(policy: UploadPolicy, tree: Path, written: str, reason: str) -> None:
    assert reason in refusal(policy, written.format(tree=tree))


def test_a_symlink_out_of_the_directory_is_refused_without_showing_its_target(policy: UploadPolicy, tree: Path) -> None:
    uploads = tree / "uploads"
    (uploads / "innocent.txt").symlink_to(tree / "outside" / "id_rsa")
    (uploads / "linked-dir").symlink_to(tree / "outside")
    for written in ("innocent.txt", "linked-dir/id_rsa", str(uploads / "innocent.txt")):
        message = refusal(policy, written)
        assert "outside the upload directory" in message
        assert "id_rsa" not in message.replace(written, "")


def test_a_symlink_into_the_download_directory_is_refused(policy: UploadPolicy, tree: Path) -> None:
    (tree / "uploads" / "statement.csv").symlink_to(tree / "downloads" / "statement.csv")
    assert "outside the upload directory" in refusal(policy, "statement.csv")


def test_the_download_directory_is_never_a_source(tree: Path) -> None:
    with pytest.raises(ToolsetConfigError, match="outside every upload root"):
        UploadPolicy(tree / "uploads", download_dir=tree / "uploads" / "sub")
    with pytest.raises(ToolsetConfigError, match="outside every upload root"):
        UploadPolicy(tree / "uploads" / "sub", download_dir=tree / "uploads")
    (tree / "dl-link").symlink_to(tree / "uploads")
    with pytest.raises(ToolsetConfigError):
        UploadPolicy(tree / "uploads", download_dir=tree / "dl-link")


def test_a_fifo_socket_or_device_is_not_a_file(policy: UploadPolicy, tree: Path) -> None:
    os.mkfifo(tree / "uploads" / "pipe")
    assert "not a regular file" in refusal(policy, "pipe")
    (tree / "uploads" / "null").symlink_to("/dev/null")
    assert "outside the upload directory" in refusal(policy, "null")


def test_files_over_the_limit_are_refused(policy: UploadPolicy, tree: Path) -> None:
    with open(tree / "uploads" / "big.bin", "wb") as big:
        big.truncate(1001)
    assert "it is 1,001 bytes, over the upload limit of 1,000 bytes" in refusal(policy, "big.bin")
    large = UploadPolicy(tree / "uploads")
    with open(tree / "uploads" / "huge.bin", "wb") as huge:
        huge.truncate(60 * 1024 * 1024)
    assert "it is 60.0 MiB, over the upload limit of 50.0 MiB" in refusal(large, "huge.bin")


def test_unreadable_files_are_refused(policy: UploadPolicy, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Root reads any file whatever its mode (and CI runs as root), so the permission check itself is told no for
    # this one file: the refusal must come from what the check answers, not from the file's mode bits.
    secret = tree / "uploads" / "locked.txt"
    secret.write_text("x")
    locked = str(secret.resolve())
    real_access = os.access
    asked: list[str] = []

    def access(path: str | os.PathLike[str], mode: int, **kw: Any) -> bool:
        if os.fspath(path) == locked:
            asked.append(locked)
            return False
        return real_access(path, mode, **kw)

    monkeypatch.setattr(os, "access", access)
    assert refusal(policy, "locked.txt") == (
        "Error: file_upload refused 'locked.txt': it cannot be read (permission denied)."
    )
    assert asked == [locked]
    # every other file still passes the same check
    assert policy.check("report.pdf") == str((tree / "uploads" / "report.pdf").resolve())


def test_a_file_whose_details_cannot_be_read_is_refused(
    policy: UploadPolicy, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as root no mode bit stops `stat`, so it is told no for this one file
    secret = tree / "uploads" / "hidden.txt"
    secret.write_text("x")
    hidden = str(secret.resolve())
    real_stat = Path.stat

    def stat(self: Path, **kw: bool) -> os.stat_result:
        if str(self) == hidden:
            raise PermissionError(13, "Permission denied", hidden)
        return real_stat(self, **kw)

    monkeypatch.setattr(Path, "stat", stat)
    assert refusal(policy, "hidden.txt") == (
        "Error: file_upload refused 'hidden.txt': it cannot be read (Permission denied)."
    )


def test_too_many_files_in_one_call(policy: UploadPolicy) -> None:
    with pytest.raises(Exception, match=f"at most {MAX_FILES} files"):
        policy.resolve_upload_paths(CONTEXT, ["report.pdf"] * (MAX_FILES + 1))


def test_the_upload_directory_must_exist(tree: Path) -> None:
    with pytest.raises(ToolsetConfigError, match="does not exist"):
        UploadPolicy(tree / "nope")
    with pytest.raises(ToolsetConfigError, match="does not exist or is not a directory"):
        UploadPolicy(tree / "uploads" / "report.pdf")


# --- through the toolset ------------------------------------------------------------------------------------------


@pytest.fixture
def driver() -> Iterator[MockDriver]:
    site = Site(base_url="https://forms.test/").page("/", "Upload", file_input("Attachment"))
    site.start = "/"
    with MockDriver(site) as mock:
        yield mock


def test_the_toolset_uploads_only_what_the_policy_admits(driver: MockDriver, policy: UploadPolicy, tree: Path) -> None:
    session = Session(
        BrowserToolset(driver, file_policy=policy, configs={"file_upload": {"enabled": True}}, confirm=lambda c: True)
    )
    ref = text(ok(session.call("find", query="attachment"))).split("[")[-1].rstrip("]")
    target = {"type": "ref", "ref": ref}
    assert "report.pdf" in text(ok(session.call("file_upload", target=target, paths=["report.pdf"])))
    (set_files,) = driver.calls_to("set_files")
    assert list(set_files.paths) == [str((tree / "uploads" / "report.pdf").resolve())]
    message = error(session.call("file_upload", target=target, paths=["../outside/id_rsa"]))
    assert message == (
        "Error: file_upload refused '../outside/id_rsa': the path has a '..' component; name the file inside the "
        "upload directory without one."
    )
    assert len(driver.calls_to("set_files")) == 1  # a refused path never reaches the driver
