//! The perfect bot and the tablebase probe on 7×7 with 2 pegs (RULES §7):
//! from every start and from a sample of won positions it wins, in exactly
//! the plies the table says, against every opponent; a lost position is
//! held as long as the table says; every move's value agrees with the
//! position it leads to.
//!
//! Each test solves its table into tables of its own, which its bots are
//! given: no test sees another's.

use std::sync::Arc;

use sternhalma::search::perfect::PerfectBot;
use sternhalma::search::{BotConfig, BotKind, Rng, new_bot};
use sternhalma::solve::{Game, Tablebase, Tablebases, Value};
use sternhalma::{Layout, Move, Position, Rules};

/// 7×7 with 2 pegs, solved, in a set of tables of its own.
fn tables_7x7_2() -> (Game, Arc<Tablebase>, Arc<Tablebases>) {
    let game = Game::new(7, 2).unwrap();
    let table = Arc::new(Tablebase::build(&game, 2, &|_| {}).unwrap());
    let tables = Arc::new(Tablebases::default());
    tables.install(Arc::clone(&table));
    (game, table, tables)
}

fn start(game: &Game) -> Position {
    Position::start(
        game.board(),
        Layout::standard(2).unwrap(),
        Rules::sturtevant(),
    )
    .unwrap()
}

/// Positions reached by `count` random games of up to 40 plies, each
/// stopped at a random ply.
fn sample(game: &Game, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut position = start(game);
        let stop = rng.below(40);
        for _ in 0..stop {
            if position.is_game_over() {
                break;
            }
            let moves = position.legal_moves();
            position = position.play(moves[rng.below(moves.len())]).unwrap();
        }
        if !position.is_game_over() {
            out.push(position);
        }
    }
    out
}

/// Plays `position` out, `perfect` (a seat index) against `opponent`,
/// both bots given `tables`; returns the winner's seat and the plies
/// played.
fn play_out(
    tables: &Arc<Tablebases>,
    position: &Position,
    perfect: usize,
    opponent: BotKind,
    seed: u64,
) -> (usize, u32) {
    let mut bots = [
        new_bot(
            &BotConfig::new(BotKind::Perfect).with_seed(seed),
            Some(tables),
        ),
        new_bot(&BotConfig::new(opponent).with_seed(seed + 1), Some(tables)),
    ];
    let mut position = position.clone();
    let mut plies = 0;
    while !position.is_game_over() {
        let mover = position.side_to_move();
        let bot = if mover == perfect { 0 } else { 1 };
        let mv: Move = bots[bot].step(&position);
        position = position.play(mv).unwrap();
        plies += 1;
        assert!(plies < 400, "a game that does not end");
    }
    // The side to move at the end has lost (RULES §7).
    (1 - position.side_to_move(), plies)
}

#[test]
fn the_perfect_bot_wins_every_won_position_in_the_plies_the_table_says() {
    let (game, table, tables) = tables_7x7_2();
    let mut positions = vec![start(&game)];
    positions.extend(sample(&game, 300, 7));
    let mut won = 0;
    for (i, position) in positions.iter().enumerate() {
        let probe = table.probe(position).unwrap();
        let mover = position.side_to_move();
        match probe.value {
            Value::Win => {
                won += 1;
                for opponent in [BotKind::Random, BotKind::Greedy, BotKind::Perfect] {
                    let (winner, plies) = play_out(&tables, position, mover, opponent, i as u64);
                    assert_eq!(winner, mover, "{position} against {opponent}");
                    // The fastest win: never slower than the table's depth,
                    // and exactly it against perfect defence.
                    assert!(Some(plies) <= probe.depth, "{position}: {plies} plies");
                    if opponent == BotKind::Perfect {
                        assert_eq!(Some(plies), probe.depth, "{position}");
                    }
                }
            }
            Value::Loss => {
                // Against perfect attack, the loser holds out the longest.
                let (winner, plies) =
                    play_out(&tables, position, 1 - mover, BotKind::Perfect, i as u64);
                assert_eq!(winner, 1 - mover);
                assert_eq!(Some(plies), probe.depth, "{position}");
            }
            other => panic!("7x7 with 2 pegs has no {other} positions: {position}"),
        }
    }
    assert!(won >= 100, "{won} won positions in the sample");
}

#[test]
fn every_move_is_worth_what_its_position_is_worth() {
    let (game, table, _tables) = tables_7x7_2();
    for position in sample(&game, 200, 11) {
        let moves = table.moves(&position).unwrap();
        assert_eq!(moves.len(), position.legal_moves().len());
        let probe = table.probe(&position).unwrap();
        let mut best = None;
        for m in &moves {
            let after = table.probe(&position.play(m.mv).unwrap()).unwrap();
            let flipped = match after.value {
                Value::Win => Value::Loss,
                Value::Loss => Value::Win,
                v => v,
            };
            assert_eq!(m.value, flipped, "{position} {}", m.mv);
            assert_eq!(m.depth, after.depth.map(|d| d + 1));
            if m.value == Value::Win {
                best = best.min(m.depth).or(m.depth);
            }
        }
        // A won position has a winning move of its depth; a lost one none.
        match probe.value {
            Value::Win => assert_eq!(best, probe.depth, "{position}"),
            _ => assert_eq!(best, None, "{position}"),
        }
    }
}

#[test]
fn the_perfect_bot_is_reproducible_and_falls_back_where_no_table_covers() {
    let (game, _table, tables) = tables_7x7_2();
    let position = &sample(&game, 1, 3)[0];
    let run = |seed| {
        new_bot(
            &BotConfig::new(BotKind::Perfect).with_seed(seed),
            Some(&tables),
        )
        .search(position)
    };
    let (a, b) = (run(4), run(4));
    assert_eq!(
        (
            a.best_move,
            a.principal_variation,
            a.nodes,
            a.depth,
            a.score.to_bits()
        ),
        (
            b.best_move,
            b.principal_variation,
            b.nodes,
            b.depth,
            b.score.to_bits()
        )
    );
    let classic = Position::start(
        "rhombus5p3".parse().unwrap(),
        Layout::standard(2).unwrap(),
        Rules::classic(),
    )
    .unwrap();
    let e = PerfectBot::covers(&tables, &classic).unwrap_err();
    assert_eq!(e.code(), "no_tablebase", "{e}");
    let result = new_bot(&BotConfig::new(BotKind::Perfect), Some(&tables)).search(&classic);
    assert!(classic.is_legal(result.best_move));
    // The table is in these tables only: a bot given none cannot play
    // from it, and says so where it is asked to choose.
    let refused = PerfectBot::new(BotConfig::new(BotKind::Perfect), Arc::default())
        .choose(position)
        .unwrap_err();
    assert_eq!(refused.code(), "no_tablebase", "{refused}");
}

#[test]
fn an_analysed_game_marks_the_random_sides_mistakes_and_none_of_perfect_play() {
    use sternhalma::solve::analysis::{AnalysisError, Verdict, analyse};
    let (game, table, tables) = tables_7x7_2();
    let mut mistakes_seen = 0;
    for seed in 0..20u64 {
        let start = start(&game);
        let mut bots = [
            new_bot(
                &BotConfig::new(BotKind::Perfect).with_seed(seed),
                Some(&tables),
            ),
            new_bot(&BotConfig::new(BotKind::Random).with_seed(seed), None),
        ];
        // Seats alternate between games: perfect is seat `seed % 2`.
        let perfect = (seed % 2) as usize;
        let mut position = start.clone();
        let mut moves = Vec::new();
        while !position.is_game_over() && moves.len() < 300 {
            let seat = position.side_to_move();
            let mv = bots[usize::from(seat != perfect)].step(&position);
            moves.push(mv);
            position = position.play(mv).unwrap();
        }
        let report = analyse(&table, &start, &moves).unwrap();
        assert_eq!(report.plies.len(), moves.len());
        let p = report.seats[perfect];
        assert_eq!((p.mistakes, p.best, p.kept), (0, p.moves, p.moves));
        assert_eq!(p.accuracy(), Some(1.0));
        let r = report.seats[1 - perfect];
        assert_eq!(r.kept + r.mistakes, r.moves);
        for ply in &report.plies {
            // A mistake is exactly a worse value; best is the best's depth.
            let worse = match (ply.before.value, ply.after.value) {
                (Value::Win, v) => v != Value::Win,
                (Value::Draw, v) => v == Value::Loss,
                _ => false,
            };
            assert_eq!(ply.verdict == Verdict::Mistake, worse, "ply {}", ply.ply);
            if ply.verdict == Verdict::Best {
                assert_eq!(ply.after, ply.best.probe());
            }
            assert_eq!(ply.before, ply.best.probe());
        }
        mistakes_seen += r.mistakes;
        // The value at the end: the side to move has lost.
        if position.is_game_over() {
            assert_eq!(report.end.value, Value::Loss);
        }
    }
    assert!(mistakes_seen > 0, "random play never erred in 20 games");
    // A move that is not legal where it is played names its ply.
    let start = start(&game);
    let first = start.legal_moves()[0];
    let e = analyse(&table, &start, &[first, first]).unwrap_err();
    assert!(
        matches!(e, AnalysisError::IllegalMove { ply: 1, .. }),
        "{e}"
    );
    assert_eq!(e.code(), "illegal_move");
}
