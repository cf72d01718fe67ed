"""sternhalma.server: how notebooks 5 and 7 find a server (the address
given or STERNHALMA_URL, else 127.0.0.1:8080, else the binary started
with a scratch database), and what they say when there is none."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest
import sternhalma
from sternhalma import server as finder
from support import server_binary


def healthy(url: str) -> bool:
    with urllib.request.urlopen(f"{url}/healthz", timeout=10) as answer:
        return answer.status == 200


@pytest.fixture
def nowhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No STERNHALMA_URL, no STERNHALMA_BIN, no checkout above the current
    folder, no `sternhalma` on PATH, and nothing at the default address
    (moved to a port nothing listens on: a developer may well be running
    the README's server at 127.0.0.1:8080)."""
    monkeypatch.delenv("STERNHALMA_URL", raising=False)
    monkeypatch.delenv("STERNHALMA_BIN", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(finder, "DEFAULT_URL", "http://127.0.0.1:9")


def test_a_server_at_the_default_address_is_used(
    nowhere: None, server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finder, "DEFAULT_URL", server_url)
    found = finder.find_server(start=False)
    assert found.url == server_url and not found.started


def test_a_named_server_is_used_and_left_running(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STERNHALMA_URL", server_url + "/")
    found = finder.find_server()
    assert found.url == server_url and not found.started
    assert repr(found) == f"<LocalServer {server_url} (found running)>"
    found.stop()
    assert healthy(server_url), "a server found running is left alone"
    assert finder.find_server(server_url).url == server_url


def test_a_named_server_that_does_not_answer_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STERNHALMA_URL", "http://127.0.0.1:9")
    with pytest.raises(sternhalma.ServerError, match="STERNHALMA_URL") as raised:
        finder.find_server()
    assert raised.value.code == "no_server" and raised.value.status is None


def test_the_binary_is_started_and_stopped(nowhere: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STERNHALMA_BIN", str(server_binary()))
    with finder.find_server(options=["--no-limits"]) as started:
        assert started.started and healthy(started.url)
        scratch = Path(started._scratch or "")
        assert scratch.is_dir()
        remote = sternhalma.Client(started.url).position(str(sternhalma.Position()))
        assert len(remote.legal_moves) == 14
    assert not started.started and not scratch.exists()
    started.stop()  # twice is harmless


def test_a_checkout_above_the_current_folder_is_found(
    nowhere: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    release = tmp_path / "target" / "release"
    release.mkdir(parents=True)
    (release / "sternhalma").symlink_to(server_binary())
    inner = tmp_path / "notebooks" / "source"
    inner.mkdir(parents=True)
    monkeypatch.chdir(inner)
    server = finder.start_server()
    try:
        assert server.started and healthy(server.url)
    finally:
        server.stop()


def test_no_server_says_what_to_do(nowhere: None) -> None:
    with pytest.raises(sternhalma.ServerError) as raised:
        finder.find_server()
    message = str(raised.value)
    assert raised.value.code == "no_server"
    for advice in ("STERNHALMA_URL", "serve", "cargo build --release -p sternhalma-api"):
        assert advice in message
    with pytest.raises(sternhalma.ServerError, match="no Sternhalma server"):
        finder.find_server(start=False)


def test_a_binary_that_does_not_start_is_an_error(
    nowhere: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    broken = tmp_path / "sternhalma"
    broken.write_text("#!/bin/sh\necho 'no such option' >&2\nexit 2\n")
    os.chmod(broken, 0o755)
    monkeypatch.setenv("STERNHALMA_BIN", str(broken))
    with pytest.raises(sternhalma.ServerError, match="exited with status 2: no such option"):
        finder.find_server()
    monkeypatch.setenv("STERNHALMA_BIN", str(tmp_path / "missing"))
    with pytest.raises(sternhalma.ServerError, match="could not start"):
        finder.find_server()


# -- The class tournament's entry (notebook 7 in the class's hub) ------------


def test_class_tournament_from_the_environment(tmp_path: Path) -> None:
    entry = finder.class_tournament(
        {"STERNHALMA_TOURNAMENT": "3", "STERNHALMA_TOKEN": "ab" * 32}, file=tmp_path / "none.json"
    )
    assert entry == finder.ClassTournament(3, "ab" * 32)


def test_class_tournament_needs_both_variables(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="both STERNHALMA_TOURNAMENT and STERNHALMA_TOKEN"):
        finder.class_tournament({"STERNHALMA_TOURNAMENT": "3"}, file=tmp_path / "none.json")
    with pytest.raises(ValueError, match="a tournament's id is a number"):
        finder.class_tournament({"STERNHALMA_TOURNAMENT": "three", "STERNHALMA_TOKEN": "x"})


def test_class_tournament_from_the_hubs_entry(tmp_path: Path) -> None:
    file = tmp_path / "tournament.json"
    assert finder.class_tournament({}, file=file) is None  # practice
    file.write_text(
        json.dumps(
            {"url": "http://127.0.0.1:4000", "tournament": 7, "token": "t0k", "entrant": "ada"}
        )
    )
    entry = finder.class_tournament({}, file=file)
    assert entry == finder.ClassTournament(7, "t0k", "http://127.0.0.1:4000", "ada", str(file))
    # The environment comes first.
    both = {"STERNHALMA_TOURNAMENT": "9", "STERNHALMA_TOKEN": "other"}
    assert finder.class_tournament(both, file=file) == finder.ClassTournament(9, "other")


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"tournament": "7", "token": "x"}',
        '{"tournament": true, "token": "x"}',
        '{"token": "x"}',
    ],
)
def test_class_tournament_refuses_a_broken_entry(tmp_path: Path, text: str) -> None:
    file = tmp_path / "tournament.json"
    file.write_text(text)
    with pytest.raises(ValueError, match="is not a class tournament's entry"):
        finder.class_tournament({}, file=file)
