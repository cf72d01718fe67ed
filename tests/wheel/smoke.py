"""What a student does first with the installed wheel, run where no Rust exists.

Run by tests/wheel/run.sh with a fresh venv's interpreter, outside the
checkout, after `pip install --no-index --find-links
http://<server>/downloads/ ... sternhalma` (the module and numpy from the
teacher's server alone). Standard library, numpy and the module only; exits
non-zero at the first surprise.
"""

import importlib.metadata
import importlib.util
import pathlib
import pickle
import platform
import shutil
import sys

import numpy as np
import sternhalma

# The module comes from the venv's site-packages, not from a checkout, and
# no Rust toolchain is on PATH that could have compiled it.
assert sys.prefix != sys.base_prefix, "not in a venv"
assert pathlib.Path(sternhalma._core.__file__).is_relative_to(sys.prefix), sternhalma._core.__file__
for tool in ("cargo", "rustc", "rustup"):
    assert shutil.which(tool) is None, f"{tool} is on PATH: {shutil.which(tool)}"

# A game: moves, legality, undo, outcome.
position = sternhalma.Position()
assert str(position) == "star4 classic south:111-120/north:0-9 0 0 -"
assert len(position.legal_moves) == 14
position.push("115-104")
assert position.side_to_move == 1
try:
    position.push("0-1")
except sternhalma.IllegalMoveError as error:
    assert error.code, error
else:
    raise AssertionError("an illegal move was accepted")
assert str(position.pop()) == "115-104"
position.push("115-104")
assert position.outcome().status == "in_progress"

# A bot plays; the open_spiel names and numpy agree.
for seed in range(4):
    move = sternhalma.Bot("greedy", seed=seed).step(position)
    assert move in position.legal_moves
    position.push(move)
tensor = position.observation_tensor()
assert isinstance(tensor, np.ndarray) and tensor.dtype == np.float32, tensor
assert tensor.shape == (position.num_players() + 2, len(position.board)), tensor.shape
assert len(position.legal_actions()) == len(position.legal_moves)

# A won game, a picture, a pickle.
won = sternhalma.Position("star1 classic south:2/north:6 0 0 -")
won.push("2-0")
assert won.outcome().status == "won" and won.outcome().winner == 0
assert "<svg" in position.svg() and position.svg().rstrip().endswith("</svg>")
assert pickle.loads(pickle.dumps(position)) == position

# The example clients of the README come with the module (python -m
# sternhalma.examples.random_bot ...), their source beside them.
for example in ("random_bot", "tournament_entrant"):
    spec = importlib.util.find_spec(f"sternhalma.examples.{example}")
    assert spec is not None and spec.origin is not None, example
    assert pathlib.Path(spec.origin).is_relative_to(sys.prefix), spec.origin
    assert "def main()" in pathlib.Path(spec.origin).read_text(), spec.origin

distribution = importlib.metadata.distribution("sternhalma")
tags = [
    line.split(":", 1)[1].strip()
    for line in distribution.read_text("WHEEL").splitlines()
    if line.startswith("Tag:")
]
print(
    f"sternhalma {distribution.version} (wheel {', '.join(tags)}) works on "
    f"Python {platform.python_version()}, {platform.system()} {platform.machine()} "
    f"glibc {platform.libc_ver()[1]}, numpy {np.__version__}, no Rust on PATH"
)
