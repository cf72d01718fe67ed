//! New positions; validation and conversion between the two forms.

use actix_web::{post, web};
use serde::Deserialize;
use sternhalma::{Board, Layout, Position, Setup};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{PlayerIndex, PositionRequest, PositionView, RulesInput};
use crate::error::{ApiError, BodyErrors, Problem};
use sternhalma::wire::whole::Object;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(new_position).service(validate);
}

/// What game to start.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"board": "star4", "layout": "2", "rules": "classic", "first_player": 0}))]
pub struct NewPosition {
    /// The board; by default that of the preset the rules print as
    /// (`rhombus9x4` for `research`, `star4` otherwise), however spelled.
    #[schema(example = "star4")]
    pub board: Option<String>,
    /// The players and their sets: `1`, `2`, `3`, `4`, `6`, `2x3`, `3x2`,
    /// or in full (`south+north/south_west+north_east`). Default `2`.
    #[schema(example = "2")]
    pub layout: Option<String>,
    /// The rules; default `classic`.
    pub rules: Option<RulesInput>,
    /// Who moves first (0-based); default 0, the layout's first player.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<PlayerIndex>)]
    pub first_player: Option<usize>,
}

impl NewPosition {
    /// The start position this asks for.
    ///
    /// # Errors
    /// 422: unknown board, layout or rules, a layout the board cannot hold,
    /// or a first player who does not exist.
    pub fn start(&self) -> Result<Position, ApiError> {
        let rules_input = self
            .rules
            .clone()
            .unwrap_or_else(|| RulesInput::Text("classic".to_owned()));
        let rules = rules_input.resolve()?;
        let board: Board = match &self.board {
            Some(name) => name.parse()?,
            None => rules.nearest_preset().default_board(),
        };
        let layout: Layout = self.layout.as_deref().unwrap_or("2").parse()?;
        let mut setup = Setup::start(board, layout, rules);
        setup.side_to_move = self.first_player.unwrap_or(0);
        Ok(setup.validate()?)
    }
}

/// The start position of a game.
#[utoipa::path(
    tag = "positions",
    request_body = NewPosition,
    responses(
        (status = 200, description = "The start position", body = PositionView),
        BodyErrors,
        (status = 422, description = "Unknown board, layout or rules, a layout the board cannot hold, or a first player who does not exist", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/positions")]
pub async fn new_position(
    body: web::Json<Object<NewPosition>>,
) -> Result<web::Json<PositionView>, ApiError> {
    let position = body.into_inner().0.start()?;
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
        (status = 422, description = "Invalid position: every problem in `problems`, or a malformed position string", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/positions/validate")]
pub async fn validate(
    body: web::Json<Object<PositionRequest>>,
) -> Result<web::Json<PositionView>, ApiError> {
    let request = body.into_inner().0;
    Ok(web::Json((&request.position.resolve()?).into()))
}
