//! Evaluation helpers: how far a player still has to go.
//!
//! Every measure here rests on one idea: a set heads for the *apex* of its
//! target triangle, the target hole farthest from where the set started.
//! The holes nearest the apex are exactly the target's holes, so the sum of
//! the pegs' hex distances to the apex can never drop below the same sum
//! taken over the target's holes, and reaches it exactly when the target is
//! full. Their difference, [`distance_to_target`], is the number of single
//! steps towards the apex still missing: zero when home, lower by the
//! forward length of every move. Unlike "distance to the nearest target
//! hole", it keeps rewarding pegs that go deep into the target and free its
//! entrance for the pegs behind.
//!
//! ```
//! use sternhalma::{Board, Layout, Position, Rules};
//! use sternhalma::search::eval::{distance_to_target, pegs_home, progress};
//!
//! let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
//! assert_eq!(distance_to_target(&start, 0), 120);     // 10 pegs, 12 rows to cross
//! assert_eq!(pegs_home(&start, 0), 0);
//! assert_eq!(progress(&start, 0), 0.0);
//! let next = start.play_text("115-104")?;              // a hop two rows forward
//! assert_eq!(distance_to_target(&next, 0), 118);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::{Cell, Move, Position};

/// What the measures need about a game, computed once from its board and
/// layout: each set's owner and the hex distance from every hole to the
/// set's apex. Search code builds one per search and asks it many times.
#[derive(Clone, Debug)]
pub struct Evaluator {
    players: usize,
    sets: Vec<SetTable>,
    /// The game the tables are for.
    board: crate::Board,
    layout: crate::Layout,
}

#[derive(Clone, Debug)]
struct SetTable {
    owner: usize,
    /// Hex distance from each hole (by id) to the apex.
    to_apex: [u8; Cell::MAX_HOLES],
    /// The sum of `to_apex` over the target's holes: the least possible.
    home_sum: u32,
    /// [`distance_to_target`] of the set at its start.
    start_distance: u32,
}

impl Evaluator {
    /// The tables for the game of `position` (any position of that game).
    #[must_use]
    pub fn new(position: &Position) -> Evaluator {
        let geometry = position.geometry();
        let layout = position.layout();
        let sets = (0..layout.set_count())
            .map(|set| {
                let start = geometry.triangle(layout.set_triangle(set));
                let target = position.target(set);
                // The apex: the target hole farthest, in total, from the start
                // triangle (ties, which a triangle does not have, go to the
                // lowest id).
                let apex = target
                    .iter()
                    .max_by_key(|&hole| {
                        (
                            start
                                .iter()
                                .map(|s| geometry.distance(s, hole))
                                .sum::<u32>(),
                            std::cmp::Reverse(hole.id()),
                        )
                    })
                    .expect("a target triangle has holes");
                let mut to_apex = [0u8; Cell::MAX_HOLES];
                for hole in geometry.cells() {
                    to_apex[hole.id()] = geometry.distance(hole, apex) as u8;
                }
                let sum = |cells: crate::CellSet| -> u32 {
                    cells.iter().map(|c| u32::from(to_apex[c.id()])).sum()
                };
                let home_sum = sum(target);
                SetTable {
                    owner: layout.set_owner(set),
                    to_apex,
                    home_sum,
                    start_distance: sum(start).saturating_sub(home_sum),
                }
            })
            .collect();
        Evaluator {
            players: layout.player_count(),
            sets,
            board: position.board(),
            layout: *layout,
        }
    }

    /// Whether these tables are for the game of `position` (its board and
    /// layout).
    #[must_use]
    pub fn fits(&self, position: &Position) -> bool {
        self.board == position.board() && self.layout == *position.layout()
    }

    /// Number of players.
    #[must_use]
    pub fn players(&self) -> usize {
        self.players
    }

    /// [`distance_to_target`], with these tables.
    #[must_use]
    pub fn distance_to_target(&self, position: &Position, player: usize) -> u32 {
        self.sets
            .iter()
            .enumerate()
            .filter(|(_, table)| table.owner == player)
            .map(|(set, table)| {
                let sum: u32 = position
                    .pegs(set)
                    .iter()
                    .map(|c| u32::from(table.to_apex[c.id()]))
                    .sum();
                sum.saturating_sub(table.home_sum)
            })
            .sum()
    }

    /// [`progress`], with these tables.
    #[must_use]
    pub fn progress(&self, position: &Position, player: usize) -> f64 {
        let start: u32 = self
            .sets
            .iter()
            .filter(|table| table.owner == player)
            .map(|table| table.start_distance)
            .sum();
        if start == 0 {
            return 1.0;
        }
        let left = f64::from(self.distance_to_target(position, player));
        (1.0 - left / f64::from(start)).clamp(0.0, 1.0)
    }

    /// The static evaluation the bots use, from `player`'s view, in steps:
    /// how far the nearest opponent still has to go minus how far `player`
    /// still has to go (with one player, minus its own distance). Positive
    /// is good for `player`. It does not look at the outcome; searches score
    /// finished games themselves.
    #[must_use]
    pub fn evaluate(&self, position: &Position, player: usize) -> i32 {
        let own = self.distance_to_target(position, player) as i32;
        let nearest_rival = (0..self.players)
            .filter(|&p| p != player)
            .map(|p| self.distance_to_target(position, p) as i32)
            .min();
        match nearest_rival {
            Some(rival) => rival - own,
            None => -own,
        }
    }

    /// How many steps nearer its apex `mv` brings the moving peg (negative
    /// for a move backwards; zero for a pass). A swap also moves the other
    /// peg, which this ignores. Used to order moves and in playouts.
    #[must_use]
    pub fn gain(&self, position: &Position, mv: Move) -> i32 {
        let (Some(from), Some(to)) = (mv.from(), mv.to()) else {
            return 0;
        };
        match (0..self.sets.len()).find(|&set| position.pegs(set).contains(from)) {
            Some(set) => {
                let table = &self.sets[set].to_apex;
                i32::from(table[from.id()]) - i32::from(table[to.id()])
            }
            None => 0,
        }
    }
}

/// How far `player`'s pegs still are from home, in single steps: over each
/// of the player's sets, the sum of its pegs' hex distances to the apex of
/// its target triangle, less the same sum over the target's own holes (see
/// the [module documentation](self)). Zero exactly when every set fills its
/// target; 120 for a set of ten at the start of the standard star.
///
/// Under `anti_spoiling = fill_available` a set can be home with rivals'
/// pegs in its target; the distance then stays above zero.
#[must_use]
pub fn distance_to_target(position: &Position, player: usize) -> u32 {
    Evaluator::new(position).distance_to_target(position, player)
}

/// How many of `player`'s pegs stand in their own set's target triangle.
///
/// ```
/// use sternhalma::Position;
/// use sternhalma::search::eval::pegs_home;
/// let position: Position = "star1 classic south:0/north:6 1 1 0@1".parse()?;
/// assert_eq!(pegs_home(&position, 0), 1);
/// assert_eq!(pegs_home(&position, 1), 0);
/// # Ok::<(), sternhalma::PositionError>(())
/// ```
#[must_use]
pub fn pegs_home(position: &Position, player: usize) -> u32 {
    (0..position.layout().set_count())
        .filter(|&set| position.layout().set_owner(set) == player)
        .map(|set| position.pegs(set).intersection(position.target(set)).len() as u32)
        .sum()
}

/// How far along `player` is, from 0 (every peg where it started, or
/// further back) to 1 (home): one minus [`distance_to_target`] over its
/// value at the start.
#[must_use]
pub fn progress(position: &Position, player: usize) -> f64 {
    Evaluator::new(position).progress(position, player)
}

/// The static evaluation the bots use (see [`Evaluator::evaluate`]), as a
/// float: the nearest opponent's [`distance_to_target`] minus `player`'s.
#[must_use]
pub fn evaluate(position: &Position, player: usize) -> f64 {
    f64::from(Evaluator::new(position).evaluate(position, player))
}

/// The players ranked by progress, best first, each rank holding the
/// players who share it: those who finished first, in finishing order; then
/// more pegs home ([`pegs_home`]); then a shorter [`distance_to_target`];
/// players who resigned last, the latest first.
/// The tie-break for games cut short by a move limit, which the rules score
/// as a draw (`docs/rules.md`).
///
/// ```
/// use sternhalma::Position;
/// use sternhalma::search::eval::progress_ranking;
/// let start: Position = "star4 classic south:111-120/north:0-9 0 0 -".parse()?;
/// assert_eq!(progress_ranking(&start), [vec![0, 1]]);
/// let ahead = start.play_text("115-104")?;
/// assert_eq!(progress_ranking(&ahead), [vec![0], vec![1]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn progress_ranking(position: &Position) -> Vec<Vec<usize>> {
    let evaluator = Evaluator::new(position);
    let finishers = position.finishers();
    let players = position.layout().player_count();
    let resigned = position.resignations();
    // Smaller keys rank higher: still playing before resigned (the latest
    // resigner first), then finishing order, then pegs home, then distance.
    let key = |player: usize| {
        let left = resigned
            .iter()
            .position(|r| r.player == player)
            .map_or(0, |i| resigned.len() - i);
        let finished = finishers
            .iter()
            .position(|f| f.player == player)
            .unwrap_or(players);
        (
            left,
            finished,
            std::cmp::Reverse(pegs_home(position, player)),
            evaluator.distance_to_target(position, player),
        )
    };
    let mut order: Vec<usize> = (0..players).collect();
    order.sort_by_key(|&player| key(player));
    let mut ranks: Vec<Vec<usize>> = Vec::new();
    for player in order {
        match ranks.last_mut() {
            Some(rank) if key(rank[0]) == key(player) => rank.push(player),
            _ => ranks.push(vec![player]),
        }
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Board, Layout, Rules};

    #[test]
    fn distance_is_zero_exactly_at_home_and_counts_steps() {
        let start = Position::start(
            Board::STANDARD,
            Layout::standard(2).unwrap(),
            Rules::classic(),
        )
        .unwrap();
        assert_eq!(distance_to_target(&start, 1), 120);
        let won: Position = "star1 classic south:0/north:6 1 1 0@1".parse().unwrap();
        assert_eq!(distance_to_target(&won, 0), 0);
        assert_eq!(pegs_home(&won, 0), 1);
        assert_eq!(progress(&won, 0), 1.0);
        assert!(distance_to_target(&won, 1) > 0);
        let step = start.play_text("111-102").unwrap();
        assert_eq!(distance_to_target(&step, 0), 119);
        let mv = start
            .legal_moves()
            .into_iter()
            .find(|m| m.to_string() == "111-102")
            .unwrap();
        assert_eq!(Evaluator::new(&start).gain(&start, mv), 1);
        assert_eq!(evaluate(&step, 0), 1.0);
        assert_eq!(evaluate(&step, 1), -1.0);
    }

    #[test]
    fn every_board_and_layout_starts_at_zero_progress() {
        for (board, players) in [("star4", 3), ("star4", 6), ("star2", 2), ("rhombus9p10", 2)] {
            let board: Board = board.parse().unwrap();
            let layout = if board.triangles().len() == 2 {
                Layout::standard(2).unwrap()
            } else {
                Layout::standard(players).unwrap()
            };
            let start = Position::start(board, layout, Rules::classic()).unwrap();
            for player in 0..start.layout().player_count() {
                assert_eq!(progress(&start, player), 0.0);
                assert!(distance_to_target(&start, player) > 0);
            }
        }
    }
}
