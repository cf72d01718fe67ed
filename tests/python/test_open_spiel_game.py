"""The game registered with open_spiel (`sternhalma.open_spiel`): loaded by
`pyspiel.load_game`, checked by open_spiel's own tests, and played by its own
algorithms (MCTS, evaluate_bots, minimax) unchanged, against the module's
rules and bots."""

from __future__ import annotations

import doctest
import pickle
import random
import subprocess
import sys

import numpy as np
import pyspiel
import pytest
import sternhalma
import sternhalma.open_spiel
from open_spiel.python.algorithms import evaluate_bots, mcts, minimax
from open_spiel.python.observation import make_observation
from sternhalma import Bot, IllegalMoveError, NotationError, Position, Rules
from support import GAME_SETUPS, Setup

ZERO_SUM = pyspiel.GameType.Utility.ZERO_SUM
GENERAL_SUM = pyspiel.GameType.Utility.GENERAL_SUM


def parameters(setup: Setup) -> dict[str, object]:
    """open_spiel's parameters for a test setup of `Position.start`."""
    params: dict[str, object] = {"board": setup.board, "rules": setup.rules}
    params["players"] = setup.start().num_players()
    if not setup.layout.isdigit():
        params["layout"] = setup.layout
    params.update(setup.overrides)
    return params


def load(setup: Setup):
    return pyspiel.load_game("sternhalma", parameters(setup))


# ---- The game and its parameters ---------------------------------------------


def test_registered_on_import() -> None:
    assert "sternhalma" in pyspiel.registered_names()
    registered = {t.short_name: t for t in pyspiel.registered_games()}["sternhalma"]
    assert registered.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert registered.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert registered.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert registered.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert registered.utility == ZERO_SUM
    assert (registered.min_num_players, registered.max_num_players) == (1, 6)
    assert dict(registered.parameter_specification) == sternhalma.open_spiel.PARAMETERS


def test_defaults_are_those_of_position_start() -> None:
    game = pyspiel.load_game("sternhalma")
    assert str(game) == "sternhalma()"
    # Position.start's game, with the move limit of a game programs play (the
    # one stored matches get: classic has none of its own).
    limit = Position().program_move_limit()
    assert Position().rules.max_plies is None
    assert str(game.new_initial_state()) == str(Position.start(max_plies=limit))
    assert game.num_players() == 2
    assert game.num_distinct_actions() == 121 * 121 + 1
    assert game.get_type().utility == ZERO_SUM and game.utility_sum() == 0.0
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.max_game_length() == limit == game.new_initial_state().position.rules.max_plies
    assert game.observation_tensor_shape() == [4, 121]
    # Without a limit (the rules' own alone, none for classic), open_spiel is
    # told the largest length it holds.
    unlimited = pyspiel.load_game("sternhalma", {"max_plies": -2})
    assert str(unlimited.new_initial_state()) == str(Position.start()) == str(Position())
    assert unlimited.max_game_length() == 2**31 - 1


def test_the_default_move_limit_is_the_core_s() -> None:
    """The default limit is `Position.program_move_limit()` (the core's
    `NewGame::program_move_limit`): 200 turns for each player whatever the
    players, the rules' own when they have one."""
    for players in (1, 2, 3, 4, 6):
        start = Position.start(layout=players)
        turns = start.program_move_limit() / players
        game = pyspiel.load_game("sternhalma", {"players": players})
        assert game.max_game_length() == start.program_move_limit()
        assert game.new_initial_state().position.rules.max_plies == start.program_move_limit()
        assert turns == Position().program_move_limit() / 2
    research = Position.start(rules="research")
    assert research.program_move_limit() == research.rules.max_plies
    assert pyspiel.load_game("sternhalma", {"rules": "research"}).max_game_length() == 200


def test_the_default_move_limit_never_changes_the_board() -> None:
    # classic with fill_available and a limit prints as "research,max_plies=400",
    # whose default board is the rhombus; the limit keeps classic's star.
    game = pyspiel.load_game("sternhalma", {"anti_spoiling": "fill_available"})
    state = game.new_initial_state()
    assert str(state.position.board) == str(Position.start(anti_spoiling="fill_available").board)
    assert str(state.position.board) == "star4"
    assert str(state.position.rules) == "research,max_plies=400"


def test_a_game_ends_at_the_default_move_limit() -> None:
    """Random play on the default game (classic, two players) ends at the
    limit, by the rules: a draw by the move limit, returns as the core gives."""
    game = pyspiel.load_game("sternhalma")
    state = game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.move_number() == game.max_game_length()
    position = state.position
    assert position.ply == game.max_game_length()
    assert position.outcome().status == "draw"
    assert state.returns() == position.outcome().results == [0.0, 0.0]
    assert state.current_player() == pyspiel.PlayerId.TERMINAL


@pytest.mark.parametrize(
    "params, start, utility, longest",
    [
        (
            {"board": "star2", "rules": "masters", "max_plies": 60},
            Position.start(board="star2", rules="masters", max_plies=60),
            ZERO_SUM,
            60,
        ),
        ({"rules": "research"}, Position.start(rules="research"), ZERO_SUM, 200),
        (
            {"players": 3, "board": "star2", "rules": "family", "max_plies": 100},
            Position.start(board="star2", layout="3", rules="family", max_plies=100),
            ZERO_SUM,
            100,
        ),
        (
            {"players": 1, "board": "star2", "max_plies": 30},
            Position.start(board="star2", layout="1", max_plies=30),
            GENERAL_SUM,
            30,
        ),
        (
            {"players": 3, "layout": "3x2", "board": "star2", "max_plies": 0},
            Position.start(board="star2", layout="3x2", max_plies=0),
            ZERO_SUM,
            0,
        ),
        (
            {"players": 6, "long_jumps": "on", "finish": "ranking", "first_player": 4},
            Position.start(
                layout="6", long_jumps=True, finish="ranking", first_player=4, max_plies=1200
            ),
            ZERO_SUM,
            1200,
        ),
        (
            {"unused_triangles": "filled", "rest_in_foreign_triangles": "forbidden"},
            Position.start(
                unused_triangles="filled", rest_in_foreign_triangles="forbidden", max_plies=400
            ),
            ZERO_SUM,
            400,
        ),
        (
            {"rules": "masters", "anti_spoiling": "fill_available", "max_plies": -2},
            Position.start(rules="masters", anti_spoiling="fill_available"),
            ZERO_SUM,
            2**31 - 1,
        ),
        (
            {"players": 4, "rules": "masters", "max_plies": -1},
            Position.start(layout="4", rules="masters", max_plies=800),
            ZERO_SUM,
            800,
        ),
        (
            {"rules": "research", "max_plies": -2},
            Position.start(rules="research"),
            ZERO_SUM,
            200,
        ),
    ],
)
def test_load_game_with_parameters(params, start: Position, utility, longest: int) -> None:
    game = pyspiel.load_game("sternhalma", params)
    state = game.new_initial_state()
    assert str(state) == str(start)
    assert state.current_player() == start.current_player()
    assert state.legal_actions() == start.legal_actions()
    players = start.num_players()
    assert game.num_players() == state.num_players() == players
    assert game.num_distinct_actions() == start.num_distinct_actions()
    assert game.get_type().utility == utility
    assert game.utility_sum() == (0.0 if players > 1 else None)
    assert game.max_game_length() == longest
    assert game.observation_tensor_shape() == [players + 2, len(start.board)]
    # The game string names what differs from the defaults, and loads again.
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game)
    assert str(again.new_initial_state()) == str(start)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)


def test_rule_options_are_every_option_of_rules() -> None:
    """Every option of `Rules` is a parameter (so none is out of reach for
    lack of a way to write it in a game string)."""
    options = {
        name
        for name in dir(Rules("classic"))
        if not name.startswith("_") and not callable(getattr(Rules("classic"), name))
    }
    assert options == {*sternhalma.open_spiel.RULE_OPTIONS, "max_plies"}
    assert set(sternhalma.open_spiel.RULE_OPTIONS) <= set(sternhalma.open_spiel.PARAMETERS)


@pytest.mark.parametrize(
    "params, error, words",
    [
        ({"players": 2, "layout": "3x2"}, ValueError, "set players=3"),
        ({"rules": "classic,long_jumps=on"}, ValueError, "splits on commas"),
        ({"max_plies": -3}, ValueError, "max_plies"),
        ({"board": "star9"}, NotationError, "star9"),
        ({"rules": "blitz"}, NotationError, "blitz"),
        ({"long_jumps": "maybe"}, NotationError, "long_jumps"),
        ({"first_player": 2}, sternhalma.InvalidPositionError, "player 2 is to move"),
        ({"colour": "red"}, pyspiel.SpielError, "Unknown parameter 'colour'"),
        ({"players": "2"}, pyspiel.SpielError, "Wrong type"),
    ],
)
def test_bad_parameters(params, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        pyspiel.load_game("sternhalma", params)


# ---- open_spiel's own checks -----------------------------------------------------


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_open_spiel_random_sim_test(setup: Setup) -> None:
    """open_spiel's API conformance test (`RandomSimTest`, C++): clones,
    serialization through game and state strings, sorted and unique legal
    actions, none for the other players, legal-action masks, observation
    tensors and strings, rewards adding up to the returns, returns within the
    utility range and summing as the utility type says, the length within
    `max_game_length`."""
    pyspiel.random_sim_test(load(setup), num_sims=2, serialize=True, verbose=False)


def test_open_spiel_random_sim_test_from_a_given_position() -> None:
    game = pyspiel.load_game("sternhalma", {"board": "star2", "rules": "masters", "max_plies": 100})
    start = game.new_initial_state(
        "star2 masters,max_plies=100 south:2,12,20/north:23,34,36 1 40 -"
    )
    pyspiel.random_sim_test(
        game, num_sims=2, serialize=True, verbose=False, specific_initial_state=start
    )


# ---- Games through the wrapper agree with the module ----------------------------


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
@pytest.mark.parametrize("seed", range(2))
def test_random_games_agree_with_the_module(setup: Setup, seed: int) -> None:
    """A random game played through the open_spiel state and, beside it, on a
    plain Position: the same actions, move texts, players and results at every
    ply, by the Python calls and by open_spiel's C++ ones."""
    game = load(setup)
    state = game.new_initial_state()
    position = setup.start()
    players = position.num_players()
    rng = random.Random(seed)
    actions = []
    while not state.is_terminal():
        assert not position.is_terminal()
        player = state.current_player()
        assert player == position.current_player()
        assert not state.is_chance_node() and state.is_player_node()
        legal = state.legal_actions()
        assert legal == position.legal_actions()
        assert state.legal_actions(player) == legal
        # open_spiel's own path, through C++ and the `_legal_actions` hook.
        assert pyspiel.State.legal_actions(state) == legal
        assert pyspiel.State.legal_actions(state, player) == legal
        for other in range(players):
            if other != player:
                assert state.legal_actions(other) == []
                assert pyspiel.State.legal_actions(state, other) == []
        assert [state.action_to_string(player, a) for a in legal] == [
            str(position.action_to_move(a)) for a in legal
        ]
        assert state.rewards() == [0.0] * players
        assert state.returns() == [0.0] * players == position.returns()
        action = rng.choice(legal)
        state.apply_action(action)
        position.apply_action(action)
        actions.append(action)
        assert str(state) == str(position)
    assert position.is_terminal()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.legal_actions() == [] and pyspiel.State.legal_actions(state) == []
    assert state.history() == actions
    assert state.move_number() == len(actions)
    assert len(actions) <= game.max_game_length()
    returns = state.returns()
    assert returns == position.returns() == position.outcome().results
    assert state.rewards() == returns
    assert [state.player_return(p) for p in range(players)] == returns
    if players > 1:
        assert sum(returns) == pytest.approx(0.0, abs=1e-9)
    else:
        assert returns in ([0.0], [1.0])


def test_illegal_actions_raise_the_modules_error() -> None:
    game = pyspiel.load_game("sternhalma")
    state = game.new_initial_state()
    with pytest.raises(IllegalMoveError) as caught:
        state.apply_action(111 * 121 + 112)
    assert caught.value.code == "hole_occupied"
    assert state.history() == [] and str(state) == str(game.new_initial_state())
    # A number that is not a legal move here is named, not guessed.
    assert state.action_to_string(0, 111 * 121 + 112) == f"action {111 * 121 + 112}"
    assert state.action_to_string(0, 115 * 121 + 104) == "115-104"


def test_pass_action() -> None:
    # Under `finish = round`, a finished player passes until the round ends.
    text = "star2 classic,finish=round south:0-2/north:30-32 0 1 0@1"
    game = pyspiel.load_game("sternhalma", {"board": "star2", "finish": "round", "max_plies": -2})
    state = game.new_initial_state(text)
    assert state.legal_actions() == [37 * 37]
    assert state.action_to_string(0, 37 * 37) == "pass"
    state.apply_action(37 * 37)
    # The round is over: player 0, who finished, wins.
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_a_position_without_the_game_s_move_limit_is_refused() -> None:
    """The default game has a move limit: a position string without it is
    of another game, and the error says how to load that one."""
    game = pyspiel.load_game("sternhalma")
    with pytest.raises(ValueError, match="max_plies=-2"):
        game.new_initial_state(str(Position()))
    limited = Position.start(max_plies=game.max_game_length())
    assert str(game.new_initial_state(str(limited))) == str(limited)
    unlimited = pyspiel.load_game("sternhalma", {"max_plies": -2})
    assert str(unlimited.new_initial_state(str(Position()))) == str(Position())


def test_undo_action_is_refused() -> None:
    """open_spiel keeps the history in C++; a Python game cannot take an
    action back from it, so undo_action says so rather than desynchronise."""
    state = pyspiel.load_game("sternhalma").new_initial_state()
    state.apply_action(115 * 121 + 104)
    with pytest.raises(pyspiel.SpielError, match="UndoAction"):
        state.undo_action(0, 115 * 121 + 104)


# ---- Copies, serialization, positions ------------------------------------------


def played(game, plies: int, seed: int = 1):
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(plies):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_clone_and_child_are_independent() -> None:
    game = pyspiel.load_game("sternhalma", {"board": "star2", "rules": "masters", "max_plies": 60})
    state = played(game, 5)
    twin = state.clone()
    assert str(twin) == str(state) and twin.history() == state.history()
    action = twin.legal_actions()[0]
    twin.apply_action(action)
    assert state.history() == twin.history()[:-1] and str(state) != str(twin)
    child = state.child(action)
    assert str(child) == str(twin) and child.history() == twin.history()
    assert len(state.history()) == 5


def test_position_is_a_copy() -> None:
    state = played(pyspiel.load_game("sternhalma"), 3)
    position = state.position
    assert isinstance(position, Position) and str(position) == str(state)
    assert len(position.move_stack) == 3
    position.push(position.legal_moves[0])
    assert len(state.history()) == 3 and state.position.ply == 3


def test_serialize_round_trip() -> None:
    game = pyspiel.load_game("sternhalma", {"board": "star2", "rules": "masters", "max_plies": 60})
    state = played(game, 7)
    again = game.deserialize_state(state.serialize())
    assert str(again) == str(state)
    assert again.history() == state.history()
    assert again.move_number() == state.move_number() == 7
    assert again.position.move_stack == state.position.move_stack
    # The copy plays on like the original.
    for _ in range(5):
        action = state.legal_actions()[-1]
        assert again.legal_actions() == state.legal_actions()
        state.apply_action(action)
        again.apply_action(action)
    assert str(again) == str(state)
    # With the game, as open_spiel's own tools save them; and pickled.
    text = pyspiel.serialize_game_and_state(game, state)
    game_again, state_again = pyspiel.deserialize_game_and_state(text)
    assert str(game_again) == str(game)
    assert str(state_again) == str(state) and state_again.history() == state.history()
    unpickled = pickle.loads(pickle.dumps(state))
    assert str(unpickled) == str(state) and unpickled.history() == state.history()


def test_states_from_positions() -> None:
    game = pyspiel.load_game("sternhalma", {"board": "star2", "rules": "masters", "max_plies": 60})
    state = played(game, 4)
    from_text = game.new_initial_state(str(state))
    assert str(from_text) == str(state)
    assert from_text.legal_actions() == state.legal_actions()
    assert from_text.history() == []  # a new game from that position
    # The JSON form (open_spiel's to_dict / to_json), and back.
    as_dict = state.to_dict()
    assert as_dict == state.position.to_json()
    assert str(game.new_initial_state(as_dict)) == str(state)
    # Only positions of this game.
    with pytest.raises(ValueError, match="not of this game"):
        game.new_initial_state(str(Position.start(board="star2", rules="classic")))
    with pytest.raises(ValueError, match="not of this game"):
        game.new_initial_state(str(Position()))
    with pytest.raises(NotationError):
        game.new_initial_state("star2 masters nonsense")


def test_action_structs() -> None:
    state = pyspiel.load_game("sternhalma").new_initial_state()
    action = 115 * 121 + 104
    assert state.action_to_struct(0, action).to_dict() == {"move": "115-104"}
    assert state.string_to_action("115-104") == action
    assert state.apply_action_struct(state.action_to_struct(0, action)).ok()
    assert state.history() == [action]


# ---- Observations ------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 6])
def test_observation_tensor_from_each_players_view(players: int) -> None:
    game = pyspiel.load_game("sternhalma", {"board": "star2", "players": players})
    state = played(game, 4)
    position = state.position
    holes = len(position.board)
    to_move = state.current_player()
    ours = np.asarray(state.observation_tensor(to_move), dtype=np.float32)
    # For the player to move: exactly the module's tensor.
    np.testing.assert_array_equal(ours, position.observation_tensor().ravel())
    for player in range(players):
        planes = np.asarray(state.observation_tensor(player)).reshape(players + 2, holes)
        for plane in range(players):
            owner = (player + plane) % players
            assert np.flatnonzero(planes[plane]).tolist() == position.player_pegs(owner)
        np.testing.assert_array_equal(planes[players:], position.observation_tensor()[players:])
        assert state.observation_string(player) == str(position)
        # Perfect recall: the information state is the history.
        assert state.information_state_string(player) == state.history_str()


def test_make_observation() -> None:
    """open_spiel's Python observation API on the game's observer."""
    game = pyspiel.load_game("sternhalma", {"board": "star2", "players": 3})
    state = played(game, 5)
    observation = make_observation(game)
    observation.set_from(state, 1)
    np.testing.assert_array_equal(observation.tensor, state.observation_tensor(1))
    assert observation.dict["observation"].shape == (5, 37)
    assert observation.string_from(state, 1) == str(state)
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert info.string_from(state, 0) == state.history_str()
    assert not game.get_type().provides_information_state_tensor
    with pytest.raises(ValueError, match="not supported"):
        make_observation(game, params={"planes": 3})


# ---- open_spiel's algorithms, unchanged ----------------------------------------------

MCTS_GAME = {"board": "star2", "rules": "masters", "max_plies": 60}


def mcts_bot(game, seed: int, simulations: int):
    rng = np.random.RandomState(seed)
    return mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=simulations,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        random_state=rng,
    )


def replayed(game, state) -> Position:
    """The game's actions replayed on a plain Position from the start."""
    position = Position(str(game.new_initial_state()))
    for action in state.history():
        position.apply_action(action)
    return position


@pytest.mark.parametrize("mcts_seat", [0, 1])
def test_mcts_against_alphabeta_with_evaluate_bots(mcts_seat: int) -> None:
    """open_spiel's MCTSBot (50 simulations, random rollouts) against the
    module's alpha-beta (depth 2), played by open_spiel's evaluate_bots, in
    both seats. Within 60 plies a random rollout on star2 under masters
    rarely finishes, so MCTS sees little; alpha-beta, with its evaluation,
    wins."""
    game = pyspiel.load_game("sternhalma", MCTS_GAME)
    histories = []
    for _ in range(2):  # twice: the same seeds play the same game
        alphabeta = sternhalma.open_spiel.SternhalmaBot(Bot("alphabeta", depth=2, seed=7))
        bots = [mcts_bot(game, 3, 50), alphabeta]
        if mcts_seat == 1:
            bots.reverse()
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(3))
        assert state.is_terminal()
        assert returns == state.returns()
        position = replayed(game, state)
        assert position.is_terminal() and str(position) == str(state)
        assert returns == position.returns() == position.outcome().results
        assert sum(returns) == 0.0
        histories.append(state.history())
    assert histories[0] == histories[1]
    assert returns[1 - mcts_seat] == 1.0, f"alpha-beta lost: {position.outcome().status}"


@pytest.mark.parametrize("mcts_seat", [0, 1])
def test_mcts_beats_random_on_the_smallest_board(mcts_seat: int) -> None:
    """On star1 (one peg each) random rollouts finish, so MCTS sees the
    returns through the wrapper; it beats open_spiel's uniform random bot.
    (With returns of the wrong sign, or the wrong player's, it would not.)"""
    game = pyspiel.load_game("sternhalma", {"board": "star1", "max_plies": 20})
    for seed in range(3):
        bots = [mcts_bot(game, seed, 30), pyspiel.make_uniform_random_bot(1 - mcts_seat, seed)]
        if mcts_seat == 1:
            bots.reverse()
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(seed))
        assert returns[mcts_seat] == 1.0, (seed, state.history())
        assert returns == replayed(game, state).returns()


def test_mcts_with_random_rollouts_on_the_default_game() -> None:
    """open_spiel's MCTSBot with random rollouts on the default game (the
    standard classic game): each rollout ends at the default move limit, so
    a step returns (without a limit one step ran for over 10 minutes)."""
    game = pyspiel.load_game("sternhalma")
    assert game.max_game_length() < 2**31 - 1
    bot = mcts.MCTSBot(
        game,
        2,
        20,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        random_state=np.random.RandomState(0),
    )
    state = game.new_initial_state()
    for _ in range(3):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.move_number() == 3 and not state.is_terminal()


def solved(position: Position, player: int) -> float:
    """The exact value for `player`, by plain minimax on the module's
    positions: the oracle open_spiel's search is checked against."""
    if position.is_terminal():
        return position.returns()[player]
    values = [solved(position.child(a), player) for a in position.legal_actions()]
    return max(values) if position.current_player() == player else min(values)


@pytest.mark.parametrize("max_plies, value", [(8, 0.0), (9, 1.0)])
def test_alpha_beta_search_solves_the_smallest_board(max_plies: int, value: float) -> None:
    """open_spiel's alpha_beta_search, to the end of the game, on star1 with
    a move limit: a draw within 8 plies, a win for the first player from 9."""
    game = pyspiel.load_game("sternhalma", {"board": "star1", "max_plies": max_plies})
    found, action = minimax.alpha_beta_search(game, maximum_depth=max_plies)
    start = Position.start(board="star1", max_plies=max_plies)
    assert found == solved(start, 0) == value
    assert action in start.legal_actions()
    assert solved(start.child(action), 0) == value


def test_depth_limited_searches_agree() -> None:
    """alpha_beta_search and expectiminimax with the same value function
    (the difference in progress, from the module) find the same value."""
    game = pyspiel.load_game("sternhalma", MCTS_GAME)
    state = played(game, 6)

    def value(searched) -> float:
        position = searched.position
        return sternhalma.progress(position, 0) - sternhalma.progress(position, 1)

    best, action = minimax.alpha_beta_search(
        game, state=state, value_function=value, maximum_depth=2, maximizing_player_id=0
    )
    expected, expected_action = minimax.expectiminimax(state, 2, value, 0)
    assert best == pytest.approx(expected)
    assert action in state.legal_actions() and expected_action in state.legal_actions()
    # Player 0 moves, player 1 answers: the value is the worst answer's.
    after = state.child(action)
    assert not after.is_terminal()
    assert best == pytest.approx(min(value(after.child(b)) for b in after.legal_actions()))


# ---- The bot adapter, the docstrings, and installing without open_spiel ------------------


def test_sternhalma_bot_plays_the_modules_move() -> None:
    game = pyspiel.load_game("sternhalma", MCTS_GAME)
    state = played(game, 3)
    bot = sternhalma.open_spiel.SternhalmaBot(Bot("alphabeta", depth=2, seed=1))
    assert isinstance(bot, pyspiel.Bot)
    action = bot.step(state)
    assert action in state.legal_actions()
    position = state.position
    assert action == position.move_to_action(Bot("alphabeta", depth=2, seed=1).step(position))
    assert len(state.history()) == 3  # the bot only looks


def test_docstring_examples() -> None:
    results = doctest.testmod(sternhalma.open_spiel, optionflags=doctest.ELLIPSIS)
    assert results.attempted > 10
    assert results.failed == 0


def test_without_open_spiel_the_import_says_what_to_install() -> None:
    code = (
        "import sys\nsys.modules['pyspiel'] = None\n"
        "try:\n    import sternhalma.open_spiel\n"
        "except ImportError as error:\n    print(error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 'pip install "sternhalma[open_spiel]"' in out.stdout
