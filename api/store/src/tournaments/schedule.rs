//! Who plays whom: a tournament's games, made once at creation and stored.
//!
//! - **Round robin**: every group of `players` entrants (every pair in a
//!   two-player game, every triple in a three-player game, ...) plays
//!   `games_per_pairing` games. Game `j` of a group seats it rotated by `j`:
//!   seat `s` gets the group's entrant `(s + j) mod players`, so with
//!   `games_per_pairing` a multiple of `players` every entrant of the group
//!   plays every start position equally often.
//! - **Gauntlet**: every entrant plays `games_per_pairing` games against the
//!   reference bot (which takes every other seat), its seat rotated the same
//!   way.
//!
//! Games are ordered round by round (the first game of every group, then
//! the second, ...), so a tournament stopped early has played every group
//! about equally.

/// A tournament's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every group of entrants plays every other, seats rotated.
    RoundRobin,
    /// Every entrant plays the reference bot, seats rotated.
    Gauntlet,
}

impl Format {
    /// The name stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::RoundRobin => "round_robin",
            Format::Gauntlet => "gauntlet",
        }
    }

    /// The format named `name` ([`Format::as_str`]).
    pub fn from_name(name: &str) -> Option<Format> {
        [Format::RoundRobin, Format::Gauntlet]
            .into_iter()
            .find(|format| format.as_str() == name)
    }
}

/// The number of games [`games`] makes, without making them (saturating),
/// so that a request for millions is refused before any is built.
pub fn count(format: Format, entrants: usize, players: usize, games_per_pairing: usize) -> usize {
    let groups = match format {
        Format::RoundRobin => binomial(entrants, players),
        Format::Gauntlet => entrants,
    };
    groups.saturating_mul(games_per_pairing)
}

fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut value: usize = 1;
    for i in 0..k {
        // Exact at every step: C(n, i + 1) = C(n, i) * (n - i) / (i + 1).
        value = match value.checked_mul(n - i) {
            Some(product) => product / (i + 1),
            None => return usize::MAX,
        };
    }
    value
}

/// The games, each as the entrant of every seat. For a round robin
/// `entrants` are all the entrants; for a gauntlet they are those who face
/// `reference`.
pub fn games(
    format: Format,
    entrants: &[usize],
    reference: Option<usize>,
    players: usize,
    games_per_pairing: usize,
) -> Vec<Vec<usize>> {
    let groups: Vec<Vec<usize>> = match (format, reference) {
        (Format::Gauntlet, Some(reference)) => entrants
            .iter()
            .map(|&entrant| {
                let mut group = vec![entrant];
                group.resize(players, reference);
                group
            })
            .collect(),
        _ => combinations(entrants, players),
    };
    let mut games = Vec::with_capacity(groups.len() * games_per_pairing);
    for round in 0..games_per_pairing {
        for group in &groups {
            games.push(
                (0..players)
                    .map(|seat| group[(seat + round) % players])
                    .collect(),
            );
        }
    }
    games
}

/// Every `k`-element subset of `items`, in lexicographic order of positions.
fn combinations(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    let n = items.len();
    if k == 0 || k > n {
        return Vec::new();
    }
    let mut picks: Vec<usize> = (0..k).collect();
    let mut all = Vec::new();
    loop {
        all.push(picks.iter().map(|&i| items[i]).collect());
        // The rightmost pick that can still move right.
        let Some(i) = (0..k).rev().find(|&i| picks[i] < n - k + i) else {
            return all;
        };
        picks[i] += 1;
        for j in i + 1..k {
            picks[j] = picks[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    // Every pair meets games_per_pairing times, and with a multiple of the
    // player count every entrant sits in every seat equally often.
    #[test]
    fn a_round_robin_plays_every_group_with_seats_rotated() {
        for (entrants, players, per) in [(5, 2, 2), (5, 3, 3), (6, 6, 6), (4, 4, 8), (3, 2, 1)] {
            let ids: Vec<usize> = (0..entrants).collect();
            let games = games(Format::RoundRobin, &ids, None, players, per);
            assert_eq!(
                games.len(),
                count(Format::RoundRobin, entrants, players, per)
            );
            let mut groups: HashMap<Vec<usize>, usize> = HashMap::new();
            let mut seats: HashMap<(usize, usize), usize> = HashMap::new();
            for game in &games {
                assert_eq!(game.len(), players);
                let mut group = game.clone();
                group.sort_unstable();
                group.dedup();
                assert_eq!(group.len(), players, "distinct entrants: {game:?}");
                *groups.entry(group).or_default() += 1;
                for (seat, &entrant) in game.iter().enumerate() {
                    *seats.entry((entrant, seat)).or_default() += 1;
                }
            }
            assert_eq!(groups.len(), binomial(entrants, players));
            assert!(groups.values().all(|&n| n == per), "{groups:?}");
            if per % players == 0 {
                let each = seats[&(0, 0)];
                assert!(seats.values().all(|&n| n == each), "{seats:?}");
                assert_eq!(seats.len(), entrants * players);
            }
        }
    }

    #[test]
    fn a_gauntlet_puts_every_entrant_in_every_seat_against_the_reference() {
        let games = games(Format::Gauntlet, &[1, 2, 3], Some(0), 3, 3);
        assert_eq!(games.len(), 9);
        assert_eq!(games[0], [1, 0, 0]);
        assert_eq!(games[3], [0, 0, 1], "second round: rotated");
        for entrant in 1..=3 {
            for seat in 0..3 {
                assert_eq!(
                    games.iter().filter(|g| g[seat] == entrant).count(),
                    1,
                    "entrant {entrant} seat {seat}"
                );
            }
        }
    }

    #[test]
    fn counts_saturate_instead_of_overflowing() {
        assert_eq!(binomial(64, 6), 74_974_368);
        assert_eq!(count(Format::RoundRobin, 20, 2, 3), 570);
        assert_eq!(count(Format::RoundRobin, 10_000_000, 6, 1000), usize::MAX);
        assert_eq!(binomial(3, 4), 0);
    }
}
