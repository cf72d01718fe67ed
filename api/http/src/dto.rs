//! Wire types of the stateless routes. The views every surface shares
//! (positions, rules, moves, outcomes) and the inputs requests carry are the
//! rules crate's own ([`sternhalma::wire::view`]); here are what only these
//! routes take, and the fast writer of a position's legal moves.

use serde::Deserialize;
use sternhalma::{Cell, Move, Position};
use utoipa::ToSchema;

pub use sternhalma::wire::schema::{HoleId, PlayerIndex, PlyCount};
pub use sternhalma::wire::view::{
    MoveInput, MoveView, OutcomeView, Played, PositionInput, PositionView, RulesInput, RulesView,
    Swapped, hole,
};

/// A request about one position.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": "star4 classic south:111-120/north:0-9 0 0 -"}))]
pub struct PositionRequest {
    /// The position, as a string or as JSON.
    pub position: PositionInput,
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
