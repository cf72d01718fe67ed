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
