//! Stored matches: create, play with a seat's token, wait for a turn,
//! read the state, history and export, resign, abandon, list.
//!
//! Authorisation: `Authorization: Bearer <token>`. No header or a header
//! that is not a bearer token of 64 hex digits: 401 (`missing_token`,
//! `malformed_token`). A well-formed token that is not this match's seat
//! token (or admin token, to abandon): 403 `wrong_token`. A seat playing
//! out of turn, a stale `ply` or a closed match: 409 (`not_your_turn`,
//! `stale_ply`, `match_closed`): the token is right but the match has moved
//! on, so re-reading the state is the remedy.

use std::time::{Duration, Instant};

use actix_web::http::header::{self, EntityTag, Header as _, IfNoneMatch};
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::admin::Admin;
use crate::admin::AdminKey;
use crate::admin::authority;
use crate::routes::queries::{BoardQuery, DEFAULT_WAIT_MS, ListQuery, MAX_WAIT_MS, WaitQuery};
use crate::routes::{AdminKeyErrors, TokenErrors, page};
use crate::runner::BotRunner;
use crate::tokens::bearer;
use crate::wire::bots::SeatKind;
use crate::wire::matches::{
    CreatedMatch, ExportedGame, History, MatchList, MatchView, MoveRecord, MoveSubmission,
    MovesAccepted, NewMatch, NewMatchRequest, SeatToken, legend,
};
use sternhalma::wire::whole::Object;
use sternhalma_http::clients::LongPollSlot;
use sternhalma_http::clients::token_verified;
use sternhalma_http::error::{ApiError, BodyErrors, DiskErrors, Problem, StorageErrors};
use sternhalma_store::matches::game;
use sternhalma_store::matches::model::{MAX_NAME_CHARS, MatchStatus};
use sternhalma_store::matches::storage::SeatPlan;
use sternhalma_store::matches::tokens::{new_token, random_u64};
use sternhalma_store::names;
use sternhalma_store::store::Store;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(create_match)
        .service(list_matches)
        .service(get_match)
        .service(submit_move)
        .service(history)
        .service(export)
        .service(board)
        .service(resign)
        .service(abandon);
}

/// The longest a request waits for the built-in bots to reach an open
/// seat's turn before answering (a safety net: each bot move is bounded by
/// the seat caps, so the wait normally ends by the work, not by this).
const BOT_REPLY_WAIT: Duration = Duration::from_secs(30);

/// Waits until match `id` no longer waits for its built-in bots
/// ([`game::waits_for_bots`]): an open seat is to move, the match is over,
/// or only bots are left to play (they go on in the background, and
/// nobody waits for them).
async fn settle(store: &Store, id: i64) -> Result<(), ApiError> {
    wait_on_match(store, id, BOT_REPLY_WAIT, async || {
        let waits = store
            .read(move |connection| game::waits_for_bots(connection, id))
            .await?;
        Ok(!waits)
    })
    .await
}

/// Waits until `done` answers true, checking it at first and after each
/// change of match `id`, for at most `wait`. Subscribed before the first
/// check, so a change in between is not missed.
async fn wait_on_match(
    store: &Store,
    id: i64,
    wait: Duration,
    mut done: impl AsyncFnMut() -> Result<bool, ApiError>,
) -> Result<(), ApiError> {
    let mut changes = store.subscribe(id);
    let deadline = Instant::now() + wait;
    while !done().await? {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero()
            || !matches!(
                actix_web::rt::time::timeout(left, changes.changed()).await,
                Ok(Ok(()))
            )
        {
            break;
        }
    }
    Ok(())
}

/// A match id from the path: ids beyond the database's 64-bit range name no match.
fn match_id(id: u64) -> Result<i64, ApiError> {
    i64::try_from(id).map_err(|_| ApiError::not_found(format!("no match {id}")))
}

fn check_name(seat: usize, name: Option<&str>) -> Result<String, ApiError> {
    let Some(name) = name else {
        return Ok(format!("seat {seat}"));
    };
    names::normalize(name, MAX_NAME_CHARS).map_err(|problem| {
        ApiError::unprocessable(
            "invalid_seat_name",
            format!("seat {seat}: {}", problem.describe(MAX_NAME_CHARS)),
        )
    })
}

/// Creates a match. The answer holds, once only, a token per open seat and
/// the admin token; the server keeps only their hashes. Built-in bots to
/// move first have moved already (they search on the heavy-work pool, not
/// on the database writer).
#[utoipa::path(
    tag = "matches",
    request_body = NewMatch,
    security((), ("admin_key" = [])),
    responses(
        (status = 201, description = "The match, and its tokens (shown only now)", body = CreatedMatch,
         headers(("Location" = String, description = "The match's URL"))),
        BodyErrors,
        AdminKeyErrors,
        (status = 403, description = "On a server with an admin key: the token is not the key (`wrong_admin_key`). On one without: this client (its IP address) has stored as many games as it may, its matches and its tournaments' games, finished ones included (`storage_quota_exceeded`; `--stored-games-per-client`, 5,000 by default): nothing was stored", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown board, layout or rules; a layout the board cannot hold; a seat count other than the layout's players (`seat_count`); no open seat (`no_open_seat`); a bad seat name (`invalid_seat_name`); an unknown bot kind (`unknown_bot`); a bot seat with a `millis` budget (`budget_not_allowed`) or over the seat caps (`budget_too_large`); a `perfect` seat on a game no installed table with depths covers (`no_tablebase`, `tablebase_other_game`, `tablebase_without_depths`: the detail names the tables installed and how a server gets one); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/matches")]
pub async fn create_match(
    admin: Admin,
    store: web::Data<Store>,
    body: web::Json<Object<NewMatchRequest>>,
) -> Result<HttpResponse, ApiError> {
    let request = body.into_inner().0;
    let game = sternhalma::wire::new_game(&serde_json::Value::Object(request.game))?;
    let max_plies = game.requested_move_limit(request.max_plies);
    let start = game.with_max_plies(max_plies).start()?;
    let players = start.layout().player_count();
    if request.seats.len() != players {
        return Err(ApiError::unprocessable(
            "seat_count",
            format!(
                "the layout has {players} players, so the match needs {players} seats, not {}",
                request.seats.len()
            ),
        ));
    }
    let mut plans = Vec::with_capacity(players);
    let mut seat_tokens = Vec::new();
    for (seat, Object(request)) in request.seats.into_iter().enumerate() {
        let name = check_name(seat, request.name.as_deref())?;
        match request.bot {
            Some(Object(spec)) => {
                let mut spec = sternhalma_store::bots::BotSpec::from(spec);
                // The tables its moves will be played from.
                spec.validate_at(&start, store.tables())?;
                if spec.seed.is_none() {
                    spec.seed = Some(random_u64()?);
                }
                plans.push(SeatPlan {
                    name,
                    bot: Some(spec),
                    token_hash: None,
                });
            }
            None => {
                let (token, hash) = new_token()?;
                seat_tokens.push(SeatToken {
                    seat,
                    name: name.clone(),
                    token,
                });
                plans.push(SeatPlan {
                    name,
                    bot: None,
                    token_hash: Some(hash),
                });
            }
        }
    }
    if seat_tokens.is_empty() {
        return Err(ApiError::unprocessable(
            "no_open_seat",
            "a match needs at least one open seat (a seat without `bot`)",
        ));
    }
    let (admin_token, admin_hash) = new_token()?;
    let id = store
        .create_match(start, plans, admin_hash, admin.owner())
        .await?
        .id;
    settle(&store, id).await?;
    let state = MatchView::from(
        &store
            .read(move |connection| game::view(connection, id))
            .await?,
    );
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/matches/{}", state.id)))
        .json(CreatedMatch {
            state,
            admin_token,
            seat_tokens,
        }))
}

/// Lists matches, newest first, optionally only those with one status.
#[utoipa::path(
    tag = "matches",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of matches", body = MatchList),
        (status = 400, description = "Malformed query (`malformed_query`): an unknown status, a limit outside 1 to 200, `before` beyond 2^63-1", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/matches")]
pub async fn list_matches(
    store: web::Data<Store>,
    query: web::Query<ListQuery>,
) -> Result<web::Json<MatchList>, ApiError> {
    let query = query.into_inner();
    let page = page(query.limit, query.before)?;
    let status = query.status.map(MatchStatus::from);
    Ok(web::Json(MatchList::from(
        &store
            .read(move |connection| game::list(connection, status, page))
            .await?,
    )))
}

fn etag(state: &MatchView) -> EntityTag {
    EntityTag::new_strong(format!("{}-{}", state.id, state.version))
}

/// The version of match `id` named by the request's `If-None-Match` (an
/// [`etag`] of this match), if any.
fn known_version(request: &HttpRequest, id: i64) -> Option<i64> {
    if !request.headers().contains_key(header::IF_NONE_MATCH) {
        return None;
    }
    let Ok(IfNoneMatch::Items(tags)) = IfNoneMatch::parse(request) else {
        return None;
    };
    tags.iter().find_map(|tag| {
        let (match_id, version) = tag.tag().split_once('-')?;
        (match_id.parse::<i64>().ok()? == id)
            .then(|| version.parse().ok())
            .flatten()
    })
}

/// The state of a match: seats, position, legal moves, result. With
/// `wait_ply=N` it is a long-poll: the answer comes once the match is past
/// ply N, or over, or changed, or after `timeout_ms`. Carries an `ETag`; a
/// request whose `If-None-Match` holds the current one is answered 304
/// without a body. A long-poll that sends its `If-None-Match` is answered
/// as soon as the match differs from that version (even if the change
/// came just before the request), else 304: at the timeout, or at once if
/// the match is already past ply N or over.
#[utoipa::path(
    tag = "matches",
    params(("id" = u64, Path, description = "The match id", minimum = 0), WaitQuery),
    responses(
        (status = 200, description = "The match", body = MatchView,
         headers(("ETag" = String, description = "The state's version; send it back in `If-None-Match`"))),
        (status = 304, description = "Not modified since the `If-None-Match` tag",
         headers(("ETag" = String, description = "The state's version"))),
        (status = 400, description = "Malformed query (`malformed_query`), e.g. `timeout_ms` over 30000", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (`not_found`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/matches/{id}")]
pub async fn get_match(
    store: web::Data<Store>,
    runner: web::Data<BotRunner>,
    id: web::Path<u64>,
    query: web::Query<WaitQuery>,
    request: HttpRequest,
    long_poll: LongPollSlot,
) -> Result<HttpResponse, ApiError> {
    let id = match_id(id.into_inner())?;
    let WaitQuery {
        wait_ply,
        timeout_ms,
    } = query.into_inner();
    let timeout_ms = timeout_ms.unwrap_or(DEFAULT_WAIT_MS);
    if timeout_ms > MAX_WAIT_MS {
        return Err(ApiError::bad_request(
            "malformed_query",
            format!("timeout_ms is at most {MAX_WAIT_MS}"),
        ));
    }
    if let Some(wait_ply) = wait_ply {
        let _open = long_poll.enter()?;
        // The version the client holds, from its `If-None-Match`: any
        // change since then answers at once (none is missed between the
        // client's last read and this request). Else: since the first read.
        let mut first_version = known_version(&request, id);
        let wait = Duration::from_millis(u64::from(timeout_ms));
        wait_on_match(&store, id, wait, async || {
            let (ply, status, version) = store
                .read(move |connection| game::progress(connection, id))
                .await?;
            // A change that is not a move (a resignation with three or more
            // seats passes the turn without a ply) wakes waiters too.
            let changed = *first_version.get_or_insert(version) != version;
            Ok(ply > wait_ply || status != MatchStatus::InProgress || changed)
        })
        .await?;
    }
    let state = MatchView::from(
        &store
            .read(move |connection| game::view(connection, id))
            .await?,
    );
    // A bot to move and nobody playing it (a run gave up on a database
    // failure): reading the match starts it again. Cheap when it runs.
    if state
        .to_move
        .and_then(|seat| state.seats.get(seat))
        .is_some_and(|seat| seat.kind == SeatKind::Bot)
    {
        runner.kick(id);
    }
    let tag = etag(&state);
    let unchanged = request.headers().contains_key(header::IF_NONE_MATCH)
        && match IfNoneMatch::parse(&request) {
            Ok(IfNoneMatch::Any) => true,
            Ok(IfNoneMatch::Items(tags)) => tags.iter().any(|t| t.weak_eq(&tag)),
            Err(_) => false,
        };
    if unchanged {
        return Ok(HttpResponse::NotModified()
            .insert_header(header::ETag(tag))
            .finish());
    }
    Ok(HttpResponse::Ok()
        .insert_header(header::ETag(tag))
        .insert_header(header::CacheControl(vec![header::CacheDirective::NoCache]))
        .json(state))
}

/// Plays a move for the seat whose token is sent, at the ply the client
/// expects. The server checks token, turn, ply and legality and stores the
/// move durably; built-in bots then reply (searched off the database
/// writer, each reply stored as it comes), and the answer holds the moves
/// up to the next open seat's turn (should the bots take longer than 30 s,
/// the moves stored by then: `to_move` says whose turn it is). The stored path is the move's
/// canonical one (fewest hops), whatever chain was sent.
#[utoipa::path(
    tag = "matches",
    params(("id" = u64, Path, description = "The match id", minimum = 0)),
    request_body = MoveSubmission,
    security(("seat_token" = [])),
    responses(
        (status = 200, description = "Stored: the moves played (yours, then any bot replies) and the new state", body = MovesAccepted),
        BodyErrors,
        TokenErrors,
        (status = 403, description = "The token is not an open seat's token of this match (`wrong_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The match has moved on: `stale_ply` (another move came first), `not_your_turn`, `match_closed`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Malformed or illegal move; `code` gives the reason (`hole_occupied`, `leaves_target`, ...); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/matches/{id}/moves")]
pub async fn submit_move(
    store: web::Data<Store>,
    id: web::Path<u64>,
    body: web::Json<Object<MoveSubmission>>,
    request: HttpRequest,
) -> Result<web::Json<MovesAccepted>, ApiError> {
    let id = match_id(id.into_inner())?;
    let token = bearer(&request)?;
    let submission = body.into_inner().0;
    let text = submission.mv.text()?;
    let ply = submission.ply;
    // Stored, then told (long-polls, the bot runner, the director) by the
    // store's writer after the commit, even if this client has gone away.
    store.submit_move(id, token, ply, text).await?;
    token_verified(&request);
    settle(&store, id).await?;
    let (state, mut played) = store
        .read(move |connection| {
            Ok((
                game::view(connection, id)?,
                game::moves_since(connection, id, ply)?,
            ))
        })
        .await?;
    // Bots may have moved between the two reads: answer what the state
    // shows.
    played.retain(|stored| stored.ply < state.ply);
    Ok(web::Json(MovesAccepted {
        played: played.iter().map(MoveRecord::from).collect(),
        state: MatchView::from(&state),
    }))
}

/// Every move of a match, in order, with the seat and the time it was
/// stored.
#[utoipa::path(
    tag = "matches",
    params(("id" = u64, Path, description = "The match id", minimum = 0)),
    responses(
        (status = 200, description = "The history", body = History),
        (status = 404, description = "No such match (`not_found`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/matches/{id}/moves")]
pub async fn history(
    store: web::Data<Store>,
    id: web::Path<u64>,
) -> Result<web::Json<History>, ApiError> {
    let id = match_id(id.into_inner())?;
    Ok(web::Json(History::from(
        &store
            .read(move |connection| game::history(connection, id))
            .await?,
    )))
}

/// The match as a game record (start position and move texts): the body
/// `POST /v1/replay` takes as it is. Any match can be exported; a resigned
/// or abandoned one replays to the position where it stopped (its result
/// is in the match state, not on the board).
#[utoipa::path(
    tag = "matches",
    params(("id" = u64, Path, description = "The match id", minimum = 0)),
    responses(
        (status = 200, description = "The game record", body = ExportedGame),
        (status = 404, description = "No such match (`not_found`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/matches/{id}/export")]
pub async fn export(
    store: web::Data<Store>,
    id: web::Path<u64>,
) -> Result<web::Json<ExportedGame>, ApiError> {
    let id = match_id(id.into_inner())?;
    Ok(web::Json(ExportedGame::from(
        store
            .read(move |connection| game::export(connection, id))
            .await?,
    )))
}

/// The board of a match as an SVG picture, the last move's path drawn:
/// now, or after `ply` plies. What a web page or a slide shows; drawn by
/// the same renderer as `/v1/render.svg`, with each hole's id in a
/// `data-hole` attribute. The legend under the board names the player to
/// move, or the outcome; under the last position of a match that is over
/// it says how the match ended (`finished: seat 1 won; seat 0 forfeited
/// (3 timeouts)`, `abandoned by its creator`). The picture of an earlier ply never changes and
/// may be cached for good; the current one carries an `ETag`.
#[utoipa::path(
    tag = "matches",
    params(("id" = u64, Path, description = "The match id", minimum = 0), BoardQuery),
    responses(
        (status = 200, description = "The picture", body = String, content_type = "image/svg+xml",
         headers(("ETag" = String, description = "The match's version, for the current position"))),
        (status = 304, description = "Not modified since the `If-None-Match` tag (the current position)",
         headers(("ETag" = String, description = "The match's version"))),
        (status = 400, description = "Malformed query (`malformed_query`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A ply the match has not reached (`no_such_ply`) or a size out of range (`invalid_size`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/matches/{id}/board.svg")]
pub async fn board(
    store: web::Data<Store>,
    id: web::Path<u64>,
    query: web::Query<BoardQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = match_id(id.into_inner())?;
    let BoardQuery {
        ply,
        size,
        ids,
        bottom,
    } = query.into_inner();
    let at = store
        .read(move |connection| game::board_at(connection, id, ply))
        .await?;
    let path = sternhalma::MoveText::Path(at.last_path.iter().map(|c| c.id()).collect());
    let highlight = (!at.last_path.is_empty()).then(|| path.to_string());
    let options = sternhalma_http::routes::render::svg_options(
        &at.position,
        sternhalma_http::routes::render::Drawing {
            highlight: highlight.as_deref(),
            peg: None,
            size,
            ids,
            bottom,
        },
    )?;
    let mut response = HttpResponse::Ok();
    response.content_type("image/svg+xml");
    if at.current {
        let tag = EntityTag::new_strong(format!("{id}-{}-svg", at.version));
        let unchanged = matches!(
            IfNoneMatch::parse(&request),
            Ok(IfNoneMatch::Items(tags)) if tags.iter().any(|t| t.weak_eq(&tag))
        );
        if unchanged {
            return Ok(HttpResponse::NotModified()
                .insert_header(header::ETag(tag))
                .finish());
        }
        response.insert_header(header::CacheControl(vec![header::CacheDirective::NoCache]));
        response.insert_header(header::ETag(tag));
    } else {
        // Earlier plies are history: the same picture for ever.
        response.insert_header(header::CacheControl(vec![
            header::CacheDirective::Public,
            header::CacheDirective::MaxAge(31_536_000),
            header::CacheDirective::Extension("immutable".into(), None),
        ]));
    }
    Ok(response.body(match &at.result {
        // Over: how it ended, not whose turn the position still shows.
        Some(result) => sternhalma::render_svg_with_legend(
            &at.position,
            &options,
            &legend(result, &at.seats, &at.position),
        ),
        None => sternhalma::render_svg(&at.position, &options),
    }))
}

/// The seat whose token is sent resigns (at any time, not only on its
/// turn). With two seats the match is over and that seat loses. With three
/// or more the seat leaves the game and the others play on: its pegs stay
/// on the board as obstacles, its turns are skipped (a resignation is not a
/// move: `ply` does not change), and it ranks below every seat still
/// playing, the latest to resign highest among those who did; the match
/// ends when one seat is left or the game ends by the rules. The position
/// string records resignations (`docs/notation.md`).
#[utoipa::path(
    tag = "matches",
    params(("id" = u64, Path, description = "The match id", minimum = 0)),
    security(("seat_token" = [])),
    responses(
        (status = 200, description = "Resigned: the state after it (final with two seats)", body = MatchView),
        TokenErrors,
        (status = 403, description = "Not an open seat's token of this match (`wrong_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The match is already over (`match_closed`), the seat has resigned already (`already_resigned`), or it has finished (`cannot_resign`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/matches/{id}/resign")]
pub async fn resign(
    store: web::Data<Store>,
    id: web::Path<u64>,
    request: HttpRequest,
) -> Result<web::Json<MatchView>, ApiError> {
    let id = match_id(id.into_inner())?;
    let token = bearer(&request)?;
    store.resign(id, token).await?;
    token_verified(&request);
    // With three or more seats the game goes on, perhaps with a bot to move.
    settle(&store, id).await?;
    Ok(web::Json(MatchView::from(
        &store
            .read(move |connection| game::view(connection, id))
            .await?,
    )))
}

/// The creator abandons the match (admin token), or the server's operator
/// does (the server's admin key, on any match): it is over, with no
/// result.
#[utoipa::path(
    tag = "matches",
    params(("id" = u64, Path, description = "The match id", minimum = 0)),
    security(("admin_token" = []), ("admin_key" = [])),
    responses(
        (status = 200, description = "Abandoned: the final state", body = MatchView),
        TokenErrors,
        (status = 403, description = "Neither this match's admin token nor the server's admin key (`wrong_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The match is already over (`match_closed`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/matches/{id}/abandon")]
pub async fn abandon(
    store: web::Data<Store>,
    id: web::Path<u64>,
    request: HttpRequest,
    key: Option<web::Data<AdminKey>>,
) -> Result<web::Json<MatchView>, ApiError> {
    let id = match_id(id.into_inner())?;
    let by = authority(&request, key.as_ref().map(|key| key.get_ref()))?;
    let state = store.abandon(id, by).await?;
    token_verified(&request);
    Ok(web::Json(MatchView::from(&state)))
}
