//! New positions; validation and conversion between the two forms.

use actix_web::{post, web};
use serde::Serialize;
use serde_json::Value;
use sternhalma::Position;
use sternhalma::wire;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{PlayerIndex, PositionRequest, PositionView, RulesInput};
use crate::error::{ApiError, BodyErrors, Problem};
use sternhalma::wire::whole::Object;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(new_position).service(validate);
}

/// What game to start (the schema of the body; `sternhalma::wire::new_game`
/// reads it).
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({"board": "star4", "layout": "2", "rules": "classic", "first_player": 0}))]
pub struct NewPosition {
    /// The board; by default that of the preset the rules print as
    /// (`rhombus9p10` for `research`, `rhombus7p3` for `sturtevant`, `star4`
    /// otherwise), however spelled.
    #[schema(example = "star4")]
    pub board: Option<String>,
    /// The players and their sets: `1`, `2`, `3`, `4`, `6`, `2x3`, `3x2`,
    /// or in full (`south+north/south_west+north_east`). Default `2`.
    #[schema(example = "2")]
    pub layout: Option<String>,
    /// The rules; default `classic`.
    pub rules: Option<RulesInput>,
    /// Who moves first (0-based); default 0, the layout's first player.
    #[schema(value_type = Option<PlayerIndex>)]
    pub first_player: Option<usize>,
}

impl NewPosition {
    /// The start position a request body asks for (`sternhalma::wire::new_game`
    /// reads it; the defaults are `sternhalma::NewGame`'s).
    ///
    /// # Errors
    /// 422: unknown board, layout or rules, a layout the board cannot hold,
    /// or a first player who does not exist; 400: JSON of another shape.
    pub fn start(body: &Value) -> Result<Position, ApiError> {
        Ok(wire::new_game(body)?.start()?)
    }
}

/// The start position of a game.
#[utoipa::path(
    tag = "positions",
    request_body = NewPosition,
    responses(
        (status = 200, description = "The start position", body = PositionView),
        BodyErrors,
        (status = 422, description = "Unknown board, layout or rules, a layout the board cannot hold, or a first player who does not exist; or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/positions")]
pub async fn new_position(body: web::Json<Value>) -> Result<web::Json<PositionView>, ApiError> {
    let position = NewPosition::start(&body)?;
    Ok(web::Json((&position).into()))
}

/// Checks a position and converts it: a valid one is answered in both forms
/// (position string and JSON); an invalid one is a 422 listing every problem.
#[utoipa::path(
    tag = "positions",
    request_body = PositionRequest,
    responses(
        (status = 200, description = "The position is valid; both forms", body = PositionView),
        BodyErrors,
        (status = 422, description = "Invalid position: every problem in `problems`, or a malformed position string; or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/positions/validate")]
pub async fn validate(
    body: web::Json<Object<PositionRequest>>,
) -> Result<web::Json<PositionView>, ApiError> {
    let request = body.into_inner().0;
    Ok(web::Json((&request.position.resolve()?).into()))
}
