"""sternhalma.Client's connections, over real sockets to the real server:
one kept-alive connection per thread, reconnection when the server closed
it, one more try of an idempotent request after a drop (and none of a
request that changes something), and ServerUnreachable for a server that
cannot be reached.

A small proxy stands between the client and the server where a test must
see the connections (how many, which requests on each) or cut one at a
chosen moment: it relays each request to the server on a connection of its
own and each answer back, byte for byte."""

from __future__ import annotations

import contextlib
import gc
import select
import socket
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import sternhalma
from sternhalma import Client, Position, ServerError, ServerUnreachable
from sternhalma.server import find_server
from support import running_server


@dataclass
class Link:
    """One connection the proxy accepted from a client, and its requests
    (their first lines, with the body)."""

    peer: tuple[str, int]
    requests: list[tuple[str, bytes]] = field(default_factory=list)
    client: socket.socket | None = None


def read_message(sock: socket.socket, buffered: bytearray) -> tuple[bytes, bytes] | None:
    """One HTTP/1.1 message (head, body) from `sock`, with a Content-Length
    body or none (what the client sends and the server answers here);
    `None` at the end of the stream."""
    while b"\r\n\r\n" not in buffered:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buffered.extend(chunk)
    end = buffered.index(b"\r\n\r\n") + 4
    head = bytes(buffered[:end])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
        assert name.strip().lower() != b"transfer-encoding", "the proxy reads sized bodies only"
    while len(buffered) < end + length:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buffered.extend(chunk)
    body = bytes(buffered[end : end + length])
    del buffered[: end + length]
    return head, body


class Proxy:
    """A relay from 127.0.0.1:<port> to the server, one server connection
    per client connection. `drop(path, times)` makes it close the client's
    connection after each of the next `times` requests to `path` has
    reached the server and been answered, without passing the answer on."""

    def __init__(self, target: str) -> None:
        host, port = target.removeprefix("http://").split(":")
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.links: list[Link] = []
        self.lock = threading.Lock()
        self.dropping: dict[str, int] = {}
        threading.Thread(target=self._accept, daemon=True).start()

    def drop(self, path: str, times: int = 1) -> None:
        with self.lock:
            self.dropping[path] = times

    def requests(self, path: str) -> int:
        """How many requests to `path` reached the proxy."""
        with self.lock:
            return sum(
                line.split(b" ")[1].decode() == path
                for link in self.links
                for line, _ in link.requests
            )

    def close_clients(self) -> None:
        """Closes every client connection, as a server does with idle ones."""
        with self.lock:
            for link in self.links:
                if link.client is not None:
                    with contextlib.suppress(OSError):  # closed already
                        link.client.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, peer = self.listener.accept()
            except OSError:
                return
            link = Link(peer, client=client)
            with self.lock:
                self.links.append(link)
            threading.Thread(target=self._relay, args=(link, client), daemon=True).start()

    def _relay(self, link: Link, client: socket.socket) -> None:
        upstream = socket.create_connection(self.target)
        from_client, from_server = bytearray(), bytearray()
        try:
            while True:
                request = read_message(client, from_client)
                if request is None:
                    return
                head, body = request
                line = head.split(b"\r\n", 1)[0]
                with self.lock:
                    link.requests.append((line, body))
                upstream.sendall(head + body)
                answer = read_message(upstream, from_server)
                if answer is None:
                    return
                path = line.split(b" ")[1].decode()
                with self.lock:
                    dropped = self.dropping.get(path, 0) > 0
                    if dropped:
                        self.dropping[path] -= 1
                if dropped:
                    return  # the answer is never passed on
                client.sendall(answer[0] + answer[1])
        except OSError:
            return
        finally:
            client.close()
            upstream.close()


@pytest.fixture
def proxy(server_url: str) -> Iterator[Proxy]:
    relay = Proxy(server_url)
    yield relay
    relay.close()


def legal_moves(client: Client, position: Position) -> list[str]:
    """The server's legal moves of `position`, as texts."""
    view = client.request("POST", "/v1/legal-moves", {"position": str(position)})
    return [move["text"] for move in view["moves"]]


def local_moves(position: Position) -> list[str]:
    return [str(move) for move in position.legal_moves]


# ---- One connection, kept -----------------------------------------------------------


def test_one_connection_serves_every_call(proxy: Proxy) -> None:
    client = Client(proxy.url)
    remote = client.start(board="star2")
    for _ in range(5):  # push and pop: a request each, and legal moves between
        move = remote.legal_moves[0]
        remote.push(move)
        assert [str(m) for m in remote.legal_moves] == local_moves(Position(str(remote)))
        remote.pop()
    client.request("GET", "/v1/catalogue")
    assert len(proxy.links) == 1
    assert len(proxy.links[0].requests) > 10


def test_a_client_dropped_without_close_closes_its_connection_quietly(server_url: str) -> None:
    """A program that never calls close(): when the client is collected its
    connection is closed, with no ResourceWarning about an unclosed socket
    (pytest's warning checks, and PettingZoo's api_test, report those)."""
    client = Client(server_url)
    client.request("GET", "/v1/catalogue")
    sock = client._local.connection.sock
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del client
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
    assert sock.fileno() == -1  # closed


def test_each_thread_has_its_own_connection(proxy: Proxy) -> None:
    client = Client(proxy.url)
    threads = 4
    calls = 5
    starts = []
    for first in Position().legal_moves[:threads]:
        start = Position()
        start.push(first)
        starts.append(start)
    together = threading.Barrier(threads)
    answers: dict[int, list[list[str]]] = {}

    def work(index: int) -> None:
        together.wait()  # every thread holds its connection at once
        answers[index] = [legal_moves(client, starts[index]) for _ in range(calls)]
        together.wait()

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for index, start in enumerate(starts):
        assert answers[index] == [local_moves(start)] * calls
    # One connection per thread, each carrying that thread's requests alone.
    assert len(proxy.links) == threads
    assert sorted(len(link.requests) for link in proxy.links) == [calls] * threads
    for link in proxy.links:
        assert len({body for _, body in link.requests}) == 1
    assert len({body for link in proxy.links for _, body in link.requests}) == threads


# ---- Connections the server closes ------------------------------------------------


def wait_until_closed(client: Client) -> None:
    """Waits until the calling thread's connection has seen the server's
    close (on loopback it is there at once; this makes it certain)."""
    connection = client._local.connection
    assert connection is not None and connection.sock is not None
    readable, _, _ = select.select([connection.sock], [], [], 10)
    assert readable


def test_a_connection_the_server_closed_is_opened_again(proxy: Proxy) -> None:
    """An idle connection the server closed is noticed before the next
    request, so even a request that is never sent twice goes through."""
    client = Client(proxy.url)
    assert legal_moves(client, Position()) == local_moves(Position())
    proxy.close_clients()
    wait_until_closed(client)
    name = f"reopened-{uuid.uuid4().hex[:8]}"
    created = client.create_match([name, sternhalma.Bot("random", seed=1)], board="rhombus5p3")
    assert created.match.seats[0]["name"] == name
    assert len(proxy.links) == 2
    assert proxy.requests("/v1/matches") == 1


def test_an_idempotent_request_is_sent_again_after_a_drop(proxy: Proxy) -> None:
    client = Client(proxy.url)
    position = Position()
    position.push("115-104")
    assert legal_moves(client, Position()) == local_moves(Position())
    proxy.drop("/v1/legal-moves")
    assert legal_moves(client, position) == local_moves(position)
    assert proxy.requests("/v1/legal-moves") == 3  # the first call, the dropped one, its copy
    assert len(proxy.links) == 2
    # A GET too.
    proxy.drop("/v1/catalogue")
    assert "presets" in client.request("GET", "/v1/catalogue")
    assert proxy.requests("/v1/catalogue") == 2


def test_an_idempotent_request_is_sent_again_once_only(proxy: Proxy) -> None:
    client = Client(proxy.url)
    proxy.drop("/v1/legal-moves", times=2)
    with pytest.raises(ServerError, match="closed before the answer") as caught:
        legal_moves(client, Position())
    assert not isinstance(caught.value, ServerUnreachable)
    assert proxy.requests("/v1/legal-moves") == 2


def test_a_request_that_changes_something_is_not_sent_again(proxy: Proxy, server_url: str) -> None:
    """Creating a match, dropped after the server stored it: the client
    says so and does not create a second one."""
    client = Client(proxy.url)
    client.request("GET", "/v1/catalogue")  # the connection is open and reused
    name = f"dropped-{uuid.uuid4().hex[:8]}"
    proxy.drop("/v1/matches")
    with pytest.raises(ServerError, match="not sent again") as caught:
        client.create_match([name, sternhalma.Bot("random", seed=1)], board="rhombus5p3")
    assert caught.value.status is None
    assert proxy.requests("/v1/matches") == 1
    listed = Client(server_url).request("GET", "/v1/matches?limit=200")["matches"]
    assert sum(name in [seat["name"] for seat in match["seats"]] for match in listed) == 1
    # The client goes on, on a new connection.
    assert legal_moves(client, Position()) == local_moves(Position())


def test_a_server_restart_is_survived(tmp_path: Path) -> None:
    """The server stops and starts again on the same port: the client's
    next requests, reads and writes, go to the new server."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    database = tmp_path / "restart.sqlite3"
    with running_server(database, "--log-level", "warn", port=port) as first:
        client = Client(first.url)
        assert legal_moves(client, Position()) == local_moves(Position())
        first_connection = client._local.connection
    with pytest.raises(ServerUnreachable):
        legal_moves(client, Position())
    with running_server(database, "--log-level", "warn", port=port):
        assert legal_moves(client, Position()) == local_moves(Position())
        assert client._local.connection is not first_connection
        created = client.create_match(["after", sternhalma.Bot("random", seed=1)])
        assert created.match.seats[0]["name"] == "after"


# ---- A server that cannot be reached ----------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    "call",
    [
        lambda client: client.start(),
        lambda client: client.request("POST", "/v1/matches", {"seats": ["a", "b"]}),
        lambda client: client.request("GET", "/v1/catalogue"),
    ],
    ids=["start", "create", "get"],
)
def test_an_unreachable_server_is_a_connection_error(call: Callable[[Client], object]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    client = Client(url, timeout=2.0)
    with pytest.raises(ConnectionError) as caught:
        call(client)
    error = caught.value
    assert type(error) is ServerUnreachable
    assert isinstance(error, sternhalma.ServerError) and isinstance(error, OSError)
    assert error.url == url and url in str(error)
    assert error.status is None
    assert sternhalma.ServerUnreachable is ServerUnreachable
    assert "ServerUnreachable" in sternhalma.__all__


def test_a_stored_match_read_gives_up_as_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A GET is tried again, a second apart, when the server does not
    answer; after the last try it is still a ServerUnreachable."""
    monkeypatch.setattr(sternhalma.client, "_TRIES", 2)
    client = Client(f"http://127.0.0.1:{free_port()}", timeout=2.0)
    with pytest.raises(ServerUnreachable, match="after 2 tries"):
        client.match(1)


def test_find_server_at_an_address_that_does_not_answer() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ConnectionError, match="no Sternhalma server answers") as caught:
        find_server(url)
    assert isinstance(caught.value, ServerUnreachable)
    assert caught.value.code == "no_server" and caught.value.url == url


def test_a_url_that_is_not_http() -> None:
    with pytest.raises(ValueError, match="http://host"):
        Client("127.0.0.1:8080")
