"""`sternhalma.envs`: the PettingZoo AEC environment and the Gymnasium
solitaire environment pass their libraries' own checkers, agree with the
module move by move, and render; `Position.rgb_array` draws the pixels."""

from __future__ import annotations

import doctest
import importlib
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
import sternhalma
import sternhalma.envs
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
from sternhalma import IllegalMoveError, Position
from sternhalma.envs import SOLITAIRE_ID, SolitaireEnv, SternhalmaEnv, sternhalma_v0
from sternhalma.envs import solitaire as solitaire_module

# Games short enough for a random agent to finish (see test_random_games_end).
SHORT_GAMES: list[dict[str, Any]] = [
    {"board": "star2"},
    {"board": "star2", "layout": 3},
    {"board": "rhombus5p3"},
    {"board": "star1", "layout": 6},
]
# api_test warns about every dict observation of an environment it does not
# know by name; those warnings say nothing about ours.
EXPECTED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
)
SOUTH = [0xD5, 0x5E, 0x00]
NORTH = [0x00, 0x72, 0xB2]


def random_game(
    environment: Any, seed: int, check: Any = None
) -> tuple[dict[str, float], Position]:
    """Plays a seeded random agent to the end of the game (uniform among
    the legal actions of the mask); returns the reward each agent saw when
    it was done, and the last position."""
    chooser = random.Random(seed)
    final: dict[str, float] = {}
    position = environment.unwrapped.position
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        if check is not None:
            check(environment, agent, observation)
        if terminated or truncated:
            final[agent] = reward
            position = environment.unwrapped.position
            environment.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        environment.step(int(chooser.choice(legal)))
    return final, position


# ---- PettingZoo ------------------------------------------------------------------


@pytest.mark.parametrize("make", [sternhalma_v0.env, sternhalma_v0.raw_env], ids=["env", "raw"])
@pytest.mark.parametrize("options", [{}, *SHORT_GAMES], ids=str)
def test_pettingzoo_api_test_passes(make: Any, options: dict[str, Any]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(**options), num_cycles=1000)
    unexpected = {
        str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_API_WARNINGS)
    }
    assert not unexpected


@pytest.mark.parametrize("options", SHORT_GAMES[:2], ids=str)
def test_pettingzoo_seed_test_passes(options: dict[str, Any]) -> None:
    seed_test(lambda: sternhalma_v0.env(**options), num_cycles=500)


def test_metadata_and_agents_follow_pettingzoo() -> None:
    environment = sternhalma_v0.env(board="star2", layout=3)
    assert environment.metadata["name"] == "sternhalma_v0"
    assert environment.metadata["is_parallelizable"] is False
    assert environment.metadata["render_modes"] == ["svg", "rgb_array", "ansi"]
    assert isinstance(environment.unwrapped, SternhalmaEnv)
    assert sternhalma_v0.raw_env is SternhalmaEnv
    environment.reset()
    assert environment.possible_agents == ["player_0", "player_1", "player_2"]
    assert environment.agent_selection == "player_0"
    space = environment.observation_space("player_1")
    assert space["observation"].shape == (5, 37)
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].dtype == np.int8
    assert environment.action_space("player_1").n == 37 * 37 + 1
    # A game that starts with another player to move selects that agent.
    start = Position.start(board="star2", first_player=1)
    raw = SternhalmaEnv(start=start)
    raw.reset()
    assert raw.agent_selection == "player_1"


@pytest.mark.parametrize("options", SHORT_GAMES, ids=str)
def test_random_games_end_with_the_returns_as_rewards(options: dict[str, Any]) -> None:
    environment = sternhalma_v0.env(**options)
    environment.reset(seed=1)
    final, position = random_game(environment, seed=1)
    assert position.is_terminal()
    assert position.outcome().status in ("won", "ranking")
    returns = position.returns()
    assert final == {f"player_{i}": value for i, value in enumerate(returns)}
    assert sorted(final) == environment.possible_agents
    assert environment.agents == []


def test_masks_and_observations_agree_with_the_module_at_every_step() -> None:
    checked = []

    def check(environment: Any, agent: str, observation: dict[str, Any]) -> None:
        raw = environment.unwrapped
        position = raw.position
        seat = int(agent.removeprefix("player_"))
        players = position.num_players()
        done = raw.terminations[agent] or raw.truncations[agent]
        assert agent == f"player_{position.side_to_move}" or done
        assert observation["action_mask"].dtype == np.int8
        legal = [] if done else sorted(position.legal_actions())
        assert np.flatnonzero(observation["action_mask"]).tolist() == legal
        # Every agent sees the board from its own seat; only the agent to
        # move has a mask.
        for other in raw.agents:
            other_seat = int(other.removeprefix("player_"))
            seen = raw.observe(other)
            planes = seen["observation"]
            for i in range(players):
                pegs = position.player_pegs((other_seat + i) % players)
                assert np.flatnonzero(planes[i]).tolist() == sorted(pegs)
            tensor = position.observation_tensor()
            assert np.array_equal(planes[players:], tensor[players:])
            if other_seat == position.side_to_move:
                assert np.array_equal(planes, tensor)
            elif other != agent:
                assert not seen["action_mask"].any()
        # state() is seat 0's view.
        state = raw.state()
        for i in range(players):
            assert np.flatnonzero(state[i]).tolist() == sorted(position.player_pegs(i))
        checked.append(seat)

    environment = sternhalma_v0.env(board="star2", layout=3)
    environment.reset()
    _, position = random_game(environment, seed=5, check=check)
    assert len(checked) == position.ply + position.num_players()


def test_observations_are_fresh_arrays() -> None:
    environment = sternhalma_v0.raw_env(board="star2")
    environment.reset()
    first = environment.observe("player_0")
    first["action_mask"][:] = 0
    first["observation"][:] = 0
    again = environment.observe("player_0")
    assert again["action_mask"].any()
    assert again["observation"].any()


def test_the_move_limit_truncates() -> None:
    environment = sternhalma_v0.env(max_plies=5)
    environment.reset()
    steps = 0
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        if truncated:
            assert not terminated
            assert reward == 0
            assert not observation["action_mask"].any()
            environment.step(None)
            continue
        assert not terminated
        environment.step(int(np.flatnonzero(observation["action_mask"])[0]))
        steps += 1
    assert steps == 5
    assert environment.unwrapped.position.ply == 5
    assert not environment.unwrapped.position.is_terminal()
    with pytest.raises(ValueError, match="max_plies"):
        sternhalma_v0.raw_env(max_plies=0)


def test_the_default_environment_truncates_at_the_program_move_limit() -> None:
    """The default game (classic, two players, no limit of its own) stops,
    for a random agent, at the limit stored matches get: every agent is
    truncated there with reward 0, and the rules have not ended the game."""
    environment = sternhalma_v0.env(seed=3)
    limit = Position().program_move_limit()
    assert environment.unwrapped.max_plies == limit
    environment.reset()
    chooser = random.Random(3)
    ends = {}
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            ends[agent] = (terminated, truncated, reward)
            environment.step(None)
            continue
        environment.step(int(chooser.choice(np.flatnonzero(observation["action_mask"]))))
    position = environment.unwrapped.position
    assert position.ply == limit
    assert not position.is_terminal()
    assert ends == {"player_0": (False, True, 0.0), "player_1": (False, True, 0.0)}
    # Six players get 200 turns each as well.
    six = sternhalma_v0.raw_env(layout=6)
    assert six.max_plies == Position.start(layout=6).program_move_limit() == 3 * limit


def test_the_rules_move_limit_is_a_scored_draw() -> None:
    # The rules end the game at their own limit: a termination with the
    # rules' scores, before the environment's limit.
    environment = sternhalma_v0.env(rules={"preset": "classic", "max_plies": 4}, max_plies=10)
    environment.reset()
    final, position = random_game(environment, seed=2)
    assert position.ply == 4
    assert position.outcome().status == "draw"
    assert final == {"player_0": position.returns()[0], "player_1": position.returns()[1]}
    raw = sternhalma_v0.raw_env(rules={"preset": "classic", "max_plies": 2})
    raw.reset()
    for _ in range(2):
        raw.step(int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])[0]))
    assert all(raw.terminations.values())
    assert not any(raw.truncations.values())


def test_a_seeded_run_replays() -> None:
    def trajectory(seed: int) -> list[tuple[str, int]]:
        environment = sternhalma_v0.env(board="rhombus5p3", seed=seed)
        environment.reset()
        played = []
        for agent in environment.agent_iter(200):
            observation, _, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                environment.step(None)
                continue
            action = environment.action_space(agent).sample(observation["action_mask"])
            played.append((agent, int(action)))
            environment.step(action)
        return played

    assert trajectory(7) == trajectory(7)
    assert trajectory(7) != trajectory(8)
    # reset(seed=...) reseeds; a later reset() without one goes on.
    environment = sternhalma_v0.raw_env(board="star2")
    environment.reset(seed=3)
    first = environment.np_random.integers(1 << 30)
    environment.reset(seed=3)
    assert environment.np_random.integers(1 << 30) == first


def test_an_illegal_action_raises_in_the_raw_environment() -> None:
    environment = sternhalma_v0.raw_env()
    environment.reset()
    with pytest.raises(IllegalMoveError) as raised:
        environment.step(0)
    assert raised.value.code == "not_your_peg"
    assert "player_0 played action 0" in "".join(raised.value.__notes__)
    # Nothing was played.
    assert environment.position == Position()
    assert environment.agent_selection == "player_0"
    with pytest.raises(ValueError, match="None"):
        environment.step(None)


def test_an_illegal_action_loses_in_the_wrapped_environment() -> None:
    environment = sternhalma_v0.env()
    environment.reset()
    environment.step(0)  # player 0 plays an illegal action
    rewards = {}
    for agent in environment.agent_iter():
        _, reward, terminated, truncated, _ = environment.last()
        assert terminated or truncated
        rewards[agent] = reward
        environment.step(None)
    assert rewards == {"player_0": -1, "player_1": 0}
    environment.reset()
    with pytest.raises(AssertionError):
        environment.step(10**9)  # outside the action space


def test_wrong_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="render_mode"):
        sternhalma_v0.raw_env(render_mode="human")
    with pytest.raises(ValueError, match="either start"):
        sternhalma_v0.raw_env(board="star2", start=Position())
    over = Position("star1 classic south:0/north:6 1 1 0@1")
    with pytest.raises(ValueError, match="already over"):
        sternhalma_v0.raw_env(start=over)


@pytest.mark.parametrize("mode", ["svg", "rgb_array", "ansi"])
def test_every_render_mode_draws_the_position(mode: str) -> None:
    environment = sternhalma_v0.env(render_mode=mode, render_size=200)
    environment.reset()
    environment.step(environment.unwrapped.position.legal_actions()[0])
    position = environment.unwrapped.position
    picture = environment.render()
    if mode == "svg":
        assert picture == position.svg(size=200)
        assert picture.startswith("<?xml")
    elif mode == "rgb_array":
        assert isinstance(picture, np.ndarray)
        assert picture.dtype == np.uint8 and picture.shape[1:] == (200, 3)
        assert np.array_equal(picture, position.rgb_array(size=200))
    else:
        assert picture == position.unicode()
        assert "player 1 to move, ply 1" in picture
    environment.close()


def test_render_without_a_mode_warns_and_returns_none() -> None:
    environment = sternhalma_v0.raw_env()
    environment.reset()
    with pytest.warns(UserWarning, match="render_mode"):
        assert environment.render() is None


# ---- Gymnasium -------------------------------------------------------------------


@pytest.mark.parametrize("mode", [None, "svg", "rgb_array", "ansi"])
def test_gymnasium_check_env_passes(mode: str | None) -> None:
    made = gymnasium.make(SOLITAIRE_ID, board="rhombus5p3", render_mode=mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Unwrapped, as check_env asks; with its spec, so every render mode
        # is made and checked too.
        check_env(made.unwrapped, skip_render_check=False)
    assert not [str(w.message) for w in caught]
    check_env(SolitaireEnv(render_mode=mode), skip_render_check=True)


def test_the_id_is_registered_once() -> None:
    assert gymnasium.spec(SOLITAIRE_ID).entry_point == "sternhalma.envs.solitaire:SolitaireEnv"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.reload(sternhalma.envs)
    assert isinstance(gymnasium.make(SOLITAIRE_ID).unwrapped, SolitaireEnv)


@pytest.mark.parametrize("board", ["rhombus5p3", "rhombus7p3", "star2"])
def test_following_the_solver_scores_minus_its_length(board: str) -> None:
    solution = sternhalma.solve_solitaire(board)
    environment = gymnasium.make(SOLITAIRE_ID, board=board)
    observation, info = environment.reset(seed=0)
    start = Position.start(board=board, layout="1")
    assert np.array_equal(observation, start.observation_tensor())
    total = 0.0
    for i, move in enumerate(solution.moves):
        position = environment.unwrapped.position
        action = position.move_to_action(move)
        assert info["action_mask"][action] == 1
        assert np.flatnonzero(info["action_mask"]).tolist() == sorted(position.legal_actions())
        observation, reward, terminated, truncated, info = environment.step(action)
        total += reward
        assert reward == -1.0
        assert terminated == (i == len(solution.moves) - 1)
        assert not truncated and not info["illegal_action"]
    assert total == -solution.length
    assert environment.unwrapped.position.outcome().status == "won"
    assert not info["action_mask"].any()


def test_solitaire_truncates_at_the_move_limit() -> None:
    environment = SolitaireEnv(board="star2", max_plies=3)
    environment.reset()
    results = []
    for _ in range(3):
        action = int(np.flatnonzero(environment.action_masks())[0])
        _, reward, terminated, truncated, _ = environment.step(action)
        results.append((reward, terminated, truncated))
    assert results == [(-1.0, False, False), (-1.0, False, False), (-1.0, False, True)]
    observation, _ = environment.reset()
    assert environment.position.ply == 0
    assert np.array_equal(observation, environment.position.observation_tensor())


def test_solitaire_illegal_actions_are_skipped_or_raise() -> None:
    environment = SolitaireEnv(board="star2", max_plies=2)
    environment.reset()
    before = environment.position
    observation, reward, terminated, truncated, info = environment.step(0)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, False, False, True)
    assert environment.position == before
    assert np.array_equal(observation, before.observation_tensor())
    # A skipped step still counts towards the limit.
    _, _, _, truncated, _ = environment.step(0)
    assert truncated
    strict = SolitaireEnv(board="star2", illegal_action="raise")
    strict.reset()
    with pytest.raises(IllegalMoveError) as raised:
        strict.step(0)
    assert raised.value.code
    with pytest.raises(ValueError, match="outside the action space"):
        strict.step(strict.action_space.n)
    with pytest.raises(ValueError, match="illegal_action"):
        SolitaireEnv(illegal_action="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_plies"):
        SolitaireEnv(max_plies=0)


def test_solitaire_masks_two_ways() -> None:
    environment = SolitaireEnv()
    _, info = environment.reset()
    masks = environment.action_masks()
    assert masks.dtype == np.bool_
    assert np.array_equal(masks, info["action_mask"].astype(bool))
    assert masks.sum() == len(Position.start(layout="1").legal_actions()) == 14
    assert environment.observation_space.shape == (3, 121)
    assert environment.action_space.n == 121 * 121 + 1


@pytest.mark.parametrize("mode", ["svg", "rgb_array", "ansi"])
def test_solitaire_renders(mode: str) -> None:
    environment = SolitaireEnv(board="rhombus5p3", render_mode=mode, render_size=100)
    environment.reset()
    picture = environment.render()
    position = environment.position
    if mode == "svg":
        assert picture == position.svg(size=100)
    elif mode == "rgb_array":
        assert np.array_equal(picture, position.rgb_array(size=100))
    else:
        assert picture == position.unicode()
    environment.close()
    with pytest.warns(UserWarning, match="render_mode"):
        assert SolitaireEnv().render() is None


# ---- Without the extra -----------------------------------------------------------


def test_without_the_extra_the_import_error_names_it() -> None:
    # A child process where PettingZoo cannot be imported.
    code = (
        "import sys\n"
        "sys.modules['pettingzoo'] = None\n"
        "import sternhalma\n"
        "assert sternhalma.Position().legal_actions()\n"
        "try:\n"
        "    import sternhalma.envs\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert 'pip install "sternhalma[rl]"' in result.stdout


# ---- Position.rgb_array ----------------------------------------------------------


def test_rgb_array_is_the_svg_picture_in_pixels() -> None:
    position = Position()
    position.push("115-104")
    for size in (None, 64, 301):
        image = position.rgb_array(size=size)
        svg = position.svg(size=size)
        width, height = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', svg).groups())
        assert image.shape == (height, width, 3)
        assert image.dtype == np.uint8
    image = position.rgb_array()
    colours = {tuple(pixel) for pixel in image.reshape(-1, 3)}
    assert tuple(SOUTH) in colours and tuple(NORTH) in colours
    assert image[0, 0].tolist() == [255, 255, 255]
    # Turned, north's pegs are at the bottom.
    turned = position.rgb_array(size=200, bottom="north")
    rows = np.flatnonzero((turned == NORTH).all(axis=2).any(axis=1))
    assert rows.min() > turned.shape[0] / 2
    with pytest.raises(ValueError):
        position.rgb_array(bottom="up")


# ---- Docstrings and surface ------------------------------------------------------


@pytest.mark.parametrize(
    "module", [sternhalma.envs, sternhalma_v0, solitaire_module], ids=lambda m: m.__name__
)
def test_docstring_examples(module: Any) -> None:
    finder = doctest.DocTestFinder()
    tests = [
        t for t in finder.find(module, globs={**vars(module), **vars(sternhalma)}) if t.examples
    ]
    assert tests
    for test in tests:
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        output: list[str] = []
        runner.run(test, out=output.append)
        assert not runner.failures, "".join(output)


@pytest.mark.parametrize("cls", [SternhalmaEnv, SolitaireEnv], ids=lambda c: c.__name__)
def test_every_public_member_is_named_here(cls: type) -> None:
    source = Path(__file__).read_text()
    members = [name for name in vars(cls) if not name.startswith("_")]
    missing = [name for name in members if not re.search(rf"\b{name}\b", source)]
    assert not missing
    assert all((getattr(cls, name).__doc__ or "").strip() for name in members if name != "metadata")
