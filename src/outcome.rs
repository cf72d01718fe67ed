//! How a game ends (RULES §4) and what each player scores.

use std::fmt;

use crate::position::Position;
use crate::rules::{Finish, IllegalPositions};

/// Why a game ended without a winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum DrawReason {
    /// The rules' `max_plies` was reached.
    MoveLimit,
    /// Every player still in the game would have to pass.
    NoMoves,
}

/// The state of a game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "status", rename_all = "snake_case"))]
pub enum Outcome {
    /// Not over.
    InProgress,
    /// One player won.
    Won {
        /// The winner.
        winner: usize,
    },
    /// Several players share the win (same round under `finish = round`, or
    /// the same move).
    Tie {
        /// The winners, in finishing order.
        winners: Vec<usize>,
    },
    /// The finishing order under `finish = ranking`: each entry is one rank,
    /// best first, holding the players who share it.
    Ranking {
        /// The ranks.
        ranks: Vec<Vec<usize>>,
    },
    /// Nobody won.
    Draw {
        /// Why the game ended.
        reason: DrawReason,
    },
}

/// The kind of an [`Outcome`], without its details: what the wire calls
/// its `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum OutcomeStatus {
    /// Not over.
    InProgress,
    /// One player won.
    Won,
    /// Several players share the win.
    Tie,
    /// A finishing order.
    Ranking,
    /// Nobody won.
    Draw,
}

impl OutcomeStatus {
    /// Every status, in the order of the enum.
    pub const ALL: [OutcomeStatus; 5] = [
        OutcomeStatus::InProgress,
        OutcomeStatus::Won,
        OutcomeStatus::Tie,
        OutcomeStatus::Ranking,
        OutcomeStatus::Draw,
    ];

    /// The snake_case name: `in_progress`, `won`, `tie`, `ranking`, `draw`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            OutcomeStatus::InProgress => "in_progress",
            OutcomeStatus::Won => "won",
            OutcomeStatus::Tie => "tie",
            OutcomeStatus::Ranking => "ranking",
            OutcomeStatus::Draw => "draw",
        }
    }
}

impl fmt::Display for OutcomeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl DrawReason {
    /// Every reason, in the order of the enum.
    pub const ALL: [DrawReason; 2] = [DrawReason::MoveLimit, DrawReason::NoMoves];

    /// The snake_case name: `move_limit` or `no_moves`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DrawReason::MoveLimit => "move_limit",
            DrawReason::NoMoves => "no_moves",
        }
    }
}

impl Outcome {
    /// The outcome when `resigned` resigns a game of `players` players that
    /// was still in progress: with two players the other wins; with more,
    /// the others share first place and the resigner is last; alone, the
    /// resigner scores -1.
    ///
    /// ```
    /// use sternhalma::Outcome;
    /// assert_eq!(Outcome::resignation(2, 0), Outcome::Won { winner: 1 });
    /// let four = Outcome::resignation(4, 1);
    /// assert_eq!(four, Outcome::Ranking { ranks: vec![vec![0, 2, 3], vec![1]] });
    /// assert_eq!(four.results(4), [1.0 / 3.0, -1.0, 1.0 / 3.0, 1.0 / 3.0]);
    /// assert_eq!(Outcome::resignation(1, 0).results(1), [-1.0]);
    /// ```
    #[must_use]
    pub fn resignation(players: usize, resigned: usize) -> Outcome {
        let others: Vec<usize> = (0..players).filter(|&p| p != resigned).collect();
        match others.as_slice() {
            [winner] => Outcome::Won { winner: *winner },
            _ => Outcome::Ranking {
                ranks: vec![others, vec![resigned]],
            },
        }
    }

    /// Its kind, without the details.
    #[must_use]
    pub fn status(&self) -> OutcomeStatus {
        match self {
            Outcome::InProgress => OutcomeStatus::InProgress,
            Outcome::Won { .. } => OutcomeStatus::Won,
            Outcome::Tie { .. } => OutcomeStatus::Tie,
            Outcome::Ranking { .. } => OutcomeStatus::Ranking,
            Outcome::Draw { .. } => OutcomeStatus::Draw,
        }
    }

    /// The players who won or share the win (the first rank of a ranking);
    /// empty for a draw or a game in progress.
    #[must_use]
    pub fn winners(&self) -> Vec<usize> {
        match self {
            Outcome::Won { winner } => vec![*winner],
            Outcome::Tie { winners } => winners.clone(),
            Outcome::Ranking { ranks } => ranks.first().cloned().unwrap_or_default(),
            Outcome::Draw { .. } | Outcome::InProgress => Vec::new(),
        }
    }

    /// Whether the game is over.
    #[must_use]
    pub fn is_over(&self) -> bool {
        *self != Outcome::InProgress
    }

    /// Each player's result, for search code: for a player ranked above `a`
    /// players and below `b` players, `(a - b) / (players - 1)`.
    ///
    /// So with two players a win is `+1`, a loss `-1`, and a draw `0`; with
    /// more, a sole winner gets `+1`, everyone else (tied second)
    /// `-1/(players - 1)`; a ranking spreads from `+1` (first) to `-1`
    /// (last). Results always sum to zero; a game in progress scores zero for
    /// all. A lone player (the solitaire) scores `1` for finishing.
    ///
    /// ```
    /// use sternhalma::Outcome;
    /// assert_eq!(Outcome::Won { winner: 1 }.results(2), [-1.0, 1.0]);
    /// assert_eq!(Outcome::Won { winner: 0 }.results(3), [1.0, -0.5, -0.5]);
    /// assert_eq!(Outcome::Ranking { ranks: vec![vec![2], vec![0, 1]] }.results(3), [-0.5, -0.5, 1.0]);
    /// ```
    #[must_use]
    pub fn results(&self, players: usize) -> Vec<f64> {
        let ranks = self.ranks(players);
        if players == 1 {
            // Finishing scores 1, a game not finished 0, and a lone player
            // ranked below nobody (a resignation) -1.
            return vec![match self {
                Outcome::InProgress | Outcome::Draw { .. } => 0.0,
                _ if ranks[0] == 0 => 1.0,
                _ => -1.0,
            }];
        }
        (0..players)
            .map(|p| {
                let below = ranks.iter().filter(|&&r| r > ranks[p]).count() as f64;
                let above = ranks.iter().filter(|&&r| r < ranks[p]).count() as f64;
                (below - above) / (players - 1) as f64
            })
            .collect()
    }

    /// The rank (0 = best) of each player; everyone shares rank 0 in a draw
    /// or a game in progress.
    fn ranks(&self, players: usize) -> Vec<usize> {
        let groups: Vec<&[usize]> = match self {
            Outcome::InProgress | Outcome::Draw { .. } => Vec::new(),
            Outcome::Won { winner } => vec![std::slice::from_ref(winner)],
            Outcome::Tie { winners } => vec![winners.as_slice()],
            Outcome::Ranking { ranks } => ranks.iter().map(Vec::as_slice).collect(),
        };
        // Players in no group share the place after the last group.
        let mut ranks = vec![groups.len(); players];
        for (rank, group) in groups.iter().enumerate() {
            for &p in *group {
                if p < players {
                    ranks[p] = rank;
                }
            }
        }
        ranks
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::InProgress => f.write_str("in progress"),
            Outcome::Won { winner } => write!(f, "player {winner} won"),
            Outcome::Tie { winners } => {
                let names: Vec<String> = winners.iter().map(ToString::to_string).collect();
                write!(f, "tie between players {}", names.join(", "))
            }
            Outcome::Ranking { ranks } => {
                let names: Vec<String> = ranks
                    .iter()
                    .map(|group| {
                        group
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("=")
                    })
                    .collect();
                write!(f, "ranking {}", names.join(" > "))
            }
            Outcome::Draw {
                reason: DrawReason::MoveLimit,
            } => f.write_str("draw by the move limit"),
            Outcome::Draw {
                reason: DrawReason::NoMoves,
            } => f.write_str("draw: no player can move"),
        }
    }
}

impl Position {
    /// The state of the game (RULES §4; under `illegal_positions =
    /// sturtevant`, §7: a player to move without a legal move has lost,
    /// and the other player has won).
    ///
    /// ```
    /// use sternhalma::{Outcome, Position};
    /// let won: Position = "star1 classic south:0/north:6 1 1 0@1".parse()?;
    /// assert_eq!(won.outcome(), Outcome::Won { winner: 0 });
    /// assert!(won.legal_moves().is_empty());
    /// # Ok::<(), sternhalma::PositionError>(())
    /// ```
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        if self.is_decided() {
            let limit = self.ply >= self.rules.ply_limit();
            let by_finish = self.finished_len > 0
                && match self.rules.finish {
                    Finish::First => true,
                    Finish::Round => {
                        let players = self.layout.player_count();
                        usize::from(self.finished_len) == players || self.ply % players as u32 == 0
                    }
                    Finish::Ranking => {
                        usize::from(self.finished_len)
                            >= self.layout.player_count().saturating_sub(1).max(1)
                    }
                };
            let by_resignation = self.resigned_mask != 0 && self.players_left() <= 1;
            return self.final_outcome(if by_finish || by_resignation || !limit {
                None
            } else {
                Some(DrawReason::MoveLimit)
            });
        }
        let player = self.side_to_move();
        if self.rules.illegal_positions != IllegalPositions::None {
            // RULES §7: no passing; a player without a move loses. Nobody
            // is recorded as finished: the win is the outcome's alone.
            return if self.has_move(player) {
                Outcome::InProgress
            } else {
                Outcome::Won {
                    winner: self.next_player(player),
                }
            };
        }
        let stuck = self.must_pass_finished(player) || !self.has_move(player);
        if stuck && self.everyone_stuck() {
            return self.final_outcome(Some(DrawReason::NoMoves));
        }
        Outcome::InProgress
    }

    /// Whether the game is over.
    #[must_use]
    pub fn is_game_over(&self) -> bool {
        self.outcome().is_over()
    }

    /// The outcome of a game that has ended, from who finished and who
    /// resigned; `cut_short` tells why it ended early, if it did. Those
    /// still playing share the place after the finishers; those who
    /// resigned come last, the latest first.
    fn final_outcome(&self, cut_short: Option<DrawReason>) -> Outcome {
        let finishers = self.finishers_raw();
        let resigned = self.resigned_raw();
        if finishers.is_empty() && resigned.is_empty() {
            return Outcome::Draw {
                reason: cut_short.unwrap_or(DrawReason::NoMoves),
            };
        }
        if self.rules.finish == Finish::Ranking || finishers.is_empty() {
            let mut ranks: Vec<Vec<usize>> = Vec::new();
            let mut last_ply = None;
            for &(player, ply) in finishers {
                if last_ply == Some(ply) {
                    ranks
                        .last_mut()
                        .expect("a rank exists")
                        .push(usize::from(player));
                } else {
                    ranks.push(vec![usize::from(player)]);
                }
                last_ply = Some(ply);
            }
            let rest: Vec<usize> = (0..self.layout.player_count())
                .filter(|&p| !self.is_finished(p) && !self.is_resigned(p))
                .collect();
            if !rest.is_empty() {
                ranks.push(rest);
            }
            ranks.extend(resigned.iter().rev().map(|&(p, _)| vec![usize::from(p)]));
            return Outcome::Ranking { ranks };
        }
        let winners: Vec<usize> = finishers.iter().map(|&(p, _)| usize::from(p)).collect();
        if let [winner] = winners[..] {
            Outcome::Won { winner }
        } else {
            Outcome::Tie { winners }
        }
    }

    /// Each player's result in this position (see [`Outcome::results`]).
    #[must_use]
    pub fn results(&self) -> Vec<f64> {
        self.outcome().results(self.layout.player_count())
    }
}
