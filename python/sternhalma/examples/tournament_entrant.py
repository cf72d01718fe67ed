"""A tournament entrant in Python, with the sternhalma module's client.

    python -m sternhalma.examples.tournament_entrant URL TOURNAMENT_ID TOKEN [--bot KIND] [--seed N]

TOKEN is the entrant's token from the tournament's creation. Without
``--bot`` it plays with the small function below (the move that brings a peg
nearest its target, ties broken at random); ``--bot greedy`` (or any of
``sternhalma.BOT_KINDS``) plays with a built-in bot instead. ``Client.play_tournament``
does the rest: it waits for the entrant's turns, asks the bot, posts the
moves, and returns the standings when the entrant has no game left; a 429
(too many requests from this address: a class behind one address shares the
server's limits) or 503 (a busy server) is waited out as its ``Retry-After``
says, and the request sent again. It may start before the tournament does:
it waits.

The whole of an entrant, for a notebook::

    import sternhalma

    client = sternhalma.Client("http://127.0.0.1:8080")
    bot = sternhalma.Bot("greedy", seed=1)
    client.play_tournament(3, "<token>", bot)
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

import sternhalma


def nearest_bot(seed: int | None) -> Callable[[sternhalma.Position], sternhalma.Move]:
    """A bot as a plain function: the legal move after which the side that
    moved is nearest its target (``distance_to_target``), ties at random."""
    rng = random.Random(seed)

    def choose(position: sternhalma.Position) -> sternhalma.Move:
        me = position.side_to_move
        scored = []
        for move in position.legal_moves:
            after = position.play(move)
            scored.append((sternhalma.distance_to_target(after, me), rng.random(), move))
        return min(scored, key=lambda s: (s[0], s[1]))[2]

    return choose


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sternhalma.examples.tournament_entrant",
        description="Play a tournament entrant's games.",
    )
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("tournament_id", type=int)
    parser.add_argument("token", help="the entrant's token, from the tournament's creation")
    parser.add_argument("--bot", choices=sternhalma.BOT_KINDS, default=None)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.bot is None:
        bot: object = nearest_bot(args.seed)
    else:
        bot = sternhalma.Bot(args.bot, seed=args.seed or 0)
    moves = 0

    def count(turn: dict, move: str) -> None:
        nonlocal moves
        moves += 1

    client = sternhalma.Client(args.url)
    try:
        standings = client.play_tournament(args.tournament_id, args.token, bot, on_move=count)
    except sternhalma.ServerUnreachable as error:  # a ConnectionError, and a ServerError
        raise SystemExit(str(error)) from None
    except sternhalma.ServerError as error:
        raise SystemExit(f"the server refused: {error}") from None
    print(f"python entrant: done after {moves} moves")
    for row in standings.rows:
        print(
            f"{row.rank:>3}  {row.name:<20} {row.points:>5} points"
            f"  {row.games} games  rating {row.rating:.1f} ± {row.uncertainty:.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
