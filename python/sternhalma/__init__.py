"""Sternhalma: the rules of Chinese Checkers, exact and fast, for Python.

>>> import sternhalma
>>> position = sternhalma.Position()
>>> len(position.legal_moves)
14
>>> position.push("115-104")
>>> position.outcome().status
<OutcomeStatus.IN_PROGRESS: 'in_progress'>
>>> sternhalma.Bot("greedy", seed=1).step(position) in position.legal_moves
True

The classes come from the compiled ``sternhalma._core`` extension (the Rust
rules crate); ``sternhalma.client`` talks to a Sternhalma HTTP server with the
same methods, so a notebook can switch between local and remote play;
``sternhalma.server`` finds (or starts) a server for it, and
``sternhalma.stats`` gives the confidence intervals of scores measured
over games, and ``sternhalma.grading`` what graded exercises need.
``sternhalma.Tablebase`` holds a solved game (the ``sturtevant`` rules on a
small rhombus): every position's value, the perfect bot's moves, and
``sternhalma.analyse`` to check a game against perfect play.
"""

from collections.abc import Sequence

from sternhalma._core import (
    BOT_KINDS,
    Analysis,
    AntiSpoiling,
    Board,
    BoardShape,
    Bot,
    BotKind,
    BuiltinBarredError,
    DrawReason,
    Finish,
    IllegalMoveError,
    IllegalPositions,
    InvalidPositionError,
    LegalMoves,
    Move,
    MoveKind,
    MoveProbe,
    NotationError,
    Outcome,
    OutcomeStatus,
    PlyAnalysis,
    Position,
    Preset,
    Probe,
    Resting,
    Rules,
    SearchResult,
    SeatAnalysis,
    Solution,
    SolvedValue,
    SolveLimitError,
    SolveProgress,
    SternhalmaError,
    Tablebase,
    TablebaseError,
    Triangle,
    UnknownBotError,
    UnknownPresetError,
    UnsolvableError,
    UnusedTriangles,
    VectorEnv,
    Verdict,
    analyse,
    distance_to_target,
    pegs_home,
    progress,
    rollouts,
    solve_solitaire,
)
from sternhalma.client import (
    Client,
    ConflictError,
    CreatedMatch,
    Match,
    MatchClosedError,
    NotFoundError,
    NotYourTurnError,
    PlayedMove,
    RemotePosition,
    Seat,
    ServerError,
    ServerUnreachable,
    StalePlyError,
    WrongTokenError,
)

__all__ = [
    "BOT_KINDS",
    "Analysis",
    "AntiSpoiling",
    "Board",
    "BoardShape",
    "Bot",
    "BotKind",
    "BuiltinBarredError",
    "Client",
    "ConflictError",
    "CreatedMatch",
    "DrawReason",
    "Finish",
    "IllegalMoveError",
    "IllegalPositions",
    "InvalidPositionError",
    "LegalMoves",
    "Match",
    "MatchClosedError",
    "Move",
    "MoveKind",
    "MoveProbe",
    "NotFoundError",
    "NotYourTurnError",
    "NotationError",
    "Outcome",
    "OutcomeStatus",
    "PlayedMove",
    "PlyAnalysis",
    "Position",
    "Preset",
    "Probe",
    "RemotePosition",
    "Resting",
    "Rules",
    "SearchResult",
    "Seat",
    "SeatAnalysis",
    "ServerError",
    "ServerUnreachable",
    "Solution",
    "SolveLimitError",
    "SolveProgress",
    "SolvedValue",
    "StalePlyError",
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
    "WrongTokenError",
    "analyse",
    "distance_to_target",
    "pegs_home",
    "progress",
    "rollouts",
    "solve_solitaire",
]

# `Position.legal_moves` is a read-only sequence, like a tuple.
Sequence.register(LegalMoves)

# Submodules with nothing but the standard library behind them, so that
# `sternhalma.stats.wilson` and `sternhalma.server.find_server` work after
# `import sternhalma` (sternhalma.envs and sternhalma.open_spiel need their
# extras, and are imported by name). Last: they import from the package.
from sternhalma import grading as grading
from sternhalma import server as server
from sternhalma import stats as stats

__version__ = "0.1.0"
