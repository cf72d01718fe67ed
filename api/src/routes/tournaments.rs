//! Tournaments: create, list, read, the schedule, the standings (JSON and
//! CSV), an entrant's long-poll for its turns, the event stream, and
//! start / pause / abandon / withdraw an entrant for the admin token.
//!
//! Entrants move with `POST /v1/matches/{id}/moves` and their entrant
//! token (each tournament game is a stored match whose open seats carry
//! the entrant's token).

use std::time::{Duration, Instant};

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use futures_util::stream;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::admin::Admin;
use crate::admin::AdminKey;
use crate::admin::authority;
use crate::director::Tournaments;
use crate::routes::queries::{DEFAULT_WAIT_MS, MAX_WAIT_MS, TournamentListQuery, TurnsQuery};
use crate::routes::{AdminKeyErrors, TokenErrors, page};
use crate::tokens::bearer;
use sternhalma::wire::whole::Object;
use sternhalma_http::clients::LongPollSlot;
use sternhalma_http::clients::token_verified;
use sternhalma_http::error::{ApiError, BodyErrors, DiskErrors, Problem, StorageErrors};
use sternhalma_store::matches::tokens::new_token;
use sternhalma_store::store::Store;
use sternhalma_store::tournaments::logic::{self, Action};
use sternhalma_store::tournaments::plan::{self, TournamentLimits};

use crate::wire::tournaments::standings_csv::to_csv;
use crate::wire::tournaments::{
    CreatedTournament, EntrantTurns, NewTournament, NewTournamentRequest, Standings,
    TournamentEvent, TournamentGames, TournamentList, TournamentSseEvent, TournamentView,
};

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(create_tournament)
        .service(list_tournaments)
        .service(get_tournament)
        .service(tournament_games)
        .service(standings_json)
        .service(standings_csv)
        .service(entrant_turns)
        .service(tournament_events)
        .service(start_tournament)
        .service(pause_tournament)
        .service(abandon_tournament)
        .service(withdraw_entrant);
}

/// A comment line sent on an idle event stream, so that proxies keep it.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

fn tournament_id(id: u64) -> Result<i64, ApiError> {
    i64::try_from(id).map_err(|_| ApiError::not_found(format!("no tournament {id}")))
}

/// Creates a tournament: the game, the format, the entrants, the clock.
/// The answer holds, once only, the admin token and one token per open
/// entrant; the server keeps only their hashes. It starts waiting (no game
/// is played) until the admin token starts it, or at once with
/// `"start": true`. On a server without an admin key a tournament has a
/// class's size (40 entrants, 1,000 games) and a bound on its bots' search
/// in all; the server's admin key lifts them.
#[utoipa::path(
    tag = "tournaments",
    request_body = NewTournament,
    security((), ("admin_key" = [])),
    responses(
        (status = 201, description = "The tournament, and its tokens (shown only now)", body = CreatedTournament,
         headers(("Location" = String, description = "The tournament's URL"))),
        BodyErrors,
        AdminKeyErrors,
        (status = 403, description = "On a server with an admin key: the token is not the key (`wrong_admin_key`). On one without: this client (its IP address) has stored as many games as it may, its matches and its tournaments' games, finished ones included (`storage_quota_exceeded`; `--stored-games-per-client`, 5,000 by default): nothing was stored", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown board, layout or rules; a layout of other than 2 to 6 players (`players_per_game`); a bad name (`invalid_name`, `invalid_entrant_name`, `duplicate_entrant_name`); a setting out of range (`invalid_setting`); too few or too many entrants (`too_few_entrants`, `too_many_entrants`: 40, or 64 with the admin key); a schedule over the server's limit of games (`too_many_games`: 1,000, or 10,000 with the server's admin key); more bot search than the server allows a tournament (`too_much_work`: five billion positions or playouts in all, unbounded with the admin key); a gauntlet of other than two players (`gauntlet_players`); a reference bot outside a gauntlet (`reference_not_allowed`); an unknown bot kind (`unknown_bot`), a `millis` budget (`budget_not_allowed`) or one over the seat caps (`budget_too_large`); a `perfect` entrant or reference on a game no installed table with depths covers (`no_tablebase`, `tablebase_other_game`, `tablebase_without_depths`: the detail names the tables installed and how a server gets one); a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/tournaments")]
pub async fn create_tournament(
    admin: Admin,
    key: Option<web::Data<AdminKey>>,
    store: web::Data<Store>,
    body: web::Json<Object<NewTournamentRequest>>,
) -> Result<HttpResponse, ApiError> {
    // On a server with an admin key only its operator gets this far
    // (`Admin` checked the key); on one without, anyone: a class's limits.
    let limits = match key {
        Some(_) => TournamentLimits::operator(),
        None => TournamentLimits::classroom(),
    };
    let (plan, entrant_tokens) = plan::plan(body.into_inner().0.into(), limits, store.tables())?;
    let (admin_token, admin_hash) = new_token()?;
    // The director hears of it from the store once it is committed.
    let id = store
        .create_tournament(plan, admin_hash, admin.owner())
        .await?;
    let tournament = store.read(move |c| logic::view(c, id)).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/tournaments/{id}")))
        .json(CreatedTournament {
            tournament: tournament.into(),
            admin_token,
            entrant_tokens: entrant_tokens.into_iter().map(Into::into).collect(),
        }))
}

/// Lists tournaments, newest first, optionally only those with one status.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentListQuery),
    responses(
        (status = 200, description = "A page of tournaments", body = TournamentList),
        (status = 400, description = "Malformed query (`malformed_query`): an unknown status, a limit outside 1 to 200, `before` beyond 2^63-1", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/tournaments")]
pub async fn list_tournaments(
    store: web::Data<Store>,
    query: web::Query<TournamentListQuery>,
) -> Result<web::Json<TournamentList>, ApiError> {
    let query = query.into_inner();
    let page = page(query.limit, query.before)?;
    let status = query.status.map(Into::into);
    let list = store.read(move |c| logic::list(c, status, page)).await?;
    Ok(web::Json(list.into()))
}

/// A tournament: its settings, entrants and how many games stand where.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0)),
    responses(
        (status = 200, description = "The tournament", body = TournamentView),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/tournaments/{id}")]
pub async fn get_tournament(
    store: web::Data<Store>,
    tournaments: web::Data<Tournaments>,
    id: web::Path<u64>,
) -> Result<web::Json<TournamentView>, ApiError> {
    let id = tournament_id(id.into_inner())?;
    let tournament = store.read(move |c| logic::view(c, id)).await?;
    Ok(web::Json(
        tournaments.hub().with_presence(tournament.into()),
    ))
}

/// The schedule: every game with its seats (entrants), its match once
/// started, its timeouts and its result naming entrants.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0)),
    responses(
        (status = 200, description = "The games, in schedule order", body = TournamentGames),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/tournaments/{id}/games")]
pub async fn tournament_games(
    store: web::Data<Store>,
    id: web::Path<u64>,
) -> Result<web::Json<TournamentGames>, ApiError> {
    let id = tournament_id(id.into_inner())?;
    let games = store.read(move |c| logic::games(c, id)).await?;
    Ok(web::Json(TournamentGames::of(id, &games)))
}

/// The standings, computed from the stored results of the finished games:
/// points (pairwise, seat against seat: a win, a draw or a loss against
/// every other seat of a game, so a ranking game scores by place), games,
/// timeouts, forfeits, Weng-Lin ratings with their uncertainty, and the
/// cross-table.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0)),
    responses(
        (status = 200, description = "The standings", body = Standings),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/tournaments/{id}/standings")]
pub async fn standings_json(
    store: web::Data<Store>,
    id: web::Path<u64>,
) -> Result<web::Json<Standings>, ApiError> {
    let id = tournament_id(id.into_inner())?;
    let standings = store.read(move |c| logic::standings(c, id)).await?;
    Ok(web::Json(standings.into()))
}

/// The standings as CSV (RFC 4180): one row per entrant in rank order,
/// then one column per entrant with the points scored against it.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0)),
    responses(
        (status = 200, description = "The standings as CSV", body = String, content_type = "text/csv"),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/tournaments/{id}/standings.csv")]
pub async fn standings_csv(
    store: web::Data<Store>,
    id: web::Path<u64>,
) -> Result<HttpResponse, ApiError> {
    let id = tournament_id(id.into_inner())?;
    let table = store.read(move |c| logic::standings(c, id)).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"tournament-{id}-standings.csv\""),
        ))
        .body(to_csv(&table)))
}

/// An entrant's long-poll (entrant token): its games waiting for its move
/// now, each with the position, the legal moves and the time left. Answers
/// at once when there is one, or when the entrant has no game left
/// (`done`); else waits up to `timeout_ms` for one and answers an empty
/// list at the timeout. Post each move to `/v1/matches/{match_id}/moves`
/// with the same token.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0), TurnsQuery),
    security(("entrant_token" = [])),
    responses(
        (status = 200, description = "The games waiting for the entrant's move (perhaps none)", body = EntrantTurns),
        (status = 400, description = "Malformed query (`malformed_query`), e.g. `timeout_ms` over 30000", body = Problem, content_type = "application/problem+json"),
        TokenErrors,
        (status = 403, description = "Not an open entrant's token of this tournament (`wrong_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many long-polls open from this client (`too_many_waits`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[get("/v1/tournaments/{id}/turns")]
pub async fn entrant_turns(
    store: web::Data<Store>,
    tournaments: web::Data<Tournaments>,
    id: web::Path<u64>,
    query: web::Query<TurnsQuery>,
    request: HttpRequest,
    long_poll: LongPollSlot,
) -> Result<web::Json<EntrantTurns>, ApiError> {
    let id = tournament_id(id.into_inner())?;
    let token = bearer(&request)?;
    let timeout_ms = query.into_inner().timeout_ms.unwrap_or(DEFAULT_WAIT_MS);
    if timeout_ms > MAX_WAIT_MS {
        return Err(ApiError::bad_request(
            "malformed_query",
            format!("timeout_ms is at most {MAX_WAIT_MS}"),
        ));
    }
    let hub = tournaments.hub();
    let mut changes = hub.changes(id);
    let deadline = Instant::now() + Duration::from_millis(u64::from(timeout_ms));
    let mut slot = None;
    let mut timed_out = false;
    let mut polling = None;
    loop {
        let read = store.read(move |c| logic::turns(c, id, &token)).await?;
        let (absent, mut answer) = (read.absent, EntrantTurns::from(&read));
        let entrant = answer.entrant;
        if polling.is_none() {
            // Connected while this request lasts (and seen for a while).
            polling = Some(tournaments.polling(id, entrant));
        }
        if absent {
            // It asks again: its turns are given their time again.
            if store.mark_present(id, entrant).await? {
                hub.tell_presence(id, entrant, None);
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if !answer.turns.is_empty() || answer.done || left.is_zero() || timed_out {
            for turn in &mut answer.turns {
                if let Some(left) = hub.deadline_ms(turn.match_id, turn.ply) {
                    turn.deadline_ms = Some(left);
                }
            }
            return Ok(web::Json(answer));
        }
        if slot.is_none() {
            slot = Some(long_poll.enter()?);
        }
        // At the timeout: one last read, answered whatever it holds.
        timed_out = !matches!(
            actix_web::rt::time::timeout(left, changes.changed()).await,
            Ok(Ok(()))
        );
    }
}

/// The event stream's query.
#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Close the stream after this many milliseconds (an `EventSource`
    /// reconnects by itself); absent: when the tournament ends.
    #[param(value_type = Option<u64>, minimum = 0, maximum = 4294967295.0)]
    pub max_ms: Option<u32>,
}

fn sse(event: &TournamentEvent) -> Bytes {
    let data = serde_json::to_string(event).expect("events serialise");
    Bytes::from(format!("event: {}\ndata: {data}\n\n", event.name()))
}

/// Server-Sent Events (`text/event-stream`) of a tournament, for watchers
/// and boards: first its state (`tournament`), then `game_started`,
/// `move`, `timeout`, `game_over`, `standings` (after each game) and
/// `tournament` again at every change of status; the stream ends after
/// the tournament does. Each event's `data` is the JSON of a
/// `TournamentEvent`, its `event` field the type. A reader that falls
/// more than 1,024 events behind gets `lagged` and should read the state
/// again. A comment line keeps an idle stream open every 15 s.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0), EventsQuery),
    responses(
        (status = 200, description = "The event stream: each event's `data` is the JSON of a `TournamentEvent`", body = TournamentSseEvent, content_type = "text/event-stream"),
        (status = 400, description = "Malformed query (`malformed_query`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many long-polls and streams open from this client (`too_many_waits`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
    )
)]
#[get("/v1/tournaments/{id}/events")]
pub async fn tournament_events(
    store: web::Data<Store>,
    tournaments: web::Data<Tournaments>,
    id: web::Path<u64>,
    query: web::Query<EventsQuery>,
    long_poll: LongPollSlot,
) -> Result<HttpResponse, ApiError> {
    let id = tournament_id(id.into_inner())?;
    let receiver = tournaments.hub().events(id);
    let tournament = store.read(move |c| logic::view(c, id)).await?;
    let view = tournaments.hub().with_presence(tournament.into());
    let over = view.status.is_over();
    let mut first = vec![sse(&TournamentEvent::Tournament {
        tournament: Box::new(view),
    })];
    if over {
        let table = store.read(move |c| logic::standings(c, id)).await?;
        first.push(sse(&TournamentEvent::Standings {
            standings: Box::new(table.into()),
        }));
    }
    let slot = if over { None } else { long_poll.enter()? };
    let end = query
        .into_inner()
        .max_ms
        .map(|ms| Instant::now() + Duration::from_millis(u64::from(ms)));
    let opening = stream::iter(first.into_iter().map(Ok::<Bytes, actix_web::Error>));
    let state = (receiver, slot, over);
    let rest = stream::unfold(state, move |(mut receiver, slot, done)| async move {
        if done {
            return None;
        }
        let left = end.map(|at| at.saturating_duration_since(Instant::now()));
        if left.is_some_and(|left| left.is_zero()) {
            return None;
        }
        let wait = left.map_or(KEEP_ALIVE, |left| left.min(KEEP_ALIVE));
        let (bytes, done) = match actix_web::rt::time::timeout(wait, receiver.recv()).await {
            Err(_) => (Bytes::from_static(b": keep-alive\n\n"), false),
            Ok(Ok(event)) => {
                let ends = matches!(&event, TournamentEvent::Tournament { tournament } if tournament.status.is_over());
                (sse(&event), ends)
            }
            Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(skipped))) => {
                (sse(&TournamentEvent::Lagged { skipped }), false)
            }
            Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => return None,
        };
        Some((Ok::<Bytes, actix_web::Error>(bytes), (receiver, slot, done)))
    });
    use futures_util::StreamExt as _;
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(header::CacheControl(vec![header::CacheDirective::NoCache]))
        .streaming(opening.chain(rest)))
}

async fn act(
    store: &Store,
    tournaments: &Tournaments,
    id: u64,
    request: &HttpRequest,
    key: Option<&AdminKey>,
    action: Action,
) -> Result<web::Json<TournamentView>, ApiError> {
    let id = tournament_id(id)?;
    let by = authority(request, key)?;
    store.act_on_tournament(id, by, action).await?;
    token_verified(request);
    answer(store, tournaments, id).await
}

/// Tournament `id` as it is now, with its entrants' presence: what an
/// organiser's change answers.
async fn answer(
    store: &Store,
    tournaments: &Tournaments,
    id: i64,
) -> Result<web::Json<TournamentView>, ApiError> {
    let tournament = store.read(move |c| logic::view(c, id)).await?;
    Ok(web::Json(
        tournaments.hub().with_presence(tournament.into()),
    ))
}

/// Withdraws an entrant (the tournament's admin token, or the server's
/// admin key): its games under way are forfeited for it at once (in a game
/// of three or more the others play on), its games not started are left
/// unplayed (they count for no one, shown `abandoned`), and it gets no
/// more turns. For an entrant that crashed or left the class: the others
/// stop waiting for it.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = u64, Path, description = "The tournament id", minimum = 0),
        ("entrant" = u64, Path, description = "The entrant's number (its index in `entrants`)", minimum = 0),
    ),
    security(("admin_token" = []), ("admin_key" = [])),
    responses(
        (status = 200, description = "Withdrawn: the tournament, the entrant with its `withdrawn_at`", body = TournamentView),
        TokenErrors,
        (status = 403, description = "Neither this tournament's admin token nor the server's admin key (`wrong_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament or entrant (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Withdrawn already (`already_withdrawn`), or the tournament is over (`tournament_closed`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/tournaments/{id}/entrants/{entrant}/withdraw")]
pub async fn withdraw_entrant(
    store: web::Data<Store>,
    tournaments: web::Data<Tournaments>,
    path: web::Path<(u64, u64)>,
    request: HttpRequest,
    key: Option<web::Data<AdminKey>>,
) -> Result<web::Json<TournamentView>, ApiError> {
    let (id, entrant) = path.into_inner();
    let id = tournament_id(id)?;
    let entrant = usize::try_from(entrant)
        .map_err(|_| ApiError::not_found(format!("tournament {id} has no entrant {entrant}")))?;
    let by = authority(&request, key.as_ref().map(|key| key.get_ref()))?;
    store.withdraw_entrant(id, entrant, by).await?;
    token_verified(&request);
    answer(&store, &tournaments, id).await
}

/// Starts (or resumes) the tournament (its admin token, or the server's
/// admin key): games start as their
/// entrants are free, at most `concurrency` at once.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0)),
    security(("admin_token" = []), ("admin_key" = [])),
    responses(
        (status = 200, description = "Running", body = TournamentView),
        TokenErrors,
        (status = 403, description = "Neither this tournament's admin token nor the server's admin key (`wrong_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Running already (`already_running`), or over (`tournament_closed`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/tournaments/{id}/start")]
pub async fn start_tournament(
    store: web::Data<Store>,
    tournaments: web::Data<Tournaments>,
    id: web::Path<u64>,
    request: HttpRequest,
    key: Option<web::Data<AdminKey>>,
) -> Result<web::Json<TournamentView>, ApiError> {
    act(
        &store,
        &tournaments,
        id.into_inner(),
        &request,
        key.as_ref().map(|key| key.get_ref()),
        Action::Start,
    )
    .await
}

/// Pauses the tournament (its admin token, or the server's admin key,
/// which may pause any tournament): no new game starts; the games
/// under way play on (with their deadlines) to their end.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0)),
    security(("admin_token" = []), ("admin_key" = [])),
    responses(
        (status = 200, description = "Paused", body = TournamentView),
        TokenErrors,
        (status = 403, description = "Neither this tournament's admin token nor the server's admin key (`wrong_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not running (`not_running`), or over (`tournament_closed`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/tournaments/{id}/pause")]
pub async fn pause_tournament(
    store: web::Data<Store>,
    tournaments: web::Data<Tournaments>,
    id: web::Path<u64>,
    request: HttpRequest,
    key: Option<web::Data<AdminKey>>,
) -> Result<web::Json<TournamentView>, ApiError> {
    act(
        &store,
        &tournaments,
        id.into_inner(),
        &request,
        key.as_ref().map(|key| key.get_ref()),
        Action::Pause,
    )
    .await
}

/// Abandons the tournament (its admin token, or the server's admin key,
/// which may stop any tournament): the games under way are
/// abandoned (no result), no other starts; the standings keep the games
/// finished before.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = u64, Path, description = "The tournament id", minimum = 0)),
    security(("admin_token" = []), ("admin_key" = [])),
    responses(
        (status = 200, description = "Abandoned", body = TournamentView),
        TokenErrors,
        (status = 403, description = "Neither this tournament's admin token nor the server's admin key (`wrong_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Over already (`tournament_closed`)", body = Problem, content_type = "application/problem+json"),
        StorageErrors,
        DiskErrors,
    )
)]
#[post("/v1/tournaments/{id}/abandon")]
pub async fn abandon_tournament(
    store: web::Data<Store>,
    tournaments: web::Data<Tournaments>,
    id: web::Path<u64>,
    request: HttpRequest,
    key: Option<web::Data<AdminKey>>,
) -> Result<web::Json<TournamentView>, ApiError> {
    act(
        &store,
        &tournaments,
        id.into_inner(),
        &request,
        key.as_ref().map(|key| key.get_ref()),
        Action::Abandon,
    )
    .await
}
