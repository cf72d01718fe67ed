//! The views every surface answers with: a position in both forms with its
//! outcome, a rules value with every option, a move with its witness path,
//! what a move did; and the inputs requests carry (rules, a position, a
//! move), held as JSON and read by [`crate::wire`]. Behind the `utoipa`
//! feature: each is also a schema of the OpenAPI document.
//!
//! They hold no rules of their own; the HTTP service's stateless routes and
//! its stored matches and tournaments answer with the same ones.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::wire::{self, PositionJson};
use crate::{
    AntiSpoiling, Cell, DrawReason, Finish, Finisher, IllegalPositions, Move, MoveKind, MoveText,
    OutcomeStatus, Position, Resting, Rules, UnusedTriangles,
};
use crate::{IllegalMove, ParseError, PositionError};

// ---- Inputs ------------------------------------------------------------------
// Held as JSON and read by `crate::wire`, which names the offending
// field in its errors; the schemas come from `crate::wire::schema`.

/// Rules as a request gives them: text, or a preset with overrides.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[schema(value_type = wire::schema::RulesInput)]
pub struct RulesInput(pub Value);

impl RulesInput {
    /// The rules this stands for.
    ///
    /// # Errors
    /// The rules are malformed or name no preset or option.
    pub fn resolve(&self) -> Result<Rules, ParseError> {
        wire::rules(&self.0)
    }
}

/// A position as a request gives it: the position string, or the JSON form.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[schema(value_type = wire::schema::PositionInput)]
pub struct PositionInput(pub Value);

impl PositionInput {
    /// Parses and validates the position.
    ///
    /// # Errors
    /// The position is malformed or invalid.
    pub fn resolve(&self) -> Result<Position, PositionError> {
        wire::position(&self.0)
    }
}

/// A move as a request gives it: text, ends or full path.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[schema(value_type = wire::schema::MoveInput)]
pub struct MoveInput(pub Value);

impl MoveInput {
    /// The move text this stands for.
    ///
    /// # Errors
    /// The move is malformed.
    pub fn text(&self) -> Result<MoveText, ParseError> {
        wire::move_text(&self.0)
    }
}

// ---- Rules -----------------------------------------------------------------

/// Every option of a rules value, and its text form.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RulesView {
    /// The text form: nearest preset plus overrides.
    #[schema(example = "classic")]
    pub text: String,
    /// What unused triangles hold.
    pub unused_triangles: UnusedTriangles,
    /// Whether moves may end in other players' triangles.
    pub rest_in_foreign_triangles: Resting,
    /// Whether long jumps are on.
    pub long_jumps: bool,
    /// The anti-spoiling rule.
    pub anti_spoiling: AntiSpoiling,
    /// How the game ends.
    pub finish: Finish,
    /// The move limit, if any.
    pub max_plies: Option<u32>,
    /// Whether a peg in its own target must end every move in it.
    pub target_lock: bool,
    /// Which positions are illegal: `none`, or `sturtevant` (the solved
    /// game: no move into a position where the player to move has won or a
    /// target is blocked, and a player without a move loses).
    pub illegal_positions: IllegalPositions,
}

impl From<&Rules> for RulesView {
    fn from(rules: &Rules) -> RulesView {
        RulesView {
            text: rules.to_string(),
            unused_triangles: rules.unused_triangles,
            rest_in_foreign_triangles: rules.rest_in_foreign_triangles,
            long_jumps: rules.long_jumps,
            anti_spoiling: rules.anti_spoiling,
            finish: rules.finish,
            max_plies: rules.max_plies,
            target_lock: rules.target_lock,
            illegal_positions: rules.illegal_positions,
        }
    }
}

// ---- Positions ---------------------------------------------------------------

/// A position in both forms, with what a client needs next.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PositionView {
    /// The position string.
    #[schema(example = "star4 classic south:111-120/north:0-9 0 0 -")]
    pub position_string: String,
    /// The JSON form (accepted wherever a position is).
    pub position: PositionJson,
    /// Every rule option.
    pub rules: RulesView,
    /// The player to move (0-based).
    pub side_to_move: usize,
    /// The 64-bit Zobrist hash, as 16 hexadecimal digits (JSON numbers cannot
    /// hold 64 bits exactly).
    #[schema(example = "9f1c2a7b3e4d5c6a")]
    pub hash: String,
    /// The state of the game.
    pub outcome: OutcomeView,
}

impl From<&Position> for PositionView {
    fn from(position: &Position) -> PositionView {
        PositionView {
            position_string: position.to_string(),
            position: PositionJson::from(position),
            rules: position.rules().into(),
            side_to_move: position.side_to_move(),
            hash: format!("{:016x}", position.zobrist_hash()),
            outcome: position.into(),
        }
    }
}

/// The hole with this id on the position's board.
///
/// # Errors
/// [`IllegalMove::OffBoard`] when the board has no such hole.
pub fn hole(position: &Position, id: usize) -> Result<Cell, IllegalMove> {
    let geometry = position.geometry();
    geometry.cell(id).ok_or(IllegalMove::OffBoard {
        hole: id,
        holes: geometry.len(),
    })
}

// ---- Moves -------------------------------------------------------------------

/// A legal move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MoveView {
    /// The move text by its ends (`"pass"` for a pass).
    #[schema(example = "115-104")]
    pub text: String,
    /// The kind of move.
    pub kind: MoveKind,
    /// Start hole (absent for a pass).
    #[schema(example = 115)]
    pub from: Option<usize>,
    /// End hole (absent for a pass).
    #[schema(example = 104)]
    pub to: Option<usize>,
    /// One path from start to end (the chain with the fewest hops).
    #[schema(example = json!([115, 104]))]
    pub path: Vec<usize>,
}

impl MoveView {
    /// The view of a legal move of `position`, with its witness path.
    pub fn new(position: &Position, mv: Move) -> MoveView {
        MoveView::from(&position.played(mv))
    }
}

impl From<&crate::Played> for MoveView {
    fn from(played: &crate::Played) -> MoveView {
        MoveView {
            text: played.mv.to_string(),
            kind: played.mv.kind(),
            from: played.mv.from().map(Cell::id),
            to: played.mv.to().map(Cell::id),
            path: played.path.iter().map(|c| c.id()).collect(),
        }
    }
}

/// The other peg of a swap.
#[derive(Debug, Serialize, ToSchema)]
pub struct Swapped {
    /// Its owner.
    pub player: usize,
    /// Where it was (the mover's end hole).
    pub from: usize,
    /// Where it went (the mover's start hole).
    pub to: usize,
}

/// What a move did.
#[derive(Debug, Serialize, ToSchema)]
pub struct Played {
    /// The move, with the path given (or, for a move given by its ends, a
    /// shortest one).
    #[serde(rename = "move")]
    pub mv: MoveView,
    /// Who played it.
    pub player: usize,
    /// For a swap, the peg that changed places with the mover.
    pub swapped: Option<Swapped>,
}

impl From<&crate::Played> for Played {
    fn from(played: &crate::Played) -> Played {
        Played {
            mv: played.into(),
            player: played.player,
            swapped: played.swapped.map(|s| Swapped {
                player: s.player,
                from: s.from.id(),
                to: s.to.id(),
            }),
        }
    }
}

// ---- Outcome -------------------------------------------------------------------

/// The state of a game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct OutcomeView {
    /// `in_progress`, `won`, `tie`, `ranking` or `draw`.
    #[schema(example = "in_progress")]
    pub status: OutcomeStatus,
    /// The winner, when `won`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<usize>,
    /// The winners, when `tie`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winners: Option<Vec<usize>>,
    /// The ranks, best first, each with the players sharing it, when
    /// `ranking`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<Vec<Vec<usize>>>,
    /// Why the game was drawn: `move_limit` or `no_moves`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<DrawReason>,
    /// Each player's result: +1 best, -1 worst, 0 a draw or a game in
    /// progress; a player ranked above `a` and below `b` others scores
    /// `(a - b) / (players - 1)`.
    pub results: Vec<f64>,
    /// The outcome in words.
    #[schema(example = "in progress")]
    pub summary: String,
    /// Players who have finished, in order, with the ply.
    pub finished: Vec<Finisher>,
}

impl From<&Position> for OutcomeView {
    fn from(position: &Position) -> OutcomeView {
        let outcome = position.outcome();
        let mut view = OutcomeView {
            status: outcome.status(),
            winner: None,
            winners: None,
            ranks: None,
            reason: None,
            results: outcome.results(position.layout().player_count()),
            summary: outcome.to_string(),
            finished: position.finishers(),
        };
        match outcome {
            crate::Outcome::InProgress => {}
            crate::Outcome::Won { winner } => view.winner = Some(winner),
            crate::Outcome::Tie { winners } => view.winners = Some(winners),
            crate::Outcome::Ranking { ranks } => view.ranks = Some(ranks),
            crate::Outcome::Draw { reason } => view.reason = Some(reason),
        }
        view
    }
}
