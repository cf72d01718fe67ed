//! What the engine offers: presets, options, boards, layouts; board geometry;
//! health.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use sternhalma::{Board, BoardShape, Layout, OPTION_NAMES, Preset, Rules, Triangle};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::RulesView;
use crate::error::{ApiError, Problem};
use crate::limits::{MAX_BODY_BYTES, MAX_REPLAY_MOVES};

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(health)
        .service(catalogue)
        .service(board_geometry);
}

/// The server is up.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// Always `ok`.
    #[schema(example = "ok")]
    pub status: &'static str,
    /// The server's version.
    #[schema(example = "0.1.0")]
    pub version: &'static str,
}

/// Liveness check.
#[utoipa::path(
    tag = "meta",
    responses((status = 200, description = "The server is up", body = Health))
)]
#[get("/healthz")]
pub async fn health() -> web::Json<Health> {
    web::Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
    })
}

/// A named rule set.
#[derive(Serialize, ToSchema)]
pub struct PresetView {
    /// Its name.
    #[schema(example = "classic")]
    pub name: &'static str,
    /// What it is and where it comes from.
    pub description: &'static str,
    /// Every option's value.
    pub rules: RulesView,
    /// The board it is played on unless another is chosen.
    #[schema(example = "star4")]
    pub default_board: String,
}

/// A rule option.
#[derive(Serialize, ToSchema)]
pub struct OptionView {
    /// Its name, as in the rules text and the rules object.
    #[schema(example = "anti_spoiling")]
    pub name: &'static str,
    /// The values it takes (in the text form).
    pub values: Vec<&'static str>,
    /// Its value under `classic`, the default preset.
    #[schema(example = "none")]
    pub default: String,
}

/// A supported board, in brief.
#[derive(Serialize, ToSchema)]
pub struct BoardSummary {
    /// Its name, e.g. `star4`, `rhombus9p10` or `rhombus7p2`.
    #[schema(example = "star4")]
    pub name: String,
    /// `star` or `rhombus`.
    #[schema(example = "star")]
    pub shape: &'static str,
    /// Number of holes.
    #[schema(example = 121)]
    pub holes: usize,
    /// Number of rows.
    pub rows: usize,
    /// Pegs in one set.
    #[schema(example = 10)]
    pub pegs_per_set: usize,
    /// The triangles the board has.
    pub triangles: Vec<&'static str>,
}

/// A standard layout.
#[derive(Serialize, ToSchema)]
pub struct LayoutView {
    /// Its short name, as accepted by `POST /v1/positions`.
    #[schema(example = "2")]
    pub name: &'static str,
    /// Its full form: players in turn order, each player's start triangles.
    #[schema(example = "south/north")]
    pub text: String,
    /// Start triangles of each player.
    pub players: Vec<Vec<&'static str>>,
}

/// Everything a client may choose.
#[derive(Serialize, ToSchema)]
pub struct Catalogue {
    /// The presets.
    pub presets: Vec<PresetView>,
    /// Every rule option.
    pub options: Vec<OptionView>,
    /// Every board (`GET /v1/boards/{board}` gives its geometry).
    pub boards: Vec<BoardSummary>,
    /// The standard layouts. Any other is written in full, e.g.
    /// `south+north/south_west+north_east`.
    pub layouts: Vec<LayoutView>,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// The most moves `POST /v1/replay` takes in one game record.
    pub max_replay_moves: usize,
    /// The preset to use for games between programs, and why.
    pub for_programs: ForPrograms,
}

/// What a class should play its bots under.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ForPrograms {
    /// The preset: `masters`.
    #[schema(example = "masters")]
    pub preset: &'static str,
    /// Why, in a sentence.
    pub why: &'static str,
    /// The move limit a stored match gets when its rules set none, in turns
    /// per player.
    #[schema(example = 200)]
    pub turns_per_player: u32,
}

fn layout_view(name: &'static str, layout: &Layout) -> LayoutView {
    LayoutView {
        name,
        text: layout.to_string(),
        players: (0..layout.player_count())
            .map(|p| layout.sets_of(p).map(Triangle::name).collect())
            .collect(),
    }
}

/// Presets, options, boards and layouts.
#[utoipa::path(
    tag = "catalogue",
    responses((status = 200, description = "The catalogue", body = Catalogue))
)]
#[get("/v1/catalogue")]
pub async fn catalogue() -> web::Json<Catalogue> {
    let classic = Rules::classic();
    let layouts = ["1", "2", "3", "4", "6", "2x3", "3x2"]
        .into_iter()
        .map(|name| layout_view(name, &name.parse().expect("standard layouts parse")))
        .collect();
    web::Json(Catalogue {
        for_programs: ForPrograms {
            preset: Preset::FOR_PROGRAMS.name(),
            why: "Under classic a peg left in an opponent's target blocks that opponent's finish forever; under masters the swap rule lets the opponent exchange places with it and resting forbidden keeps pegs out of other players' triangles, so every game can be finished.",
            turns_per_player: sternhalma::NewGame::PROGRAM_TURNS_PER_PLAYER,
        },
        presets: Preset::ALL
            .into_iter()
            .map(|preset| PresetView {
                name: preset.name(),
                description: preset.description(),
                rules: (&preset.rules()).into(),
                default_board: preset.default_board().to_string(),
            })
            .collect(),
        options: OPTION_NAMES
            .into_iter()
            .map(|name| OptionView {
                name,
                values: Rules::option_values(name).unwrap_or_default().to_vec(),
                default: classic.option(name).unwrap_or_default(),
            })
            .collect(),
        boards: Board::all().map(summary).collect(),
        layouts,
        max_body_bytes: MAX_BODY_BYTES,
        max_replay_moves: MAX_REPLAY_MOVES,
    })
}

fn summary(board: Board) -> BoardSummary {
    let geometry = board.geometry();
    BoardSummary {
        name: board.to_string(),
        shape: match board.shape() {
            BoardShape::Star { .. } => "star",
            BoardShape::Rhombus { .. } | BoardShape::RhombusPegs { .. } => "rhombus",
        },
        holes: geometry.len(),
        rows: geometry.rows(),
        pegs_per_set: board.pegs_per_set(),
        triangles: board.triangles().iter().map(|t| t.name()).collect(),
    }
}

/// One hole of a board.
#[derive(Serialize, ToSchema)]
pub struct HoleView {
    /// Its id.
    pub id: usize,
    /// Axial coordinate q (grows to the right).
    pub q: i32,
    /// Axial coordinate r (the row; grows downwards).
    pub r: i32,
    /// The triangle (home) it belongs to, if any.
    #[schema(example = "north")]
    pub triangle: Option<&'static str>,
    /// Its neighbours' ids, clockwise from east.
    pub neighbors: Vec<usize>,
    /// Its image in the left-right mirror.
    pub mirror: usize,
}

/// The holes of one triangle.
#[derive(Serialize, ToSchema)]
pub struct TriangleHoles {
    /// The triangle.
    #[schema(example = "south")]
    pub triangle: &'static str,
    /// The triangle opposite: where a set starting here is headed.
    #[schema(example = "north")]
    pub opposite: &'static str,
    /// Its holes.
    pub holes: Vec<usize>,
}

/// A board's geometry: enough to draw it and reason about it.
#[derive(Serialize, ToSchema)]
pub struct BoardView {
    /// The board.
    #[serde(flatten)]
    pub summary: BoardSummary,
    /// Every hole, by id. To draw: x = q + r/2, y = r × √3/2.
    pub hole_list: Vec<HoleView>,
    /// The holes of each triangle.
    pub triangle_holes: Vec<TriangleHoles>,
}

/// A board's holes, coordinates, neighbours and triangles.
#[utoipa::path(
    tag = "catalogue",
    params(("board" = String, Path, description = "`star1`..`star4` or `rhombus<M>p<P>`: a side of M holes (2 to 11), homes of P pegs (a triangle of K rows, K from 1 to M-1, holds K(K+1)/2 pegs: 1, 3, 6, 10, ...; or the solved game's 2 and 4, RULES §7). The older `rhombus<M>x<K>` (homes of K rows) still reads", example = "star4", pattern = "^(star[1-4]|rhombus([2-9]|1[01])x([1-9]|10)|rhombus([2-9]|1[01])p([1-46]|10|15|21|28|36|45|55))$")),
    responses(
        (status = 200, description = "The board's geometry", body = BoardView),
        (status = 404, description = "No such board", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/boards/{board}")]
pub async fn board_geometry(name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let board: Board = name
        .parse()
        .map_err(|e: sternhalma::ParseError| ApiError::not_found(e.to_string()))?;
    let geometry = board.geometry();
    let view = BoardView {
        summary: summary(board),
        hole_list: geometry
            .cells()
            .map(|cell| {
                let (q, r) = geometry.coordinates(cell);
                HoleView {
                    id: cell.id(),
                    q,
                    r,
                    triangle: geometry.triangle_of(cell).map(Triangle::name),
                    neighbors: geometry.neighbors(cell).map(|c| c.id()).collect(),
                    mirror: geometry.mirror(cell).id(),
                }
            })
            .collect(),
        triangle_holes: board
            .triangles()
            .iter()
            .map(|&t| TriangleHoles {
                triangle: t.name(),
                opposite: t.opposite().name(),
                holes: geometry.triangle(t).iter().map(|c| c.id()).collect(),
            })
            .collect(),
    };
    Ok(HttpResponse::Ok().json(view))
}
