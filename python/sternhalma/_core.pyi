"""Type stubs of the compiled extension ``sternhalma._core``."""

from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import StrEnum
from os import PathLike
from pathlib import Path
from typing import Any, Literal, SupportsIndex, final, overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "BOT_KINDS",
    "Analysis",
    "AntiSpoiling",
    "Board",
    "BoardShape",
    "Bot",
    "BotKind",
    "BuiltinBarredError",
    "DrawReason",
    "Finish",
    "IllegalMoveError",
    "IllegalPositions",
    "InvalidPositionError",
    "LegalMoves",
    "Move",
    "MoveKind",
    "MoveProbe",
    "NotationError",
    "Outcome",
    "OutcomeStatus",
    "PlyAnalysis",
    "Position",
    "Preset",
    "Probe",
    "Resting",
    "Rules",
    "SearchResult",
    "SeatAnalysis",
    "Solution",
    "SolveLimitError",
    "SolveProgress",
    "SolvedValue",
    "SternhalmaError",
    "Tablebase",
    "TablebaseError",
    "Triangle",
    "UnknownBotError",
    "UnknownPresetError",
    "UnsolvableError",
    "UnusedTriangles",
    "VectorEnv",
    "Verdict",
    "_bar_builtins",
    "_graded_run_lock",
    "_graded_run_serve",
    "_graded_trace",
    "_positions_made",
    "_problem_error",
    "_restore",
    "analyse",
    "distance_to_target",
    "pegs_home",
    "progress",
    "rollouts",
    "solve_solitaire",
]

# ---- Closed sets of names: each member equals its text -------------------------

class OutcomeStatus(StrEnum):
    """How a game stands: `Outcome.status`.

    IN_PROGRESS (not over), WON (one winner), TIE (several players share
    the win), RANKING (a finishing order, under `finish = ranking`), DRAW
    (nobody won). A member equals its name on the wire.

    >>> OutcomeStatus.WON == "won", OutcomeStatus("draw")
    (True, <OutcomeStatus.DRAW: 'draw'>)
    """

    IN_PROGRESS = "in_progress"
    WON = "won"
    TIE = "tie"
    RANKING = "ranking"
    DRAW = "draw"

class DrawReason(StrEnum):
    """Why a game was drawn: `Outcome.reason`. MOVE_LIMIT (the rules'
    `max_plies` was reached) or NO_MOVES (every player still in the game
    would have to pass).
    """

    MOVE_LIMIT = "move_limit"
    NO_MOVES = "no_moves"

class MoveKind(StrEnum):
    """What kind of move it is: `Move.kind`. STEP (to an adjacent hole), HOP
    (one or more hops), SWAP (onto another player's peg in the mover's
    target, under `anti_spoiling = swap`) or PASS.

    >>> Position().legal_moves[0].kind
    <MoveKind.STEP: 'step'>
    """

    STEP = "step"
    HOP = "hop"
    SWAP = "swap"
    PASS = "pass"

class BotKind(StrEnum):
    """The built-in bots, simplest first: `Bot.kind` and `BOT_KINDS`. RANDOM,
    GREEDY, ALPHABETA, PARANOID, MCTS and PERFECT (from a solved table).

    >>> Bot(BotKind.GREEDY).kind == "greedy"
    True
    """

    RANDOM = "random"
    GREEDY = "greedy"
    ALPHABETA = "alphabeta"
    PARANOID = "paranoid"
    MCTS = "mcts"
    PERFECT = "perfect"

class BoardShape(StrEnum):
    """A board's family: `Board.shape`. STAR (`star1` to `star4`) or RHOMBUS
    (`rhombus<M>p<P>`: a side of M holes, homes of P pegs).
    """

    STAR = "star"
    RHOMBUS = "rhombus"

class Triangle(StrEnum):
    """A triangle of the star, clockwise from the top: `Board.triangles`,
    `Board.triangle_of`. Wherever a triangle name is taken, a member or
    its text will do.

    >>> Board("star4").triangle_of(0)
    <Triangle.NORTH: 'north'>
    """

    NORTH = "north"
    NORTH_EAST = "north_east"
    SOUTH_EAST = "south_east"
    SOUTH = "south"
    SOUTH_WEST = "south_west"
    NORTH_WEST = "north_west"

class Preset(StrEnum):
    """The named rule sets: `Rules.presets()`. `Rules(Preset.MASTERS)` is
    `Rules("masters")`.
    """

    CLASSIC = "classic"
    MASTERS = "masters"
    FAMILY = "family"
    SUPER = "super"
    RESEARCH = "research"
    STURTEVANT = "sturtevant"

class UnusedTriangles(StrEnum):
    """What the triangles no set starts in or heads for hold:
    `Rules.unused_triangles`. EMPTY, or FILLED (neutral pegs that never
    move but can be hopped over).
    """

    EMPTY = "empty"
    FILLED = "filled"

class Resting(StrEnum):
    """Whether a move may end in another player's triangle:
    `Rules.rest_in_foreign_triangles`. ALLOWED or FORBIDDEN.
    """

    ALLOWED = "allowed"
    FORBIDDEN = "forbidden"

class AntiSpoiling(StrEnum):
    """Protection against a peg parked in someone's target:
    `Rules.anti_spoiling`. NONE, FILL_AVAILABLE (home also when every hole
    not held by another player is filled) or SWAP (a move may land on
    another player's peg in the mover's target; the pegs change places).

    >>> Rules("masters").anti_spoiling
    <AntiSpoiling.SWAP: 'swap'>
    """

    NONE = "none"
    FILL_AVAILABLE = "fill_available"
    SWAP = "swap"

class Finish(StrEnum):
    """How the game ends once someone finishes: `Rules.finish`. FIRST (the
    first player to finish wins), ROUND (the round is played out and
    everyone finishing in it shares the win) or RANKING (play goes on until
    one player is left; the finishing order ranks).
    """

    FIRST = "first"
    ROUND = "round"
    RANKING = "ranking"

class IllegalPositions(StrEnum):
    """Which positions cannot arise: `Rules.illegal_positions`. NONE, or
    STURTEVANT (the solved game's rules: no move into a position where
    the player to move is home or a target is blocked, no pass, and a
    player without a move loses).
    """

    NONE = "none"
    STURTEVANT = "sturtevant"

class SolvedValue(StrEnum):
    """A position's value under perfect play, for the side to move:
    `Probe.value`, `MoveProbe.value`. WIN, LOSS or DRAW.
    """

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"

class Verdict(StrEnum):
    """What a move did to the mover's value: `PlyAnalysis.verdict`. BEST (the
    best move's value and depth), SLOWER (the value kept, but a win made
    longer or a loss shorter) or MISTAKE (a worse value).
    """

    BEST = "best"
    SLOWER = "slower"
    MISTAKE = "mistake"

class SternhalmaError(ValueError):
    """Base class of every Sternhalma error (a ValueError)."""

class NotationError(SternhalmaError):
    """Input that does not follow the grammar: a position string or JSON, move text, rules, board or layout name. `.what` says which (`board`, `rules`, `move`, `JSON`, ...); `.code` is the stable code the HTTP API answers too (`invalid_board`, `malformed_json`, ...)."""

    what: str
    code: str

class UnknownPresetError(NotationError):
    """A rules text naming a preset that does not exist."""

class InvalidPositionError(SternhalmaError):
    """A well-formed position that breaks the rules. `.problems` lists every problem as (code, message); `.code` is `invalid_position`."""

    problems: list[tuple[str, str]]
    code: str

class IllegalMoveError(SternhalmaError):
    """A move that is not legal in the position. `.code` is a stable reason code (hole_occupied, leaves_target, ...)."""

    code: str

class BuiltinBarredError(SternhalmaError):
    """A built-in search (a `Bot`, `solve_solitaire`, `Position.playout`, `rollouts`) called where a graded exercise bars it (`sternhalma.grading.barred`): the exercise is graded on the student's own search."""

class UnknownBotError(SternhalmaError):
    """A bot kind that does not exist (see BOT_KINDS)."""

class TablebaseError(SternhalmaError):
    """A solved table that cannot answer. `.code` says why: `no_tablebase` (no loaded table covers the position, or none is in the folder for a game too large to solve on first use), `tablebase_other_game` (a position of another board or rules), `tablebase_without_depths` (a table of values alone, where depths are needed), `game_over` (no move to choose), `tablebase_file` (a missing, damaged or unfinished file), `tablebase_unsolvable`, `tablebase_download` (a table that could not be fetched from a server, or did not match its listing), `tablebase_not_a_position` (an index past the table, or an entry or peg sets that are no legal position)."""

    code: str

@final
class Board:
    """A board: its holes, their axial coordinates, neighbours and triangles.

    `Board(name)` takes `star1`..`star4` (default `star4`) or `rhombus<M>p<P>`,
    a side of M holes and homes of P pegs (e.g. `rhombus9p10`, `rhombus7p3`;
    the older `rhombus<M>x<K>`, homes of K rows, still reads); `Board.names()`
    lists them.

    >>> board = Board("star4")
    >>> len(board), board.rows, board.pegs_per_set
    (121, 17, 10)
    >>> board.coordinates(0), board.triangle_of(0), board.neighbors(0)
    ((4, -8), <Triangle.NORTH: 'north'>, [2, 1])
    >>> board.triangle("south")
    [111, 112, 113, 114, 115, 116, 117, 118, 119, 120]
    """
    def __new__(cls, name: str = "star4") -> Board: ...
    @staticmethod
    def names() -> list[str]:
        """Every supported board's name."""
    @property
    def name(self) -> str:
        """The board's name."""
    @property
    def shape(self) -> BoardShape:
        """The board's family, a `BoardShape`: `star` or `rhombus`."""
    @property
    def rows(self) -> int:
        """Number of rows."""
    @property
    def pegs_per_set(self) -> int:
        """Pegs in one set (holes in one triangle)."""
    @property
    def triangles(self) -> list[Triangle]:
        """The triangles the board has, as `Triangle` members."""
    def __len__(self) -> int: ...
    def coordinates(self, hole: int) -> tuple[int, int]:
        """Axial coordinates `(q, r)` of a hole."""
    def hole_at(self, q: int, r: int) -> int | None:
        """The hole at axial coordinates `(q, r)`, or None."""
    def neighbors(self, hole: int) -> list[int]:
        """A hole's neighbours, clockwise from east."""
    def triangle(self, name: str) -> list[int]:
        """The holes of a triangle (empty if the board lacks it)."""
    def triangle_of(self, hole: int) -> Triangle | None:
        """The triangle a hole lies in (a `Triangle`), or None."""
    def mirror(self, hole: int) -> int:
        """The hole's image in the left-right mirror."""
    def distance(self, a: int, b: int) -> int:
        """Grid distance: the fewest steps between two holes on an empty board."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...

@final
class Rules:
    """The rules of a game: a preset and any overrides.

    `Rules(preset, **overrides)` takes a preset (`classic`, the default,
    `masters`, `family`, `super`, `research`, `sturtevant`: a `Preset`) or a
    rules text such as `classic,long_jumps=on`, and keyword overrides of the
    options `unused_triangles`, `rest_in_foreign_triangles`, `long_jumps`,
    `anti_spoiling`, `finish`, `max_plies`, `target_lock`,
    `illegal_positions`.

    >>> Rules("masters").anti_spoiling
    <AntiSpoiling.SWAP: 'swap'>
    >>> Rules("masters").finish == "first"
    True
    >>> str(Rules("classic", long_jumps=True))
    'super'
    >>> Rules("research", max_plies=None).max_plies is None
    True
    >>> Rules("sturtevant").illegal_positions, Rules("sturtevant").target_lock
    (<IllegalPositions.STURTEVANT: 'sturtevant'>, False)
    """
    def __new__(cls, preset: str = "classic", **overrides: object) -> Rules: ...
    @staticmethod
    def from_json(value: str | dict[str, Any]) -> Rules:
        """Rules in the JSON form of the HTTP API: a rules text, or a dict
        naming a `preset` and overriding options (`{"preset": "classic",
        "long_jumps": True}`).
        """
    @staticmethod
    def presets() -> list[Preset]:
        """The presets' names, as `Preset` members."""
    @property
    def unused_triangles(self) -> UnusedTriangles:
        """What unused triangles hold, an `UnusedTriangles`: `empty` or `filled`."""
    @property
    def rest_in_foreign_triangles(self) -> Resting:
        """Whether moves may end in other players' triangles, a `Resting`:
        `allowed` or `forbidden`.
        """
    @property
    def long_jumps(self) -> bool:
        """Whether a hop may go over one peg at any distance."""
    @property
    def anti_spoiling(self) -> AntiSpoiling:
        """The anti-spoiling rule, an `AntiSpoiling`: `none`, `fill_available`
        or `swap`.
        """
    @property
    def finish(self) -> Finish:
        """How the game ends, a `Finish`: `first`, `round` or `ranking`."""
    @property
    def max_plies(self) -> int | None:
        """The move limit in plies, or None."""
    @property
    def target_lock(self) -> bool:
        """Whether a peg in its own target must end every move in it (off only
        under `sturtevant`, of the presets).
        """
    @property
    def illegal_positions(self) -> IllegalPositions:
        """Which positions are illegal, an `IllegalPositions`: `none`, or
        `sturtevant` (the solved
        game: no move into a position where the player to move has won or a
        target is blocked, no pass, and a player without a move loses).
        """
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...

@final
class Move:
    """A move: where a peg starts and ends, and how it gets there.

    `Move(from_hole, to_hole)` is a move by its ends, checked when pushed;
    `Move.parse(text)` reads a move text.

    Moves from `Position.legal_moves` know their kind and carry one path; a
    move parsed from text is checked when it is pushed. Two moves are equal
    when they start and end on the same holes. As in python-chess, a move
    never equals a string (equal objects must hash equally): compare
    `str(move) == "115-104"`, or ask `"115-104" in position.legal_moves`.

    >>> m = Move.parse("95-75-57")
    >>> m.from_hole, m.to_hole, m.path
    (95, 57, [95, 75, 57])
    >>> m == Move(95, 57), m == "95-57", str(m)
    (True, False, '95-57')
    >>> m
    Move.parse('95-75-57')
    """
    def __new__(cls, from_hole: int, to_hole: int) -> Move: ...
    @staticmethod
    def parse(text: str) -> Move:
        """Parses a move text: `pass`, `111-102` (by its ends) or `95-75-57`
        (a hop chain, checked hop by hop when pushed).
        """
    @staticmethod
    def from_json(value: str | dict[str, Any]) -> Move:
        """A move in the JSON form of the HTTP API: a move text, its ends
        (`{"from": 115, "to": 104}`) or its path (`{"path": [95, 75, 57]}`).
        """
    @staticmethod
    def _reported(path: str, kind: str) -> Move: ...
    @staticmethod
    def pass_() -> Move:
        """The pass."""
    @property
    def from_hole(self) -> int | None:
        """Start hole (None for a pass)."""
    @property
    def to_hole(self) -> int | None:
        """End hole (None for a pass)."""
    @property
    def kind(self) -> MoveKind | None:
        """A `MoveKind`: `step`, `hop`, `swap` or `pass`; None for a move not
        yet checked against a position.
        """
    @property
    def path(self) -> list[int]:
        """The holes from start to end."""
    @property
    def is_pass(self) -> bool:
        """Whether this is a pass."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...

@final
class LegalMoves(Sequence[Move]):
    """The legal moves of a position (all of them, or one peg's), as a
    read-only sequence: `len`, indexing and slicing, iteration, `in`,
    `index` and `count`; it compares equal to the list of the same moves.

    `in` takes a `Move` or a move text, and answers what
    `Position.is_legal` would for a move of this list: a text that does
    not parse, or names no move of the list, is simply not in it.

    >>> p = Position()
    >>> moves = p.legal_moves
    >>> len(moves), moves[0], "115-104" in moves, Move(115, 104) in moves
    (14, Move.parse('111-102'), True, True)
    >>> "115-93" in moves, "nonsense" in moves
    (False, False)
    >>> "115-104" in p.legal_moves_from(111)
    False
    """
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: SupportsIndex, /) -> Move: ...
    @overload
    def __getitem__(self, index: slice, /) -> list[Move]: ...
    def __iter__(self) -> Iterator[Move]: ...
    def __contains__(self, value: object, /) -> bool: ...
    def index(self, value: object, /) -> int:  # type: ignore[override]
        """Where a move (a `Move` or a move text) is in the list; raises
        `ValueError` if it is not there.
        """
    def count(self, value: object, /) -> int:
        """How many times a move is in the list: 1 or 0."""
    def __eq__(self, other: object, /) -> bool: ...

@final
class Outcome:
    """How a game stands: `status` is an `OutcomeStatus` (`in_progress`,
    `won`, `tie`, `ranking` or `draw`, each equal to its text), with the
    detail it carries: `winner`, `winners`, `ranks` or `reason` (a
    `DrawReason`). The same class answers for a local `Position` and for a
    `RemotePosition` (read from the server's JSON by `Outcome.from_json`);
    two outcomes are equal when they say the same.

    >>> p = Position("star1 classic south:2/north:6 0 0 -")
    >>> p.push("2-0")
    >>> outcome = p.outcome()
    >>> outcome.status, outcome.winner, outcome.results
    (<OutcomeStatus.WON: 'won'>, 0, [1.0, -1.0])
    >>> outcome.status == "won", outcome.is_over, str(outcome)
    (True, True, 'player 0 won')
    """
    @staticmethod
    def from_json(value: dict[str, Any]) -> Outcome:
        """An outcome in the JSON form of the HTTP API (the `outcome` of a
        position's view): `status`, the detail it carries (`winner`,
        `winners`, `ranks` or `reason`) and `results`, one per player. This
        is how `RemotePosition.outcome()` reads the server's answer.

        >>> Outcome.from_json({"status": "won", "winner": 1, "results": [-1.0, 1.0]})
        <Outcome won: player 1 won>
        """
    @property
    def status(self) -> OutcomeStatus:
        """An `OutcomeStatus`: `in_progress`, `won`, `tie`, `ranking` or `draw`."""
    @property
    def winner(self) -> int | None:
        """The winner, when `won`."""
    @property
    def winners(self) -> list[int]:
        """The players sharing the win, when `won` (one) or `tie` (several)."""
    @property
    def ranks(self) -> list[list[int]] | None:
        """The ranks, best first, each a list of players, when `ranking`."""
    @property
    def reason(self) -> DrawReason | None:
        """Why a draw, a `DrawReason`: `move_limit` or `no_moves` (None for
        any other status).
        """
    @property
    def results(self) -> list[float]:
        """Each player's result: +1 best, -1 worst, 0 for a draw or a game in
        progress (a player ranked above `a` and below `b` others scores
        `(a - b) / (players - 1)`).
        """
    @property
    def is_over(self) -> bool:
        """Whether the game is over."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Position:
    """A position with its move stack.

    `Position(text)` reads a position string; without one it is the
    standard two-player start under classic rules. `Position.start(...)`
    starts any board, layout and rules.

    Its methods speak three vocabularies that students bring, besides its own;
    where two families name the same thing, both names work and each
    method's help names its twin:

    - python-chess: `legal_moves`, `push`, `pop`, `peek`, `move_stack`,
      `copy`, `is_legal`, `is_game_over`, `outcome`, `unicode`,
      `_repr_svg_`;
    - open_spiel (action numbers): `legal_actions`, `apply_action`,
      `undo_action`, `clone`, `child`, `is_terminal`, `returns`,
      `current_player`, `num_players`, `num_distinct_actions`,
      `observation_tensor`, `action_to_move`, `move_to_action`;
    - Gymnasium and PettingZoo: `action_mask`, `rgb_array`;
    - its own: `start`, `side_to_move`, `ply`, `play`, `playout`,
      `parse_move`, `resign`, `svg`, `ascii`, `pegs`, `player_pegs`,
      `owner`, `legal_moves_from`, `zobrist_hash`, `perft`, `to_json`,
      `from_json`.

    Synonyms: `push` / `apply_action`, `pop` / `undo_action`, `copy` /
    `clone`, `play` / `child`, `is_game_over` / `is_terminal`,
    `side_to_move` / `current_player`, `outcome().results` / `returns`,
    `legal_moves` / `legal_actions`.

    >>> p = Position()                      # two players, classic rules, standard board
    >>> str(p)
    'star4 classic south:111-120/north:0-9 0 0 -'
    >>> len(p.legal_moves), Move.parse("115-104") in p.legal_moves
    (14, True)
    >>> p.push("115-104")
    >>> p.side_to_move, p.peek()
    (1, Move.parse('115-104'))
    >>> p.pop()
    Move.parse('115-104')
    >>> p.push("111-112")
    Traceback (most recent call last):
      ...
    sternhalma.IllegalMoveError: illegal move: hole 112 is occupied
    """
    def __new__(cls, text: str | None = None) -> Position: ...
    @staticmethod
    def start(
        board: str | Board | None = None,
        layout: str | int | None = None,
        rules: str | Rules | dict[str, Any] | None = None,
        first_player: int | None = 0,
        **overrides: object,
    ) -> Position:
        """The start of a game.

        `rules` is a preset or rules text, or a `Rules`; keyword overrides
        (`long_jumps=True`, `finish="ranking"`, ...) apply on top. `board`
        defaults to the board of the preset the rules print as (`rhombus9p10`
        for `research`, `star4` otherwise), however they were spelled.
        `layout` (default `2`): `1`, `2`, `3`, `4`, `6`, `2x3`, `3x2` (an int
        `2` reads as `"2"`) or in full
        (`south+north/south_west+north_east`).

        >>> Position.start(board="rhombus9p10", rules="research").legal_moves[0]
        Move.parse('71-66')
        """
    @staticmethod
    def from_json(value: str | dict[str, Any]) -> Position:
        """A position from the JSON form the HTTP API uses (a dict or a JSON
        string).
        """
    def to_json(self) -> dict[str, Any]:
        """The position in the JSON form of the HTTP API, as a dict."""
    @property
    def legal_moves(self) -> LegalMoves:
        """Every legal move, ordered by start then end hole; `[pass]` when the
        player to move has no other; empty when the game is over.

        A `LegalMoves` sequence: `"115-104" in position.legal_moves` takes
        move texts as well as `Move`s.
        """
    def legal_moves_from(self, hole: int) -> LegalMoves:
        """The legal moves of the peg on one hole (a `LegalMoves` sequence)."""
    def is_legal(self, mv: Move | str) -> bool:
        """Whether a move (a `Move` or a move text) is legal here."""
    def parse_move(self, mv: Move | str) -> Move:
        """The legal move a `Move` or move text names here, with its kind and
        path; raises `IllegalMoveError` saying why if there is none.
        """
    def push(self, mv: Move | str) -> None:
        """Plays a move (a `Move` or a move text), checked (python-chess's
        name; `apply_action` is open_spiel's, with an action number).
        """
    def pop(self) -> Move:
        """Takes back the last move and returns it (python-chess's name;
        `undo_action` is open_spiel's).
        """
    def peek(self) -> Move:
        """The last move played, without taking it back."""
    @property
    def move_stack(self) -> list[Move]:
        """The moves played since this position was made (or started)."""
    def copy(self) -> Position:
        """A copy, move stack included (python-chess's name; `clone` is
        open_spiel's, and `copy.copy(position)` works too).
        """
    def play(self, mv: Move | str) -> Position:
        """The position after a move, leaving this one unchanged (`child` is
        the same with an action number, open_spiel's name).
        """
    def playout(
        self,
        policy: Literal["uniform", "forward"] = "uniform",
        *,
        seed: int | None = None,
        max_plies: int = 1000,
    ) -> Position:
        """The position a playout from here reaches: moves chosen by `policy`
        until the game is over or `max_plies` plies have been played, all in
        Rust with the GIL released. Leaves this position unchanged; the
        playout's moves are on the new one's move stack.

        `policy`: `"uniform"` (a uniformly random legal move; random play
        wanders and seldom ends a game) or `"forward"` (a random move among
        those that bring the peg nearer its target, any move when none
        does). `seed`: the same seed plays the same moves; `None` draws a
        fresh one.

        >>> end = Position().playout(policy="forward", seed=1, max_plies=2000)
        >>> end.is_game_over(), len(end.move_stack) == end.ply
        (True, True)
        """
    def resign(self, player: int) -> Position:
        """The position after `player` resigns a game of three or more: they
        leave it, their pegs stay as obstacles, their turns are skipped and
        they rank last. Leaves this position unchanged; the new one starts
        with an empty move stack (a resignation is not a move, and cannot be
        popped). With two players a resignation simply loses, so it is
        refused.

        >>> three = Position.start(board="star2", layout=3)
        >>> after = three.resign(0)
        >>> after.side_to_move, after.is_resigned(0)
        (1, True)
        >>> Position().resign(0)
        Traceback (most recent call last):
          ...
        sternhalma.IllegalMoveError: illegal move: player 0 cannot resign: with two players a resignation ends the game: it loses
        """
    def is_resigned(self, player: int) -> bool:
        """Whether `player` has resigned."""
    def outcome(self) -> Outcome:
        """How the game stands."""
    def is_game_over(self) -> bool:
        """Whether the game is over (python-chess's name; `is_terminal` is
        open_spiel's).
        """
    @property
    def side_to_move(self) -> int:
        """The player to move (0-based), also once the game is over
        (`current_player()` is open_spiel's twin, which answers -4 then).
        """
    @property
    def ply(self) -> int:
        """Plies played since the game's start (passes included)."""
    @property
    def board(self) -> Board:
        """The board."""
    @property
    def rules(self) -> Rules:
        """The rules."""
    @property
    def layout(self) -> str:
        """The layout: players in turn order, each player's start triangles."""
    def num_players(self) -> int:
        """Number of players."""
    def program_move_limit(self) -> int:
        """The move limit (in plies, passes included) of this game when
        programs play it: the rules' own `max_plies`, or else 200 turns for
        each player. Stored matches, the open_spiel game and the PettingZoo
        environment default to it, so that random play ends.

        >>> Position().program_move_limit(), Position.start(layout=6).program_move_limit()
        (400, 1200)
        >>> Position.start(rules="research").program_move_limit()
        200
        """
    @property
    def pegs(self) -> list[dict[str, list[int]]]:
        """Each player's sets: a list (players in turn order) of dicts from
        start triangle to the holes of that set's pegs.
        """
    def player_pegs(self, player: int) -> list[int]:
        """The holes holding a player's pegs."""
    def owner(self, hole: int) -> int | None:
        """The owner of the peg on a hole (None: empty or neutral)."""
    @property
    def zobrist_hash(self) -> int:
        """The 64-bit Zobrist hash (pegs, player to move, finished players)."""
    def perft(self, depth: int) -> int:
        """Counts move sequences of `depth` plies (the GIL is released meanwhile)."""
    def svg(
        self,
        *,
        size: int | None = None,
        highlight: Move | str | None = None,
        peg: int | None = None,
        ids: bool = False,
        bottom: str | None = None,
    ) -> str:
        """An SVG picture; by default the last move is highlighted."""
    def _repr_svg_(self) -> str: ...
    def rgb_array(
        self, *, size: int | None = None, bottom: str | None = None
    ) -> npt.NDArray[np.uint8]:
        """The `svg` picture as pixels, for learning code and videos: a numpy
        uint8 array of shape `(height, width, 3)` (RGB), `size` pixels wide
        (480 by default) and as high as `svg(size=size)`. Drawn by the core
        without text or antialiasing, so every peg pixel is exactly its
        set's colour; `bottom` turns the board as `svg` does.

        >>> image = Position().rgb_array(size=120)
        >>> image.shape[1:], image.dtype.name
        ((120, 3), 'uint8')
        >>> image[0, 0].tolist()                # the background
        [255, 255, 255]
        """
    def unicode(
        self, *, colours: bool = False, bottom: str | None = None, legend: bool = True
    ) -> str:
        """A text picture of the board with Unicode pegs (`⓪`-`⑤` a player's
        peg, `·` an empty hole, `◆` a neutral peg), for a terminal;
        `str(position)` stays the position string. `colours=True` paints each
        peg its set's colour (ANSI escape codes); `bottom` turns the board as
        `svg` does; `legend=False` leaves out the last line (who is to move,
        or the outcome).

        >>> print(Position.start(board="star2").unicode(legend=False))
              ①
             ① ①
        · · · · · · ·
         · · · · · ·
          · · · · ·
         · · · · · ·
        · · · · · · ·
             ⓪ ⓪
              ⓪
        <BLANKLINE>
        """
    def ascii(self, *, bottom: str | None = None, legend: bool = True) -> str:
        """The same picture in plain ASCII (`0`-`5` a player's peg, `.` an
        empty hole, `*` a neutral peg).

        >>> p = Position()
        >>> p.push("115-104")
        >>> print(p.ascii())
                    1
                   1 1
                  1 1 1
                 1 1 1 1
        . . . . . . . . . . . . .
         . . . . . . . . . . . .
          . . . . . . . . . . .
           . . . . . . . . . .
            . . . . . . . . .
           . . . . . . . . . .
          . . . . . . . . . . .
         . . . . . . . . . . . .
        . . . . . . 0 . . . . . .
                 0 0 0 0
                  . 0 0
                   0 0
                    0
        player 1 to move, ply 1
        <BLANKLINE>
        """
    def current_player(self) -> int:
        """The player to move, or -4 (open_spiel's TERMINAL) when the game is
        over (open_spiel's name; `side_to_move` is the property).
        """
    def legal_actions(self) -> list[int]:
        """Legal moves as action numbers: `from * holes + to`, and a pass as
        `holes * holes` (see `num_distinct_actions`). open_spiel's name;
        `legal_moves` lists the same moves as `Move`s.
        """
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """The legal actions as a mask: a bool array of
        `num_distinct_actions()` entries, True at each legal action (all
        False once the game is over), as `VectorEnv.action_mask` gives for
        each game. `mask.view(numpy.int8)` is the int8 mask PettingZoo and
        Gymnasium use, without a copy.

        >>> import numpy as np
        >>> p = Position()
        >>> mask = p.action_mask()
        >>> mask.dtype, mask.shape, np.flatnonzero(mask).tolist() == p.legal_actions()
        (dtype('bool'), (14642,), True)
        """
    def apply_action(self, action: int) -> None:
        """Plays an action, checked (the one peg's moves are generated, not
        the whole position's). open_spiel's name; `push` takes a `Move`.
        """
    def undo_action(self) -> None:
        """Takes back the last action (open_spiel's name; `pop` also answers
        the move).
        """
    def num_distinct_actions(self) -> int:
        """The number of action numbers: `holes * holes + 1`."""
    def action_to_move(self, action: int) -> Move:
        """The move an action number stands for (it must be legal here)."""
    def move_to_action(self, mv: Move | str) -> int:
        """The action number of a legal move."""
    def clone(self) -> Position:
        """A copy, move stack included (open_spiel's name; `copy` is
        python-chess's).
        """
    def child(self, action: int) -> Position:
        """The position after an action, leaving this one unchanged
        (open_spiel's name; `play` takes a `Move`).
        """
    def is_terminal(self) -> bool:
        """Whether the game is over (open_spiel's name; `is_game_over` is
        python-chess's).
        """
    def returns(self) -> list[float]:
        """Each player's result (0 until the game is over): open_spiel's name
        for `outcome().results`.
        """
    def observation_tensor(self) -> npt.NDArray[np.float32]:
        """The position as numbers, for learning code: a float32 array of shape
        `(players + 2, holes)`. Plane `i < players` marks the pegs of player
        `(side_to_move + i) % players` (so plane 0 is always the player to
        move); plane `players` the neutral pegs; plane `players + 1` the
        empty holes.
        """
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> Position: ...
    def __deepcopy__(self, memo: object) -> Position: ...
    def __reduce__(self) -> tuple[Any, tuple[str, list[str]]]: ...

def _restore(root: str, moves: list[str]) -> Position: ...
def rollouts(
    positions: list[Position],
    *,
    policy: Literal["uniform", "forward"] = "uniform",
    seed: int | None = None,
    max_plies: int = 1000,
    threads: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """One playout from each position, in Rust on several threads, the GIL
    released: the leaves of a Monte Carlo search evaluated in one call.

    Returns `(results, plies)`: a float64 array of shape `(len(positions),
    players)` holding each playout's `returns()` (0 for everyone when it
    stopped at `max_plies` before the game ended), and an int64 array of the
    plies each played. The playout from `positions[i]` draws from its own
    stream of `seed`, so the answer does not depend on `threads`. Every
    position must have the same number of players.

    >>> results, plies = rollouts([Position()] * 4, policy="forward", seed=1, max_plies=2000)
    >>> results.shape, bool((plies > 0).all())
    ((4, 2), True)
    """

@final
class VectorEnv:
    """Many games of one kind stepped at once from numpy actions, in Rust,
    the GIL released: the shape of pgx and EnvPool.

    Every game starts from `start` (default: `Position()`) and starts again
    as soon as it ends (`terminated`) or has lasted `max_plies` plies
    (`truncated`); the observations `step` returns are then those of the
    new start. Actions are action numbers (`Position.action_to_move`); each
    is checked against its game's legal moves, and if one is refused,
    `IllegalMoveError` names the game and no game moves.

    >>> env = VectorEnv(4, seed=1)
    >>> boards = env.reset()
    >>> boards.shape, boards.dtype.name
    ((4, 121), 'int8')
    >>> boards, rewards, terminated, truncated = env.step(env.random_actions())
    >>> rewards.shape, terminated.shape, int(env.plies[0])
    ((4, 2), (4,), 1)
    """
    def __new__(
        cls,
        num_envs: int,
        start: Position | None = None,
        *,
        max_plies: int = 1000,
        seed: int | None = None,
        threads: int | None = None,
    ) -> VectorEnv: ...
    @property
    def num_envs(self) -> int:
        """The number of games."""
    @property
    def num_players(self) -> int:
        """Players in each game."""
    @property
    def num_distinct_actions(self) -> int:
        """How many action numbers the board has (`holes * holes + 1`)."""
    @property
    def plies(self) -> npt.NDArray[np.int64]:
        """Plies played in each game since it (re)started, as an int64 array."""
    @property
    def current_player(self) -> npt.NDArray[np.int64]:
        """The player to move in each game, as an int64 array."""
    def position(self, index: int) -> Position:
        """Game `index` as a `Position` (a copy)."""
    def reset(self) -> npt.NDArray[np.int8]:
        """Starts every game again; returns the observations."""
    def observations(self) -> npt.NDArray[np.int8]:
        """Each game's board from its mover's view, an int8 array of shape
        `(num_envs, holes)`: 0 an empty hole, `k + 1` a peg of the player
        `k` seats after the mover (1: the mover's own), -1 a neutral peg.
        """
    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.int8],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
    ]:
        """Plays one action in each game (an array of `num_envs` integers).
        Returns `(observations, rewards, terminated, truncated)`: rewards is
        float32 of shape `(num_envs, players)`, each player's result in a
        game that ended in this step, else 0.
        """
    def random_actions(self, seed: int | None = None) -> npt.NDArray[np.int64]:
        """A uniformly random legal action for each game, as an int64 array,
        drawn from `seed` if given, else from the environment's own stream.
        """
    def legal_actions(self) -> npt.NDArray[np.int32]:
        """Each game's legal actions, an int32 array of shape `(num_envs,
        width)`, `width` the most any game has now, padded with -1.
        """
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """Each game's legal actions as a mask, a bool array of shape
        `(num_envs, num_distinct_actions)`.
        """

def _problem_error(
    status: int, code: str, detail: str, problems: list[tuple[str, str]] = ...
) -> SternhalmaError | None: ...

BOT_KINDS: tuple[BotKind, ...]

@final
class Bot:
    """A bot: give it a position, it answers a move (open_spiel's ``Bot``
    shape). Kinds: ``BOT_KINDS``. The budget is ``nodes`` (positions for
    alpha-beta and paranoid, playouts for MCTS), ``millis`` and ``depth``;
    none of them means the kind's default. Under the same seed and a node or
    depth budget a bot plays the same moves. The GIL is released while it
    searches.

    ``"perfect"`` plays the sturtevant game on a small rhombus from a
    solved table with depths (the fastest win, a draw when drawn, the
    longest loss): load one first with ``Tablebase.load("rhombus7p2")``.
    On a position no loaded table covers it raises ``TablebaseError``
    instead of guessing.

    >>> bot = Bot("alphabeta", nodes=5000, seed=1)
    >>> bot
    Bot('alphabeta', nodes=5000, seed=1)
    >>> position = Position()
    >>> move = bot.step(position)
    >>> move in position.legal_moves
    True
    >>> result = Bot("greedy").search(position)
    >>> result.move.kind, result.depth
    (<MoveKind.HOP: 'hop'>, 1)
    >>> Bot("minimax")
    Traceback (most recent call last):
      ...
    sternhalma.UnknownBotError: unknown bot "minimax": expected random, greedy, alphabeta, paranoid, mcts or perfect
    """
    def __new__(
        cls,
        kind: str,
        *,
        nodes: int | None = None,
        millis: int | None = None,
        depth: int | None = None,
        seed: int = 0,
    ) -> Bot: ...
    @property
    def kind(self) -> BotKind:
        """The bot's kind, a ``BotKind``: ``random``, ``greedy``,
        ``alphabeta``, ``paranoid``, ``mcts`` or ``perfect``.
        """
    @property
    def seed(self) -> int:
        """The seed."""
    @property
    def nodes(self) -> int | None:
        """The node (or playout) budget given, if any."""
    @property
    def millis(self) -> int | None:
        """The time budget given, in milliseconds, if any."""
    @property
    def depth(self) -> int | None:
        """The depth budget given, if any."""
    def search(self, position: Position) -> SearchResult:
        """Searches the position for the side to move; raises
        ``IllegalMoveError`` (code ``game_over``) if the game is over, and
        for ``"perfect"`` ``TablebaseError`` if no loaded table with depths
        covers the position.
        """
    def step(self, position: Position) -> Move:
        """The move the bot plays (``search(position).move``)."""

@final
class SearchResult:
    """What a bot's search found: the move, its score from the mover's view on
    [-1, 1] (+1 a proven win), the principal variation, the nodes searched
    (playouts for MCTS), the time and the depth reached.

    >>> result = Bot("alphabeta", nodes=2000).search(Position())
    >>> result.principal_variation[0] == result.move
    True
    >>> -1.0 <= result.score <= 1.0, result.nodes <= 2001
    (True, True)
    """
    @property
    def move(self) -> Move:
        """The move to play."""
    @property
    def score(self) -> float:
        """The position's value after the move, from the mover's view, on
        [-1, 1].
        """
    @property
    def principal_variation(self) -> list[Move]:
        """The expected line, starting with the move."""
    @property
    def nodes(self) -> int:
        """Positions searched (playouts for MCTS)."""
    @property
    def millis(self) -> float:
        """Time spent, in milliseconds."""
    @property
    def depth(self) -> int:
        """Depth reached."""

def distance_to_target(position: Position, player: int) -> int:
    """How far ``player``'s pegs still are from home, in single steps: the sum
    of their hex distances to the apex of their target triangle, less the
    same sum for a full target. 0 exactly when every set is home.

    >>> distance_to_target(Position(), 0)
    120
    """

def pegs_home(position: Position, player: int) -> int:
    """How many of ``player``'s pegs stand in their target triangle.

    >>> pegs_home(Position(), 0)
    0
    """

def progress(position: Position, player: int) -> float:
    """How far along ``player`` is, from 0.0 (at the start) to 1.0 (home).

    >>> p = Position()
    >>> progress(p, 0)
    0.0
    >>> p.push("115-104")
    >>> round(progress(p, 0), 4)
    0.0167
    """

class SolveLimitError(SternhalmaError):
    """The solver stopped at its node limit before proving a solution. `.lower_bound` is the fewest moves any crossing can take, as proven so far; `.nodes` the positions visited."""

    lower_bound: int
    nodes: int

class UnsolvableError(SternhalmaError):
    """No sequence of moves crosses the board (possible with hops only)."""

@final
class SolveProgress:
    """A snapshot of a running solve, given to the `progress` callback."""
    @property
    def nodes(self) -> int:
        """Positions visited so far."""
    @property
    def bound(self) -> int:
        """The current bound: no crossing is shorter."""
    @property
    def seconds(self) -> float:
        """Seconds since the solve started."""
    @property
    def nodes_per_second(self) -> float:
        """Average speed so far."""

@final
class Solution:
    """A shortest solitaire crossing, proven shortest.

    >>> solution = solve_solitaire("rhombus5p3")
    >>> solution.length, solution.optimal, len(solution.moves)
    (11, True, 11)
    >>> position = Position.start(board="rhombus5p3", layout="1")
    >>> for move in solution.moves:
    ...     position.push(move)
    >>> position.outcome().status
    <OutcomeStatus.WON: 'won'>
    """
    @property
    def moves(self) -> list[Move]:
        """The moves, legal in turn from the start (layout `1`, classic rules)."""
    @property
    def length(self) -> int:
        """Number of moves."""
    @property
    def nodes(self) -> int:
        """Positions the search visited."""
    @property
    def seconds(self) -> float:
        """Seconds the solve took."""
    @property
    def optimal(self) -> bool:
        """Whether no shorter crossing exists (the search completed every
        smaller bound): always true for a returned solution.
        """

def solve_solitaire(
    board: str | Board,
    *,
    hops_only: bool = False,
    max_nodes: int | None = None,
    progress: Callable[[SolveProgress], object] | None = None,
    progress_interval: float = 1.0,
    method: Literal["meet", "ida"] = "meet",
) -> Solution:
    """Finds a shortest solitaire crossing of `board` (one set alone, from the
    south triangle to the north one, every other hole empty; on the star the
    side triangles are empty and usable) and proves it shortest.

    The search runs without the GIL; `progress`, if given, is called with a
    `SolveProgress` about every `progress_interval` seconds, and Ctrl-C
    (KeyboardInterrupt) stops it there. Raises `SolveLimitError` (with
    `.lower_bound`) when `max_nodes` positions did not suffice, and
    `UnsolvableError` when no crossing exists.

    `method` is `"meet"` (the default: breadth first from both ends,
    meeting in the middle; fastest, and holds its levels in memory, 16 bytes
    a position) or `"ida"` (IDA*: memory bounded, slower on long crossings).

    >>> solve_solitaire("rhombus7p3").length
    17
    >>> solve_solitaire(Board("rhombus7p3"), hops_only=True)
    Traceback (most recent call last):
        ...
    sternhalma.UnsolvableError: the goal cannot be reached
    """

def _positions_made() -> int: ...
def _bar_builtins(on: bool) -> int: ...
def _graded_trace(on: bool) -> tuple[list[tuple[int, int]], bool]: ...
def _graded_run_lock(connect: list[str] = ..., hidden: list[str] = ...) -> None: ...
def _graded_run_serve(adapters: dict[str, Any], read_fd: int, write_fd: int) -> None: ...

# ---- Solved tables (the sturtevant game on small rhombi) ----------------------

@final
class Probe:
    """What a table says of a position for the side to move: ``value`` is
    ``"win"``, ``"loss"`` or ``"draw"``, ``depth`` the plies to the end
    under best play (the winner hurrying, the loser holding out), ``None``
    for a draw or a table without depths. ``str()`` reads as a tablebase
    does: ``win in 11``, ``loss in 0``, ``draw``.

    >>> table = Tablebase.load("rhombus7p2", progress=False)
    >>> probe = table.probe(Position.start(board="rhombus7p2", rules="sturtevant"))
    >>> probe
    <Probe win in 33>
    >>> probe.value, probe.depth, str(probe)
    (<SolvedValue.WIN: 'win'>, 33, 'win in 33')
    """

    @property
    def value(self) -> SolvedValue:
        """A ``SolvedValue``: ``win``, ``loss`` or ``draw``, for the side to move."""
    @property
    def depth(self) -> int | None:
        """Plies to the end under best play; ``None`` for a draw or without
        depths.
        """
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class MoveProbe:
    """A legal move and where it leads, for the player making it: ``value``
    is the mover's value after the move (a win if it leaves the opponent
    lost), ``depth`` the plies to the end counting the move. The best
    move's value and depth are the position's.

    >>> table = Tablebase.load("rhombus7p2", progress=False)
    >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
    >>> best = table.best_move(start)
    >>> best
    <MoveProbe 48-45 win in 33>
    >>> best.move, best.value, best.depth, best.probe == table.probe(start)
    (Move.parse('48-45'), <SolvedValue.WIN: 'win'>, 33, True)
    """

    @property
    def move(self) -> Move:
        """The move (legal in the position probed)."""
    @property
    def value(self) -> SolvedValue:
        """The mover's value after the move, a ``SolvedValue``: ``win``,
        ``loss`` or ``draw``.
        """
    @property
    def depth(self) -> int | None:
        """Plies to the end from the position before the move, the move
        counted; ``None`` for a draw or without depths.
        """
    @property
    def probe(self) -> Probe:
        """The value and depth as a ``Probe`` (of the position before the move,
        had this move been the best).
        """

@final
class Tablebase:
    """One solved game's table (RULES §7: the ``sturtevant`` rules, two players
    on a small rhombus): the value of any position of that game and of every
    move from it, as a chess tablebase answers ("win in 7", "draw", "loss in
    12").

    ``Tablebase.load(board)`` reads the table from a folder, or for a small
    game (up to 16 M positions a side: ``rhombus7p1``, ``rhombus7p2``,
    ``rhombus4p6``, ``rhombus5p3``, ...) solves it there on first use, in
    seconds; ``Tablebase.open(path)`` reads a file ``sternhalma solve-game``
    wrote. Either installs the table for the process, so that
    ``Bot("perfect")`` plays from it and ``analyse`` finds it. A position of
    another game is a ``TablebaseError``, never a wrong answer.

    >>> table = Tablebase.load("rhombus7p2", progress=False)
    >>> table
    <Tablebase rhombus7p2: 2 pegs a side, with depths, 1.2 MiB, from '...rhombus7p2.depths'>
    >>> position = Position.start(board="rhombus7p2", rules="sturtevant")
    >>> table.probe(position)
    <Probe win in 33>
    >>> [str(m) for m in table.moves(position)]
    ['48-45: win in 33', '47-44: win in 37', '47-46: win in 37', '48-46: win in 37', '47-45: loss in 34']
    >>> Bot("perfect", seed=1).step(position)
    Move.parse('48-45')
    >>> table.probe(Position())
    Traceback (most recent call last):
      ...
    sternhalma.TablebaseError: the table is of rhombus7p2 (2 pegs a side), the position is on star4
    """

    @staticmethod
    def cache_folder() -> Path:
        """The folder `load` reads and solves tables in when given none:
        `$STERNHALMA_TABLES`, else `sternhalma/tables` under the user's
        cache folder as the platform names it (on Linux `$XDG_CACHE_HOME`,
        else `~/.cache`), else under the temporary folder.
        """
    @staticmethod
    def load(
        board: str | Board,
        pegs: int | None = None,
        *,
        folder: str | PathLike[str] | None = None,
        progress: bool = True,
        build: bool = False,
    ) -> Tablebase:
        """The table of a game: read from ``folder`` (default:
        ``cache_folder()``: ``$STERNHALMA_TABLES``, else, on Linux,
        ``~/.cache/sternhalma/tables``; its ``.depths`` file, else its
        ``.packed`` file, else its ``.values`` file) or, for a small game, solved there
        on first use (a few seconds for ``rhombus7p2``, on every core, the
        GIL released) and written for next time. Installs it for
        ``Bot("perfect")`` and ``analyse``.

        ``board`` is the board (``"rhombus7p2"``, a ``Board``) or a square
        rhombus with ``pegs`` (``"rhombus7x7"``, ``pegs=2``). ``progress``
        shows a solve as it goes: a tqdm bar if tqdm is installed, else a
        line on standard error. A game too large to solve on first use
        (``rhombus7p3``: 280 M positions a side) is solved beforehand with
        ``sternhalma solve-game``, or here with ``build=True``: solved into
        the folder the same way, values only (no depths), in under a minute
        on two cores and 42 MiB for ``rhombus7p3``, once. Without
        its file and without ``build=True``, ``TablebaseError`` (code
        ``no_tablebase``) says how. A file an older engine wrote is removed
        and counts as missing.

        >>> table = Tablebase.load("rhombus7x7", pegs=2, progress=False)
        >>> table.board, table.pegs, table.rules, table.has_depths, table.nbytes
        (Board('rhombus7p2'), 2, 'sturtevant', True, 1271256)
        >>> Tablebase.load("star4")
        Traceback (most recent call last):
          ...
        sternhalma.NotationError: invalid board "star4": the solved game is played on a rhombus, e.g. rhombus7p3 (7x7 with 3 pegs a side)
        """
    @staticmethod
    def open(path: str | PathLike[str]) -> Tablebase:
        """The table in a file that ``sternhalma solve-game`` (or ``load``)
        wrote: a ``.depths`` file, or a ``.values`` file, or the ``.packed``
        file ``sternhalma tablebase pack`` makes of one (the same values in
        a sixth of the memory on 7×7 with 3 pegs, read entry by entry); that file, and
        not another beside it (``load`` finds a folder's). Installs it for
        ``Bot("perfect")`` and ``analyse``. A missing, damaged or unfinished
        file is a ``TablebaseError`` (code ``tablebase_file``).

        >>> path = Tablebase.load("rhombus7p2", progress=False).path
        >>> path.name
        'rhombus7p2.depths'
        >>> table = Tablebase.open(path)
        >>> table.board, table.built
        (Board('rhombus7p2'), False)
        >>> Tablebase.open(path.with_name("nowhere.values"))
        Traceback (most recent call last):
          ...
        sternhalma.TablebaseError: .../nowhere.values: No such file or directory (os error 2)
        """
    @overload
    @staticmethod
    def download(
        server: str,
        board: None = None,
        pegs: None = None,
        *,
        folder: str | PathLike[str] | None = None,
        progress: bool = True,
    ) -> list[Tablebase]:
        """Downloads the solved tables a Sternhalma server offers (``GET
        <server>/downloads/tables/``: a class server started with
        ``--tablebases``) into ``folder`` (default: ``cache_folder()``),
        checks each against the size and SHA-256 digest the listing gives,
        and installs it, as ``open`` does. With ``board`` (and ``pegs``, as
        ``load`` takes them), that board's table alone, answered; without,
        every table offered, answered as a list. A file already in the
        folder with the listed digest is not fetched again, and ``load``
        reads what was downloaded. ``progress`` shows each download: a tqdm
        bar if tqdm is installed, else a line on standard error.

        A server that cannot be reached, offers no table of the board, or
        sends a file whose size or digest differs from its listing's is a
        ``TablebaseError`` (code ``tablebase_download``); nothing is
        installed then, and no partial file is left.
        """
    @overload
    @staticmethod
    def download(
        server: str,
        board: str | Board,
        pegs: int | None = None,
        *,
        folder: str | PathLike[str] | None = None,
        progress: bool = True,
    ) -> Tablebase:
        """Downloads the solved tables a Sternhalma server offers (``GET
        <server>/downloads/tables/``: a class server started with
        ``--tablebases``) into ``folder`` (default: ``cache_folder()``),
        checks each against the size and SHA-256 digest the listing gives,
        and installs it, as ``open`` does. With ``board`` (and ``pegs``, as
        ``load`` takes them), that board's table alone, answered; without,
        every table offered, answered as a list. A file already in the
        folder with the listed digest is not fetched again, and ``load``
        reads what was downloaded. ``progress`` shows each download: a tqdm
        bar if tqdm is installed, else a line on standard error.

        A server that cannot be reached, offers no table of the board, or
        sends a file whose size or digest differs from its listing's is a
        ``TablebaseError`` (code ``tablebase_download``); nothing is
        installed then, and no partial file is left.
        """
    @staticmethod
    def installed() -> list[Tablebase]:
        """The tables installed in this process, by board name.

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> "rhombus7p2" in [str(t.board) for t in Tablebase.installed()]
        True
        """
    @staticmethod
    def for_position(position: Position) -> Tablebase:
        """The installed table that covers ``position``; ``TablebaseError``
        (code ``no_tablebase``, saying which table to load) if none does.

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> Tablebase.for_position(Position.start(board="rhombus7p2", rules="sturtevant")).board
        Board('rhombus7p2')
        >>> Tablebase.for_position(Position())
        Traceback (most recent call last):
          ...
        sternhalma.TablebaseError: no solved table covers star4; tables opened: ...; the tables are of the sturtevant game on small rhombi: ...
        """
    def probe(self, position: Position) -> Probe:
        """The value of ``position`` for the side to move, and its depth where
        the table keeps depths. A finished game is a loss in 0 for the side
        to move.

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> position = Position.start(board="rhombus7p2", rules="sturtevant")
        >>> table.probe(position)
        <Probe win in 33>
        >>> position.push("48-45")
        >>> table.probe(position)
        <Probe loss in 32>
        """
    def moves(self, position: Position) -> list[MoveProbe]:
        """Every legal move of ``position`` with the mover's value and depth
        after it, best first: the fastest wins, the draws, then the longest
        losses (among equals, in ``legal_moves`` order). Empty once the game
        is over.

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> moves = table.moves(Position.start(board="rhombus7p2", rules="sturtevant"))
        >>> moves[0], moves[-1]
        (<MoveProbe 48-45 win in 33>, <MoveProbe 47-45 loss in 34>)
        """
    def best_move(self, position: Position, seed: int = 0) -> MoveProbe:
        """The best move: the fastest win, else a drawing move, else the
        longest loss; among equals, one drawn by ``seed``. A finished game
        is a ``TablebaseError`` (code ``game_over``).

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
        >>> str(table.best_move(start, seed=1))
        '48-45: win in 33'
        """
    def mainline(self, position: Position) -> list[MoveProbe]:
        """The best line from ``position`` to the end of the game: each ply
        the best move (the first of ``moves``: the fastest win, the longest
        loss), with its mover's value and depth, one ply nearer the end each
        time, so that a win or a loss in N has N moves and ends in a
        finished game. A draw has no line to an end (an empty list, as
        lichess's ``/mainline`` answers), nor has a game over. The line is
        of the game without a move limit (a ``max_plies`` is set aside).
        A table without depths cannot find one: ``TablebaseError`` (code
        ``tablebase_without_depths``).

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> line = table.mainline(Position.start(board="rhombus7p2", rules="sturtevant"))
        >>> len(line), line[:3]
        (33, [<MoveProbe 48-45 win in 33>, <MoveProbe 0-3 loss in 32>, <MoveProbe 45-41 win in 31>])
        >>> line[-1]
        <MoveProbe 3-0 win in 1>
        """
    def probe_many(self, positions: Iterable[Position | str]) -> list[Probe]:
        """The probes of many positions at once: ``positions`` is an iterable
        of ``Position``s and position strings, answered in order as
        ``probe`` answers each. The strings are parsed and probed with the
        GIL released, a long list on every core. The first position that cannot be
        probed raises what ``Position(text)`` or ``probe`` would (a
        ``NotationError``, an ``InvalidPositionError``, a ``TablebaseError``),
        with a note naming its place in the list.

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
        >>> table.probe_many([start, "rhombus7p2 sturtevant south:45,47/north:0,1 1 1 -"])
        [<Probe win in 33>, <Probe loss in 32>]
        >>> table.probe_many([start, "rhombus7p2 sturtevant south:47,47/north:0,1 0 0 -"])
        Traceback (most recent call last):
          ...
        sternhalma.InvalidPositionError: invalid position: ...
        """
    def probe_indices(
        self, indices: npt.NDArray[np.uint64] | npt.NDArray[np.int64] | Sequence[int]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int16]]:
        """The values and depths of many table entries at once, without a
        Python object per position: ``indices`` is a NumPy array of
        ``uint64`` (or of ``int64`` with no negative number, or a list of
        ints) of indices as ``index`` gives them, from 0 to
        ``entries - 1``. Answers two arrays of the same length: ``values``
        (``int8``: 0 draw, 1 win, 2 loss for the side to move, 3 an entry
        that holds no position: illegal under RULES §7, or a mirror
        image's twin) and ``depths`` (``int16``: plies to the end, -1 for a
        draw, an empty entry or a table without depths). Runs with the GIL
        released; an index past the table raises ``TablebaseError`` (code
        ``tablebase_not_a_position``), naming the first.

        >>> import numpy as np
        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> start = table.index(Position.start(board="rhombus7p2", rules="sturtevant"))
        >>> values, depths = table.probe_indices(np.array([start, 0], dtype=np.uint64))
        >>> values.tolist(), depths.tolist()
        ([1, 3], [33, -1])
        >>> values, depths = table.probe_indices(np.arange(table.entries, dtype=np.uint64))
        >>> int((values == 1).sum()), int((values == 3).sum()), int(depths.max())
        (710665, 5405, 37)
        """
    def index(self, position: Position) -> int:
        """The table index of ``position`` (what ``probe_indices`` takes): a
        position and its rotation with the other side to move share one,
        and where the table folds the mirror (1, 3, 4 and 6 pegs) so do a
        position and its mirror image.

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
        >>> index = table.index(start)
        >>> table.position(index) == start
        True
        """
    def position(self, index: int) -> Position:
        """The position that entry ``index`` stands for, with south to move (of
        a table that folds the mirror, the one of the two images the entry
        names). An index past the table, or of an entry that holds no
        position (illegal under RULES §7, or a twin), is a
        ``TablebaseError`` (code ``tablebase_not_a_position``).

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> table.position(1083)
        Position('rhombus7p2 sturtevant south:0,2/north:3,4 0 0 -')
        >>> table.position(0)
        Traceback (most recent call last):
          ...
        sternhalma.TablebaseError: entry 0 of the table of rhombus7p2 holds no position: illegal under RULES §7
        """
    @property
    def entries(self) -> int:
        """Entries of the table: the indices ``probe_indices`` takes are 0 to
        ``entries - 1``. Each stands for a position with south to move and
        its rotation with north to move, and where the table folds the
        mirror, for their mirror images too.

        >>> Tablebase.load("rhombus7p2", progress=False).entries
        1271256
        """
    @property
    def board(self) -> Board:
        """The board of the solved game."""
    @property
    def pegs(self) -> int:
        """Pegs a side."""
    @property
    def rules(self) -> str:
        """The rules of the solved game: ``"sturtevant"`` (whatever a
        position's ``max_plies``: the table is of the game without a limit).
        """
    @property
    def has_depths(self) -> bool:
        """Whether the table knows each position's depth (plies to the end):
        what ``Bot("perfect")`` needs to hurry a win.
        """
    @property
    def nbytes(self) -> int:
        """Bytes of memory the table holds."""
    @property
    def counts(self) -> dict[str, int]:
        """The game's positions counted as Table 1 of Sturtevant (2019) and
        RULES §7 count them, either player to move: ``positions``,
        ``first_player_wins`` (won by the first player, south, whoever is to
        move), ``draws`` and ``illegal``.

        >>> Tablebase.load("rhombus7p2", progress=False).counts
        {'positions': 2542512, 'first_player_wins': 1265851, 'draws': 0, 'illegal': 10810}
        """
    @property
    def counts_south_to_move(self) -> dict[str, int]:
        """The positions with south to move, by their value for south: half of
        :attr:`counts`' positions (the other half, north to move, are their
        rotations, with the same values for north).

        >>> Tablebase.load("rhombus7p2", progress=False).counts_south_to_move
        {'wins': 710665, 'losses': 555186, 'draws': 0, 'illegal': 5405}
        """
    @property
    def path(self) -> Path | None:
        """The file the table was read from or written to (a ``pathlib.Path``)."""
    @property
    def built(self) -> bool:
        """Whether ``load`` solved this table in this process (and wrote its
        file), rather than reading it.
        """

@final
class Analysis:
    """A game checked move by move against perfect play: ``plies`` (one
    ``PlyAnalysis`` per move), ``seats`` (a ``SeatAnalysis`` for each
    player) and ``end``, the final position's value for its side to move.

    >>> table = Tablebase.load("rhombus7p2", progress=False)
    >>> game = Position.start(board="rhombus7p2", rules="sturtevant")
    >>> game.push("47-44")          # a win in 37 where 33 was possible
    >>> game.push("0-3")
    >>> report = analyse(game)
    >>> report
    <Analysis 2 plies, mistakes 0/0, end win in 35>
    >>> [str(ply.verdict) for ply in report.plies], report.end
    (['slower', 'best'], <Probe win in 35>)
    >>> report.seats[0]
    <SeatAnalysis moves=1 best=0 kept=1 mistakes=0 accuracy=1.000>
    """

    @property
    def plies(self) -> list[PlyAnalysis]:
        """Each ply, in order."""
    @property
    def seats(self) -> tuple[SeatAnalysis, SeatAnalysis]:
        """Seat 0's and seat 1's moves, summed up."""
    @property
    def end(self) -> Probe:
        """The final position's value for its side to move."""
    def mistakes(self) -> list[PlyAnalysis]:
        """The plies whose move threw the value away.

        >>> table = Tablebase.load("rhombus7p2", progress=False)
        >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
        >>> analyse(start, ["47-45"]).mistakes()
        [<PlyAnalysis 0 seat 0 47-45: win in 33 -> loss in 34, mistake (best 48-45: win in 33)>]
        """
    def __len__(self) -> int: ...

@final
class PlyAnalysis:
    """One ply of an analysed game: the ``seat`` that played ``move``, its
    value ``before`` and ``after`` the move, the ``best`` move there, and
    the ``verdict``: ``"best"`` (the best move's value and depth),
    ``"slower"`` (the value kept, but a win made longer or a loss shorter)
    or ``"mistake"`` (a win thrown to a draw or a loss, a draw to a loss).

    >>> table = Tablebase.load("rhombus7p2", progress=False)
    >>> ply = analyse(Position.start(board="rhombus7p2", rules="sturtevant"), ["47-44"]).plies[0]
    >>> ply
    <PlyAnalysis 0 seat 0 47-44: win in 33 -> win in 37, slower (best 48-45: win in 33)>
    >>> ply.ply, ply.seat, ply.move, ply.before, ply.after, ply.verdict
    (0, 0, Move.parse('47-44'), <Probe win in 33>, <Probe win in 37>, <Verdict.SLOWER: 'slower'>)
    >>> ply.best
    <MoveProbe 48-45 win in 33>
    """

    @property
    def ply(self) -> int:
        """The ply, from 0."""
    @property
    def seat(self) -> int:
        """The seat that moved."""
    @property
    def move(self) -> Move:
        """The move played."""
    @property
    def before(self) -> Probe:
        """The position's value for the mover before the move."""
    @property
    def after(self) -> Probe:
        """The mover's value after the move."""
    @property
    def best(self) -> MoveProbe:
        """The best move there, with its value and depth (``before``'s)."""
    @property
    def verdict(self) -> Verdict:
        """A ``Verdict``: ``best``, ``slower`` or ``mistake``."""

@final
class SeatAnalysis:
    """One seat's moves in an analysed game, summed up: ``moves`` made,
    ``best`` moves, ``kept`` (best or slower: the value kept), ``mistakes``,
    and ``accuracy``, the share kept (``None`` if it made no move).

    >>> table = Tablebase.load("rhombus7p2", progress=False)
    >>> report = analyse(Position.start(board="rhombus7p2", rules="sturtevant"), ["47-45", "0-3"])
    >>> report.seats[0]
    <SeatAnalysis moves=1 best=0 kept=0 mistakes=1 accuracy=0.000>
    >>> seat = report.seats[1]
    >>> seat.moves, seat.best, seat.kept, seat.mistakes, seat.accuracy
    (1, 1, 1, 0, 1.0)
    """

    @property
    def moves(self) -> int:
        """Moves it made."""
    @property
    def kept(self) -> int:
        """Moves that kept the value (best or slower)."""
    @property
    def best(self) -> int:
        """Moves among the best."""
    @property
    def mistakes(self) -> int:
        """Moves that threw the value away."""
    @property
    def accuracy(self) -> float | None:
        """The share of its moves that kept the value; ``None`` if it made none."""

def analyse(
    start: Position,
    moves: Iterable[Move | str] | None = None,
    tablebase: Tablebase | None = None,
) -> Analysis:
    """Checks a game against perfect play, move by move (see ``Analysis``).

    Without ``moves``, the game is ``start``'s own: from the position its
    move stack started at, through every move pushed since. With ``moves``
    (``Move``s or move texts), the game starts at ``start`` as it stands.
    ``tablebase`` defaults to the installed table that covers the game
    (``Tablebase.for_position``).

    >>> table = Tablebase.load("rhombus7p2", progress=False)
    >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
    >>> report = analyse(start, ["48-45", "0-2"], table)
    >>> [(ply.seat, str(ply.verdict)) for ply in report.plies]
    [(0, 'best'), (1, 'slower')]
    >>> analyse(start, ["48-45", "48-46"])
    Traceback (most recent call last):
      ...
    sternhalma.IllegalMoveError: illegal move: there is no peg on hole 48
    move 1 of the line, in rhombus7p2 sturtevant south:45,47/north:0,1 1 1 -
    """
