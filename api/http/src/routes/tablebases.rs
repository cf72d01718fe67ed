//! Solved tables (RULES §7): the tables this server installed, any
//! covered position's value with every move's, as lichess shows a
//! tablebase ("win in 7", "draw", "loss in 12"), and the best line from a
//! position to the end (lichess's `/mainline`).
//!
//! The tables are the app's: a [`Tablebases`] given as app data
//! ([`crate::data`]; `sternhalma serve --tablebases DIR` fills the server's
//! one set at start, a test gives its own). A probe reads a table in
//! memory: microseconds (a packed table, `sternhalma tablebase pack`: some
//! microseconds a read, some tens for a probe with its moves), so it
//! is answered on the request's worker like `/v1/legal-moves`, never
//! queued behind heavy work, and not rate-limited (`crate::clients`). So is the list: each table's counts were taken once,
//! when it was installed, and the start's probe is one read.

use actix_web::{get, post, web};
use serde::Serialize;
use sternhalma::solve::{MoveProbe, Probe, Tablebase, TablebaseError, Tablebases, Value};
use sternhalma::{Layout, Position, Rules};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{MoveView, PlayerIndex, PositionRequest};
use crate::error::{ApiError, BodyErrors, Problem};
use sternhalma::wire::whole::Object;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(list_tablebases)
        .service(tablebase_probe)
        .service(tablebase_mainline);
}

/// A value under perfect play, for the side it is given for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SolvedValue {
    /// Wins, whatever the other side does.
    Win,
    /// Loses against best play.
    Loss,
    /// Neither side can force a win.
    Draw,
}

impl From<Value> for SolvedValue {
    fn from(value: Value) -> SolvedValue {
        match value {
            Value::Win => SolvedValue::Win,
            Value::Loss => SolvedValue::Loss,
            // A position is validated before it is probed, and setup
            // refuses the positions RULES §7 calls illegal; moves never
            // lead to one.
            Value::Draw | Value::Illegal => SolvedValue::Draw,
        }
    }
}

/// What a table says of a position (or a move), for the side it is given
/// for.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"value": "win", "depth": 7, "text": "win in 7"}))]
pub struct ProbeView {
    /// Win, loss or draw.
    pub value: SolvedValue,
    /// Plies to the end under best play (the winner hurrying, the loser
    /// holding out); null for a draw, or when the table keeps no depths.
    #[schema(example = 7, minimum = 0)]
    pub depth: Option<u32>,
    /// The same in words: `win in 7`, `loss in 12`, `draw` (`win` without
    /// depths).
    #[schema(example = "win in 7")]
    pub text: String,
}

impl From<Probe> for ProbeView {
    fn from(probe: Probe) -> ProbeView {
        ProbeView {
            value: probe.value.into(),
            depth: probe.depth,
            text: probe.to_string(),
        }
    }
}

/// A legal move and what it leads to, for the player making it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"move": {"text": "48-45", "kind": "hop", "from": 48, "to": 45, "path": [48, 45]}, "value": "win", "depth": 33, "text": "win in 33", "best": true}))]
pub struct MoveProbeView {
    /// The move, as `POST /v1/legal-moves` answers it.
    #[serde(rename = "move")]
    pub mv: MoveView,
    /// The mover's value after it.
    pub value: SolvedValue,
    /// Plies to the end from the position before the move, the move
    /// counted, under best play after it; null for a draw or without
    /// depths. A best move's depth is the position's.
    #[schema(example = 7, minimum = 0)]
    pub depth: Option<u32>,
    /// The same in words (`win in 7`).
    pub text: String,
    /// Whether it is among the best moves: the fastest win, else a drawing
    /// move, else the longest loss.
    pub best: bool,
}

/// A position probed.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TablebaseProbe {
    /// The board of the table that answered.
    #[schema(example = "rhombus7p2")]
    pub board: String,
    /// The position's value for the side to move.
    pub value: SolvedValue,
    /// Plies to the end under best play; null for a draw or without
    /// depths. A game over is a loss in 0 for the side to move.
    #[schema(example = 7, minimum = 0)]
    pub depth: Option<u32>,
    /// The same in words: `win in 7`, `loss in 12`, `draw`.
    #[schema(example = "win in 7")]
    pub text: String,
    /// The player to move.
    #[schema(value_type = PlayerIndex)]
    pub side_to_move: usize,
    /// Every legal move with its value for the mover, best first: wins by
    /// fewest plies, then draws, then losses by most plies (equals in the
    /// order of `POST /v1/legal-moves`). Empty once the game is over.
    pub moves: Vec<MoveProbeView>,
    /// The first of `moves`, or null once the game is over.
    pub best_move: Option<MoveView>,
}

/// One installed table.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"board": "rhombus7p2", "side": 7, "pegs": 2, "rules": "sturtevant", "start_position": "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -", "start": {"value": "win", "depth": 33, "text": "win in 33"}, "positions": 2542512, "wins": 1265851, "draws": 0, "illegal": 10810, "depths": true, "bytes": 1271256}))]
pub struct TablebaseView {
    /// The board, which names the game: a table answers for positions on it.
    #[schema(example = "rhombus7p2")]
    pub board: String,
    /// Holes along a side of the rhombus.
    #[schema(example = 7)]
    pub side: u8,
    /// Pegs a side.
    #[schema(example = 2)]
    pub pegs: u8,
    /// The rules the table was solved under (any `max_plies` is ignored).
    #[schema(example = "sturtevant")]
    pub rules: String,
    /// The start position (south to move), to probe or play from.
    pub start_position: String,
    /// The start position's value for the side to move.
    pub start: ProbeView,
    /// Positions with either side to move, as Table 1 of Sturtevant (2019)
    /// counts them.
    #[schema(example = 2542512)]
    pub positions: u64,
    /// Positions won by the first player (Table 1's count: wins for the
    /// side to move and losses for the other).
    #[schema(example = 1265851)]
    pub wins: u64,
    /// Drawn positions, either side to move.
    #[schema(example = 0)]
    pub draws: u64,
    /// Positions that cannot arise (RULES §7), either side to move.
    #[schema(example = 10810)]
    pub illegal: u64,
    /// Whether it keeps each position's depth to the end (a byte a
    /// position): probes give `win in 7` rather than `win`, and the
    /// `perfect` bot plays only from tables that do.
    pub depths: bool,
    /// Bytes of memory it holds.
    #[schema(example = 1271256)]
    pub bytes: u64,
}

impl TablebaseView {
    /// The view of `table`.
    pub fn new(table: &Tablebase) -> TablebaseView {
        let game = table.game();
        // Scanned for once, when the table was installed
        // (`Tablebases::install`): a lookup here, however often asked.
        let [positions, wins, draws, illegal] = table.counts().published();
        let start = start_position(table);
        TablebaseView {
            board: game.board().to_string(),
            side: game.side(),
            pegs: game.pegs(),
            rules: game.rules().to_owned(),
            start_position: start.as_ref().map(ToString::to_string).unwrap_or_default(),
            start: start
                .and_then(|p| table.probe(&p).ok())
                .unwrap_or(Probe {
                    value: Value::Draw,
                    depth: None,
                })
                .into(),
            positions,
            wins,
            draws,
            illegal,
            depths: table.has_depths(),
            bytes: table.bytes(),
        }
    }
}

/// The start of `table`'s game: south to move.
fn start_position(table: &Tablebase) -> Option<Position> {
    let layout = Layout::standard(2).ok()?;
    Position::start(table.game().board(), layout, Rules::sturtevant()).ok()
}

/// The installed tables.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TablebaseList {
    /// Every table, by board name; empty unless the server was started
    /// with `--tablebases`.
    pub tablebases: Vec<TablebaseView>,
}

/// The solved tables this server installed (`sternhalma serve
/// --tablebases DIR`, `--build-tablebases`): each one's game, its counts as
/// Table 1 of Sturtevant (2019) gives them, whether it keeps depths, and
/// the memory it holds.
#[utoipa::path(
    tag = "tablebases",
    responses((status = 200, description = "The installed tables, by board", body = TablebaseList))
)]
#[get("/v1/tablebases")]
pub async fn list_tablebases(tables: web::Data<Tablebases>) -> web::Json<TablebaseList> {
    web::Json(TablebaseList {
        tablebases: tables
            .list()
            .iter()
            .map(|table| TablebaseView::new(table))
            .collect(),
    })
}

/// What `table` says of `position` and of each of its moves.
///
/// # Errors
/// 422 `tablebase_other_game` for a position of another game.
pub fn probe_position(table: &Tablebase, position: &Position) -> Result<TablebaseProbe, ApiError> {
    let probe = table.probe(position)?;
    // Best first.
    let moves = table.moves(position)?;
    let best = moves.first().map(MoveProbe::preference);
    let moves: Vec<MoveProbeView> = moves
        .iter()
        .map(|m| MoveProbeView {
            mv: MoveView::new(position, m.mv),
            value: m.value.into(),
            depth: m.depth,
            text: m.probe().to_string(),
            best: Some(m.preference()) == best,
        })
        .collect();
    Ok(TablebaseProbe {
        board: table.game().board().to_string(),
        value: probe.value.into(),
        depth: probe.depth,
        text: probe.to_string(),
        side_to_move: position.side_to_move(),
        best_move: moves.first().map(|m| m.mv.clone()),
        moves,
    })
}

/// A position's value under perfect play, and every legal move's, from
/// the installed table of its board: `win in 7`, `draw`, `loss in 12` for
/// the side to move, the moves best first (the fastest win, then draws,
/// then the longest loss) and the best move. A game over is a loss in 0
/// for the side to move. Cheap (a few table reads): answered at once, not
/// on the heavy-work pool, and not rate-limited.
#[utoipa::path(
    tag = "tablebases",
    request_body(content = PositionRequest, example = json!({"position": "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -"})),
    responses(
        (status = 200, description = "The position's value and every move's", body = TablebaseProbe),
        BodyErrors,
        (status = 422, description = "Invalid position (every problem listed); no installed table of the position's board (`no_tablebase`: the detail names the tables installed and how a server gets one); a table of the board, but the position is not of its game: other rules than `sturtevant` (a `max_plies` aside) or other sets (`tablebase_other_game`); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/tablebase/probe")]
pub async fn tablebase_probe(
    tables: web::Data<Tablebases>,
    body: web::Json<Object<PositionRequest>>,
) -> Result<web::Json<TablebaseProbe>, ApiError> {
    let position = body.into_inner().0.position.resolve()?;
    let table = tables.for_position(&position)?;
    Ok(web::Json(probe_position(&table, &position)?))
}

/// One move of a best line, for the player making it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"move": {"text": "48-45", "kind": "hop", "from": 48, "to": 45, "path": [48, 45]}, "side_to_move": 0, "value": "win", "depth": 33, "text": "win in 33"}))]
pub struct MainlineMoveView {
    /// The move, as `POST /v1/legal-moves` answers it (legal in the
    /// position the line has reached).
    #[serde(rename = "move")]
    pub mv: MoveView,
    /// The player making it.
    #[schema(value_type = PlayerIndex)]
    pub side_to_move: usize,
    /// The mover's value: the position's before the move, kept by it.
    pub value: SolvedValue,
    /// Plies to the end, this move counted: one less at each ply.
    #[schema(example = 33, minimum = 1)]
    pub depth: Option<u32>,
    /// The same in words (`win in 33`, `loss in 32`).
    #[schema(example = "win in 33")]
    pub text: String,
}

/// A position's best line to the end.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TablebaseMainline {
    /// The board of the table that answered.
    #[schema(example = "rhombus7p2")]
    pub board: String,
    /// The position's value for the side to move.
    pub value: SolvedValue,
    /// Plies to the end under best play: the line's length for a win or a
    /// loss; null for a draw. A game over is a loss in 0.
    #[schema(example = 33, minimum = 0)]
    pub depth: Option<u32>,
    /// The same in words: `win in 33`, `loss in 12`, `draw`.
    #[schema(example = "win in 33")]
    pub text: String,
    /// The player to move.
    #[schema(value_type = PlayerIndex)]
    pub side_to_move: usize,
    /// The moves to the end, each the best (the fastest win, the longest
    /// loss; among equals the first in the order of `POST
    /// /v1/legal-moves`), sides alternating. Empty for a draw (no line
    /// ends it) and for a game over.
    pub mainline: Vec<MainlineMoveView>,
    /// The position the line ends in: a finished game (the position itself
    /// when the line is empty). A line is of the game without a move
    /// limit, as the tables know it: a `max_plies` of the position is set
    /// aside.
    #[schema(example = "rhombus7p2 sturtevant south:0,1/north:2,6 1 33 0@33")]
    pub end_position: String,
}

/// What `table` gives as `position`'s best line.
///
/// # Errors
/// 422 `tablebase_other_game` for a position of another game,
/// `tablebase_without_depths` for a table without depths.
pub fn mainline_of(table: &Tablebase, position: &Position) -> Result<TablebaseMainline, ApiError> {
    let line = table.mainline(position)?;
    let mainline = line
        .moves
        .iter()
        .zip(&line.positions)
        .map(|(ply, here)| MainlineMoveView {
            mv: MoveView::new(here, ply.mv),
            side_to_move: here.side_to_move(),
            value: ply.value.into(),
            depth: ply.depth,
            text: ply.probe().to_string(),
        })
        .collect();
    Ok(TablebaseMainline {
        board: table.game().board().to_string(),
        value: line.probe.value.into(),
        depth: line.probe.depth,
        text: line.probe.to_string(),
        side_to_move: position.side_to_move(),
        mainline,
        end_position: line
            .positions
            .last()
            .map(ToString::to_string)
            .unwrap_or_default(),
    })
}

/// The best line from a position to the end of the game, from the
/// installed table of its board (lichess's `/mainline`): the position's
/// value (`win in 33`), and each ply the best move with its mover's value,
/// the winner hurrying and the loser holding out, so that a win or a loss
/// in N has N moves and ends in a finished game. A draw has no line to an
/// end and answers an empty one, as does a game over. Needs a table with
/// depths. Cheap (a few thousand table reads): answered at once, not on
/// the heavy-work pool, and not rate-limited.
#[utoipa::path(
    tag = "tablebases",
    request_body(content = PositionRequest, example = json!({"position": "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -"})),
    responses(
        (status = 200, description = "The position's value and its best line to the end", body = TablebaseMainline),
        BodyErrors,
        (status = 422, description = "Invalid position (every problem listed); no installed table of the position's board (`no_tablebase`: the detail names the tables installed and how a server gets one); a table of the board, but the position is not of its game: other rules than `sturtevant` (a `max_plies` aside) or other sets (`tablebase_other_game`); a table that keeps values only, with no depths to find a line by (`tablebase_without_depths`); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/tablebase/mainline")]
pub async fn tablebase_mainline(
    tables: web::Data<Tablebases>,
    body: web::Json<Object<PositionRequest>>,
) -> Result<web::Json<TablebaseMainline>, ApiError> {
    let position = body.into_inner().0.position.resolve()?;
    let table = tables.for_position(&position)?;
    Ok(web::Json(mainline_of(&table, &position)?))
}

/// The refusal of the `perfect` bot, as a 422 problem: the table's code
/// (`no_tablebase`, `tablebase_other_game`, `tablebase_without_depths`),
/// the tables installed and how a server gets one. Every surface that
/// takes a bot asks
/// [`PerfectBot::covers`](sternhalma::search::perfect::PerfectBot::covers),
/// with the tables the bot will play from, before it accepts the bot:
/// without a table it would play greedy moves under a name that promises
/// perfect ones.
pub fn perfect_refused(error: &TablebaseError) -> ApiError {
    ApiError::tablebase(
        error.code(),
        format!(
            "the perfect bot plays only where an installed table with depths covers the game: {error}"
        ),
    )
}
