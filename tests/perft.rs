//! Runs every perft fixture in `tests/fixtures/perft.txt`, and checks the
//! swap-rule and solved-game fixtures against the reference implementation
//! in `common`.

mod common;

use common::reference_perft;
use sternhalma::{AntiSpoiling, IllegalPositions, Move, Position, Rules, perft};

/// Each fixture: its line number, the position and the counts by depth.
fn fixtures() -> Vec<(usize, Position, Vec<u64>)> {
    let text = include_str!("fixtures/perft.txt");
    let mut fixtures = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (position, counts) = line
            .split_once(';')
            .unwrap_or_else(|| panic!("line {}: expected `position; counts`", number + 1));
        let position: Position = position
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("line {}: {e}", number + 1));
        let counts = counts
            .split_whitespace()
            .map(|count| count.parse().expect("a count"))
            .collect();
        fixtures.push((number + 1, position, counts));
    }
    fixtures
}

#[test]
fn perft_fixtures() {
    let fixtures = fixtures();
    for (line, position, counts) in &fixtures {
        for (depth, &expected) in counts.iter().enumerate() {
            assert_eq!(
                perft(position, depth as u32 + 1),
                expected,
                "line {line}, depth {}: {position}",
                depth + 1
            );
        }
    }
    assert!(
        fixtures.len() >= 10,
        "only {} fixtures read",
        fixtures.len()
    );
}

/// Swaps whose witness is a chain (the last hop of several lands on the
/// swapped peg) within `depth` plies.
fn chain_swaps(position: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 0;
    }
    let mut found = 0;
    for mv in position.legal_moves() {
        if matches!(mv, Move::Swap { .. }) && position.witness_path(mv).len() > 2 {
            found += 1;
        }
        let undo = position.make_move(mv);
        found += chain_swaps(position, depth - 1);
        position.unmake_move(mv, undo);
    }
    found
}

#[test]
fn swap_fixtures_agree_with_the_reference() {
    let mut checked = 0;
    let mut chains = 0;
    for (line, position, counts) in fixtures() {
        if position.rules().anti_spoiling != AntiSpoiling::Swap {
            continue;
        }
        for (depth, &expected) in counts.iter().enumerate() {
            assert_eq!(
                reference_perft(&position, depth as u32 + 1),
                expected,
                "line {line}, depth {}, by the reference: {position}",
                depth + 1
            );
        }
        chains += chain_swaps(&mut position.clone(), 2);
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} swap fixtures read");
    assert!(
        chains > 0,
        "no swap fixture reaches a chain that ends in a swap"
    );
}

#[test]
fn solved_game_fixtures_agree_with_the_reference() {
    let mut checked = 0;
    let mut differ = 0;
    for (line, position, counts) in fixtures() {
        if position.rules().illegal_positions != IllegalPositions::Sturtevant {
            continue;
        }
        for (depth, &expected) in counts.iter().enumerate() {
            assert_eq!(
                reference_perft(&position, depth as u32 + 1),
                expected,
                "line {line}, depth {}, by the reference: {position}",
                depth + 1
            );
        }
        // The same counts without the rule against illegal positions: the
        // fixtures must meet it.
        let mut free = position.to_setup();
        free.rules = Rules {
            illegal_positions: IllegalPositions::None,
            ..free.rules
        };
        let free = free.validate().unwrap();
        differ += usize::from(
            (1..=counts.len()).any(|depth| perft(&free, depth as u32) != counts[depth - 1]),
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} solved-game fixtures read");
    assert!(
        differ >= 2,
        "only {differ} fixtures meet an illegal position"
    );
}

#[test]
fn perft_by_depth_agrees_with_perft() {
    let position: Position = "star4 classic south:111-120/south_west:65,75,76,86-88,98-101/north:0-9/north_east:19-22,32-34,44,45,55 0 0 -"
        .parse()
        .unwrap();
    let by_depth = sternhalma::perft_by_depth(&position, 4);
    let one_by_one: Vec<u64> = (1..=4).map(|d| perft(&position, d)).collect();
    assert_eq!(by_depth, one_by_one);
}
