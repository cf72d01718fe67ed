//! A tournament's standings as shown: the store's numbers
//! (`sternhalma_store::tournaments::standings`), with their OpenAPI
//! schemas.

use serde::Serialize;
use utoipa::ToSchema;

use sternhalma_store::tournaments::standings as scored;

use super::Points;
use crate::wire::bots::SeatKind;

/// A tournament's standings: the ranked table and the cross table.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Standings {
    /// One row per entrant, ranked: points descending, then rating
    /// descending, then entrant index.
    pub rows: Vec<StandingRow>,
    /// One row per entrant, in entrant order: its results against each
    /// entrant it met.
    pub cross_table: Vec<CrossRow>,
    /// The finished games counted.
    #[schema(example = 12)]
    pub games_counted: usize,
    /// The points per opponent used.
    pub points: Points,
    /// The rating system: `weng_lin`, Weng-Lin (a Bayesian approximation
    /// like TrueSkill) as computed by the `skillratings` crate. A rating is
    /// the estimated skill (mu, 25 at the start) and its uncertainty the
    /// standard deviation of that estimate (sigma, 25/3 ≈ 8.333 at the
    /// start), which shrinks as an entrant plays.
    #[schema(example = "weng_lin")]
    pub rating_system: String,
}

/// One entrant's line of the standings.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StandingRow {
    /// The rank, from 1; entrants equal on points and rating share a rank.
    #[schema(example = 1)]
    pub rank: usize,
    /// The entrant's index in the tournament.
    #[schema(example = 0)]
    pub entrant: usize,
    /// Its display name.
    #[schema(example = "alice")]
    pub name: String,
    /// Who plays it.
    pub kind: SeatKind,
    /// Finished games it played.
    #[schema(example = 4)]
    pub games: u32,
    /// Opponents it beat, counted pairwise per game (for 2-player games,
    /// games won).
    #[schema(example = 3)]
    pub wins: u32,
    /// Opponents it drew with, counted pairwise per game.
    #[schema(example = 0)]
    pub draws: u32,
    /// Opponents it lost to, counted pairwise per game.
    #[schema(example = 1)]
    pub losses: u32,
    /// Its points: `wins·win + draws·draw + losses·loss`.
    #[schema(example = 3.0)]
    pub points: f64,
    /// Timeouts recorded in its games, those under way included.
    #[schema(example = 0)]
    pub timeouts: u32,
    /// Games it forfeited (too many timeouts), those under way included
    /// (with three or more players a game goes on without it).
    #[schema(example = 0)]
    pub forfeits: u32,
    /// Its Weng-Lin rating (mu): the estimated skill, 25 at the start.
    #[schema(example = 27.635)]
    pub rating: f64,
    /// The uncertainty of its rating (Weng-Lin sigma): 25/3 ≈ 8.333 at the
    /// start, smaller as it plays.
    #[schema(example = 7.171)]
    pub uncertainty: f64,
    /// Its moves judged against perfect play: those of its finished games
    /// on a board a solved table covers (0 on other boards).
    #[schema(example = 52)]
    pub judged_moves: u32,
    /// How many of them were mistakes: a win thrown to a draw or a loss, a
    /// draw to a loss.
    #[schema(example = 3)]
    pub mistakes: u32,
    /// The share of its judged moves that kept the game-theoretic value
    /// (the best move, or a slower one that kept it), from 0 to 1; `null`
    /// when no move of its was judged.
    #[schema(example = 0.942)]
    pub accuracy: Option<f64>,
}

/// One entrant's row of the cross table.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CrossRow {
    /// The entrant's index in the tournament.
    #[schema(example = 0)]
    pub entrant: usize,
    /// Its display name.
    #[schema(example = "alice")]
    pub name: String,
    /// One cell per other entrant that it met at least once, in entrant
    /// order.
    pub against: Vec<CrossCell>,
}

/// An entrant's results against one opponent.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CrossCell {
    /// The opponent's entrant index.
    #[schema(example = 1)]
    pub opponent: usize,
    /// Finished games both played in.
    #[schema(example = 2)]
    pub games: u32,
    /// The points this entrant scored against that opponent in those games
    /// (pairwise).
    #[schema(example = 1.5)]
    pub points: f64,
}

impl From<scored::Standings> for Standings {
    fn from(standings: scored::Standings) -> Standings {
        Standings {
            rows: standings.rows.into_iter().map(Into::into).collect(),
            cross_table: standings.cross_table.into_iter().map(Into::into).collect(),
            games_counted: standings.games_counted,
            points: standings.points.into(),
            rating_system: standings.rating_system,
        }
    }
}

impl From<scored::StandingRow> for StandingRow {
    fn from(row: scored::StandingRow) -> StandingRow {
        StandingRow {
            rank: row.rank,
            entrant: row.entrant,
            name: row.name,
            kind: if row.bot {
                SeatKind::Bot
            } else {
                SeatKind::Open
            },
            games: row.games,
            wins: row.wins,
            draws: row.draws,
            losses: row.losses,
            points: row.points,
            timeouts: row.timeouts,
            forfeits: row.forfeits,
            rating: row.rating,
            uncertainty: row.uncertainty,
            judged_moves: row.judged_moves,
            mistakes: row.mistakes,
            accuracy: row.accuracy,
        }
    }
}

impl From<scored::CrossRow> for CrossRow {
    fn from(row: scored::CrossRow) -> CrossRow {
        CrossRow {
            entrant: row.entrant,
            name: row.name,
            against: row.against.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<scored::CrossCell> for CrossCell {
    fn from(cell: scored::CrossCell) -> CrossCell {
        CrossCell {
            opponent: cell.opponent,
            games: cell.games,
            points: cell.points,
        }
    }
}
