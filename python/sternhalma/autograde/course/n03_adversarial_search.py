"""Notebook 3, adversarial search: negamax, alpha-beta, a bot with a node budget.

The student's functions get the notebook's own evaluation and move
ordering (the definitions below, the same as the notebook's), so a
notebook whose teaching cells were edited is graded on the same inputs.
"""

from __future__ import annotations

import random

import sternhalma
from sternhalma import grading
from sternhalma.autograde import Course, Failed, Student
from sternhalma.stats import wilson

course = Course("03_adversarial_search")

RULES = sternhalma.Rules("research", max_plies=60)
START = sternhalma.Position.start(board="rhombus5p3", rules=RULES)
BOARD = START.board
TARGETS = [frozenset(BOARD.triangle("north")), frozenset(BOARD.triangle("south"))]
WIN = 1000
INF = float("inf")


def travel(position: sternhalma.Position, player: int) -> int:
    return sum(
        min(BOARD.distance(hole, t) for t in TARGETS[player])
        for hole in position.player_pegs(player)
    )


def evaluate(position: sternhalma.Position, player: int) -> float:
    """The notebook's evaluation."""
    outcome = position.outcome()
    if outcome.is_over:
        return WIN * outcome.results[player]
    return travel(position, 1 - player) - travel(position, player)


def scrambled(position: sternhalma.Position, player: int) -> float:
    """Another zero-sum evaluation: a number read off the position's hash."""
    value = position.zobrist_hash % 201 - 100
    return value if player == 0 else -value


EVALUATIONS = {"evaluate": evaluate, "another evaluation": scrambled}


def ordered(position: sternhalma.Position) -> list[sternhalma.Move]:
    """The notebook's move ordering: the moves that gain the most first."""
    me = position.side_to_move

    def gain(move: sternhalma.Move) -> int:
        target = TARGETS[me]
        assert move.from_hole is not None and move.to_hole is not None  # no pass in this game
        before = min(BOARD.distance(move.from_hole, t) for t in target)
        after = min(BOARD.distance(move.to_hole, t) for t in target)
        return before - after

    return sorted(position.legal_moves, key=gain, reverse=True)


# ---- adapters: run in the student's process ------------------------------------------


@course.adapter
def negamax(ns, position, depth, evaluation):
    return ns["negamax"](position, depth, EVALUATIONS[evaluation])


@course.adapter
def alphabeta(ns, position, depth, alpha, beta):
    return ns["alphabeta"](position, depth, alpha, beta, evaluate)


@course.adapter
def bot_step(ns, position, budget):
    return ns["StudentBot"](evaluate, ordered, budget).step(position)


@course.adapter
def bot_steps(ns, position, budget, plies):
    """One bot (its state kept) moving `plies` times from `position`: its
    moves, each pushed on the position before the next step."""
    bot = ns["StudentBot"](evaluate, ordered, budget)
    moves = []
    for _ in range(plies):
        move = bot.step(position)
        moves.append(move)
        position.push(move)
    return moves


# ---- references: run in the grader ---------------------------------------------------


def reference(position, depth, evaluation, sign=-1):
    """Negamax; with `sign=+1` the children's values are taken without the minus (a sign error)."""
    if depth == 0 or position.is_game_over():
        return evaluation(position, position.side_to_move)
    best = -INF
    for move in position.legal_moves:
        position.push(move)
        best = max(best, sign * reference(position, depth - 1, evaluation, sign))
        position.pop()
    return best


def pruned(position, depth, alpha, beta, made):
    """Alpha-beta in the order of `legal_moves`, cut at alpha >= beta: the
    positions it makes go into `made` (by hash)."""
    if depth == 0 or position.is_game_over():
        return evaluate(position, position.side_to_move)
    best = -INF
    for move in position.legal_moves:
        position.push(move)
        made.add(position.zobrist_hash)
        best = max(best, -pruned(position, depth - 1, -beta, -alpha, made))
        position.pop()
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best


def tree_of(position, depth):
    """The positions a full negamax makes: every move, down to `depth` or the game's end."""
    if depth == 0 or position.is_game_over():
        return 0
    return sum(1 + tree_of(position.play(move), depth - 1) for move in position.legal_moves)


def near_end(rng):
    """A held-out position one move before the end of a game between two seeded greedy bots."""
    position = grading.opening(START, rng.randrange(2, 9), rng)
    bots = [sternhalma.Bot("greedy", seed=rng.randrange(1000)) for _ in range(2)]
    while not position.is_game_over():
        before = position.copy()
        position.push(bots[position.side_to_move].step(position))
    return before


def depth_hint(got, case, depth, evaluation):
    """Why a value may be wrong: a sign error, the wrong depth, the wrong evaluation."""
    if got == reference(case.copy(), depth, evaluation, +1):
        return " (a sign error?)"
    for other in (depth - 1, depth + 1):
        if other >= 0 and got == reference(case.copy(), other, evaluation):
            return f" (the value at depth {other}: a depth off by one?)"
    if evaluation is scrambled and got == reference(case.copy(), depth, evaluate):
        return " (not the evaluate passed in?)"
    if isinstance(got, float) and abs(got) == INF:
        return " (searched past the end of the game?)"
    return ""


def number(answer, what):
    value = answer.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Failed(f"{what}: answered {value!r}, not a number")
    return value


def unchanged(answer, case, what):
    """Whether the call left its position as given (sent without history: no moves on its stack)."""
    ((text, stack),) = answer.after
    if text != str(case) or stack != 0:
        raise Failed(f"{what} changed the position it was given: pop every move it pushes")


def cases(name, graded, visible, held_out):
    """The visible cases, then under grading the held-out ones drawn by `held_out(rng)`."""
    found = [(f"the start{'' if label is None else ' ' + label}", case) for label, case in visible]
    if graded:
        rng = grading.held_out(name)
        found += [(f"held-out position {i}", case) for i, case in enumerate(held_out(rng))]
    return found


def openings(count, rng, ends=0):
    found = [grading.opening(START, rng.randrange(2, 15), rng) for _ in range(count)]
    return found + [near_end(rng) for _ in range(ends)]


# ---- parts ---------------------------------------------------------------------------


@course.part("test-negamax-values")
def negamax_values(student: Student, graded: bool) -> None:
    for label, case in cases(
        "nb3-negamax", graded, [(None, START)], lambda rng: openings(4, rng, ends=2)
    ):
        depths = (0, 1) if case is START else (1, 2, 3)
        for depth in depths:
            for name, evaluation in EVALUATIONS.items():
                if case is START and evaluation is scrambled:
                    continue
                what = f"negamax, depth {depth}, {label}, {name}"
                got = number(student.call("negamax", case, depth, name), what)
                want = reference(case.copy(), depth, evaluation)
                if got != want:
                    hint = depth_hint(got, case, depth, evaluation)
                    raise Failed(f"{what}: {got}, expected {want}{hint}")


@course.part("test-negamax-in-place")
def negamax_in_place(student: Student, graded: bool) -> None:
    for label, case in cases(
        "nb3-negamax-in-place", graded, [(None, START)], lambda rng: openings(3, rng, ends=2)
    ):
        for depth in (2,) if case is START else (1, 2, 3):
            what = f"negamax at depth {depth}, {label}"
            answer = student.call("negamax", case, depth, "evaluate", trace=True)
            _ = answer.value
            unchanged(answer, case, what)
            tree = tree_of(case, depth)
            if answer.positions != tree:
                raise Failed(
                    f"{what}: made {answer.positions} positions, the tree holds {tree}"
                    " (each position within the depth made once, by push or play)"
                )
            # The positions themselves, not only their number: every one in the tree.
            everything: set[int] = set()
            collect(case.copy(), depth, everything)
            if not answer.made() <= everything:
                raise Failed(f"{what}: made positions outside the tree of that depth")


def collect(position, depth, into):
    if depth == 0 or position.is_game_over():
        return
    for move in position.legal_moves:
        position.push(move)
        into.add(position.zobrist_hash)
        collect(position, depth - 1, into)
        position.pop()


@course.part("test-alphabeta-value")
def alphabeta_value(student: Student, graded: bool) -> None:
    for label, case in cases(
        "nb3-alphabeta-value", graded, [(None, START)], lambda rng: openings(4, rng, ends=2)
    ):
        for depth in (1,) if case is START else (1, 2, 3):
            what = f"alphabeta at depth {depth}, {label}, full window"
            answer = student.call("alphabeta", case, depth, -INF, INF)
            got = number(answer, what)
            want = reference(case.copy(), depth, evaluate)
            if got != want:
                raise Failed(
                    f"{what}: {got}, expected {want}{depth_hint(got, case, depth, evaluate)}"
                )
            unchanged(answer, case, what)


@course.part("test-alphabeta-pruning")
def alphabeta_pruning(student: Student, graded: bool) -> None:
    # Graded on what the engine saw: the positions made, against the ones
    # alpha-beta makes trying the moves in `legal_moves` order (a search that
    # gets the value with fewer positions some other way, a table of values
    # say, is not alpha-beta).
    for label, case in cases(
        "nb3-alphabeta-pruning", graded, [(None, START)], lambda rng: openings(5, rng)
    ):
        what = f"alphabeta at depth 3, {label}"
        answer = student.call("alphabeta", case, 3, -INF, INF, trace=True)
        got = number(answer, what)
        want = reference(case.copy(), 3, evaluate)
        if got != want:
            raise Failed(f"{what}: {got}, expected {want}")
        full = tree_of(case, 3)
        if answer.positions >= full:
            raise Failed(f"{what} made {answer.positions} positions, negamax {full}: no pruning?")
        expected: set[int] = set()
        pruned(case.copy(), 3, -INF, INF, expected)
        made = answer.made()
        differ = len(made ^ expected)
        if differ > max(2, len(expected) // 10):
            raise Failed(
                f"{what}: {len(made)} positions made, {differ} of them not where alpha-beta goes"
                f" ({len(expected)} positions, trying the moves in legal_moves order and cutting"
                " when alpha >= beta): does it narrow the window with -beta, -alpha?"
            )


def within(got, v, alpha, beta):
    """Whether `got` is what alpha-beta may return for the true value `v` and this window."""
    if v <= alpha:
        return got <= alpha
    if v >= beta:
        return got >= beta
    return got == v


@course.part("test-alphabeta-window")
def alphabeta_window(student: Student, graded: bool) -> None:
    v = reference(START.copy(), 1, evaluate)
    checks = [
        ("the start", START, 1, v, (v - 1, v + 1)),
        ("the start", START, 1, v, (v + 1, v + 5)),
    ]
    checks.append(("the start", START, 1, v, (v - 5, v - 1)))
    if graded:
        rng = grading.held_out("nb3-alphabeta-window")
        for i in range(4):
            case = grading.opening(START, rng.randrange(2, 15), rng)
            depth = rng.choice((2, 3))
            value = reference(case.copy(), depth, evaluate)
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            windows = [
                (value - a, value + b),
                (value + a, value + a + b),
                (value - a - b, value - a),
            ]
            windows += [(value, value + b), (value - a, value)]
            checks += [(f"held-out position {i}", case, depth, value, w) for w in windows]
    for label, case, depth, value, (alpha, beta) in checks:
        what = f"alphabeta at depth {depth}, {label}, window ({alpha}, {beta})"
        got = number(student.call("alphabeta", case, depth, alpha, beta), what)
        if not within(got, value, alpha, beta):
            raise Failed(f"{what}: {got}, value {value}")


@course.part("test-bot-legal")
def bot_legal(student: Student, graded: bool) -> None:
    answer = student.call("bot_steps", START, 300, 6)
    moves = answer.value
    probe = START.copy()
    for move in moves if isinstance(moves, list) else [moves]:
        if not isinstance(move, sternhalma.Move) or move not in probe.legal_moves:
            raise Failed(f"StudentBot.step at ply {probe.ply}: {move!r} is not a legal move")
        probe.push(move)
    if graded:
        rng = grading.held_out("nb3-bot-legal")
        for i, case in enumerate(openings(3, rng, ends=2)):
            for budget in (50, 137, 500):
                what = f"StudentBot.step ({budget} nodes) on held-out position {i}"
                answer = student.call("bot_step", case, budget)
                if answer.value not in case.legal_moves:
                    raise Failed(f"{what}: {answer.value!r} is not legal")
                unchanged(answer, case, what)


@course.part("test-bot-budget")
def bot_budget(student: Student, graded: bool) -> None:
    checks = []
    probe = START.copy()
    rng = random.Random(3)
    for _ in range(4):
        checks.append((f"ply {probe.ply} from the start", probe.copy(), 300))
        probe.push(rng.choice(probe.legal_moves))
    if graded:
        rng = grading.held_out("nb3-bot-budget")
        for i in range(5):
            case = grading.opening(START, rng.randrange(2, 21), rng)
            checks += [
                (f"held-out position {i}", case, b) for b in (50, 137, 500, rng.randrange(20, 400))
            ]
    for label, case, budget in checks:
        answer = student.call("bot_step", case, budget)
        _ = answer.value
        if answer.positions == 0:
            raise Failed(f"StudentBot.step at {label} made no position: it must search")
        if answer.positions > budget:
            raise Failed(
                f"StudentBot.step at {label} made {answer.positions} positions: over its budget of"
                f" {budget} nodes (check the budget before each push, not between depths)"
            )


def wins_at_once(position):
    """The moves that win the game at once for the side to move."""
    me = position.side_to_move
    return [move for move in position.legal_moves if position.play(move).outcome().winner == me]


def won_in_one(position, bots):
    """The first position, as `bots` play on from `position`, where the side to move can win
    at once (None if the game ends without one)."""
    position = position.copy()
    while not position.is_game_over():
        if wins_at_once(position):
            return position
        position.push(bots[position.side_to_move].step(position))
    return None


@course.part("test-bot-won-in-one")
def bot_won_in_one(student: Student, graded: bool) -> None:
    greedy = [sternhalma.Bot("greedy", seed=0), sternhalma.Bot("greedy", seed=1)]
    checks = [("the visible position", won_in_one(START, greedy), 300)]
    if graded:
        rng = grading.held_out("nb3-bot-won-in-one")
        found: list[sternhalma.Position] = []
        while len(found) < 5:
            kinds = rng.choice((("greedy", "greedy"), ("greedy", "random"), ("random", "greedy")))
            bots = [sternhalma.Bot(kind, seed=rng.randrange(1000)) for kind in kinds]
            case = won_in_one(grading.opening(START, rng.randrange(2, 9), rng), bots)
            if case is not None:
                found.append(case)
        checks += [
            (f"held-out position {i}", c, rng.choice((50, 137, 500))) for i, c in enumerate(found)
        ]
    for label, case, budget in checks:
        move = student.call("bot_step", case, budget).value
        if move not in wins_at_once(case):
            raise Failed(
                f"StudentBot.step ({budget} nodes) on {label} played {move},"
                f" where {wins_at_once(case)[0]} wins at once"
            )


def score(student: Student, games: int, first_seed: int) -> tuple[int, int, int]:
    """(wins, draws, losses) of the student's bot (300 nodes) against greedy
    over seeded games, alternating who moves first; two random plies open each."""
    wins = draws = losses = 0
    for game in range(games):
        seed = first_seed + game
        first = game % 2
        position = sternhalma.Position.start(board="rhombus5p3", rules=RULES, first_player=first)
        opening = random.Random(seed)
        for _ in range(2):
            position.push(opening.choice(position.legal_moves))
        greedy = sternhalma.Bot("greedy", seed=seed)
        while not position.is_game_over():
            if position.side_to_move == 0:
                move = student.call("bot_step", position, 300).value
                if move not in position.legal_moves:
                    raise Failed(
                        f"StudentBot.step played {move!r}, not a legal move, in game {game}"
                    )
            else:
                move = greedy.step(position)
            position.push(move)
        winner = position.outcome().winner
        wins += winner == 0
        losses += winner == 1
        draws += winner is None
    return wins, draws, losses


@course.part("test-bot-strength")
def bot_strength(student: Student, graded: bool) -> None:
    record = score(student, 40, 1000 if graded else 0)
    interval = wilson(record[0] + record[1] / 2, sum(record))
    if not interval.above(0.5):
        raise Failed(
            f"StudentBot vs greedy over 40 seeded games (wins, draws, losses {record}): score"
            f" {interval}, not above 1/2: search deeper than one move"
        )
