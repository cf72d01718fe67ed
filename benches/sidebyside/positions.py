"""The side-by-side position set: turn starts of seeded two-player games played
in open_spiel's chinese_checkers, each with the open_spiel action history that
reaches it and our position string for the same board.

    .venv/bin/python benches/sidebyside/positions.py          # rewrites positions.json

The games are those of the open_spiel cross-check (tests/crosscheck): each
turn mostly a move that gains the most distance towards the target, else a
random one, so the set holds openings, middle games and end games. One turn
start in five is kept, until there are 200. Both harnesses (Python, in one
process; C++ against Rust) read the file, so they time the same positions.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests" / "crosscheck"))

import crosscheck as cc

COUNT = 200
SEED = 17
PLAYERS = 2


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


def main() -> None:
    positions = sample(COUNT, SEED)
    doc = {
        "about": (
            "Turn starts of seeded two-player open_spiel chinese_checkers games "
            "(benches/sidebyside/positions.py): open_spiel's action history, our "
            "position string (classic rules), and the move counts of each engine."
        ),
        "seed": SEED,
        "positions": positions,
    }
    path = HERE / "positions.json"
    lines = ",\n".join("  " + json.dumps(p) for p in positions)
    head = json.dumps({k: v for k, v in doc.items() if k != "positions"})[:-1]
    path.write_text(f'{head}, "positions": [\n{lines}\n]}}\n')
    ours = sum(p["our_moves"] for p in positions) / len(positions)
    first = sum(p["open_spiel_first_actions"] for p in positions) / len(positions)
    print(
        f"{len(positions)} positions -> {path}; mean moves: ours {ours:.1f}, open_spiel first actions {first:.1f}"
    )


if __name__ == "__main__":
    main()
