"""Environments for reinforcement learning: Sternhalma where PettingZoo and
Gymnasium users already are. Needs the ``rl`` extra
(``pip install "sternhalma[rl]"``: PettingZoo and Gymnasium).

- :mod:`sternhalma.envs.sternhalma_v0`: the game as a PettingZoo AEC
  environment, one agent per seat (``sternhalma_v0.env()``, ``raw_env``).
- :class:`SolitaireEnv`: the solitaire crossing as a Gymnasium environment,
  registered as ``Sternhalma/Solitaire-v0`` when this package is imported.

>>> import gymnasium
>>> from sternhalma.envs import sternhalma_v0
>>> game = sternhalma_v0.env()
>>> crossing = gymnasium.make("Sternhalma/Solitaire-v0")
"""

from __future__ import annotations


def _require_the_extra() -> None:
    # Checked before anything imports them, so that the error names the extra.
    try:
        import gymnasium  # noqa: F401
        import pettingzoo  # type: ignore[import-untyped]  # noqa: F401
    except ImportError as error:
        raise ImportError(
            "sternhalma.envs needs PettingZoo and Gymnasium: "
            'pip install "sternhalma[rl]" (or pip install pettingzoo gymnasium)'
        ) from error


_require_the_extra()

import gymnasium

from sternhalma.envs import sternhalma_v0
from sternhalma.envs.solitaire import SolitaireEnv
from sternhalma.envs.sternhalma_v0 import SternhalmaEnv

__all__ = ["SOLITAIRE_ID", "SolitaireEnv", "SternhalmaEnv", "sternhalma_v0"]

SOLITAIRE_ID = "Sternhalma/Solitaire-v0"

# Imported twice (a reload, a notebook run again), the package must not
# register the id again: Gymnasium warns about overriding it.
if SOLITAIRE_ID not in gymnasium.registry:
    gymnasium.register(id=SOLITAIRE_ID, entry_point="sternhalma.envs.solitaire:SolitaireEnv")
