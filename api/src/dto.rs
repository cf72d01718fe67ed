//! Wire types: what requests carry and responses answer. They convert to and
//! from the rules crate's types and hold no rules of their own: positions,
//! rules and moves are read by `sternhalma::wire`, and the closed sets of
//! names (presets, options, move kinds, outcome statuses, bot kinds) are the
//! crate's own enums, with their schemas.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sternhalma::wire::{self, PositionJson};
use sternhalma::{
    AntiSpoiling, Cell, DrawReason, Finish, Finisher, Move, MoveKind, MoveText, OutcomeStatus,
    Position, Resting, Rules, UnusedTriangles,
};
use utoipa::ToSchema;

use crate::error::ApiError;

pub use sternhalma::wire::schema::{HoleId, PlayerIndex, PlyCount};

// ---- Inputs ------------------------------------------------------------------
// Held as JSON and read by `sternhalma::wire`, which names the offending
// field in its errors; the schemas come from `sternhalma::wire::schema`.

/// Rules as a request gives them: text, or a preset with overrides.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[schema(value_type = wire::schema::RulesInput)]
pub struct RulesInput(pub Value);

impl RulesInput {
    /// The rules this stands for.
    pub fn resolve(&self) -> Result<Rules, ApiError> {
        Ok(wire::rules(&self.0)?)
    }
}

/// A position as a request gives it: the position string, or the JSON form.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[schema(value_type = wire::schema::PositionInput)]
pub struct PositionInput(pub Value);

impl PositionInput {
    /// Parses and validates the position.
    pub fn resolve(&self) -> Result<Position, ApiError> {
        Ok(wire::position(&self.0)?)
    }
}

/// A move as a request gives it: text, ends or full path.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[schema(value_type = wire::schema::MoveInput)]
pub struct MoveInput(pub Value);

impl MoveInput {
    /// The move text this stands for.
    pub fn text(&self) -> Result<MoveText, ApiError> {
        Ok(wire::move_text(&self.0)?)
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
        }
    }
}

// ---- Positions ---------------------------------------------------------------

/// A request about one position.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": "star4 classic south:111-120/north:0-9 0 0 -"}))]
pub struct PositionRequest {
    /// The position, as a string or as JSON.
    pub position: PositionInput,
}

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

/// The hole with this id on the position's board, or a 422 saying it is off
/// the board.
pub fn hole(position: &Position, id: usize) -> Result<Cell, ApiError> {
    let geometry = position.geometry();
    geometry.cell(id).ok_or_else(|| {
        sternhalma::IllegalMove::OffBoard {
            hole: id,
            holes: geometry.len(),
        }
        .into()
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

impl From<&sternhalma::Played> for MoveView {
    fn from(played: &sternhalma::Played) -> MoveView {
        MoveView {
            text: played.mv.to_string(),
            kind: played.mv.kind(),
            from: played.mv.from().map(Cell::id),
            to: played.mv.to().map(Cell::id),
            path: played.path.iter().map(|c| c.id()).collect(),
        }
    }
}

/// Legal moves of a position as a JSON array of [`MoveView`]s, written
/// straight into bytes ([`MoveViews::write_json`]) instead of built first:
/// each move's text, kind, ends and witness path ([`Position::witnesses`]:
/// one search per start hole, no allocation per move). The same JSON as
/// `serde_json` writes for the `MoveView`s of the moves (a test compares
/// them).
pub struct MoveViews<'a> {
    /// The position the moves are legal in.
    pub position: &'a Position,
    /// The moves, best sorted by start hole (as `legal_moves` gives them).
    pub moves: &'a [Move],
}

impl MoveViews<'_> {
    /// About how many bytes [`MoveViews::write_json`] writes: enough for
    /// paths of a few hops.
    pub fn size_hint(&self) -> usize {
        2 + 96 * self.moves.len()
    }

    /// Appends the JSON array to `out`. Every string in it is a move text
    /// (`"115-104"`, `"pass"`) or a kind name, which never need escaping.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let mut witnesses = self.position.witnesses();
        out.push(b'[');
        // Each move is written into `view`, then copied out whole: small
        // writes of known sizes into an array compile to plain stores.
        let mut view = MoveBytes::default();
        for (index, &mv) in self.moves.iter().enumerate() {
            view.len = 0;
            if index > 0 {
                view.put(b",");
            }
            // `MoveView::text`: the core's move text (by its ends, or `pass`).
            view.put(br#"{"text":""#);
            view.put(mv.short_text().as_bytes());
            view.put(br#"","kind":""#);
            view.put(mv.kind().name().as_bytes());
            view.put(br#"","from":"#);
            view.optional_id(mv.from());
            view.put(br#","to":"#);
            view.optional_id(mv.to());
            view.put(br#","path":["#);
            for (step, cell) in witnesses.path(mv).iter().enumerate() {
                if step > 0 {
                    view.put(b",");
                }
                view.id(cell.id());
            }
            view.put(b"]}");
            out.extend_from_slice(view.bytes());
        }
        out.push(b']');
    }
}

/// One move's JSON being written: room for the longest (a path through
/// every hole of the largest board, ids of three digits).
struct MoveBytes {
    bytes: [u8; 1024],
    len: usize,
}

impl Default for MoveBytes {
    fn default() -> MoveBytes {
        MoveBytes {
            bytes: [0; 1024],
            len: 0,
        }
    }
}

impl MoveBytes {
    #[inline]
    fn put(&mut self, text: &[u8]) {
        self.bytes[self.len..self.len + text.len()].copy_from_slice(text);
        self.len += text.len();
    }

    /// A hole id in decimal (hole ids have at most three digits).
    #[inline]
    fn id(&mut self, id: usize) {
        let digit = |n: usize| b'0' + (n % 10) as u8;
        match id {
            0..=9 => self.put(&[digit(id)]),
            10..=99 => self.put(&[digit(id / 10), digit(id)]),
            100..=999 => self.put(&[digit(id / 100), digit(id / 10), digit(id)]),
            _ => self.put(id.to_string().as_bytes()),
        }
    }

    #[inline]
    fn optional_id(&mut self, cell: Option<Cell>) {
        match cell {
            Some(cell) => self.id(cell.id()),
            None => self.put(b"null"),
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// A 200 answer with `body`, JSON already written, as its body
/// (`application/json`, as `web::Json` answers).
pub fn json_answer(body: Vec<u8>) -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok()
        .insert_header((
            actix_web::http::header::CONTENT_TYPE,
            actix_web::http::header::HeaderValue::from_static("application/json"),
        ))
        .body(body)
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

impl From<&sternhalma::Played> for Played {
    fn from(played: &sternhalma::Played) -> Played {
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
            sternhalma::Outcome::InProgress => {}
            sternhalma::Outcome::Won { winner } => view.winner = Some(winner),
            sternhalma::Outcome::Tie { winners } => view.winners = Some(winners),
            sternhalma::Outcome::Ranking { ranks } => view.ranks = Some(ranks),
            sternhalma::Outcome::Draw { reason } => view.reason = Some(reason),
        }
        view
    }
}
