//! New positions; validation and conversion between the two forms.

use actix_web::{post, web};
use serde::{Deserialize, Serialize};
use sternhalma::{Board, Layout, Preset, Setup};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{PositionInput, PositionView, RulesInput};
use crate::error::{ApiError, Problem, ProblemItem};

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(new_position).service(validate);
}

/// What game to start.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"board": "star4", "layout": "2", "rules": "classic", "first_player": 0}))]
pub struct NewPosition {
    /// The board; by default the preset's (`rhombus9x4` for `research`,
    /// `star4` otherwise).
    #[schema(example = "star4")]
    pub board: Option<String>,
    /// The players and their sets: `1`, `2`, `3`, `4`, `6`, `2x3`, `3x2`,
    /// or in full (`south+north/south_west+north_east`). Default `2`.
    #[schema(example = "2")]
    pub layout: Option<String>,
    /// The rules; default `classic`.
    pub rules: Option<RulesInput>,
    /// Who moves first (0-based); default 0, the layout's first player.
    pub first_player: Option<usize>,
}

/// The start position of a game.
#[utoipa::path(
    tag = "positions",
    request_body = NewPosition,
    responses(
        (status = 200, description = "The start position", body = PositionView),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown board, layout or rules, a layout the board cannot hold, or a first player who does not exist", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/positions")]
pub async fn new_position(
    request: web::Json<NewPosition>,
) -> Result<web::Json<PositionView>, ApiError> {
    let rules_input = request
        .rules
        .clone()
        .unwrap_or_else(|| RulesInput::Text("classic".to_owned()));
    let rules = rules_input.resolve()?;
    let board: Board = match &request.board {
        Some(name) => name.parse()?,
        None => rules_input
            .preset()
            .unwrap_or(Preset::Classic)
            .default_board(),
    };
    let layout: Layout = request.layout.as_deref().unwrap_or("2").parse()?;
    let mut setup = Setup::start(board, layout, rules);
    setup.side_to_move = request.first_player.unwrap_or(0);
    let position = setup.validate()?;
    Ok(web::Json((&position).into()))
}

/// A position to check.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidateRequest {
    /// The position, as a string or as JSON.
    pub position: PositionInput,
}

/// What is wrong with a position, or both of its forms.
#[derive(Debug, Serialize, ToSchema)]
pub struct ValidationReport {
    /// Whether the position is legal.
    pub valid: bool,
    /// Every problem found (empty when valid). A position string that does
    /// not follow the grammar gives one problem, `malformed_position`.
    pub problems: Vec<ProblemItem>,
    /// The position in both forms, when valid.
    pub position: Option<PositionView>,
}

/// Checks a position, reporting every problem at once; converts a valid one
/// between the position string and JSON.
#[utoipa::path(
    tag = "positions",
    request_body = ValidateRequest,
    responses(
        (status = 200, description = "The report: valid with both forms, or every problem", body = ValidationReport),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "Not JSON", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/positions/validate")]
pub async fn validate(request: web::Json<ValidateRequest>) -> web::Json<ValidationReport> {
    let checked = request.position.resolve();
    web::Json(match checked {
        Ok(position) => ValidationReport {
            valid: true,
            problems: Vec::new(),
            position: Some((&position).into()),
        },
        Err(error) => {
            let problem = error.problem();
            let problems = if problem.problems.is_empty() {
                vec![ProblemItem {
                    code: problem.code.clone(),
                    message: problem.detail.clone(),
                }]
            } else {
                problem.problems.clone()
            };
            ValidationReport {
                valid: false,
                problems,
                position: None,
            }
        }
    })
}
