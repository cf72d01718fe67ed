//! OpenAPI schemas of the wire format (the `utoipa` feature): the shapes a
//! request may take, for the document only. Requests are read by the
//! functions of [`crate::wire`]; these types are never built (they derive
//! `Serialize` only so that utoipa reads their serde attributes).
#![allow(dead_code)]

use utoipa::ToSchema;

use crate::rules::{AntiSpoiling, Finish, IllegalPositions, Preset, Resting, UnusedTriangles};
use crate::wire::PositionJson;

/// A hole id: 0 to 120 (the largest board has 121 holes; a smaller board
/// has fewer, and a larger id there is refused with 422).
#[derive(ToSchema)]
#[schema(value_type = u64, minimum = 0, maximum = 120)]
pub struct HoleId(u64);

/// A player index, 0-based: 0 to 5.
#[derive(ToSchema)]
#[schema(value_type = u64, minimum = 0, maximum = 5)]
pub struct PlayerIndex(u64);

/// A number of plies: 0 to 4,294,967,295.
#[derive(ToSchema)]
#[schema(value_type = u64, minimum = 0, maximum = 4294967295.0)]
pub struct PlyCount(u64);

/// A position: the compact position string, or the JSON form.
#[derive(ToSchema, serde::Serialize)]
#[serde(untagged)]
#[schema(example = "star4 classic south:111-120/north:0-9 0 0 -")]
pub enum PositionInput {
    /// The position string (see `docs/notation.md`).
    Text(String),
    /// The JSON form.
    Json(PositionJson),
}

/// Rules: the text form (`classic`, `classic,long_jumps=on,max_plies=300`),
/// or an object naming a preset and any overrides.
#[derive(ToSchema, serde::Serialize)]
#[serde(untagged)]
#[schema(example = "classic")]
pub enum RulesInput {
    /// Preset name, then `,option=value` overrides.
    Text(String),
    /// A preset plus overrides.
    Object(RulesObject),
}

/// A preset (default `classic`) and overrides of any of its options.
#[derive(ToSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct RulesObject {
    /// The preset to start from; `classic` if absent.
    preset: Option<Preset>,
    /// Overrides `unused_triangles`.
    unused_triangles: Option<UnusedTriangles>,
    /// Overrides `rest_in_foreign_triangles`.
    rest_in_foreign_triangles: Option<Resting>,
    /// Overrides `long_jumps`.
    long_jumps: Option<bool>,
    /// Overrides `anti_spoiling`.
    anti_spoiling: Option<AntiSpoiling>,
    /// Overrides `finish`.
    finish: Option<Finish>,
    /// Overrides `max_plies`: a number, or `null` for no limit; absent keeps
    /// the preset's.
    #[schema(value_type = Option<u64>, nullable, minimum = 0, maximum = 4294967295.0)]
    max_plies: Option<u64>,
    /// Overrides `target_lock`.
    target_lock: Option<bool>,
    /// Overrides `illegal_positions`.
    illegal_positions: Option<IllegalPositions>,
}

/// A move as a client gives it: the move text (`"111-102"`, `"95-75-57"`,
/// `"pass"`), its ends (`{"from": 111, "to": 102}`), or a full path
/// (`{"path": [95, 75, 57]}`, checked hop by hop).
#[derive(ToSchema, serde::Serialize)]
#[serde(untagged)]
#[schema(example = "115-104")]
pub enum MoveInput {
    /// The move text.
    Text(String),
    /// The start and end holes.
    Ends(MoveEnds),
    /// Every hole of the path.
    Path(MovePath),
}

/// A move by its ends.
#[derive(ToSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct MoveEnds {
    /// Start hole.
    #[schema(example = 115, value_type = HoleId)]
    from: u64,
    /// End hole.
    #[schema(example = 104, value_type = HoleId)]
    to: u64,
}

/// A move by its full path.
#[derive(ToSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct MovePath {
    /// Hole ids from start to end; two or more.
    #[schema(example = json!([115, 104]), value_type = Vec<HoleId>, min_items = 2)]
    path: Vec<u64>,
}
