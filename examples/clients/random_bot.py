#!/usr/bin/env python3
"""A random bot for a stored match, in Python with the standard library only.

    python3 random_bot.py URL MATCH_ID SEAT TOKEN [--seed N]

It reads the match, and while the match is in progress: on its turn plays a
random legal move (naming the ply it expects), otherwise waits for the
other seats with the long-poll (`?wait_ply=`). It prints the result and
exits 0 when the match is over.
"""

from __future__ import annotations

import argparse
import json
import random
import urllib.error
import urllib.request


def call(
    url: str, method: str = "GET", body: object = None, token: str | None = None
) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Play a seat of a stored match with random legal moves."
    )
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("match_id", type=int)
    parser.add_argument("seat", type=int)
    parser.add_argument("token", help="the seat's token, from the match's creation")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    match_url = f"{args.url.rstrip('/')}/v1/matches/{args.match_id}"
    status, state = call(match_url)
    if status != 200:
        raise SystemExit(f"cannot read the match: {status} {state}")
    while state["status"] == "in_progress":
        if state["to_move"] != args.seat:
            # Not our turn: wait until someone moves (or 25 s pass).
            status, state = call(f"{match_url}?wait_ply={state['ply']}&timeout_ms=25000")
            continue
        move = rng.choice(state["legal_moves"])["text"]
        status, answer = call(
            f"{match_url}/moves", "POST", {"ply": state["ply"], "move": move}, args.token
        )
        if status == 200:
            state = answer["match"]
        elif status == 409:
            status, state = call(match_url)  # the match moved on: read it again
        else:
            raise SystemExit(f"move {move} refused: {status} {answer}")
    print(f"python bot, seat {args.seat}: {state['status']}, {state['result']['summary']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
