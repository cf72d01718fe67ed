//! Runs every perft fixture in `tests/fixtures/perft.txt`.

use sternhalma::{Position, perft};

#[test]
fn perft_fixtures() {
    let text = include_str!("fixtures/perft.txt");
    let mut checked = 0;
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
        for (depth, expected) in counts.split_whitespace().enumerate() {
            let expected: u64 = expected.parse().expect("a count");
            assert_eq!(
                perft(&position, depth as u32 + 1),
                expected,
                "line {}, depth {}: {position}",
                number + 1,
                depth + 1
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} fixtures read");
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
