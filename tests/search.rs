//! The bots, pinned without the clock: node and depth budgets only.

use sternhalma::search::eval::Evaluator;
use sternhalma::search::{
    Bot, BotConfig, BotKind, Budget, arena, distance_to_target, evaluate, new_bot,
};
use sternhalma::{Board, Cell, Layout, Move, Position, Rules};

fn start(board: &str, players: usize, rules: &str) -> Position {
    Position::start(
        board.parse::<Board>().unwrap(),
        Layout::standard(players).unwrap(),
        rules.parse::<Rules>().unwrap(),
    )
    .unwrap()
}

/// A position `plies` into a game of greedy bots (seeded), still in progress.
fn middle_game(players: usize, plies: u32) -> Position {
    let mut position = start("star4", players, "classic");
    let mut bots: Vec<Box<dyn Bot>> = (0..players)
        .map(|seat| {
            new_bot(
                &BotConfig::new(BotKind::Greedy).with_seed(seat as u64 + 11),
                None,
            )
        })
        .collect();
    for _ in 0..plies {
        let mv = bots[position.side_to_move()].step(&position);
        position.make_move(mv);
    }
    assert!(!position.is_game_over());
    position
}

fn config(kind: BotKind, budget: Budget, seed: u64) -> BotConfig {
    BotConfig::new(kind).with_budget(budget).with_seed(seed)
}

#[test]
fn kinds_parse_and_print_their_names() {
    for kind in BotKind::ALL {
        assert_eq!(kind.name().parse::<BotKind>(), Ok(kind));
        assert_eq!(kind.to_string(), kind.name());
    }
    assert!("minimax".parse::<BotKind>().is_err());
    assert_eq!(
        BotKind::ALL.map(BotKind::name),
        [
            "random",
            "greedy",
            "alphabeta",
            "paranoid",
            "mcts",
            "perfect"
        ]
    );
}

#[test]
fn every_bot_is_deterministic_under_a_seed_and_a_node_budget() {
    for (players, plies) in [(2, 20), (3, 30)] {
        let position = middle_game(players, plies);
        for kind in BotKind::ALL {
            let budget = match kind {
                BotKind::Mcts => Budget::nodes(300),
                _ => Budget::nodes(3_000),
            };
            let run = |seed| new_bot(&config(kind, budget, seed), None).search(&position);
            let (a, b) = (run(5), run(5));
            assert_eq!(a.best_move, b.best_move, "{kind} on {players} players");
            assert_eq!(a.principal_variation, b.principal_variation, "{kind}");
            assert_eq!(a.nodes, b.nodes, "{kind}");
            assert_eq!(a.depth, b.depth, "{kind}");
            assert_eq!(a.score.to_bits(), b.score.to_bits(), "{kind}");
            assert!(position.is_legal(a.best_move), "{kind}");
            assert_eq!(a.principal_variation[0], a.best_move, "{kind}");
            assert!((-1.0..=1.0).contains(&a.score), "{kind}: {}", a.score);
            if kind != BotKind::Random && kind != BotKind::Greedy {
                assert!(a.nodes <= budget.nodes.unwrap() + 1, "{kind}: {}", a.nodes);
            }
        }
    }
}

#[test]
fn the_principal_variation_is_a_legal_line() {
    let position = middle_game(2, 16);
    for kind in [BotKind::AlphaBeta, BotKind::Mcts] {
        let result = new_bot(&config(kind, Budget::nodes(2_000), 1), None).search(&position);
        let mut line = position.clone();
        for &mv in &result.principal_variation {
            assert!(line.is_legal(mv), "{kind}: {mv} in {line}");
            line.make_move(mv);
        }
    }
}

#[test]
fn greedy_plays_a_move_of_the_best_evaluation() {
    for seed in 0..6 {
        let position = middle_game(2, 10 + seed as u32);
        let mover = position.side_to_move();
        let value = |mv: Move| evaluate(&position.play(mv).unwrap(), mover);
        let best = position
            .legal_moves()
            .into_iter()
            .map(value)
            .fold(f64::NEG_INFINITY, f64::max);
        let chosen =
            new_bot(&BotConfig::new(BotKind::Greedy).with_seed(seed), None).step(&position);
        assert_eq!(value(chosen), best, "seed {seed}");
    }
}

/// Star4, two players: south's pegs fill north's triangle but hole 9, and
/// one more peg stands on `last`; north's pegs wait in the middle rows.
fn nearly_home(last: Cell) -> Option<Position> {
    let middle: Vec<usize> = (56..=64)
        .chain(std::iter::once(46))
        .filter(|&id| id != last.id())
        .take(10)
        .collect();
    if middle.len() < 10 || last.id() <= 9 {
        return None;
    }
    let list = |ids: &[usize]| {
        ids.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut south: Vec<usize> = (0..9).collect();
    south.push(last.id());
    format!(
        "star4 classic south:{}/north:{} 0 40 -",
        list(&south),
        list(&middle)
    )
    .parse()
    .ok()
}

fn wins_now(position: &Position) -> bool {
    let mover = position.side_to_move();
    position
        .legal_moves()
        .into_iter()
        .any(|mv| position.play(mv).unwrap().outcome().results(2)[mover] > 0.0)
}

#[test]
fn alphabeta_finds_a_win_in_one() {
    let geometry = Board::STANDARD.geometry();
    let hole9 = Cell::new(9).unwrap();
    let last = geometry
        .cells()
        .find(|&c| c.id() > 9 && geometry.distance(c, hole9) == 1)
        .unwrap();
    let position = nearly_home(last).unwrap();
    for kind in [BotKind::AlphaBeta, BotKind::Paranoid] {
        let result = new_bot(&config(kind, Budget::nodes(5_000), 3), None).search(&position);
        let after = position.play(result.best_move).unwrap();
        assert_eq!(after.outcome().results(2), [1.0, -1.0], "{kind}");
        assert_eq!(result.score, 1.0 - 1e-6, "{kind}");
    }
}

#[test]
fn alphabeta_finds_a_win_in_two() {
    let geometry = Board::STANDARD.geometry();
    let hole9 = Cell::new(9).unwrap();
    // A spot from which south cannot finish at once, but can in two moves.
    let position = geometry
        .cells()
        .filter(|&c| geometry.distance(c, hole9) >= 2)
        .filter_map(nearly_home)
        .find(|p| {
            !wins_now(p)
                && p.legal_moves().into_iter().any(|mv| {
                    let after = p.play(mv).unwrap();
                    after
                        .legal_moves()
                        .into_iter()
                        .all(|reply| wins_now(&after.play(reply).unwrap()))
                })
        })
        .expect("a win in two exists");
    let mut bot = new_bot(&config(BotKind::AlphaBeta, Budget::depth(3), 1), None);
    let result = bot.search(&position);
    assert!(result.score > 0.99, "{result:?}");
    let after = position.play(result.best_move).unwrap();
    for reply in after.legal_moves() {
        let next = after.play(reply).unwrap();
        let finish = bot.step(&next);
        assert_eq!(next.play(finish).unwrap().outcome().results(2)[0], 1.0);
    }
}

#[test]
fn a_forced_pass_is_played() {
    let stuck: Position = "rhombus4p6 classic south:0-4,15/north:5,10-14 0 0 -"
        .parse()
        .unwrap();
    for kind in BotKind::ALL {
        assert_eq!(
            new_bot(&BotConfig::new(kind), None).step(&stuck),
            Move::Pass,
            "{kind}"
        );
    }
}

#[test]
fn alphabeta_on_three_players_runs_the_paranoid_search() {
    let position = middle_game(3, 12);
    let a = new_bot(&config(BotKind::AlphaBeta, Budget::nodes(4_000), 2), None).search(&position);
    let p = new_bot(&config(BotKind::Paranoid, Budget::nodes(4_000), 2), None).search(&position);
    assert_eq!(a.best_move, p.best_move);
    assert_eq!(a.principal_variation, p.principal_variation);
    assert_eq!((a.nodes, a.depth), (p.nodes, p.depth));
    assert!(a.depth >= 1);
}

#[test]
fn bots_never_play_illegal_moves_and_mcts_answers_legal_moves() {
    for (board, players, rules) in [
        ("star2", 2, "classic,max_plies=60"),
        ("star3", 3, "classic,max_plies=60"),
        ("rhombus5p3", 2, "research,max_plies=60"),
        ("star2", 6, "super,max_plies=40"),
    ] {
        let first = start(board, players, rules);
        for kind in [BotKind::AlphaBeta, BotKind::Paranoid, BotKind::Mcts] {
            let mut bots: Vec<Box<dyn Bot>> = (0..players)
                .map(|seat| {
                    let kind = if seat == 0 { kind } else { BotKind::Random };
                    new_bot(&config(kind, Budget::nodes(400), seat as u64), None)
                })
                .collect();
            let mut position = first.clone();
            while !position.legal_moves().is_empty() {
                let mv = bots[position.side_to_move()].step(&position);
                assert!(position.is_legal(mv), "{kind} played {mv} in {position}");
                position.make_move(mv);
            }
        }
    }
}

#[test]
fn alphabeta_beats_random_in_a_small_seeded_arena() {
    // Anti-spoiling, so random pegs that never leave their start cannot
    // block the winner's target forever.
    let rules = "classic,anti_spoiling=fill_available,max_plies=200";
    let position = start("star3", 2, rules);
    let result = arena::arena(
        &config(BotKind::AlphaBeta, Budget::nodes(1_000), 1),
        &BotConfig::new(BotKind::Random).with_seed(1),
        &position,
        10,
    );
    assert_eq!(result.games, 10);
    assert!(result.wins >= 8, "{result:?}");
}

#[test]
fn evaluation_helpers_agree_with_the_evaluator() {
    let position = middle_game(2, 30);
    let evaluator = Evaluator::new(&position);
    for player in 0..2 {
        assert_eq!(
            evaluator.distance_to_target(&position, player),
            distance_to_target(&position, player)
        );
    }
    assert_eq!(
        f64::from(evaluator.evaluate(&position, 0)),
        evaluate(&position, 0)
    );
}
