"""Sternhalma as an open_spiel game, so open_spiel's own algorithms run on it.

Importing this module registers the game ``"sternhalma"`` with
``pyspiel.register_game`` (install with ``pip install "sternhalma[open_spiel]"``).
Every rule is the core's: a state holds a :class:`sternhalma.Position` and
answers open_spiel's calls with its ``legal_actions``, ``apply_action``,
``returns`` and ``observation_tensor``.

>>> import pyspiel
>>> import sternhalma.open_spiel
>>> game = pyspiel.load_game("sternhalma", {"board": "star2", "rules": "masters", "max_plies": 60})
>>> game.num_players(), game.num_distinct_actions(), game.max_game_length()
(2, 1370, 60)
>>> state = game.new_initial_state()
>>> str(state)
'star2 masters,max_plies=60 south:34-36/north:0-2 0 0 -'
>>> state.current_player(), state.legal_actions()[:3]
(0, [1287, 1288, 1325])
>>> state.action_to_string(0, 1287)
'34-29'
>>> state.apply_action(1287)
>>> state.history(), state.current_player(), str(state)
([1287], 1, 'star2 masters,max_plies=60 south:29,35,36/north:0-2 1 1 -')
>>> str(game.deserialize_state(state.serialize()))
'star2 masters,max_plies=60 south:29,35,36/north:0-2 1 1 -'

open_spiel's bots and searches take it unchanged, and one of Sternhalma's own
bots plays in open_spiel's ``evaluate_bots`` as a :class:`SternhalmaBot`:

>>> import numpy as np
>>> from open_spiel.python.algorithms import evaluate_bots, mcts
>>> rng = np.random.RandomState(1)
>>> mcts_bot = mcts.MCTSBot(game, 2.0, 50, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
>>> alphabeta = sternhalma.open_spiel.SternhalmaBot(sternhalma.Bot("alphabeta", depth=2))
>>> evaluate_bots.evaluate_bots(game.new_initial_state(), [mcts_bot, alphabeta], rng)
[-1.0, 1.0]

The parameters are those of :meth:`sternhalma.Position.start`, with open_spiel's
typed defaults standing for "not given":

- ``board`` (default ``""``: the board of the rules' preset, as ``Position.start``);
- ``players`` (default ``2``): 1 (the solitaire crossing), 2, 3, 4 or 6, in the
  standard layout for that many;
- ``layout`` (default ``""``: the standard one for ``players``): another layout,
  ``"2x3"``, ``"3x2"`` or in full (``"south+north/south_west+north_east"``);
  ``players`` must then say how many players it has;
- ``rules`` (default ``"classic"``): a preset;
- ``unused_triangles``, ``rest_in_foreign_triangles``, ``long_jumps``,
  ``anti_spoiling``, ``finish``, ``target_lock``, ``illegal_positions`` (default
  ``""``: the preset's): the rules' options, spelt as in a rules text
  (``long_jumps="on"``, ``finish="ranking"``, ``illegal_positions="sturtevant"``).
  They are parameters of their own, not a rules text with overrides, because an
  open_spiel game string splits on commas;
- ``first_player`` (default ``0``);
- ``max_plies``, the move limit in plies (passes included): default ``-1``, the
  limit of a game programs play, as stored matches have it
  (``Position.program_move_limit()``: the rules' own limit, or else 200 turns
  for each player, so 400 plies for two); a whole number sets the limit
  (``0`` ends the game before the first move); ``-2`` keeps only the rules'
  own limit, which is none for every preset but ``research``.

The limit is one of the rules (``classic,max_plies=400`` in the position
string), so a game that reaches it ends as the rules end it: a draw by the
move limit (0 for everyone), unless some players had already finished or
resigned, who then rank ahead of or behind the rest; ``returns()`` is the
core's ``Outcome.results`` as for any other end. ``max_game_length()`` is the limit, so anything
that plays games to the end, such as MCTS's random rollouts, finishes: under
``classic`` a random player never fills the opponent's triangle.

>>> default = pyspiel.load_game("sternhalma")
>>> default.max_game_length(), str(default.new_initial_state())
(400, 'star4 classic,max_plies=400 south:111-120/north:0-9 0 0 -')
>>> pyspiel.load_game("sternhalma", {"max_plies": 1000}).max_game_length()
1000

With ``max_plies=-2`` and rules that set no limit, a game has none, and
open_spiel is told the longest length it holds, 2**31 - 1 plies (the core's
ply counter goes on to 2**32 - 1, so that one game is not described honestly).
The limit never changes the board: with the default ``board`` it is the board
of the rules without the limit.

What open_spiel is told:

- sequential, deterministic, perfect information, terminal rewards;
- ``returns()`` is the core's ``Outcome.results``: with two or more players they
  always sum to zero (a sole winner +1, a ranking spread evenly from +1 to -1, a
  draw 0 for everyone), so the game is ``ZERO_SUM``; the solitaire crossing (one
  player, 1 for finishing, 0 for the move limit) is ``GENERAL_SUM``. The type
  registered under the name says ``ZERO_SUM`` (the default layout); the loaded
  game's ``get_type()`` is the one that fits its layout;
- actions are the core's (``from * holes + to``, the pass ``holes * holes``);
  ``action_to_string`` is the move text;
- ``observation_tensor(player)`` is the core's tensor, shape ``(players + 2,
  holes)``, from ``player``'s point of view (plane 0 is ``player``'s pegs;
  for the player to move it equals ``Position.observation_tensor()``); the
  observation string is the position string, which also says who moves;
- ``information_state_string`` is the history of actions (perfect recall); no
  information-state tensor is provided (as for open_spiel's own chess and
  chinese_checkers): an honest one would have to hold the whole history;
- ``str(state)`` and ``serialize()`` keep the position, including its moves;
  ``game.new_initial_state(text)`` starts from a position string of the game
  (same board, rules and layout), for searches on a chosen position.

``undo_action`` is not supported: open_spiel keeps the history in C++ and a
Python game cannot take an action back from it. open_spiel's algorithms use
``clone()`` and ``child()``, which are.

The solved game (``rules="sturtevant"`` on a small rhombus) loads like any
other, and a :class:`sternhalma.Tablebase` evaluates its states exactly for
open_spiel's MCTS in place of random rollouts (:class:`TablebaseEvaluator`):

>>> table = sternhalma.Tablebase.load("rhombus7p2", progress=False)
>>> solved = pyspiel.load_game("sternhalma", {"board": "rhombus7p2", "rules": "sturtevant"})
>>> evaluator = sternhalma.open_spiel.TablebaseEvaluator(table)
>>> evaluator.evaluate(solved.new_initial_state())
array([ 1., -1.])
>>> bot = mcts.MCTSBot(solved, 2, 50, evaluator, random_state=np.random.RandomState(1))
>>> state = solved.new_initial_state()
>>> action = bot.step(state)
>>> str(table.probe(state.child(action).position))      # the first player still wins
'loss in 32'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from sternhalma._core import Bot, IllegalMoveError, Position, Rules, Tablebase

try:
    # open_spiel ships no type information.
    import pyspiel  # type: ignore[import-not-found]
    from open_spiel.python.algorithms import mcts  # type: ignore[import-untyped]
    from open_spiel.python.observation import (  # type: ignore[import-untyped]
        IIGObserverForPublicInfoGame,
    )
except ImportError as _missing:  # pragma: no cover - depends on the environment
    raise ImportError(
        'sternhalma.open_spiel needs open_spiel: pip install "sternhalma[open_spiel]"'
    ) from _missing

if TYPE_CHECKING:
    # pyspiel has no type information, so its classes are Any to a type
    # checker; their metaclass is pybind11's, which stubtest wants declared.
    class _Pybind11Type(type): ...
else:
    _Pybind11Type = type(pyspiel.Game)

__all__ = [
    "LONGEST_GAME",
    "PARAMETERS",
    "RULE_OPTIONS",
    "SHORT_NAME",
    "BoardObserver",
    "SternhalmaBot",
    "SternhalmaGame",
    "SternhalmaState",
    "TablebaseEvaluator",
]

SHORT_NAME = "sternhalma"

# The rules' options besides max_plies, each a parameter of its own: a rules
# text with overrides ("classic,long_jumps=on") cannot be a parameter value,
# because an open_spiel game string splits on commas.
RULE_OPTIONS = (
    "unused_triangles",
    "rest_in_foreign_triangles",
    "long_jumps",
    "anti_spoiling",
    "finish",
    "target_lock",
    "illegal_positions",
)

# The parameters and their defaults. open_spiel needs a typed value for each,
# so "not given" is spelled "" (board, layout, the rules' options) and -1
# (max_plies: the move limit of a game programs play, as stored matches have
# it; -2 is the rules' own limit alone). The number of players is an int of
# its own: in a game string "layout=2" would read as an int, which a string
# parameter refuses.
PARAMETERS: dict[str, Any] = {
    "board": "",
    "players": 2,
    "layout": "",
    "rules": "classic",
    "first_player": 0,
    "max_plies": -1,
    **{option: "" for option in RULE_OPTIONS},
}

# open_spiel's lengths are C++ ints.
LONGEST_GAME = 2**31 - 1

# The values of max_plies that are not a limit.
_PROGRAM_LIMIT = -1
_RULES_LIMIT = -2


def _game_type(utility: pyspiel.GameType.Utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Sternhalma (Chinese Checkers)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=6,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=PARAMETERS,
    )


def _start(params: Mapping[str, Any]) -> Position:
    """The start position the parameters describe, made by the core."""
    if "," in params["rules"]:
        raise ValueError(
            f"rules {params['rules']!r}: give a preset, and each override as a parameter "
            "of its own (an open_spiel game string splits on commas)"
        )
    overrides: dict[str, Any] = {
        option: params[option] for option in RULE_OPTIONS if params[option] != ""
    }
    max_plies = int(params["max_plies"])
    if max_plies < _RULES_LIMIT:
        raise ValueError(
            f"max_plies must be -1 (the default limit of a game programs play), "
            f"-2 (the rules' own limit) or a whole number of plies, not {max_plies}"
        )
    players = int(params["players"])
    game = {
        "layout": params["layout"] or str(players),
        "rules": params["rules"],
        "first_player": int(params["first_player"]),
        **overrides,
    }
    start = Position.start(board=params["board"] or None, **game)
    if start.num_players() != players:
        raise ValueError(
            f"the layout {params['layout']!r} is for {start.num_players()} players: "
            f"set players={start.num_players()} as well"
        )
    limit = start.program_move_limit() if max_plies == _PROGRAM_LIMIT else max_plies
    if limit == _RULES_LIMIT or limit == start.rules.max_plies:
        return start
    # The board is fixed first, as for stored matches: rules with a limit may
    # print as another preset (classic with fill_available and a limit is
    # "research,max_plies=400"), whose default board is another.
    return Position.start(board=start.board, **game, max_plies=limit)


class SternhalmaGame(pyspiel.Game, metaclass=_Pybind11Type):  # type: ignore[misc]
    """The game for open_spiel; made by ``pyspiel.load_game("sternhalma", {...})``."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = {**PARAMETERS, **(params or {})}
        self._start = _start(params)
        # As a C++ game does, the game string names only what differs from the
        # defaults: sternhalma(board=star2,max_plies=60).
        given = {name: value for name, value in params.items() if value != PARAMETERS[name]}
        players = self._start.num_players()
        limit = self._start.rules.max_plies
        super().__init__(
            _game_type(
                pyspiel.GameType.Utility.ZERO_SUM
                if players > 1
                else pyspiel.GameType.Utility.GENERAL_SUM
            ),
            pyspiel.GameInfo(
                num_distinct_actions=self._start.num_distinct_actions(),
                max_chance_outcomes=0,
                num_players=players,
                # -1 is also a lone player's score for resigning.
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0 if players > 1 else None,
                max_game_length=LONGEST_GAME if limit is None else min(limit, LONGEST_GAME),
            ),
            given,
        )

    @property
    def start(self) -> Position:
        """The start position (a copy)."""
        return self._start.copy()

    def new_initial_state(self, state: str | Mapping[str, Any] | None = None) -> SternhalmaState:
        """The start of a game; or, given a position string or the JSON form of
        a position (``state.to_dict()``), a game from that position. The
        position must be of this game: the same board, rules and layout."""
        if state is None:
            return SternhalmaState(self, self._start.copy())
        position = Position(state) if isinstance(state, str) else Position.from_json(dict(state))
        if (position.board, position.rules, position.layout) != (
            self._start.board,
            self._start.rules,
            self._start.layout,
        ):
            hint = ""
            if position.rules.max_plies != self._start.rules.max_plies and Rules(
                str(position.rules), max_plies=None
            ) == Rules(str(self._start.rules), max_plies=None):
                hint = (
                    f" (its move limit is {position.rules.max_plies}, the game's"
                    f" {self._start.rules.max_plies}: load the game with max_plies set to"
                    " its limit, or max_plies=-2 for the rules' own)"
                )
            raise ValueError(
                f"the position {position} is not of this game, which starts at {self._start}{hint}"
            )
        return SternhalmaState(self, position)

    def make_py_observer(
        self,
        iig_obs_type: pyspiel.IIGObservationType | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> BoardObserver | IIGObserverForPublicInfoGame:
        """An observer: the board for an observation (open_spiel's
        ``observation_tensor``), the action history for an information state
        with perfect recall."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return BoardObserver(self, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class SternhalmaState(pyspiel.State, metaclass=_Pybind11Type):  # type: ignore[misc]
    """A state of the game: a :class:`sternhalma.Position` with open_spiel's
    history kept beside it. ``clone`` and ``serialize`` copy the position."""

    def __init__(self, game: SternhalmaGame, position: Position) -> None:
        super().__init__(game)
        self._position = position

    @property
    def position(self) -> Position:
        """The position (a copy: play through ``apply_action``, so that
        open_spiel's history follows)."""
        return self._position.copy()

    def current_player(self) -> int:
        return self._position.current_player()

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (default: the player to move), in
        ascending order; none for the others, as open_spiel answers."""
        # pyspiel's own method answers the same through C++ (see `_legal_actions`),
        # but converts the list twice and calls back into Python three times:
        # about 5 µs a call, where this is well under one.
        position = self._position
        if player is None or player == position.current_player():
            return position.legal_actions()
        if player < 0:
            raise ValueError(f"legal actions of the pseudo-player {player}")
        return []

    def _legal_actions(self, player: int) -> list[int]:
        # What open_spiel's C++ side calls, for the player to move only.
        return self._position.legal_actions()

    def _apply_action(self, action: int) -> None:
        self._position.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        # The move text when the action is legal here; numbers are only moves
        # in a position, so anything else is named by its number.
        try:
            return str(self._position.action_to_move(action))
        except IllegalMoveError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self._position.is_terminal()

    def returns(self) -> list[float]:
        return self._position.returns()

    def __str__(self) -> str:
        return str(self._position)

    # open_spiel's JSON forms (state.to_json(), to_dict(), action_to_struct).

    def _to_struct(self) -> dict[str, Any]:
        return self._position.to_json()

    def _to_observation_struct(self, player: int) -> dict[str, Any]:
        return self._position.to_json()

    def _action_to_struct(self, player: int, action: int) -> dict[str, str]:
        return {"move": str(self._position.action_to_move(action))}

    def _struct_to_actions(self, action: Mapping[str, Any]) -> list[int]:
        return [self._position.move_to_action(action["move"])]


class BoardObserver:
    """open_spiel's observer (see ``open_spiel/python/observation.py``): the
    core's observation tensor, turned to the observing player, and the
    position string."""

    def __init__(self, game: SternhalmaGame, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {dict(params)}")
        start = game.start
        self._players = start.num_players()
        shape = (self._players + 2, len(start.board))
        self.tensor = np.zeros(shape[0] * shape[1], np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: SternhalmaState, player: int) -> None:
        position = state._position
        planes = position.observation_tensor()
        players = self._players
        # The core's plane i holds the pegs of (side_to_move + i) % players;
        # the observer's plane k those of (player + k) % players.
        turn = (player - position.side_to_move) % players
        board = self.dict["observation"]
        board[:players] = np.roll(planes[:players], -turn, axis=0)
        board[players:] = planes[players:]

    def string_from(self, state: SternhalmaState, player: int) -> str:
        return str(state._position)


class SternhalmaBot(pyspiel.Bot, metaclass=_Pybind11Type):  # type: ignore[misc]
    """One of Sternhalma's own bots (:class:`sternhalma.Bot`) as an open_spiel
    bot, for ``evaluate_bots`` and anything else that takes a ``pyspiel.Bot``.

    >>> import pyspiel, sternhalma, sternhalma.open_spiel
    >>> game = pyspiel.load_game("sternhalma", {"board": "star2"})
    >>> bot = sternhalma.open_spiel.SternhalmaBot(sternhalma.Bot("greedy", seed=1))
    >>> state = game.new_initial_state()
    >>> bot.step(state) in state.legal_actions()
    True
    """

    def __init__(self, bot: Bot) -> None:
        super().__init__()
        self.bot = bot

    def step(self, state: SternhalmaState) -> int:
        position = state._position
        return position.move_to_action(self.bot.step(position))

    def restart_at(self, state: SternhalmaState) -> None:
        pass

    def inform_action(self, state: SternhalmaState, player_id: int, action: int) -> None:
        pass


# A value of the table, for the player it belongs to.
_SCORES = {"win": 1.0, "draw": 0.0, "loss": -1.0}


class TablebaseEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """open_spiel's MCTS evaluator (``mcts.Evaluator``) from a solved table:
    ``evaluate(state)`` is each player's exact value of the state under perfect
    play (+1 a win, -1 a loss, 0 a draw; a finished game its ``returns()``),
    where ``mcts.RandomRolloutEvaluator`` would play random games out;
    ``prior(state)`` is uniform over the legal actions, as open_spiel's own
    evaluators give, so the tree search still chooses among the moves.

    ``tablebase`` is a :class:`sternhalma.Tablebase` (default: the installed
    table that covers each state, ``Tablebase.for_position``). With
    ``discount`` below 1, a value is ``discount ** depth`` (the plies to the
    end): a quicker win scores more, a slower loss less, and MCTS hurries a
    won game instead of keeping it won forever (a table without depths gives
    the plain values). A state of a game no loaded table covers raises
    :class:`sternhalma.TablebaseError`.

    >>> import pyspiel, sternhalma, sternhalma.open_spiel
    >>> table = sternhalma.Tablebase.load("rhombus7p2", progress=False)
    >>> game = pyspiel.load_game("sternhalma", {"board": "rhombus7p2", "rules": "sturtevant"})
    >>> state = game.new_initial_state()
    >>> sternhalma.open_spiel.TablebaseEvaluator(table, discount=0.99).evaluate(state)
    array([ 0.71773053, -0.71773053])
    >>> sternhalma.open_spiel.TablebaseEvaluator(table).prior(state)[:2]
    [(2347, 0.2), (2348, 0.2)]
    """

    def __init__(self, tablebase: Tablebase | None = None, *, discount: float = 1.0) -> None:
        if not 0.0 < discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], not {discount}")
        self.tablebase = tablebase
        self.discount = discount

    def evaluate(self, state: SternhalmaState) -> npt.NDArray[np.float64]:
        """Each player's value of ``state`` under perfect play."""
        position = state._position
        if position.is_terminal():
            return np.array(position.returns())
        table = self.tablebase or Tablebase.for_position(position)
        probe = table.probe(position)
        value = _SCORES[probe.value]
        if probe.depth is not None:
            value *= self.discount**probe.depth
        values = np.full(position.num_players(), -value)
        values[position.current_player()] = value
        return values

    def prior(self, state: SternhalmaState) -> list[tuple[int, float]]:
        """Equal probability for every legal action."""
        actions = state.legal_actions()
        return [(action, 1.0 / len(actions)) for action in actions]


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(_game_type(pyspiel.GameType.Utility.ZERO_SUM), SternhalmaGame)
