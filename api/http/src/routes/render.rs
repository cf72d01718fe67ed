//! Pictures of positions, as SVG.

use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use sternhalma::{Position, SvgOptions, Triangle, render_svg};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{HoleId, PositionInput, hole};
use crate::error::{ApiError, BodyErrors, HeavyErrors, Problem};
use crate::heavy::{Cost, HeavyClient};
use crate::routes::play::path_cells;
use sternhalma::wire::whole::Object;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(render_get).service(render_post);
}

/// Smallest and largest image width accepted, in pixels.
const SIZES: std::ops::RangeInclusive<u32> = 64..=4096;

/// What to draw, as a query string: usable as `<img src="/v1/render.svg?position=...">`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RenderQuery {
    /// The position string (URL-encoded).
    #[param(example = "star4 classic south:111-120/north:0-9 0 0 -")]
    pub position: String,
    /// A path to draw, as a move text (e.g. the last move: `115-104`), of
    /// at most as many holes as the board has.
    #[param(example = "115-104")]
    pub highlight: Option<String>,
    /// Mark the legal destinations of the peg on this hole.
    #[param(value_type = Option<u64>, minimum = 0, maximum = 120)]
    pub peg: Option<usize>,
    /// Image width in pixels (64 to 4096; default 480).
    #[param(value_type = Option<u64>, minimum = 64, maximum = 4096)]
    pub size: Option<u32>,
    /// Print hole ids in the holes.
    pub ids: Option<bool>,
    /// Turn the board so this triangle is at the bottom (default `south`):
    /// a player's view from their own side.
    pub bottom: Option<Triangle>,
}

/// What to draw, as JSON.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": "star4 classic south:111-120/north:0-9 0 0 -", "highlight": "115-104", "ids": true}))]
pub struct RenderRequest {
    /// The position, as a string or as JSON.
    pub position: PositionInput,
    /// A path to draw, as a move text, of at most as many holes as the
    /// board has.
    pub highlight: Option<String>,
    /// Mark the legal destinations of the peg on this hole.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<HoleId>)]
    pub peg: Option<usize>,
    /// Image width in pixels (64 to 4096; default 480).
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 64, maximum = 4096)]
    pub size: Option<u32>,
    /// Print hole ids in the holes.
    pub ids: Option<bool>,
    /// Turn the board so this triangle is at the bottom (default `south`):
    /// a player's view from their own side.
    pub bottom: Option<Triangle>,
}

/// How to draw, besides the position: the options both forms share.
pub struct Drawing<'a> {
    /// The path to draw, as a move text.
    pub highlight: Option<&'a str>,
    /// The peg whose destinations to mark.
    pub peg: Option<usize>,
    /// The width in pixels.
    pub size: Option<u32>,
    /// Print hole ids.
    pub ids: Option<bool>,
    /// The triangle at the bottom.
    pub bottom: Option<Triangle>,
}

/// Checks what to draw, then draws it on the heavy-work pool.
async fn render(
    heavy: &HeavyClient,
    position: Position,
    drawing: Drawing<'_>,
) -> Result<HttpResponse, ApiError> {
    let options = svg_options(&position, drawing)?;
    // A picture takes a millisecond or so (a thousandth of a search at its
    // cap): a page of `<img>`s loads whole beside a search.
    let svg = heavy
        .run(Cost::LEAST, move || render_svg(&position, &options))
        .await?;
    Ok(HttpResponse::Ok().content_type("image/svg+xml").body(svg))
}

/// The renderer's options for `position`, checked: a size out of range, a
/// path the position cannot hold or a peg off the board is a 422.
pub fn svg_options(position: &Position, drawing: Drawing<'_>) -> Result<SvgOptions, ApiError> {
    let Drawing {
        highlight,
        peg,
        size,
        ids,
        bottom,
    } = drawing;
    if let Some(size) = size.filter(|s| !SIZES.contains(s)) {
        return Err(ApiError::unprocessable(
            "invalid_size",
            format!(
                "size must be from {} to {} pixels, not {size}",
                SIZES.start(),
                SIZES.end()
            ),
        ));
    }
    let destinations_of = peg.map(|id| hole(position, id)).transpose()?;
    Ok(SvgOptions {
        size,
        highlight_path: highlight.map_or(Ok(Vec::new()), |text| path_cells(position, text))?,
        destinations_of,
        show_ids: ids.unwrap_or(false),
        bottom,
    })
}

/// An SVG picture of a position, from a query string. Drawn on the
/// heavy-work pool, where it counts a thousandth of a search at its cap:
/// 429 `too_many_heavy_requests` when this client already holds its share
/// of the pool, 503 `busy` with `Retry-After` when it is full.
#[utoipa::path(
    tag = "render",
    params(RenderQuery),
    responses(
        (status = 200, description = "The picture", body = String, content_type = "image/svg+xml"),
        (status = 400, description = "Malformed query string", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid position, highlight (`path_too_long` beyond the board's holes), peg or size", body = Problem, content_type = "application/problem+json"),
        HeavyErrors,
    )
)]
#[get("/v1/render.svg")]
pub async fn render_get(
    query: web::Query<RenderQuery>,
    heavy: HeavyClient,
) -> Result<HttpResponse, ApiError> {
    let position: Position = query.position.parse()?;
    let drawing = Drawing {
        highlight: query.highlight.as_deref(),
        peg: query.peg,
        size: query.size,
        ids: query.ids,
        bottom: query.bottom,
    };
    render(&heavy, position, drawing).await
}

/// An SVG picture of a position, from JSON. Drawn on the heavy-work pool,
/// where it counts a thousandth of a search at its cap: 429
/// `too_many_heavy_requests` when this client already holds its share of
/// the pool, 503 `busy` with `Retry-After` when it is full.
#[utoipa::path(
    tag = "render",
    request_body = RenderRequest,
    responses(
        (status = 200, description = "The picture", body = String, content_type = "image/svg+xml"),
        BodyErrors,
        (status = 422, description = "Invalid position, highlight (`path_too_long` beyond the board's holes), peg or size; or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        HeavyErrors,
    )
)]
#[post("/v1/render")]
pub async fn render_post(
    body: web::Json<Object<RenderRequest>>,
    heavy: HeavyClient,
) -> Result<HttpResponse, ApiError> {
    let request = body.into_inner().0;
    let position = request.position.resolve()?;
    let drawing = Drawing {
        highlight: request.highlight.as_deref(),
        peg: request.peg,
        size: request.size,
        ids: request.ids,
        bottom: request.bottom,
    };
    render(&heavy, position, drawing).await
}
