"""The side-by-side position sets: turn starts of seeded two-player games, each
with the open_spiel action history that reaches it and our position string for
the same board.

    .venv/bin/python benches/sidebyside/positions.py   # rewrites both files

Two sets, written every time, both read by both harnesses (Python, in one
process; C++ against Rust), so that they time the same positions:

- ``positions.json`` (``sample``): games played in open_spiel's
  chinese_checkers, those of the open_spiel cross-check (tests/crosscheck):
  each turn mostly a move that gains the most distance towards the target,
  else a random one, so the set holds openings, middle games and end games.
  One turn start in five is kept, until there are 200.
- ``positions_random.json`` (``sample_random``): our own seeded uniformly
  random games. For seeds 1 to 20, a two-player game on ``star4 classic`` from
  open_spiel's start (north to move, ``START``) played with our engine: each
  ply ``random.Random(seed).choice`` over our legal moves sorted by (from,
  to), so the games depend on the seed and the rules, not on the order our
  generator lists moves in. Every turn start at plies 10 to 100 of each game
  is kept (the rest of a finished game would be skipped, and a turn where we
  must pass stops the script: open_spiel has no pass while it has a move, so
  the game could not be replayed; neither happens). Each of our moves is replayed in pyspiel hop by hop
  along its witness path (``Move.path``): a step is one action, a hop chain
  one action per hop, then Pass when open_spiel still offers the chain a
  further hop (a chain that cannot go on ends the turn by itself).

Every kept position of the second set is checked here: open_spiel's board and
player to move equal ours, and the whole-turn moves open_spiel allows there,
rebuilt from its hop actions (``explore_turn``), less those our classic rules
forbid (the target lock, ``expected_ours``), are exactly our legal moves. The
first set is built from open_spiel's states, with the counts the cross-check
compares with ours. Both harnesses check every count again before timing.
Each record holds ``open_spiel_turn_moves`` (open_spiel's whole-turn (from, to) moves),
``open_spiel_first_actions`` (its ``legal_actions()`` at the turn start) and
``our_moves`` (our legal moves).
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests" / "crosscheck"))

import crosscheck as cc
from sternhalma import Position

COUNT = 200
SEED = 17
PLAYERS = 2

RANDOM_SEEDS = range(1, 21)  # seeds 1 to 20
RANDOM_PLIES = range(10, 101)  # the turn starts kept: plies 10 to 100
# open_spiel's initial state in our notation: the same board, north to move.
START = "star4 classic south:111-120/north:0-9 1 0 -"


def sample(count: int, seed: int) -> list[dict]:
    view = cc.OpenSpielView(cc.load_game(PLAYERS))
    rng = random.Random(f"sidebyside-{seed}")
    out: list[dict] = []
    game = 0
    while len(out) < count:
        state = view.game.new_initial_state()
        ply = 0
        game += 1
        while not state.is_terminal() and ply < 150 * PLAYERS and len(out) < count:
            mover = state.current_player()
            turn = cc.explore_turn(view, state)
            if rng.random() < cc.SAMPLE_SHARE and not turn.only_pass:
                expected, _locked = cc.expected_ours(view, mover, turn)
                out.append(
                    {
                        "game": game,
                        "ply": ply,
                        "position": cc.position_string(view, state, ply),
                        "open_spiel_actions": [int(a) for a in state.history()],
                        "open_spiel_turn_moves": len(turn.moves),
                        "open_spiel_first_actions": len(state.legal_actions()),
                        "our_moves": len(expected),
                    }
                )
            for action in cc.choose_move(view, mover, turn, rng):
                state.apply_action(action)
            ply += 1
    return out


def check_same_board(view: cc.OpenSpielView, state, position: Position) -> None:
    """open_spiel's state and our position: same pegs, same player to move."""
    player_of = {name: view.start.index(name) for name in view.start}
    side_player = [player_of[next(iter(side))] for side in position.pegs]
    owners = view.owners(state)
    for hole, owner in enumerate(owners):
        ours = position.owner(hole)
        theirs = cc.EMPTY if ours is None else side_player[ours]
        if theirs != owner:
            raise AssertionError(f"hole {hole}: open_spiel {owner}, ours {ours} ({position})")
    if state.current_player() != side_player[position.side_to_move]:
        raise AssertionError(f"player to move differs at {position}")
    # And the position string built from open_spiel's state names our position.
    if Position(cc.position_string(view, state, position.ply)) != position:
        raise AssertionError(f"position strings differ at {position}")


def hop_actions(view: cc.OpenSpielView, state, path: list[int]) -> list[int]:
    """Plays one of our moves in open_spiel along its witness path, hole by hole;
    returns the actions applied (Pass included when open_spiel needs it)."""
    mover = state.current_player()
    before = view.owners(state)
    applied = []
    for i, (here, there) in enumerate(itertools.pairwise(path)):
        sign = "->" if len(path) == 2 and cc.hex_distance(here, there) == 1 else "=>"
        wanted = f"{view.hole_to_cell[here]}{sign}{view.hole_to_cell[there]}"
        found = [a for a in state.legal_actions() if state.action_to_string(a) == wanted]
        if len(found) != 1:
            raise AssertionError(f"open_spiel has no action {wanted} on the way {path}")
        (action,) = found
        state.apply_action(action)
        applied.append(action)
        if i + 2 < len(path) and cc.turn_over(state, mover):
            raise AssertionError(f"open_spiel ended the chain {path} at {there}")
    if not cc.turn_over(state, mover):
        state.apply_action(view.pass_action)  # the chain could go on: stop it
        applied.append(view.pass_action)
    if not cc.turn_over(state, mover):
        raise AssertionError(f"open_spiel's turn did not end after {path}")
    if cc.moved_peg(before, view.owners(state), mover) != (path[0], path[-1]):
        raise AssertionError(f"open_spiel moved another peg than {path}")
    return applied


def sample_random(seeds: range, plies: range) -> tuple[list[dict], int]:
    """The turn starts of our seeded uniformly random games (see the module
    docstring); returns them and the number of turn starts skipped."""
    view = cc.OpenSpielView(cc.load_game(PLAYERS))
    out: list[dict] = []
    skipped = 0
    for seed in seeds:
        rng = random.Random(seed)
        position = Position(START)
        state = view.game.new_initial_state()
        for ply in range(plies.stop):
            check_same_board(view, state, position)
            assert position.ply == ply
            if position.is_game_over() or state.is_terminal():
                skipped += len(range(max(ply, plies.start), plies.stop))
                break
            moves = sorted(position.legal_moves, key=lambda m: (m.from_hole, m.to_hole))
            if any(m.is_pass for m in moves):
                raise SystemExit(f"positions: we must pass at {position}; not replayable")
            if ply in plies:
                mover = state.current_player()
                turn = cc.explore_turn(view, state)
                expected, _locked = cc.expected_ours(view, mover, turn)
                ours = {f"{m.from_hole}-{m.to_hole}" for m in moves}
                if ours != expected:
                    raise SystemExit(
                        f"positions: move sets differ at {position}: "
                        f"ours only {sorted(ours - expected)}, open_spiel only "
                        f"{sorted(expected - ours)}"
                    )
                out.append(
                    {
                        "game": seed,
                        "ply": ply,
                        "position": str(position),
                        "open_spiel_actions": [int(a) for a in state.history()],
                        "open_spiel_turn_moves": len(turn.moves),
                        "open_spiel_first_actions": len(state.legal_actions()),
                        "our_moves": len(moves),
                    }
                )
            move = rng.choice(moves)
            hop_actions(view, state, move.path)
            position.push(move)
    return out, skipped


def write(path: Path, doc: dict, positions: list[dict]) -> None:
    lines = ",\n".join("  " + json.dumps(p) for p in positions)
    head = json.dumps(doc)[:-1]
    path.write_text(f'{head}, "positions": [\n{lines}\n]}}\n')
    ours = sum(p["our_moves"] for p in positions) / len(positions)
    turns = sum(p["open_spiel_turn_moves"] for p in positions) / len(positions)
    first = sum(p["open_spiel_first_actions"] for p in positions) / len(positions)
    print(
        f"{len(positions)} positions -> {path.relative_to(HERE.parents[1])}; mean moves: "
        f"ours {ours:.1f}, open_spiel whole turns {turns:.1f}, first actions {first:.1f}"
    )


def main() -> None:
    doc = {
        "about": (
            "Turn starts of seeded two-player open_spiel chinese_checkers games "
            "(benches/sidebyside/positions.py): open_spiel's action history, our "
            "position string (classic rules), and the move counts of each engine."
        ),
        "seed": SEED,
    }
    write(HERE / "positions.json", doc, sample(COUNT, SEED))
    positions, skipped = sample_random(RANDOM_SEEDS, RANDOM_PLIES)
    doc = {
        "about": (
            "Turn starts at plies 10 to 100 of our seeded uniformly random two-player "
            "games (benches/sidebyside/positions.py): each ply random.Random(seed).choice "
            "over our legal moves sorted by (from, to), from open_spiel's start (north to "
            "move), replayed in open_spiel hop by hop; open_spiel's action history, our "
            "position string (classic rules), and the move counts of each engine."
        ),
        "seeds": [RANDOM_SEEDS.start, RANDOM_SEEDS.stop - 1],
        "plies": [RANDOM_PLIES.start, RANDOM_PLIES.stop - 1],
        "rng": "random.Random(seed).choice(sorted legal moves by (from, to))",
        "skipped": skipped,
    }
    write(HERE / "positions_random.json", doc, positions)


if __name__ == "__main__":
    main()
