"""How ``Tablebase.download`` fetches a server's solved tables: the listing at
``<server>/downloads/tables/`` (each file's name, board, size and SHA-256
digest), then each file wanted from ``<server>/downloads/tables/<name>``,
streamed into a ``.partial`` file of its own beside its place, checked, and
renamed into place. A file already there with the same digest is not fetched
again.

The compiled part calls ``fetch(server, board, folder, progress)`` and opens
the paths it answers; a failure is a ``DownloadFailed`` it turns into a
``TablebaseError`` (code ``tablebase_download``).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

__all__ = ["DownloadFailed", "fetch"]

_CHUNK = 1 << 20
_LISTING_BYTES = 1 << 20


def _listing_url(server: str) -> str:
    return server.rstrip("/") + "/downloads/tables/"


class DownloadFailed(Exception):
    """A table that could not be fetched, or did not match its listing."""


def _get(url: str) -> Any:
    if not url.startswith(("http://", "https://")):
        raise DownloadFailed(f"{url}: not an http:// or https:// address")
    try:
        # A minute of silence at most between reads; the first listing of a
        # large table waits for its digest, computed once.
        return urllib.request.urlopen(url, timeout=300)
    except urllib.error.HTTPError as error:
        raise DownloadFailed(f"{url}: the server answered {error.code} {error.reason}") from error
    except (OSError, ValueError) as error:
        raise DownloadFailed(f"cannot reach {url}: {error}") from error


def _listing(server: str) -> list[dict[str, Any]]:
    url = _listing_url(server)
    with _get(url) as response:
        try:
            raw = response.read(_LISTING_BYTES + 1)
            if len(raw) > _LISTING_BYTES:
                raise ValueError(f"longer than {_LISTING_BYTES:,} bytes")
            listing = json.loads(raw)
            files = listing["files"]
            for file in files:
                for key, kind in (
                    ("name", str),
                    ("board", str),
                    ("size", int),
                    ("sha256", str),
                ):
                    if not isinstance(file[key], kind):
                        raise TypeError(key)
        except (ValueError, KeyError, TypeError) as error:
            raise DownloadFailed(f"{url} is not a listing of tables ({error!r})") from error
    return list(files)


def _safe_name(name: str) -> bool:
    return (
        not name.startswith(".")
        and name.endswith((".values", ".depths", ".packed"))
        and all(c.isascii() and (c.isalnum() or c in "._-") for c in name)
    )


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            sha.update(chunk)
    return sha.hexdigest()


class _Shown:
    """A download's progress: a tqdm bar when tqdm is installed, else one
    line on standard error, rewritten in place."""

    def __init__(self, name: str, size: int) -> None:
        self.name, self.size, self.done, self._shown = name, size, 0, -1
        try:
            from tqdm.auto import tqdm  # type: ignore[import-untyped, unused-ignore]
        except ImportError:
            self._bar: Any = None
        else:
            self._bar = tqdm(total=size, desc=name, unit="B", unit_scale=True, leave=True)

    def update(self, n: int) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
            return
        percent = self.done * 100 // max(self.size, 1)
        if percent != self._shown:
            self._shown = percent
            sys.stderr.write(
                f"\rdownloading {self.name}: {percent}% of {self.size / 2**20:.1f} MiB"
            )
            sys.stderr.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _download(server: str, file: dict[str, Any], target: Path, progress: bool) -> None:
    # From the server named, under the name listed (the listing's own
    # address may be one a proxy sees); into a file of this download alone,
    # renamed into place once checked.
    url = _listing_url(server) + file["name"]
    descriptor, name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".partial", dir=target.parent
    )
    os.close(descriptor)
    partial = Path(name)
    sha = hashlib.sha256()
    received = 0
    shown = _Shown(file["name"], file["size"]) if progress else None
    done = False
    try:
        _fetch_into(url, partial, file, sha, shown)
        received = partial.stat().st_size
        digest = sha.hexdigest()
        if received != file["size"] or digest != file["sha256"]:
            raise DownloadFailed(
                f"{url}: received {received:,} bytes with SHA-256 {digest}; the listing says "
                f"{file['size']:,} bytes with {file['sha256']}: not installed"
            )
        os.replace(partial, target)
        done = True
    except OSError as error:
        raise DownloadFailed(f"{url}: {error}") from error
    finally:
        if shown is not None:
            shown.close()
        if not done:
            partial.unlink(missing_ok=True)


def _fetch_into(url: str, partial: Path, file: dict[str, Any], sha: Any, shown: Any) -> None:
    """Streams `url` into `partial`, hashing it, up to the listed size."""
    received = 0
    try:
        with _get(url) as response, partial.open("wb") as out:
            while chunk := response.read(_CHUNK):
                received += len(chunk)
                if received > file["size"]:
                    break
                sha.update(chunk)
                out.write(chunk)
                if shown is not None:
                    shown.update(len(chunk))
            out.flush()
            os.fsync(out.fileno())
    except (OSError, http.client.HTTPException) as error:
        raise DownloadFailed(
            f"{url}: the download failed after {received:,} bytes: {error}"
        ) from error


def fetch(server: str, board: str | None, folder: str, progress: bool) -> list[str]:
    """Downloads into ``folder`` the tables ``server`` offers (of ``board``
    alone, a board's name as the engine prints it, if given) and answers
    their paths. A file already there with the listed size and digest is
    kept."""
    import sternhalma

    files = _listing(server)
    if board is not None:
        wanted = sternhalma.Board(board)
        files = [f for f in files if _same_board(f["board"], wanted)]
        if not files:
            raise DownloadFailed(
                f"{server} offers no table of {board} (listed at {server.rstrip('/')}/downloads/tables/)"
            )
        # A board's depths hold its values too, and a packed table holds
        # them in less: one file, the first of these offered.
        for kind in (".depths", ".packed", ".values"):
            chosen = [f for f in files if f["name"].endswith(kind)]
            if chosen:
                files = chosen[:1]
                break
    where = Path(folder)
    where.mkdir(parents=True, exist_ok=True)
    paths = []
    for file in files:
        if not _safe_name(file["name"]):
            raise DownloadFailed(
                f"{server} offers {file['name']!r}, which is not a table file's name"
            )
        target = where / file["name"]
        kept = (
            target.is_file()
            and target.stat().st_size == file["size"]
            and _digest(target) == file["sha256"]
        )
        if not kept:
            _download(server, file, target, progress)
        paths.append(str(target))
    return paths


def _same_board(name: str, wanted: Any) -> bool:
    import sternhalma

    try:
        return bool(sternhalma.Board(name) == wanted)
    except sternhalma.NotationError:
        return False
