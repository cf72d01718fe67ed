"""The game server's API under the hub's address: a JupyterHub service.

JupyterHub's proxy sends `/services/game/...` here with the prefix kept
(a service is expected to serve under its prefix); `sternhalma serve` has
no base-path option and answers at `/`. This process, run by the hub as
the managed service `game`, strips the prefix and passes each request on
to the game server (GAME_SERVER_URL), streaming the answer back as it
comes (a tournament's event stream, long-polls). A redirect's `Location`
gets the prefix back.

The web pages do not work through it: they name their assets and the API
by absolute paths (`/assets/...`, `/v1/...`), which the hub's address
sends to the hub (docs/classroom.md, "Not done yet").

Runs with the hub's venv (tornado comes with JupyterHub).
"""

from __future__ import annotations

import os
import signal
from urllib.parse import urlsplit

from tornado import httpclient, ioloop, web
from tornado.httputil import HTTPHeaders

PREFIX = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/game/").rstrip("/")
TARGET = os.environ["GAME_SERVER_URL"].rstrip("/")
# Headers that belong to one hop, not to the request or the answer.
HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
}


class Forward(web.RequestHandler):
    SUPPORTED_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")

    def check_xsrf_cookie(self) -> None:  # an API for programs; the server guards itself
        pass

    async def forward(self) -> None:
        uri = self.request.uri or "/"
        path = uri.removeprefix(PREFIX)
        if not path.startswith("/"):
            path = "/" + path
        headers = HTTPHeaders()
        for name, value in self.request.headers.get_all():
            if name.lower() not in HOP:
                headers.add(name, value)
        client = self.request.remote_ip or ""
        headers.add("X-Forwarded-For", client)
        started = False

        def on_header(line: str) -> None:
            nonlocal started
            line = line.rstrip("\r\n")
            if line.startswith("HTTP/"):
                parts = line.split(" ", 2)
                code = int(parts[1])
                if code == 100:
                    return
                self.clear()
                self.set_status(code, parts[2] if len(parts) > 2 else None)
                for name in ("Content-Type", "Server", "Date"):  # the game server's own
                    self.clear_header(name)
                started = True
                return
            if not line or ":" not in line or not started:
                return
            name, _, value = line.partition(":")
            value = value.strip()
            if name.lower() in HOP:
                return
            if name.lower() == "location" and value.startswith("/"):
                value = PREFIX + value
            self.add_header(name, value)

        def on_chunk(chunk: bytes) -> None:
            self.write(chunk)
            self.flush()

        method = self.request.method or "GET"
        body = self.request.body
        if method not in ("POST", "PUT", "PATCH"):
            body = body or None
        request = httpclient.HTTPRequest(
            TARGET + path,
            method=method,
            headers=headers,
            body=body,
            allow_nonstandard_methods=True,
            follow_redirects=False,
            decompress_response=False,
            connect_timeout=10,
            request_timeout=24 * 3600,  # event streams and long-polls stay open
            header_callback=on_header,
            streaming_callback=on_chunk,
        )
        try:
            response = await httpclient.AsyncHTTPClient().fetch(request, raise_error=False)
        except (OSError, httpclient.HTTPClientError) as error:
            if not started:
                self.set_status(502)
                self.set_header("Content-Type", "application/problem+json")
                self.write(
                    '{"type":"about:blank","title":"The game server does not answer",'
                    f'"status":502,"code":"game_server_down","detail":"{type(error).__name__}"}}'
                )
            self.finish()
            return
        if not started:  # no answer at all (timeout, refused)
            self.set_status(502 if response.code == 599 else response.code)
        self.finish()

    get = head = post = put = patch = delete = options = forward


def main() -> None:
    service = urlsplit(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:0"))
    httpclient.AsyncHTTPClient.configure(None, max_clients=256)
    app = web.Application([(r".*", Forward)])
    app.listen(service.port or 0, address=service.hostname or "127.0.0.1", xheaders=True)
    loop = ioloop.IOLoop.current()
    signal.signal(signal.SIGTERM, lambda *_: loop.add_callback_from_signal(loop.stop))
    loop.start()


if __name__ == "__main__":
    main()
