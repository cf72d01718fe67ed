"""Sternhalma as a PettingZoo AEC environment: one agent per seat.

Shaped like PettingZoo's own board games (``pettingzoo.classic.chess_v6``):
``env()`` is the environment with PettingZoo's usual wrappers, ``raw_env``
the bare one.

>>> from sternhalma.envs import sternhalma_v0
>>> environment = sternhalma_v0.env(seed=1)
>>> environment.reset()
>>> environment.agents
['player_0', 'player_1']
>>> for agent in environment.agent_iter():
...     observation, reward, terminated, truncated, info = environment.last()
...     if terminated or truncated:
...         action = None
...     else:
...         action = environment.action_space(agent).sample(observation["action_mask"])
...     environment.step(action)
>>> environment.agents                  # every agent has left: the game is over
[]

- **Agents** are ``player_0`` .. ``player_<n-1>``, the seats of the
  position (``Position.num_players()``); ``agent_selection`` is the player
  to move.
- **Observations** are dicts: ``"observation"`` is
  ``Position.observation_tensor()`` seen by the observing agent (float32,
  shape ``(players + 2, holes)``: plane 0 is that agent's pegs, plane ``i``
  those of the ``i``-th player after it, then neutral pegs, then empty
  holes), and ``"action_mask"`` an int8 vector of
  ``Position.num_distinct_actions()`` with a 1 for each legal action of the
  agent to move (all zeros for the others, and once the game is over).
- **Actions** are the module's action numbers (``Position.legal_actions()``).
- **Rewards** are 0 until the game ends; then each agent's reward is its
  entry of ``Position.returns()``.
- **Termination** is the end of the game by the rules: a win, a finish, or
  a draw by the rules' own move limit (``Rules.max_plies``, e.g. the
  ``research`` preset's 200): the rules score that draw, so it is a
  termination, not a truncation.
- **Truncation** is the environment's move limit: after ``max_plies`` moves
  in a game the rules have not ended, every agent is truncated with reward
  0. The default is the limit of a game programs play, as stored matches
  have it (``Position.program_move_limit()``: the rules' own, or else 200
  turns for each player, 400 moves for two), so random play ends.
- **Illegal actions**: ``raw_env`` raises ``sternhalma.IllegalMoveError``
  (with the reason and its ``.code``); ``env()`` follows PettingZoo's board
  games (``TerminateIllegalWrapper``): the game ends, the offending agent
  gets -1 and the others 0.
- **Rendering**: ``render_mode="svg"`` returns the SVG text,
  ``"rgb_array"`` a uint8 array ``(height, width, 3)`` and ``"ansi"`` the
  text picture (``Position.unicode()``).
- **Solved games**: on the ``sturtevant`` rules and a small rhombus
  (``SternhalmaEnv(board="rhombus7p2", rules="sturtevant")``),
  :func:`table_values` gives each agent's exact value of the game under
  perfect play from a :class:`sternhalma.Tablebase`, for a critic's target,
  reward shaping or a perfect opponent's score.
- **Seeds**: the game has no chance. ``reset(seed=s)`` (or the ``seed``
  given when made, at the first reset) seeds ``np_random`` and each
  agent's spaces (``player_i`` with ``s + i``), so a random agent that
  samples from the action spaces replays the same game.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding

# PettingZoo ships no type information (no py.typed).
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from sternhalma._core import Board, IllegalMoveError, Position, Probe, Rules, Tablebase
from sternhalma.envs._render import RENDER_MODES, check_render_mode, render

__all__ = ["SternhalmaEnv", "env", "raw_env", "table_probe", "table_values"]

Observation = dict[str, npt.NDArray[Any]]


def env(**kwargs: Any) -> AECEnv[str, Observation, int]:
    """The environment with PettingZoo's wrappers for board games: an
    illegal action ends the game with -1 for the agent that played it
    (``TerminateIllegalWrapper``), an action outside the action space
    fails an assertion, and calls out of order raise. Takes the arguments
    of :class:`SternhalmaEnv`."""
    environment: AECEnv[str, Observation, int] = SternhalmaEnv(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class SternhalmaEnv(AECEnv[str, Observation, int]):
    """A game of Sternhalma, one agent per seat (see the module's
    documentation for observations, rewards and limits).

    ``board``, ``layout`` and ``rules`` choose the game as in
    ``Position.start`` (the standard two-player classic game by default);
    ``start`` begins from a given position instead. ``max_plies`` is the
    environment's move limit, counted from the start (default: the start's
    ``program_move_limit()``, 400 for two players); ``render_size`` the
    width of the ``svg`` and ``rgb_array`` pictures (480 by default).

    >>> environment = SternhalmaEnv(board="star2", layout=3, render_mode="ansi")
    >>> environment.reset(seed=1)
    >>> environment.possible_agents
    ['player_0', 'player_1', 'player_2']
    >>> environment.observation_space("player_0")["observation"].shape
    (5, 37)
    >>> print(environment.render())
          ·
         · ·
    ① ① · · · ② ②
     ① · · · · ②
      · · · · ·
     · · · · · ·
    · · · · · · ·
         ⓪ ⓪
          ⓪
    player 0 to move, ply 0
    <BLANKLINE>
    """

    # A class attribute, as PettingZoo declares it (not a ClassVar).
    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "sternhalma_v0",
        "render_modes": RENDER_MODES,
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        board: str | Board | None = None,
        layout: str | int | None = None,
        rules: str | Rules | dict[str, Any] | None = None,
        *,
        start: Position | None = None,
        max_plies: int | None = None,
        render_mode: str | None = None,
        render_size: int | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        check_render_mode(render_mode)
        if max_plies is not None and max_plies < 1:
            raise ValueError(f"max_plies must be at least 1, not {max_plies}")
        if start is None:
            start = Position.start(board=board, layout=layout, rules=rules)
        elif board is not None or layout is not None or rules is not None:
            raise ValueError("give either start or board/layout/rules, not both")
        if start.is_terminal():
            raise ValueError(f"the game is already over in {start}")
        if max_plies is None:
            max_plies = start.program_move_limit()
        self._start = start.copy()
        self._position = start.copy()
        self._plies = 0
        self.max_plies = max_plies
        self.render_mode = render_mode
        self.render_size = render_size
        self._seed = seed
        self.np_random, _ = seeding.np_random(seed)

        players = start.num_players()
        self._players = players
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents: list[str] = []
        self._index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._actions = start.num_distinct_actions()
        holes = len(start.board)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (players + 2, holes), np.float32),
                    "action_mask": spaces.Box(0, 1, (self._actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self._actions) for agent in self.possible_agents
        }
        # The mask for the agent to move, made once per ply.
        self._mask: npt.NDArray[np.int8] | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``: ``Discrete(num_distinct_actions)``."""
        return self.action_spaces[agent]

    @property
    def position(self) -> Position:
        """A copy of the game's current position (for bots and analysis)."""
        return self._position.copy()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game from the start position; ``seed`` seeds
        ``np_random`` and the agents' spaces."""
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + i)
                self.observation_spaces[agent].seed(seed + i)
        self._position = self._start.copy()
        self._plies = 0
        self._mask = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self._position.side_to_move]

    def observe(self, agent: str) -> Observation:
        """What ``agent`` sees: the board from its seat, and the action mask
        (all zeros unless it is the agent to move in a game still on)."""
        if agent == self.agent_selection and not self._done(agent):
            mask = self._legal_mask().copy()
        else:
            mask = np.zeros(self._actions, dtype=np.int8)
        return {"observation": self._planes(self._index[agent]), "action_mask": mask}

    def state(self) -> npt.NDArray[np.float32]:
        """The whole board from seat 0's side (for centralised critics):
        plane ``i`` holds player ``i``'s pegs, then neutral pegs, then empty
        holes."""
        return self._planes(0)

    def step(self, action: int | None) -> None:
        """Plays ``action`` for ``agent_selection``, or removes a finished
        agent (whose only action is ``None``)."""
        agent = self.agent_selection
        if self._done(agent):
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is only the action of a finished agent")
        try:
            self._position.apply_action(int(action))
        except IllegalMoveError as error:
            error.add_note(f"{agent} played action {int(action)} in {self._position}")
            raise
        self._plies += 1
        self._mask = None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self._position.is_terminal():
            for name, value in zip(self.possible_agents, self._position.returns(), strict=True):
                self.rewards[name] = float(value)
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._plies >= self.max_plies:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[self._position.side_to_move]
        self._accumulate_rewards()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The picture of the position in ``render_mode`` (``None``, with a
        warning, when no render mode was chosen)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        return render(self._position, self.render_mode, self.render_size)

    def close(self) -> None:
        """Nothing to release: the pictures are drawn on demand."""

    def _planes(self, seat: int) -> npt.NDArray[np.float32]:
        """The observation tensor from ``seat``'s side."""
        planes = self._position.observation_tensor()
        side = self._position.side_to_move
        if seat == side:
            return planes
        # Plane i holds player (side + i) % players; the seat wants its own
        # pegs first.
        players = self._players
        order = [(seat - side + i) % players for i in range(players)]
        return planes[[*order, players, players + 1]]

    def _done(self, agent: str) -> bool:
        return self.terminations.get(agent, True) or self.truncations.get(agent, True)

    def _legal_mask(self) -> npt.NDArray[np.int8]:
        if self._mask is None:
            self._mask = self._position.action_mask().view(np.int8)
        return self._mask


raw_env = SternhalmaEnv

# A value of the table, for the agent it belongs to.
_SCORES = {"win": 1.0, "draw": 0.0, "loss": -1.0}


def table_probe(
    environment: AECEnv[str, Observation, int], tablebase: Tablebase | None = None
) -> Probe:
    """What a solved table says of the game for the agent to move
    (``agent_selection``): ``win in 33``, ``loss in 12``, ``draw``.
    ``environment`` is the environment, wrapped (``env()``) or not;
    ``tablebase`` defaults to the installed table that covers the position
    (``Tablebase.for_position``: load one first, e.g.
    ``sternhalma.Tablebase.load("rhombus7p2")``). A finished game is a loss
    in 0 for the side to move.

    >>> import sternhalma
    >>> from sternhalma.envs import sternhalma_v0
    >>> table = sternhalma.Tablebase.load("rhombus7p2", progress=False)
    >>> environment = sternhalma_v0.env(board="rhombus7p2", rules="sturtevant")
    >>> environment.reset()
    >>> sternhalma_v0.table_probe(environment)
    <Probe win in 33>
    """
    position = environment.unwrapped.position
    table = tablebase or Tablebase.for_position(position)
    return table.probe(position)


def table_values(
    environment: AECEnv[str, Observation, int],
    tablebase: Tablebase | None = None,
    *,
    discount: float = 1.0,
) -> dict[str, float]:
    """Each agent's value of the game under perfect play from here: +1 for
    the agent that wins, -1 for the one that loses, 0 for both in a draw;
    once the game is over, its returns. With ``discount`` below 1 a value is
    ``discount ** depth`` (plies to the end), so a quicker win is worth more.
    ``tablebase`` as for :func:`table_probe`.

    >>> import sternhalma
    >>> from sternhalma.envs import sternhalma_v0
    >>> table = sternhalma.Tablebase.load("rhombus7p2", progress=False)
    >>> environment = sternhalma_v0.env(board="rhombus7p2", rules="sturtevant")
    >>> environment.reset()
    >>> sternhalma_v0.table_values(environment, table)
    {'player_0': 1.0, 'player_1': -1.0}
    >>> environment.step(environment.unwrapped.position.move_to_action("47-45"))
    >>> sternhalma_v0.table_values(environment, table)      # player_0 threw the win away
    {'player_0': -1.0, 'player_1': 1.0}
    """
    if not 0.0 < discount <= 1.0:
        raise ValueError(f"discount must be in (0, 1], not {discount}")
    raw = environment.unwrapped
    agents = raw.possible_agents
    position = raw.position
    if position.is_terminal():
        return dict(zip(agents, position.returns(), strict=True))
    table = tablebase or Tablebase.for_position(position)
    probe = table.probe(position)
    value = _SCORES[probe.value]
    if probe.depth is not None:
        value *= discount**probe.depth
    mover = position.side_to_move
    return {agent: value if seat == mover else -value for seat, agent in enumerate(agents)}
