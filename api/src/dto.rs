//! Wire types: what requests carry and responses answer. They convert to and
//! from the rules crate's types and hold no rules of their own.

use serde::{Deserialize, Deserializer, Serialize};
use sternhalma::{
    AntiSpoiling, Board, Cell, Finish, Finisher, Move, MoveKind, MoveText, Outcome, PegSet,
    Position, Preset, Resting, Rules, Setup, Triangle, UnusedTriangles,
};
use utoipa::ToSchema;

use crate::error::ApiError;
use sternhalma::wire::whole::Object;

// ---- Names, for the schema only -------------------------------------------
// Documentation mirrors of the crate's enums: requests deserialise into the
// crate's own types; these only describe the values in the OpenAPI document.

/// A preset name.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum PresetName {
    Classic,
    Masters,
    Family,
    Super,
    Research,
}

/// What unused triangles hold.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum UnusedTrianglesName {
    Empty,
    Filled,
}

/// Whether moves may end in other players' triangles.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum RestingName {
    Allowed,
    Forbidden,
}

/// The anti-spoiling rule.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum AntiSpoilingName {
    None,
    FillAvailable,
    Swap,
}

/// How the game ends.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum FinishName {
    First,
    Round,
    Ranking,
}

/// A triangle of the star (a rhombus has only north and south).
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum TriangleName {
    North,
    NorthEast,
    SouthEast,
    South,
    SouthWest,
    NorthWest,
}

/// The kind of a move.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
pub enum MoveKindName {
    Step,
    Hop,
    Swap,
    Pass,
}

/// A hole id: 0 to 120 (the largest board has 121 holes; a smaller board
/// has fewer, and a larger id there is refused with 422).
#[derive(ToSchema)]
#[schema(value_type = u64, minimum = 0, maximum = 120)]
#[allow(dead_code)]
pub struct HoleId(u64);

/// A player index, 0-based: 0 to 5.
#[derive(ToSchema)]
#[schema(value_type = u64, minimum = 0, maximum = 5)]
#[allow(dead_code)]
pub struct PlayerIndex(u64);

/// A number of plies: 0 to 4,294,967,295.
#[derive(ToSchema)]
#[schema(value_type = u64, minimum = 0, maximum = 4294967295.0)]
#[allow(dead_code)]
pub struct PlyCount(u64);

// ---- Rules -----------------------------------------------------------------

/// Rules: the text form (`classic`, `classic,long_jumps=on,max_plies=300`),
/// or an object naming a preset and any overrides.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(example = "classic")]
pub enum RulesInput {
    /// Preset name, then `,option=value` overrides.
    Text(String),
    /// A preset plus overrides.
    #[schema(value_type = RulesObject)]
    Object(Object<RulesObject>),
}

/// A preset (default `classic`) and overrides of any of its options.
#[derive(Clone, Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesObject {
    /// The preset to start from; `classic` if absent.
    #[schema(value_type = Option<PresetName>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// Overrides `unused_triangles`.
    #[schema(value_type = Option<UnusedTrianglesName>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unused_triangles: Option<UnusedTriangles>,
    /// Overrides `rest_in_foreign_triangles`.
    #[schema(value_type = Option<RestingName>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_in_foreign_triangles: Option<Resting>,
    /// Overrides `long_jumps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_jumps: Option<bool>,
    /// Overrides `anti_spoiling`.
    #[schema(value_type = Option<AntiSpoilingName>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anti_spoiling: Option<AntiSpoiling>,
    /// Overrides `finish`.
    #[schema(value_type = Option<FinishName>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<Finish>,
    /// Overrides `max_plies`: a number, or `null` for no limit; absent keeps
    /// the preset's.
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::nullable",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, nullable, minimum = 0, maximum = 4294967295.0)]
    pub max_plies: Option<Option<u32>>,
}

impl RulesInput {
    /// The rules this stands for.
    pub fn resolve(&self) -> Result<Rules, ApiError> {
        match self {
            RulesInput::Text(text) => Ok(text.parse()?),
            RulesInput::Object(object) => Ok(object.0.resolve()),
        }
    }
}

impl RulesObject {
    fn resolve(&self) -> Rules {
        let base = self.preset.unwrap_or(Preset::Classic).rules();
        Rules {
            unused_triangles: self.unused_triangles.unwrap_or(base.unused_triangles),
            rest_in_foreign_triangles: self
                .rest_in_foreign_triangles
                .unwrap_or(base.rest_in_foreign_triangles),
            long_jumps: self.long_jumps.unwrap_or(base.long_jumps),
            anti_spoiling: self.anti_spoiling.unwrap_or(base.anti_spoiling),
            finish: self.finish.unwrap_or(base.finish),
            max_plies: self.max_plies.unwrap_or(base.max_plies),
        }
    }
}

/// Every option of a rules value, and its text form.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RulesView {
    /// The text form: nearest preset plus overrides.
    #[schema(example = "classic")]
    pub text: String,
    /// What unused triangles hold.
    #[schema(value_type = UnusedTrianglesName)]
    pub unused_triangles: UnusedTriangles,
    /// Whether moves may end in other players' triangles.
    #[schema(value_type = RestingName)]
    pub rest_in_foreign_triangles: Resting,
    /// Whether long jumps are on.
    pub long_jumps: bool,
    /// The anti-spoiling rule.
    #[schema(value_type = AntiSpoilingName)]
    pub anti_spoiling: AntiSpoiling,
    /// How the game ends.
    #[schema(value_type = FinishName)]
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

/// A position: the compact position string, or the JSON form.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(example = "star4 classic south:111-120/north:0-9 0 0 -")]
pub enum PositionInput {
    /// The position string (see `docs/notation.md`).
    Text(String),
    /// The JSON form.
    #[schema(value_type = PositionJson)]
    Json(Object<PositionJson>),
}

/// One set of pegs: its start triangle and the holes of its pegs.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PegSetJson {
    /// The triangle the set started in; it heads for the opposite one.
    #[schema(value_type = TriangleName)]
    pub triangle: Triangle,
    /// Hole ids of its pegs.
    #[serde(deserialize_with = "sternhalma::wire::whole::list")]
    #[schema(example = json!([111, 112, 113, 114, 115, 116, 117, 118, 119, 120]), value_type = Vec<HoleId>)]
    pub pegs: Vec<usize>,
}

/// A finished player and the ply at which they finished.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FinisherJson {
    /// The player (0-based).
    #[serde(deserialize_with = "sternhalma::wire::whole::one")]
    #[schema(value_type = PlayerIndex)]
    pub player: usize,
    /// Plies played when they finished.
    #[serde(deserialize_with = "sternhalma::wire::whole::one")]
    #[schema(value_type = PlyCount)]
    pub ply: u32,
}

/// A position as JSON: the same content as the position string.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "board": "star4",
    "rules": "classic",
    "players": [[{"triangle": "south", "pegs": [111, 112, 113, 114, 115, 116, 117, 118, 119, 120]}],
                [{"triangle": "north", "pegs": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}]],
    "side_to_move": 0,
    "ply": 0,
    "finished": []
}))]
pub struct PositionJson {
    /// The board: `star1`..`star4` or `rhombus<M>x<K>`.
    #[schema(example = "star4")]
    pub board: String,
    /// The rules; `classic` if absent. Responses give the text form.
    #[serde(default = "classic_text")]
    #[schema(value_type = RulesInput)]
    pub rules: RulesInputOrText,
    /// The players in turn order, each with their sets.
    #[schema(value_type = Vec<Vec<PegSetJson>>)]
    pub players: Vec<Vec<Object<PegSetJson>>>,
    /// The player to move, 0-based.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::one")]
    #[schema(value_type = PlayerIndex)]
    pub side_to_move: usize,
    /// Plies played so far, passes included.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::one")]
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// Players who have finished, in finishing order.
    #[serde(default)]
    #[schema(value_type = Vec<FinisherJson>)]
    pub finished: Vec<Object<FinisherJson>>,
}

/// Rules as given in a position: deserialised as [`RulesInput`], serialised
/// as the text form.
#[derive(Clone, Debug)]
pub struct RulesInputOrText(pub RulesInput);

impl<'de> Deserialize<'de> for RulesInputOrText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RulesInput::deserialize(deserializer).map(RulesInputOrText)
    }
}

impl Serialize for RulesInputOrText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            RulesInput::Text(text) => serializer.serialize_str(text),
            RulesInput::Object(object) => serializer.collect_str(&object.0.resolve()),
        }
    }
}

fn classic_text() -> RulesInputOrText {
    RulesInputOrText(RulesInput::Text("classic".to_owned()))
}

impl PositionInput {
    /// Parses and validates the position.
    pub fn resolve(&self) -> Result<Position, ApiError> {
        match self {
            PositionInput::Text(text) => Ok(text.parse::<Position>()?),
            PositionInput::Json(json) => Ok(json.0.to_setup()?.validate()?),
        }
    }
}

impl PositionJson {
    /// The unchecked setup this describes.
    pub fn to_setup(&self) -> Result<Setup, ApiError> {
        Ok(Setup {
            board: self.board.parse::<Board>()?,
            rules: self.rules.0.resolve()?,
            players: self
                .players
                .iter()
                .map(|sets| {
                    sets.iter()
                        .map(|Object(set)| PegSet {
                            triangle: set.triangle,
                            pegs: set.pegs.clone(),
                        })
                        .collect()
                })
                .collect(),
            neutral: None,
            side_to_move: self.side_to_move,
            ply: self.ply,
            finished: self
                .finished
                .iter()
                .map(|Object(f)| Finisher {
                    player: f.player,
                    ply: f.ply,
                })
                .collect(),
        })
    }

    /// The JSON form of a position.
    pub fn from_position(position: &Position) -> PositionJson {
        let setup = position.to_setup();
        PositionJson {
            board: setup.board.to_string(),
            rules: RulesInputOrText(RulesInput::Text(setup.rules.to_string())),
            players: setup
                .players
                .iter()
                .map(|sets| {
                    sets.iter()
                        .map(|set| {
                            Object(PegSetJson {
                                triangle: set.triangle,
                                pegs: set.pegs.clone(),
                            })
                        })
                        .collect()
                })
                .collect(),
            side_to_move: setup.side_to_move,
            ply: setup.ply,
            finished: setup
                .finished
                .iter()
                .map(|f| {
                    Object(FinisherJson {
                        player: f.player,
                        ply: f.ply,
                    })
                })
                .collect(),
        }
    }
}

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
            position: PositionJson::from_position(position),
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
        ApiError::unprocessable(
            "off_board",
            format!(
                "hole {id} is not on the board (holes are 0 to {})",
                geometry.len() - 1
            ),
        )
    })
}

// ---- Moves -------------------------------------------------------------------

/// A move as a client gives it: the move text (`"111-102"`, `"95-75-57"`,
/// `"pass"`), its ends (`{"from": 111, "to": 102}`), or a full path
/// (`{"path": [95, 75, 57]}`, checked hop by hop).
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(example = "115-104")]
pub enum MoveInput {
    /// The move text.
    Text(String),
    /// The start and end holes.
    #[schema(value_type = MoveEnds)]
    Ends(Object<MoveEnds>),
    /// Every hole of the path.
    #[schema(value_type = MovePath)]
    Path(Object<MovePath>),
}

/// A move by its ends.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveEnds {
    /// Start hole.
    #[serde(deserialize_with = "sternhalma::wire::whole::one")]
    #[schema(example = 115, value_type = HoleId)]
    pub from: usize,
    /// End hole.
    #[serde(deserialize_with = "sternhalma::wire::whole::one")]
    #[schema(example = 104, value_type = HoleId)]
    pub to: usize,
}

/// A move by its full path.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MovePath {
    /// Hole ids from start to end; two or more.
    #[serde(deserialize_with = "sternhalma::wire::whole::list")]
    #[schema(example = json!([115, 104]), value_type = Vec<HoleId>, min_items = 2)]
    pub path: Vec<usize>,
}

impl MoveInput {
    /// The move text this stands for.
    pub fn text(&self) -> Result<MoveText, ApiError> {
        match self {
            MoveInput::Text(text) => Ok(text.parse()?),
            MoveInput::Ends(Object(ends)) => Ok(MoveText::Path(vec![ends.from, ends.to])),
            MoveInput::Path(Object(path)) => {
                if path.path.len() < 2 {
                    Err(ApiError::unprocessable(
                        "malformed_move",
                        "a path needs at least two holes: where the peg starts and where it ends",
                    ))
                } else {
                    Ok(MoveText::Path(path.path.clone()))
                }
            }
        }
    }

    /// The legal move it names in `position`.
    pub fn resolve(&self, position: &Position) -> Result<Move, ApiError> {
        Ok(position.parse_move(&self.text()?)?)
    }
}

/// A legal move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MoveView {
    /// The move text by its ends (`"pass"` for a pass).
    #[schema(example = "115-104")]
    pub text: String,
    /// The kind of move.
    #[schema(value_type = MoveKindName)]
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
    /// The view of a legal move of `position`.
    pub fn new(position: &Position, mv: Move) -> MoveView {
        MoveView {
            text: mv.to_string(),
            kind: mv.kind(),
            from: mv.from().map(Cell::id),
            to: mv.to().map(Cell::id),
            path: position
                .witness_path(mv)
                .into_iter()
                .map(Cell::id)
                .collect(),
        }
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

// ---- Outcome -------------------------------------------------------------------

/// The state of a game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct OutcomeView {
    /// `in_progress`, `won`, `tie`, `ranking` or `draw`.
    #[schema(example = "in_progress")]
    pub status: String,
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
    pub reason: Option<String>,
    /// Each player's result: +1 best, -1 worst, 0 a draw or a game in
    /// progress; a player ranked above `a` and below `b` others scores
    /// `(a - b) / (players - 1)`.
    pub results: Vec<f64>,
    /// The outcome in words.
    #[schema(example = "in progress")]
    pub summary: String,
    /// Players who have finished, in order, with the ply.
    pub finished: Vec<FinisherJson>,
}

impl From<&Position> for OutcomeView {
    fn from(position: &Position) -> OutcomeView {
        let outcome = position.outcome();
        let results = outcome.results(position.layout().player_count());
        let summary = outcome.to_string();
        let finished = position
            .finishers()
            .iter()
            .map(|f| FinisherJson {
                player: f.player,
                ply: f.ply,
            })
            .collect();
        let mut view = OutcomeView {
            status: String::new(),
            winner: None,
            winners: None,
            ranks: None,
            reason: None,
            results,
            summary,
            finished,
        };
        view.status = match outcome {
            Outcome::InProgress => "in_progress",
            Outcome::Won { winner } => {
                view.winner = Some(winner);
                "won"
            }
            Outcome::Tie { winners } => {
                view.winners = Some(winners);
                "tie"
            }
            Outcome::Ranking { ranks } => {
                view.ranks = Some(ranks);
                "ranking"
            }
            Outcome::Draw { reason } => {
                view.reason = Some(
                    serde_json::to_value(reason)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                );
                "draw"
            }
        }
        .to_owned();
        view
    }
}
