#!/usr/bin/env python3
"""Cross-check Sternhalma's move generator against open_spiel's chinese_checkers.

open_spiel models a turn hop by hop (one action per step or hop, then a Pass
action to stop a chain).  This script plays seeded games in open_spiel for 2, 3,
4 and 6 players, and at sampled turn starts collects open_spiel's turn-level set
of (from, to) moves by exhausting the actions within the turn.  It converts the
state to our position string (RULES.md section 1 hole ids), asks our oracle
(`cargo run --release --example legal_moves`) for its moves and compares them,
after removing the moves our classic rules forbid and open_spiel allows (the
target lock).  See NOTES.md beside this file for what open_spiel does.

It also checks the perft fixtures (tests/fixtures/perft.txt) of the classic
star4 starts for 2, 3, 4 and 6 players: open_spiel's own turn-level perft of its
start, up to depth 4, must equal the fixture counts.  Both checks run by
default; `--perft` runs only the perft check, `--no-perft` skips it.

Exit status: 0 when every position and perft count agrees, 1 on any mismatch or
failed self-check, 2 when the oracle cannot be run.
"""

from __future__ import annotations

import argparse
import random
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import numpy as np
    import pyspiel
    from open_spiel.python.observation import make_observation
except ImportError:  # pragma: no cover - depends on the environment
    sys.exit(
        "crosscheck: open_spiel or numpy is missing; install them in a venv, e.g.\n"
        "  python3 -m venv /tmp/osvenv && /tmp/osvenv/bin/pip install "
        "-r tests/crosscheck/requirements.txt\n"
        "and run this script with /tmp/osvenv/bin/python"
    )

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ORACLE = "cargo run --quiet --release --example legal_moves"
PLAYER_COUNTS = (2, 3, 4, 6)
PASS = "pass"
EMPTY = -1  # owner of an empty hole
MAX_REPORTED = 10  # mismatches shown in full; the rest by position string only
GREEDY_SHARE = 0.7  # share of turns the sampling games play a greedy move
SAMPLE_SHARE = 0.2  # share of turn starts that become crosscheck positions

# ---------------------------------------------------------------------------
# Our board, computed from RULES.md section 1 (star of size 4).
# ---------------------------------------------------------------------------

STAR_SIZE = 4

# The six axial directions of RULES.md section 1.
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

# Triangle membership tests, RULES.md section 1 (s = -q - r).
TRIANGLES = {
    "north": lambda q, r: r <= -(STAR_SIZE + 1),
    "north_east": lambda q, r: q >= STAR_SIZE + 1,
    "south_east": lambda q, r: -q - r <= -(STAR_SIZE + 1),
    "south": lambda q, r: r >= STAR_SIZE + 1,
    "south_west": lambda q, r: q <= -(STAR_SIZE + 1),
    "north_west": lambda q, r: -q - r >= STAR_SIZE + 1,
}
OPPOSITE = {
    "north": "south",
    "south": "north",
    "north_east": "south_west",
    "south_west": "north_east",
    "south_east": "north_west",
    "north_west": "south_east",
}


def on_star(q: int, r: int) -> bool:
    s = -q - r
    n = STAR_SIZE
    return min(q, r, s) >= -n or max(q, r, s) <= n


def star_holes() -> list[tuple[int, int]]:
    """Axial coordinates of every hole, indexed by hole id (row-major, top first)."""
    span = range(-2 * STAR_SIZE, 2 * STAR_SIZE + 1)
    return [(q, r) for r in span for q in span if on_star(q, r)]


HOLES = star_holes()
HOLE_ID = {qr: i for i, qr in enumerate(HOLES)}


def triangle_of(hole: int) -> str | None:
    q, r = HOLES[hole]
    names = [name for name, inside in TRIANGLES.items() if inside(q, r)]
    assert len(names) <= 1, (hole, names)
    return names[0] if names else None


TRIANGLE_HOLES = {
    name: frozenset(h for h in range(len(HOLES)) if triangle_of(h) == name) for name in TRIANGLES
}


def check_our_board() -> None:
    # RULES.md: a hexagon of side n+1 plus six triangles of n(n+1)/2 holes.
    n = STAR_SIZE
    triangle = n * (n + 1) // 2
    assert len(HOLES) == 3 * n * (n + 1) + 1 + 6 * triangle, len(HOLES)
    for name, holes in TRIANGLE_HOLES.items():
        assert len(holes) == triangle, (name, len(holes))
    # Hole ids are row by row (r ascending), then q ascending within a row.
    assert HOLES == sorted(HOLES, key=lambda qr: (qr[1], qr[0]))


def hex_distance(a: int, b: int) -> int:
    (q1, r1), (q2, r2) = HOLES[a], HOLES[b]
    dq, dr = q1 - q2, r1 - r2
    return max(abs(dq), abs(dr), abs(dq + dr))


# ---------------------------------------------------------------------------
# open_spiel's board: cell ids and their geometry.
# ---------------------------------------------------------------------------


def rendering_cells(state) -> list[tuple[int, int, str]]:
    """(line, column, char) of every cell in open_spiel's ASCII rendering.

    str(state) draws the board with one line per row and every cell at a
    doubled column; the final line ("Player: ...") is not part of the board.
    Cells come out in reading order, which the self-check ties to cell ids.
    """
    lines = str(state).split("\n")
    board_lines = [ln for ln in lines if not ln.startswith("Player:")]
    return [
        (y, x, ch) for y, line in enumerate(board_lines) for x, ch in enumerate(line) if ch != " "
    ]


def derive_cell_map(state) -> list[int]:
    """Map open_spiel cell id -> our hole id, by the geometry of the rendering.

    A row of the rendering is a row of constant r; neighbours along a row are
    two columns apart and each row below is shifted by one column, so the column
    is 2q + r up to an offset.  Both offsets are found from the centre of mass,
    which is the centre hole (0, 0) because the star is symmetric.
    """
    cells = rendering_cells(state)
    y_mid = sum(y for y, _, _ in cells) / len(cells)
    x_mid = sum(x for _, x, _ in cells) / len(cells)
    assert y_mid.is_integer() and x_mid.is_integer(), (y_mid, x_mid)
    cell_to_hole = []
    for y, x, _ in cells:
        r = y - int(y_mid)
        twice_q = x - int(x_mid) - r
        assert twice_q % 2 == 0, f"cell at line {y} column {x} is off the hex grid"
        qr = (twice_q // 2, r)
        assert qr in HOLE_ID, f"cell at line {y} column {x} -> {qr} is not on the star"
        cell_to_hole.append(HOLE_ID[qr])
    if sorted(cell_to_hole) != list(range(len(HOLES))):
        raise AssertionError("open_spiel cell -> hole map is not a bijection")
    return cell_to_hole


class OpenSpielView:
    """Reads an open_spiel state in terms of our holes."""

    def __init__(self, game):
        self.game = game
        self.num_players = game.num_players()
        self.num_cells = game.observation_tensor_shape()[0] // (self.num_players + 1)
        assert self.num_cells == len(HOLES), self.num_cells
        self.pass_action = game.num_distinct_actions() - 1
        self.observation = make_observation(game)
        initial = game.new_initial_state()
        assert initial.action_to_string(self.pass_action) == "Pass"
        self.cell_to_hole = derive_cell_map(initial)
        self.hole_to_cell = np.argsort(self.cell_to_hole)
        # Each player's start triangle, read off the initial position.
        owners = self.owners(initial)
        self.start = []
        for p in range(self.num_players):
            pegs = frozenset(h for h, o in enumerate(owners) if o == p)
            names = {triangle_of(h) for h in pegs}
            assert len(names) == 1 and None not in names, (p, names)
            (name,) = names
            assert pegs == TRIANGLE_HOLES[name], (p, name)
            self.start.append(name)

    def owners(self, state) -> np.ndarray:
        """Owner (open_spiel player) of each of our holes, EMPTY when empty.

        Uses player 0's observation tensor: planes 0..n-1 hold each player's
        pegs (rotated so that the observer is plane 0, i.e. unrotated for
        player 0), plane n the empty cells; a one-hot of the current player
        follows.  The numpy observer fills a buffer in place; converting
        state.observation_tensor(0)'s list is forty times slower.
        """
        n, cells = self.num_players, self.num_cells
        self.observation.set_from(state, 0)
        planes = self.observation.tensor[: (n + 1) * cells].reshape(n + 1, cells)
        assert (planes.sum(axis=0) == 1).all(), "a cell in no or several planes"
        by_cell = planes.argmax(axis=0)
        by_cell[by_cell == n] = EMPTY
        return by_cell[self.hole_to_cell]

    def target(self, player: int) -> str:
        return OPPOSITE[self.start[player]]


def check_rendering_matches_tensor(view: OpenSpielView, state) -> None:
    """The rendering's reading order must be open_spiel's cell-id order.

    The tensor is indexed by cell id and the rendering by position; they agree
    on every cell's content only if the two orders coincide.
    """
    owners = view.owners(state)  # fills view.observation from this state
    tensor = np.asarray(state.observation_tensor(0))
    assert (tensor == view.observation.tensor).all(), "the two observers disagree"
    for cell, (y, x, ch) in enumerate(rendering_cells(state)):
        owner = owners[view.cell_to_hole[cell]]
        expected = "." if owner == EMPTY else str(owner + 1)
        assert ch == expected, f"cell {cell} (line {y} col {x}): {ch!r} != {expected!r}"


ACTION_STEP = re.compile(r"^(\d+)->(\d+)$")
ACTION_HOP = re.compile(r"^(\d+)=>(\d+)$")
ACTION_NONE = re.compile(r"^(\d+)-[A-Z]+$")


@dataclass
class AdjacencyCheck:
    """Checks that open_spiel's cell adjacency is exactly our hole adjacency.

    open_spiel action a means "cell a // 6, direction a % 6", and
    action_to_string names the neighbour for a step ("c->n"), the landing for a
    hop ("c=>l"), or neither ("c-DIR").  It works for any action, legal or not,
    so one state reveals every (cell, direction) whose neighbour is empty.
    """

    view: OpenSpielView
    direction_vector: dict[int, tuple[int, int]] = field(default_factory=dict)
    seen_edges: set[tuple[int, int]] = field(default_factory=set)

    def all_edges(self) -> set[tuple[int, int]]:
        edges = set()
        for h, (q, r) in enumerate(HOLES):
            for dq, dr in DIRECTIONS:
                if (q + dq, r + dr) in HOLE_ID:
                    edges.add((h, HOLE_ID[(q + dq, r + dr)]))
        return edges

    def complete(self) -> bool:
        return len(self.seen_edges) == len(self.all_edges())

    def _vector(self, a: int, b: int) -> tuple[int, int]:
        (q1, r1), (q2, r2) = HOLES[a], HOLES[b]
        return (q2 - q1, r2 - r1)

    def _agree(self, direction: int, vector: tuple[int, int]) -> None:
        known = self.direction_vector.setdefault(direction, vector)
        assert known == vector, f"direction {direction}: {vector} vs {known}"

    def observe(self, state) -> None:
        view = self.view
        owners = view.owners(state)
        directions = view.pass_action // view.num_cells
        for action in range(view.pass_action):
            cell, direction = divmod(action, directions)
            text = state.action_to_string(action)
            src = view.cell_to_hole[cell]
            if m := ACTION_STEP.match(text):
                dst = view.cell_to_hole[int(m[2])]
                assert int(m[1]) == cell and owners[dst] == EMPTY, text
                vector = self._vector(src, dst)
                assert vector in DIRECTIONS, f"{text}: not adjacent on our board"
                self._agree(direction, vector)
                self.seen_edges.add((src, dst))
            elif m := ACTION_HOP.match(text):
                dst = view.cell_to_hole[int(m[2])]
                dq, dr = self._vector(src, dst)
                assert int(m[1]) == cell and dq % 2 == 0 and dr % 2 == 0, text
                vector = (dq // 2, dr // 2)
                assert vector in DIRECTIONS, f"{text}: not a straight hop on our board"
                q, r = HOLES[src]
                assert owners[HOLE_ID[(q + vector[0], r + vector[1])]] != EMPTY, text
                self._agree(direction, vector)
            else:
                assert ACTION_NONE.match(text), text
                # Neither a step nor a hop: the neighbour is off the board, or
                # occupied with the landing off the board.
                if direction in self.direction_vector:
                    q, r = HOLES[src]
                    dq, dr = self.direction_vector[direction]
                    nbr = HOLE_ID.get((q + dq, r + dr))
                    landing = HOLE_ID.get((q + 2 * dq, r + 2 * dr))
                    blocked = nbr is not None and owners[nbr] != EMPTY
                    assert nbr is None or (blocked and landing is None), text

    def verify(self) -> None:
        assert sorted(self.direction_vector.values()) == sorted(DIRECTIONS)
        missing = self.all_edges() - self.seen_edges
        assert not missing, f"adjacencies never observed in open_spiel: {sorted(missing)[:10]}"


def verify_mapping(seed: int) -> dict[int, OpenSpielView]:
    """Build the open_spiel views and check the cell map against the game.

    Random-action games supply the states: for every player count, the
    rendering and the tensor must agree on every cell; and in the two-player
    game every adjacency of the board must show up as an open_spiel step.
    """
    check_our_board()
    views = {n: OpenSpielView(load_game(n)) for n in PLAYER_COUNTS}
    maps = {tuple(v.cell_to_hole) for v in views.values()}
    assert len(maps) == 1, "the cell map depends on the player count"
    rng = random.Random(f"mapping-{seed}")
    adjacency = AdjacencyCheck(views[2])
    for n, view in views.items():
        for _game in range(20):
            state = view.game.new_initial_state()
            for action_count in range(2000):
                if state.is_terminal():
                    break
                if action_count % 25 == 0:
                    check_rendering_matches_tensor(view, state)
                    if n == 2 and not adjacency.complete():
                        adjacency.observe(state)
                state.apply_action(rng.choice(state.legal_actions()))
            if n != 2 or adjacency.complete():
                break
    adjacency.verify()
    return views


def load_game(num_players: int):
    return pyspiel.load_game("chinese_checkers", {"players": num_players})


# ---------------------------------------------------------------------------
# Turn-level moves in open_spiel.
# ---------------------------------------------------------------------------


def turn_over(state, mover: int) -> bool:
    return state.is_terminal() or state.current_player() != mover


def moved_peg(before: np.ndarray, after: np.ndarray, mover: int) -> tuple[int, int]:
    """(from, to) of the mover's peg that moved between two occupancies."""
    changed = np.flatnonzero(before != after).tolist()
    assert len(changed) == 2, changed
    (a, b) = changed
    if before[a] == mover and after[a] == EMPTY and before[b] == EMPTY and after[b] == mover:
        return a, b
    if before[b] == mover and after[b] == EMPTY and before[a] == EMPTY and after[a] == mover:
        return b, a
    raise AssertionError(f"unexpected change at holes {changed}")


@dataclass(frozen=True)
class Witness:
    """One way open_spiel plays a turn-level move."""

    actions: tuple[int, ...]  # open_spiel actions, Pass included
    holes: tuple[int, ...]  # our holes the peg visits, start first

    def extend(self, action: int, hole: int | None = None) -> Witness:
        holes = self.holes if hole is None else (*self.holes, hole)
        return Witness((*self.actions, action), holes)


@dataclass
class TurnMoves:
    moves: dict[tuple[int, int], Witness]  # (from, to) -> one way to play it
    only_pass: bool  # open_spiel offers only its Pass action


def explore_turn(view: OpenSpielView, state) -> TurnMoves:
    """Every (from, to) the player to move can reach within this turn.

    A hop chain is explored by the moving peg's location: once a location has
    been reached from a start hole it is not expanded again, so the search ends
    even though open_spiel would offer different continuations after different
    paths (it forbids landing on holes already visited in the chain).  Any hole
    reachable through the hop graph is still reached, as in a depth-first search.
    """
    mover = state.current_player()
    start = view.owners(state)
    legal = state.legal_actions()
    if legal == [view.pass_action]:
        child = state.clone()
        child.apply_action(view.pass_action)
        assert turn_over(child, mover)
        return TurnMoves({}, only_pass=True)
    assert view.pass_action not in legal, "Pass offered at a turn start with moves"

    moves: dict[tuple[int, int], Witness] = {}
    reached: dict[int, set[int]] = {}  # start hole -> chain locations reached

    def record(witness: Witness) -> None:
        src, dst = witness.holes[0], witness.holes[-1]
        if src != dst:  # open_spiel never lets a chain end on its start
            moves.setdefault((src, dst), witness)

    def continue_chain(child, witness: Witness) -> None:
        # Mid-chain: open_spiel offers further hops of this peg plus Pass.
        src, loc = witness.holes[0], witness.holes[-1]
        actions = child.legal_actions()
        assert view.pass_action in actions, "no Pass in the middle of a hop chain"
        stop = child.clone()
        stop.apply_action(view.pass_action)
        assert turn_over(stop, mover), "Pass did not end the chain"
        assert moved_peg(start, view.owners(stop), mover) == (src, loc)
        record(witness.extend(view.pass_action))
        for action in actions:
            if action == view.pass_action:
                continue
            nxt = child.clone()
            nxt.apply_action(action)
            _, new_loc = moved_peg(start, view.owners(nxt), mover)
            if new_loc in reached[src]:
                continue
            reached[src].add(new_loc)
            visit(nxt, witness.extend(action, new_loc))

    def visit(child, witness: Witness) -> None:
        if turn_over(child, mover):  # a step, or a hop with no continuation
            record(witness)
        else:
            continue_chain(child, witness)

    for action in legal:
        child = state.clone()
        child.apply_action(action)
        src, dst = moved_peg(start, view.owners(child), mover)
        seen = reached.setdefault(src, {src})
        if not turn_over(child, mover):
            if dst in seen:
                continue
            seen.add(dst)
        visit(child, Witness((action,), (src, dst)))
    return TurnMoves(moves, only_pass=False)


def expected_ours(view: OpenSpielView, mover: int, turn: TurnMoves) -> tuple[set, set]:
    """(moves our classic engine must list, open_spiel moves it must not).

    The only rule difference at the turn level is the target lock: a peg that
    starts in its target triangle must end there; open_spiel lets it leave.
    When that removes every move, the player has to pass.
    """
    target = TRIANGLE_HOLES[view.target(mover)]
    locked = {(f, t) for (f, t) in turn.moves if f in target and t not in target}
    expected = {f"{f}-{t}" for (f, t) in turn.moves.keys() - locked}
    return expected or {PASS}, locked


# ---------------------------------------------------------------------------
# Position strings.
# ---------------------------------------------------------------------------


def position_string(view: OpenSpielView, state, ply: int) -> str:
    """Our position string for an open_spiel state at a turn start.

    Players are listed in open_spiel's turn order (which is clockwise, as ours),
    rotated so that south comes first when it is in play, as in our layouts.
    """
    owners = view.owners(state)
    order = list(range(view.num_players))
    if "south" in view.start:
        k = view.start.index("south")
        order = order[k:] + order[:k]
    sets = []
    for p in order:
        holes = ",".join(str(h) for h, o in enumerate(owners) if o == p)
        sets.append(f"{view.start[p]}:{holes}")
    side = order.index(state.current_player())
    return f"star4 classic {'/'.join(sets)} {side} {ply} -"


# ---------------------------------------------------------------------------
# Sampling positions.
# ---------------------------------------------------------------------------


@dataclass
class Position:
    num_players: int
    text: str  # our position string
    rendering: str  # open_spiel's str(state)
    mover: int
    opensp: TurnMoves
    expected: set[str]
    locked: set[tuple[int, int]]


def choose_move(view: OpenSpielView, mover: int, turn: TurnMoves, rng: random.Random):
    """A move for the sampling games: mostly progress towards the target.

    Uniformly random play never brings pegs home, and positions with pegs in
    their target triangle are where the target lock matters; so most turns take
    a move that gains the most distance towards the target's apex.
    """
    if turn.only_pass:
        return [view.pass_action]
    moves = sorted(turn.moves)
    if rng.random() < GREEDY_SHARE:
        target = TRIANGLE_HOLES[view.target(mover)]
        apex = max(target, key=lambda h: hex_distance(h, HOLE_ID[(0, 0)]))

        def gain(move):
            return hex_distance(move[0], apex) - hex_distance(move[1], apex)

        best = max(gain(m) for m in moves)
        moves = [m for m in moves if gain(m) == best]
    return turn.moves[rng.choice(moves)].actions


def check_win(view: OpenSpielView, state) -> None:
    """A finished open_spiel game must have a winner whose target is full."""
    returns = state.returns()
    if max(returns) == 0:  # open_spiel's move limit: a draw
        return
    winner = returns.index(max(returns))
    owners = view.owners(state)
    target = TRIANGLE_HOLES[view.target(winner)]
    assert all(owners[h] == winner for h in target), "winner's target is not full"


def sample_positions(view: OpenSpielView, count: int, seed: int) -> list[Position]:
    n = view.num_players
    rng = random.Random(f"{seed}-{n}")
    positions: list[Position] = []
    max_turns = 150 * n  # cut games that wander, to see more openings
    while len(positions) < count:
        state = view.game.new_initial_state()
        ply = 0
        while not state.is_terminal() and ply < max_turns and len(positions) < count:
            mover = state.current_player()
            turn = explore_turn(view, state)
            if rng.random() < SAMPLE_SHARE:
                expected, locked = expected_ours(view, mover, turn)
                positions.append(
                    Position(
                        num_players=n,
                        text=position_string(view, state, ply),
                        rendering=str(state),
                        mover=mover,
                        opensp=turn,
                        expected=expected,
                        locked=locked,
                    )
                )
            for action in choose_move(view, mover, turn, rng):
                state.apply_action(action)
            assert turn_over(state, mover)
            ply += 1
        if state.is_terminal():
            check_win(view, state)
    return positions


# ---------------------------------------------------------------------------
# The oracle and the comparison.
# ---------------------------------------------------------------------------


def run_oracle(command: str, lines: list[str], timeout: float) -> list[str]:
    """Feed every position to one oracle process; one output line per input."""
    try:
        proc = subprocess.run(
            shlex.split(command),
            check=False,
            input="".join(line + "\n" for line in lines),
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO_ROOT,
            timeout=timeout,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"crosscheck: cannot run oracle `{command}`: {exc}", file=sys.stderr)
        sys.exit(2)
    out = proc.stdout.splitlines()
    if proc.returncode != 0 or len(out) != len(lines):
        print(
            f"crosscheck: oracle `{command}` exited {proc.returncode} and printed "
            f"{len(out)} lines for {len(lines)} positions",
            file=sys.stderr,
        )
        sys.exit(2)
    return out


def compare(pos: Position, answer: str) -> str | None:
    """A readable diff when our answer disagrees, else None."""
    if answer.startswith("error:"):
        return "the oracle rejected the position"
    tokens = answer.split()
    ours = set(tokens)
    problems = []
    if len(ours) != len(tokens):
        dups = sorted({t for t in tokens if tokens.count(t) > 1})
        problems.append(f"listed more than once: {' '.join(dups)}")
    if ours == pos.expected and not problems:
        return None
    opensp = {f"{f}-{t}" for (f, t) in pos.opensp.moves} or {PASS}
    locked = {f"{f}-{t}" for (f, t) in pos.locked}
    missing = pos.expected - ours
    extra = ours - pos.expected
    if missing:
        problems.append(f"missing (open_spiel has them, lock allows): {fmt(missing)}")
        for move in sorted(missing - {PASS}, key=move_key):
            witness = pos.opensp.moves[move_key(move)]
            problems.append(f"  {move} in open_spiel: {' > '.join(map(str, witness.holes))}")
    if extra & locked:
        problems.append(f"target-lock violations we allow: {fmt(extra & locked)}")
    if extra - opensp:
        problems.append(f"not in open_spiel at all: {fmt(extra - opensp)}")
    if PASS in extra:
        problems.append("we pass although open_spiel's moves include lock-legal ones")
    return "\n".join(problems)


def move_key(move: str):
    return tuple(int(x) for x in move.split("-")) if move != PASS else (-1,)


def fmt(moves: set[str]) -> str:
    return " ".join(sorted(moves, key=move_key))


def report_mismatch(pos: Position, answer: str, diff: str) -> None:
    print(f"MISMATCH ({pos.num_players}p, open_spiel player {pos.mover} to move)")
    print(f"  position: {pos.text}")
    print("  open_spiel state:")
    for line in pos.rendering.splitlines():
        print(f"    {line}")
    print(f"  expected: {fmt(pos.expected)}")
    print(f"  ours:     {answer}")
    for line in diff.splitlines():
        print(f"  {line}")


# ---------------------------------------------------------------------------
# Perft of the classic starts, computed in open_spiel.
# ---------------------------------------------------------------------------

PERFT_FIXTURES = REPO_ROOT / "tests" / "fixtures" / "perft.txt"
DEFAULT_PERFT_DEPTH = 4


def rotate_half_turn(hole: int) -> int:
    """Our hole after turning the star 180 degrees about its centre."""
    q, r = HOLES[hole]
    return HOLE_ID[(-q, -r)]


ROTATED_TRIANGLE = {
    name: triangle_of(rotate_half_turn(min(holes))) for name, holes in TRIANGLE_HOLES.items()
}


def parse_holes(text: str) -> list[int]:
    """Hole ids of a position string's set, e.g. "10-13,23-25,35"."""
    holes: list[int] = []
    for item in text.split(","):
        low, _, high = item.partition("-")
        holes.extend(range(int(low), int(high or low) + 1))
    return holes


@dataclass
class PerftFixture:
    line: int  # line number in the fixture file
    text: str  # the position string
    sets: list[tuple[str, frozenset[int]]]  # each player's one set, in turn order
    counts: list[int]  # fixture counts for depth 1, 2, ...


def classic_start_fixtures(path: Path) -> list[PerftFixture]:
    """The fixture lines that are a classic star4 start, one set per player.

    That is `star4 classic T1:holes/T2:holes/... 0 0 -` where each set fills
    its triangle T; other lines (other boards, rules, multi-set players,
    positions after some play) are not open_spiel's games and are skipped.
    """
    fixtures = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        text, _, counts = line.partition(";")
        fields = text.strip().split(" ")
        if len(fields) != 6 or fields[:2] != ["star4", "classic"]:
            continue
        if fields[3:] != ["0", "0", "-"] or "+" in fields[2]:
            continue
        sets = []
        for player in fields[2].split("/"):
            name, _, holes = player.partition(":")
            sets.append((name, frozenset(parse_holes(holes))))
        if len(sets) not in PLAYER_COUNTS:
            continue
        if any(TRIANGLE_HOLES.get(name) != holes for name, holes in sets):
            continue  # a set that is not a full start triangle
        fixtures.append(PerftFixture(number, text.strip(), sets, [int(c) for c in counts.split()]))
    return fixtures


def check_start_is_rotated_fixture(view: OpenSpielView, fixture: PerftFixture) -> None:
    """open_spiel's start, turned 180 degrees, must be the fixture's position.

    Player p of open_spiel (player 0 moves first) must become the fixture's
    player p (side 0 moves first): same pegs once turned, same turn order.  A
    rotation keeps clockwise clockwise, and the rules do not depend on
    orientation, so the move trees, hence the perft counts, are the same.
    """
    owners = view.owners(view.game.new_initial_state())
    assert len(fixture.sets) == view.num_players, fixture.text
    for p, (name, holes) in enumerate(fixture.sets):
        turned = frozenset(rotate_half_turn(h) for h, o in enumerate(owners) if o == p)
        assert turned == holes, f"open_spiel player {p} turned is not {name}"
        assert ROTATED_TRIANGLE[view.start[p]] == name, (view.start[p], name)


def open_spiel_perft(view: OpenSpielView, depth: int) -> list[int]:
    """Turn-level perft of open_spiel's start position for depth 1..depth.

    At each node, explore_turn gives the distinct (from, to) moves (a pass
    counts as one move when it is all open_spiel offers); each child is reached
    by one witness action sequence, which is enough because every chain with
    the same (from, to) leaves the same board.  Counts for all depths come from
    one walk: the moves at the nodes d - 1 plies deep are the depth-d leaves.
    No memoisation: every node is explored.
    """
    counts = [0] * depth
    n = view.num_players

    def walk(state, ply: int) -> None:
        assert not state.is_terminal(), "a game ended within the perft depth"
        mover = state.current_player()
        turn = explore_turn(view, state)
        _, locked = expected_ours(view, mover, turn)
        # A peg in its own target triangle so soon is impossible; were one
        # there, our target lock would prune moves open_spiel allows.
        assert not locked, f"target-lock moves at ply {ply}: {sorted(locked)}"
        if turn.only_pass:
            children = [(None, (view.pass_action,))]
        else:
            children = [(move, w.actions) for move, w in sorted(turn.moves.items())]
        counts[ply] += len(children)
        if ply + 1 == depth:
            return
        before = view.owners(state)
        for move, actions in children:
            child = state.clone()
            for action in actions:
                child.apply_action(action)
            assert turn_over(child, mover) and child.current_player() == (mover + 1) % n
            if move is not None:
                assert moved_peg(before, view.owners(child), mover) == move
            walk(child, ply + 1)

    walk(view.game.new_initial_state(), 0)
    return counts


def check_perft(views: dict[int, OpenSpielView], path: Path, max_depth: int) -> tuple[int, str]:
    """Compare the classic-start perft fixtures with open_spiel.

    Returns (failures, summary line).  Every player count of open_spiel must be
    covered by one fixture; a missing one counts as a failure, so that the
    check cannot silently check nothing.
    """
    fixtures = classic_start_fixtures(path)
    mismatches = missing = 0
    done = []
    for n in PLAYER_COUNTS:
        found = [f for f in fixtures if len(f.sets) == n]
        if not found:
            print(f"PERFT: no classic star4 start for {n} players in {path}")
            missing += 1
        for fixture in found:
            view = views[n]
            try:
                check_start_is_rotated_fixture(view, fixture)
            except AssertionError as exc:
                print(f"PERFT: {path.name} line {fixture.line} is not open_spiel's")
                print(f"  {n}-player start turned 180 degrees ({exc}):")
                print(f"  {fixture.text}")
                mismatches += 1
                continue
            depth = min(max_depth, len(fixture.counts))
            ours = open_spiel_perft(view, depth)
            expected = fixture.counts[:depth]
            done.append(f"{n}p: {' '.join(map(str, ours))}")
            if ours != expected:
                mismatches += 1
                print(f"PERFT MISMATCH ({n}p, {path.name} line {fixture.line})")
                print(f"  position:   {fixture.text}")
                print(f"  fixture:    {' '.join(map(str, expected))}")
                print(f"  open_spiel: {' '.join(map(str, ours))}")
    print(
        "perft: each fixture start is checked to be open_spiel's start turned 180 "
        "degrees (same pegs, player to move and turn order; north moves first in "
        "open_spiel and its 3-player layout is the mirror image of ours), so the "
        "counts must be equal"
    )
    summary = (
        f"perft: {len(done)} starts checked against open_spiel ({', '.join(done)}), "
        f"{mismatches} mismatches"
    )
    if missing:
        summary += f", {missing} player counts with no fixture"
    failures = mismatches + missing
    return failures, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--oracle", default=DEFAULT_ORACLE, help="oracle command")
    parser.add_argument("--seed", type=int, default=1, help="seed of the sampling games")
    parser.add_argument(
        "--positions-per-count",
        type=int,
        default=100,
        help="positions sampled for each player count (2, 3, 4, 6)",
    )
    parser.add_argument("--timeout", type=float, default=1800, help="oracle timeout, s")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print positions and open_spiel's moves; do not run the oracle",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--perft",
        action="store_true",
        help="only check the perft fixtures of the classic starts (no oracle)",
    )
    which.add_argument("--no-perft", action="store_true", help="skip the perft fixture check")
    parser.add_argument(
        "--perft-depth",
        type=int,
        default=DEFAULT_PERFT_DEPTH,
        help=f"deepest perft depth compared (default {DEFAULT_PERFT_DEPTH})",
    )
    parser.add_argument(
        "--perft-fixtures",
        type=Path,
        default=PERFT_FIXTURES,
        help="perft fixture file (default tests/fixtures/perft.txt)",
    )
    args = parser.parse_args(argv)

    views = verify_mapping(args.seed)
    perft_failures = 0
    if not args.no_perft:
        perft_failures, perft_summary = check_perft(views, args.perft_fixtures, args.perft_depth)
        print(perft_summary)
        if args.perft:
            return 1 if perft_failures else 0

    positions: list[Position] = []
    for n in PLAYER_COUNTS:
        positions += sample_positions(views[n], args.positions_per_count, args.seed)

    if args.dry_run:
        for pos in positions:
            opensp = {f"{f}-{t}" for (f, t) in pos.opensp.moves} or {PASS}
            locked = {f"{f}-{t}" for (f, t) in pos.locked}
            print(pos.text)
            print(f"  open_spiel: {fmt(opensp)}")
            print(f"  locked:     {fmt(locked) or '-'}")
            print(f"  expected:   {fmt(pos.expected)}")
        answers = None
    else:
        answers = run_oracle(args.oracle, [p.text for p in positions], args.timeout)

    mismatches = 0
    if answers is not None:
        for pos, answer in zip(positions, answers, strict=True):
            diff = compare(pos, answer.strip())
            if diff is None:
                continue
            mismatches += 1
            if mismatches <= MAX_REPORTED:
                report_mismatch(pos, answer.strip(), diff)
            else:
                print(f"MISMATCH (not shown in full): {pos.text}")

    per_count = ", ".join(
        f"{n}p: {sum(p.num_players == n for p in positions)}" for n in PLAYER_COUNTS
    )
    locked_total = sum(len(p.locked) for p in positions)
    locked_positions = sum(bool(p.locked) for p in positions)
    passes = sum(p.expected == {PASS} for p in positions)
    print(
        f"crosscheck: target-lock moves excluded: {locked_total} in {locked_positions} "
        f"positions; positions where we must pass: {passes}"
    )
    verdict = "dry run, oracle not asked" if answers is None else f"{mismatches} mismatches"
    print(f"crosscheck: {len(positions)} positions ({per_count}), {verdict}")
    return 1 if mismatches or perft_failures else 0


if __name__ == "__main__":
    sys.exit(main())
