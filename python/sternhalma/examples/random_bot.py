"""A random bot for a stored match, in Python with the sternhalma module's client.

    python -m sternhalma.examples.random_bot URL MATCH_ID SEAT TOKEN [--seed N]

TOKEN is the seat's token from the match's creation. ``Seat.play`` does
the rest: it waits for the seat's turn with the server's long-poll, asks the
bot (here a random legal move) and plays the move, naming the ply it was
chosen at; it returns when the match is over. A 429 (too many requests from
this address) or 503 (a busy server) is waited out as its ``Retry-After``
says, and the request sent again. The script prints the result and exits 0.

The whole of it, for a notebook::

    import random
    import sternhalma

    seat = sternhalma.Client("http://127.0.0.1:8080").join(1, 0, "<token>")
    final = seat.play(lambda position: random.choice(position.legal_moves))
    print(final.result.summary)

(``random_bot.js``, which the server offers at
``/downloads/examples/random_bot.js``, speaks the HTTP API directly, with no
package.)
"""

from __future__ import annotations

import argparse
import random

import sternhalma


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sternhalma.examples.random_bot",
        description="Play a seat of a stored match with random legal moves.",
    )
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("match_id", type=int)
    parser.add_argument("seat", type=int)
    parser.add_argument("token", help="the seat's token, from the match's creation")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seat = sternhalma.Client(args.url).join(args.match_id, args.seat, args.token)
    try:
        final = seat.play(lambda position: rng.choice(position.legal_moves))
    except sternhalma.ServerUnreachable as error:  # a ConnectionError, and a ServerError
        raise SystemExit(str(error)) from None
    except sternhalma.ServerError as error:
        raise SystemExit(f"the server refused: {error}") from None
    # A match over has its result (None only while it is in progress).
    summary = final.result.summary if final.result else "no result"
    print(f"python bot, seat {args.seat}: {final.status}, {summary}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
