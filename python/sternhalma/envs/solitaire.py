"""The solitaire crossing as a Gymnasium environment: one set of pegs alone
on the board, to be moved from the south triangle to the north one in as
few moves as possible (the puzzle ``sternhalma.solve_solitaire`` solves).

>>> import gymnasium
>>> import sternhalma.envs              # registers Sternhalma/Solitaire-v0
>>> environment = gymnasium.make("Sternhalma/Solitaire-v0", board="rhombus5p3")
>>> observation, info = environment.reset(seed=1)
>>> observation.shape, int(info["action_mask"].sum())
((3, 25), 6)
>>> total = 0.0
>>> for move in sternhalma.solve_solitaire("rhombus5p3").moves:
...     action = environment.unwrapped.position.move_to_action(move)
...     observation, reward, terminated, truncated, info = environment.step(action)
...     total += reward
>>> total, terminated
(-11.0, True)

- **Observations** are ``Position.observation_tensor()``: float32, shape
  ``(3, holes)``, the pegs, the neutral pegs (none on a bare board) and
  the empty holes.
- **Actions** are ``Discrete(Position.num_distinct_actions())``, the
  module's action numbers; ``info["action_mask"]`` (int8, Gymnasium's
  convention: ``action_space.sample(mask=info["action_mask"])``) marks the
  legal ones, and ``action_masks()`` gives the same as booleans for
  ``sb3_contrib``'s ``MaskablePPO``.
- **Rewards** are -1 for every step, so an episode's return is minus its
  length: the shortest crossing scores best.
- **Termination**: every peg is home (the north triangle).
- **Truncation**: ``max_plies`` steps (default 1000) without crossing.
- **Illegal actions**: every action of the space is accepted, as Gymnasium
  expects (and its ``check_env`` tries). An illegal one leaves the position
  as it was, still costs the step's -1, counts towards ``max_plies``, and
  sets ``info["illegal_action"]``; with ``illegal_action="raise"`` it
  raises ``sternhalma.IllegalMoveError`` instead (with its reason and
  ``.code``), for agents that must never make one.
- **Rendering**: ``"svg"`` (the SVG text), ``"rgb_array"`` (uint8,
  ``(height, width, 3)``) and ``"ansi"`` (``Position.unicode()``).
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from sternhalma._core import Board, IllegalMoveError, Position, Rules
from sternhalma.envs._render import RENDER_MODES, check_render_mode, render

__all__ = ["SolitaireEnv"]

Observation = npt.NDArray[np.float32]


class SolitaireEnv(gymnasium.Env[Observation, np.int64]):
    """The solitaire crossing of ``board`` (the standard star by default;
    ``rules`` as in ``Position.start``, classic by default), ``max_plies``
    steps at most. See the module's documentation for the details.

    >>> environment = SolitaireEnv(board="star2", render_mode="ansi")
    >>> observation, info = environment.reset()
    >>> info["illegal_action"], environment.action_space
    (False, Discrete(1370))
    >>> observation, reward, terminated, truncated, info = environment.step(0)
    >>> reward, info["illegal_action"], environment.position.ply
    (-1.0, True, 0)
    """

    # A class attribute, as Gymnasium declares it (not a ClassVar).
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": RENDER_MODES,
        "render_fps": 2,
    }

    def __init__(
        self,
        board: str | Board | None = None,
        rules: str | Rules | dict[str, Any] | None = None,
        *,
        max_plies: int = 1000,
        illegal_action: Literal["skip", "raise"] = "skip",
        render_mode: str | None = None,
        render_size: int | None = None,
    ) -> None:
        check_render_mode(render_mode)
        if max_plies < 1:
            raise ValueError(f"max_plies must be at least 1, not {max_plies}")
        if illegal_action not in ("skip", "raise"):
            raise ValueError(f"illegal_action must be 'skip' or 'raise', not {illegal_action!r}")
        self._start = Position.start(board=board, layout="1", rules=rules)
        self._position = self._start.copy()
        self._steps = 0
        self.max_plies = max_plies
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.render_size = render_size
        self._actions = self._start.num_distinct_actions()
        holes = len(self._start.board)
        self.observation_space = spaces.Box(0.0, 1.0, (3, holes), np.float32)
        self.action_space = spaces.Discrete(self._actions)

    @property
    def position(self) -> Position:
        """A copy of the current position (``move_to_action`` turns a
        ``Move`` into this environment's action)."""
        return self._position.copy()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Puts the pegs back in the south triangle. The crossing has no
        chance; ``seed`` seeds ``np_random`` as Gymnasium asks."""
        super().reset(seed=seed)
        self._position = self._start.copy()
        self._steps = 0
        return self._position.observation_tensor(), self._info(illegal=False)

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Plays ``action``: reward -1; terminated once every peg is home,
        truncated after ``max_plies`` steps."""
        number = int(action)
        if not 0 <= number < self._actions:
            raise ValueError(f"action {number} is outside the action space {self.action_space}")
        illegal = False
        try:
            self._position.apply_action(number)
        except IllegalMoveError:
            if self.illegal_action == "raise":
                raise
            illegal = True
        self._steps += 1
        terminated = self._position.is_terminal()
        truncated = not terminated and self._steps >= self.max_plies
        observation = self._position.observation_tensor()
        return observation, -1.0, terminated, truncated, self._info(illegal=illegal)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions as booleans (the method ``MaskablePPO`` calls)."""
        return self._position.action_mask()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The picture of the position in ``render_mode`` (``None`` when no
        render mode was chosen)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        return render(self._position, self.render_mode, self.render_size)

    def _mask(self) -> npt.NDArray[np.int8]:
        return self._position.action_mask().view(np.int8)

    def _info(self, *, illegal: bool) -> dict[str, Any]:
        return {"action_mask": self._mask(), "illegal_action": illegal}
