//! What the `/v1/tournaments` operations check and do, and what the
//! director needs to run tournaments: start the games whose entrants are
//! free, follow them, record timeouts.
//!
//! A tournament game is an ordinary stored match (so every match route
//! works on it: the state, the long-poll, the history, the export), linked
//! from the tournament's schedule. An open entrant's seats carry its token
//! hash, so its one token plays all its games through
//! `POST /v1/matches/{id}/moves`.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::page::Page;
use crate::sql::Db;
use sternhalma::Position;

use crate::bots::{self, SeatBot};
use crate::committed::Committed;
use crate::error::{Conflict, Error};
use crate::matches::dto::{Ending, Forfeit, ForfeitReason, MatchStatus, SeatKind};
use crate::matches::storage::{self as match_storage, MoveRow, SeatPlan, corrupt};
use crate::matches::tokens::{Authority, TokenHash};
use crate::matches::{game, views};
use crate::tournaments::dto::{
    EntrantTurns, EntrantView, GameCounts, GameResult, GameSeat, GameStatus, PlaceView, Presence,
    TournamentGame, TournamentGames, TournamentList, TournamentStatus, TournamentView, Turn,
};
use crate::tournaments::schedule::Format;
use crate::tournaments::standings::{
    self, EntrantRef, FinishedGame, Judged, LiveGame, Points, Standings,
};
use crate::tournaments::storage::{self, EntrantRow, GameRow, TournamentRow};
use sternhalma::wire::view::{MoveView, PositionView};

/// A tournament as created: validated by the route.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Display name.
    pub name: String,
    /// Every game's start position.
    pub start: Position,
    /// The format.
    pub format: Format,
    /// Games per group.
    pub games_per_pairing: u32,
    /// Time per move.
    pub move_ms: u32,
    /// Timeouts before a forfeit.
    pub max_timeouts: u32,
    /// Games at once.
    pub concurrency: u32,
    /// Points per opponent.
    pub points: Points,
    /// Running at once, or waiting for its start.
    pub status: TournamentStatus,
    /// The entrants (bots with their seeds).
    pub entrants: Vec<EntrantRow>,
    /// The games: the entrant of every seat.
    pub schedule: Vec<Vec<usize>>,
}

fn load(connection: &Db, id: i64) -> Result<TournamentRow, Error> {
    storage::load_tournament(connection, id)?
        .ok_or_else(|| Error::NotFound(format!("no tournament {id}")))
}

/// Stores a tournament with its entrants and schedule; answers its id.
/// The directors hear of it.
///
/// # Errors
/// Database failures.
pub fn create(
    connection: &mut Db,
    plan: &Plan,
    admin_token_hash: &TokenHash,
) -> Result<Committed<i64>, Error> {
    connection.transaction(|connection| {
        let now = connection.now()?;
        let id = storage::insert_tournament(
            connection,
            &plan.name,
            &plan.start.to_string(),
            plan.format,
            plan.games_per_pairing,
            plan.move_ms,
            plan.max_timeouts,
            plan.concurrency,
            plan.points,
            plan.status,
            admin_token_hash,
            &now,
        )?;
        for entrant in &plan.entrants {
            storage::insert_entrant(connection, id, entrant)?;
        }
        for (game, seats) in plan.schedule.iter().enumerate() {
            storage::insert_game(connection, id, game, seats)?;
        }
        connection.tournament_changed(id);
        Ok(id)
    })
}

fn game_status(row: &GameRow) -> GameStatus {
    if row.unplayed {
        return GameStatus::Abandoned;
    }
    match row.match_status {
        None => GameStatus::Pending,
        Some(MatchStatus::InProgress) => GameStatus::InProgress,
        Some(MatchStatus::Finished) => GameStatus::Finished,
        Some(MatchStatus::Abandoned) => GameStatus::Abandoned,
    }
}

fn entrant_view(row: &EntrantRow, reveal: bool) -> EntrantView {
    let (kind, bot) = views::shown_bot(row.bot.as_ref(), reveal);
    EntrantView {
        entrant: row.entrant,
        name: row.name.clone(),
        kind,
        bot,
        reference: row.reference,
        withdrawn_at: row.withdrawn_at.clone(),
        presence: row.bot.is_none().then(|| Presence {
            absent_since: row.absent_since.clone(),
            ..Presence::default()
        }),
    }
}

fn view_of(connection: &Db, row: TournamentRow) -> Result<TournamentView, Error> {
    let entrants = storage::load_entrants(connection, row.id)?;
    let games = storage::load_games(connection, row.id)?;
    let mut counts = GameCounts {
        total: games.len(),
        ..GameCounts::default()
    };
    for game in &games {
        match game_status(game) {
            GameStatus::Pending => counts.pending += 1,
            GameStatus::InProgress => counts.in_progress += 1,
            GameStatus::Finished => counts.finished += 1,
            GameStatus::Abandoned => counts.abandoned += 1,
        }
    }
    let start = game::parse_position(&row.start_position)?;
    let reveal = row.status.is_over();
    Ok(TournamentView {
        id: row.id,
        name: row.name,
        status: row.status,
        version: row.version,
        created_at: row.created_at,
        updated_at: row.updated_at,
        players: start.layout().player_count(),
        start_position: row.start_position,
        format: row.format,
        games_per_pairing: row.games_per_pairing,
        move_ms: row.move_ms,
        max_timeouts: row.max_timeouts,
        concurrency: row.concurrency,
        points: row.points,
        entrants: entrants.iter().map(|e| entrant_view(e, reveal)).collect(),
        games: counts,
    })
}

/// Tournament `id`.
///
/// # Errors
/// 404 for an unknown tournament.
pub fn view(connection: &Db, id: i64) -> Result<TournamentView, Error> {
    view_of(connection, load(connection, id)?)
}

/// A page of tournaments, newest first.
///
/// # Errors
/// Database failures.
pub fn list(
    connection: &Db,
    status: Option<TournamentStatus>,
    page: Page,
) -> Result<TournamentList, Error> {
    let ids = storage::list_ids(connection, status, page.before, page.fetch())?;
    let (ids, next_before) = page.split(ids);
    let mut tournaments = Vec::new();
    for id in ids {
        tournaments.push(view(connection, id)?);
    }
    Ok(TournamentList {
        next_before,
        tournaments,
    })
}

/// What the admin token asks of a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Waiting or paused: run.
    Start,
    /// Running: start no new game.
    Pause,
    /// Not over: stop, abandoning the games under way.
    Abandon,
}

/// Tournament `id`, for `by` to run (start, pause, abandon, withdraw an
/// entrant): it must be its admin token or the server's operator, and the
/// tournament not over.
///
/// # Errors
/// 404 unknown tournament, 403 `wrong_token`, 409 `tournament_closed`.
fn load_to_run(connection: &Db, id: i64, by: &Authority) -> Result<TournamentRow, Error> {
    let row = load(connection, id)?;
    if !by.allows(&row.admin_token_hash) {
        return Err(Error::WrongToken(
            "this token is not the admin token of this tournament".to_owned(),
        ));
    }
    if row.status.is_over() {
        return Err(Error::conflict(
            Conflict::TournamentClosed,
            format!("tournament {id} is {}", row.status.as_str()),
        ));
    }
    Ok(row)
}

/// Applies `action` to tournament `id`, asked `by` its admin token or the
/// server's operator. The matches it abandons and the tournament's
/// change are told after the commit.
///
/// # Errors
/// 404 unknown tournament, 403 `wrong_token`, 409 `tournament_closed`
/// (over), `already_running` (start while running), `not_running` (pause
/// while not running).
pub fn act(
    connection: &mut Db,
    id: i64,
    by: &Authority,
    action: Action,
) -> Result<Committed<()>, Error> {
    connection.transaction(|connection| {
        let row = load_to_run(connection, id, by)?;
        let now = connection.now()?;
        let status = match (action, row.status) {
            (Action::Start, TournamentStatus::Running) => {
                return Err(Error::conflict(
                    Conflict::AlreadyRunning,
                    format!("tournament {id} is running already"),
                ));
            }
            (Action::Start, _) => TournamentStatus::Running,
            (Action::Pause, TournamentStatus::Running) => TournamentStatus::Paused,
            (Action::Pause, status) => {
                return Err(Error::conflict(
                    Conflict::NotRunning,
                    format!("tournament {id} is {}, not running", status.as_str()),
                ));
            }
            (Action::Abandon, _) => {
                for game in storage::load_games(connection, id)? {
                    if let (Some(match_id), Some(MatchStatus::InProgress)) =
                        (game.match_id, game.match_status)
                    {
                        let ending = Ending::Abandoned;
                        match_storage::close(
                            connection,
                            match_id,
                            ending.status(),
                            ending,
                            None,
                            &now,
                        )?;
                    }
                }
                TournamentStatus::Abandoned
            }
        };
        storage::set_status(connection, id, status, &now)?;
        connection.tournament_changed(id);
        Ok(())
    })
}

/// Withdraws entrant `entrant` from tournament `id`, asked `by` its admin
/// token or the server's operator: its games under way are forfeited for
/// it at once (a game of three or more goes on without it), its games not
/// started are left unplayed (they count for no one), and it is given no
/// more turns. The matches it changes and the tournament's change are
/// told after the commit.
///
/// # Errors
/// 404 unknown tournament or entrant, 403 `wrong_token`, 409
/// `tournament_closed` (over) or `already_withdrawn`.
pub fn withdraw(
    connection: &mut Db,
    id: i64,
    entrant: usize,
    by: &Authority,
) -> Result<Committed<()>, Error> {
    connection.transaction(|connection| {
        let row = load_to_run(connection, id, by)?;
        let entrants = storage::load_entrants(connection, id)?;
        let Some(taking_part) = entrants.get(entrant) else {
            return Err(Error::NotFound(format!(
                "tournament {id} has no entrant {entrant} (it has {})",
                entrants.len()
            )));
        };
        let now = connection.now()?;
        if !storage::withdraw(connection, id, entrant, &now)? {
            return Err(Error::conflict(
                Conflict::AlreadyWithdrawn,
                format!(
                    "{} was withdrawn from tournament {id} at {}",
                    taking_part.name,
                    taking_part
                        .withdrawn_at
                        .as_deref()
                        .unwrap_or("an earlier time")
                ),
            ));
        }
        for game in storage::load_games(connection, id)? {
            let (Some(match_id), Some(MatchStatus::InProgress)) =
                (game.match_id, game.match_status)
            else {
                continue;
            };
            let Some(seat) = game.entrants.iter().position(|&e| e == entrant) else {
                continue;
            };
            let state = game::load_match(connection, match_id)?;
            if state.status != MatchStatus::InProgress {
                // Ended meanwhile (another replica's write).
                continue;
            }
            let players = game.entrants.len();
            let forfeit = Forfeit {
                seat,
                ply: state.ply,
                reason: ForfeitReason::Withdrawn,
                timeouts: None,
            };
            match game::forfeit_seat(connection, &state, players, &forfeit, &now) {
                Ok(()) => {}
                // A game of three or more it has left already (forfeited,
                // resigned) or finished in: the others play on without it.
                Err(Error::Conflict(Conflict::AlreadyResigned | Conflict::CannotResign(_), _)) => {
                    continue;
                }
                Err(error) => return Err(error),
            }
        }
        // Its status unchanged, its version moves: the other replicas'
        // directors read it again.
        storage::set_status(connection, id, row.status, &now)?;
        connection.tournament_changed(id);
        Ok(())
    })
}

/// Open entrant `entrant` of tournament `id` asked for its turns: no
/// longer absent. Answers whether it was.
///
/// # Errors
/// Database failures.
pub fn present(connection: &mut Db, id: i64, entrant: usize) -> Result<Committed<bool>, Error> {
    connection.transaction(|connection| storage::set_absent(connection, id, entrant, None))
}

/// A tournament game the director follows.
#[derive(Clone, Debug)]
pub struct Tracked {
    /// The tournament.
    pub tournament: i64,
    /// The game's number.
    pub game: usize,
    /// Its match.
    pub match_id: i64,
    /// The entrant of every seat.
    pub entrants: Vec<usize>,
    /// The entrant's name of every seat.
    pub names: Vec<String>,
    /// Whether every seat is an open entrant's.
    pub open: Vec<bool>,
    /// The tournament's time per move.
    pub move_ms: u32,
    /// The tournament's timeouts before a forfeit.
    pub max_timeouts: u32,
}

fn tracked(
    row: &TournamentRow,
    entrants: &[EntrantRow],
    game: usize,
    seats: &[usize],
    match_id: i64,
) -> Tracked {
    Tracked {
        tournament: row.id,
        game,
        match_id,
        entrants: seats.to_vec(),
        names: seats
            .iter()
            .map(|&e| entrants.get(e).map_or_else(String::new, |e| e.name.clone()))
            .collect(),
        open: seats
            .iter()
            .map(|&e| entrants.get(e).is_some_and(|e| e.bot.is_none()))
            .collect(),
        move_ms: row.move_ms,
        max_timeouts: row.max_timeouts,
    }
}

/// The games a [`settle`] started, and whether the tournament finished.
#[derive(Clone, Debug, Default)]
pub struct Scheduled {
    /// The games it started.
    pub started: Vec<Tracked>,
    /// Whether the tournament has just finished (no game left).
    pub finished: bool,
}

/// What [`settle`] did.
#[derive(Clone, Debug, Default)]
pub struct Settled {
    /// The games over that were asked about, as the schedule now shows
    /// them (their outcome recorded).
    pub over: Vec<TournamentGame>,
    /// The games started, and whether the tournament finished.
    pub scheduled: Scheduled,
}

/// In one write: records the outcome of every game of tournament `id`
/// numbered in `over` that is over (once: the standings and the schedule
/// read it from then on), then starts the games that can start
/// (in schedule order, as entrants are free). What the director does after the games of a
/// tournament ended; the other replicas hear of the games started and of
/// the end (this replica's director knows from the answer).
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn settle(connection: &mut Db, id: i64, over: &[usize]) -> Result<Committed<Settled>, Error> {
    connection.transaction(|connection| {
        let mut settled = Settled::default();
        if !over.is_empty() {
            let row = load(connection, id)?;
            let entrants = storage::load_entrants(connection, id)?;
            let games = storage::load_games(connection, id)?;
            for &number in over {
                let Some(game) = games.iter().find(|g| g.game == number) else {
                    continue;
                };
                let read = tournament_game(connection, &row, &entrants, game)?;
                let view = read.view;
                if game.outcome.is_none()
                    && matches!(view.status, GameStatus::Finished | GameStatus::Abandoned)
                {
                    // Judged once, here: the standings read it from then on.
                    let judged = match (game.match_id, view.status) {
                        (Some(match_id), GameStatus::Finished) => judge(connection, match_id),
                        _ => None,
                    };
                    let outcome = Outcome {
                        seats: view.seats.clone(),
                        result: view.result.clone(),
                        results: read.results,
                        judged,
                    };
                    let json = serde_json::to_string(&outcome)
                        .map_err(|e| Error::Internal(format!("an outcome as JSON: {e}")))?;
                    storage::set_outcome(connection, id, number, &json)?;
                }
                settled.over.push(view);
            }
        }
        settled.scheduled = start_ready(connection, id)?;
        if !settled.scheduled.started.is_empty() || settled.scheduled.finished {
            connection.tournament_scheduled(id);
        }
        Ok(settled)
    })
}

/// Starts the pending games of tournament `id` whose open entrants are not
/// playing another game, in schedule order, up to its concurrency; marks
/// the tournament finished when no game is left, inside the caller's
/// write. Only a running tournament starts games. Built-in bot entrants
/// play any number of games at once; an open entrant plays one at a time.
fn start_ready(connection: &Db, id: i64) -> Result<Scheduled, Error> {
    let Some(row) = storage::load_tournament(connection, id)? else {
        return Ok(Scheduled::default());
    };
    if row.status != TournamentStatus::Running {
        return Ok(Scheduled::default());
    }
    let entrants = storage::load_entrants(connection, id)?;
    let games = storage::load_games(connection, id)?;
    let is_open = |e: usize| entrants.get(e).is_some_and(|e| e.bot.is_none());
    let under_way: Vec<&GameRow> = games
        .iter()
        .filter(|g| g.match_status == Some(MatchStatus::InProgress))
        .collect();
    let mut busy: HashSet<usize> = under_way
        .iter()
        .flat_map(|g| g.entrants.iter().copied())
        .filter(|&e| is_open(e))
        .collect();
    let mut free = (row.concurrency as usize).saturating_sub(under_way.len());
    let start = game::parse_position(&row.start_position)?;
    let mut scheduled = Scheduled::default();
    for pending in games.iter().filter(|g| g.match_id.is_none() && !g.unplayed) {
        if free == 0 {
            break;
        }
        if pending.entrants.iter().any(|e| busy.contains(e)) {
            continue;
        }
        let mut plans = Vec::with_capacity(pending.entrants.len());
        for (seat, &e) in pending.entrants.iter().enumerate() {
            let entrant = entrants
                .get(e)
                .ok_or_else(|| corrupt(format!("entrant {e} of game {}", pending.game)))?;
            let bot = entrant.bot.clone().map(|mut spec| {
                // Each game (and each seat of one game) searches with a
                // seed of its own, reproducible from the entrant's.
                let seed = spec.seed.unwrap_or(0) ^ (seat as u64) << 56;
                spec.seed = Some(bots::ply_seed(seed, pending.game as u32));
                spec
            });
            let token_hash = match &entrant.token_hash {
                Some(hash) => Some(
                    TokenHash::try_from(hash.as_slice())
                        .map_err(|_| corrupt(format!("token of entrant {e}")))?,
                ),
                None => None,
            };
            plans.push(SeatPlan {
                name: entrant.name.clone(),
                bot,
                token_hash,
            });
        }
        let admin = TokenHash::try_from(row.admin_token_hash.as_slice())
            .map_err(|_| corrupt("tournament admin token"))?;
        let match_id = game::insert(connection, &start, &plans, &admin)?;
        storage::link_game(connection, id, pending.game, match_id)?;
        busy.extend(pending.entrants.iter().copied().filter(|&e| is_open(e)));
        free -= 1;
        scheduled.started.push(tracked(
            &row,
            &entrants,
            pending.game,
            &pending.entrants,
            match_id,
        ));
    }
    let left = games.iter().any(|g| {
        (g.match_id.is_none() && !g.unplayed) || g.match_status == Some(MatchStatus::InProgress)
    });
    if !left && scheduled.started.is_empty() {
        let now = connection.now()?;
        storage::set_status(connection, id, TournamentStatus::Finished, &now)?;
        scheduled.finished = true;
    }
    Ok(scheduled)
}

/// The games under way of every running or paused tournament: what the
/// director follows after a start.
///
/// # Errors
/// Database failures.
pub fn tracked_games(connection: &Db) -> Result<Vec<Tracked>, Error> {
    let mut all = Vec::new();
    let active = [TournamentStatus::Running, TournamentStatus::Paused];
    for id in storage::ids_with_status(connection, &active)? {
        all.extend(tracked_games_of(connection, id)?);
    }
    Ok(all)
}

/// The games under way of tournament `id`.
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn tracked_games_of(connection: &Db, id: i64) -> Result<Vec<Tracked>, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let mut all = Vec::new();
    for game in storage::load_games(connection, id)? {
        if let (Some(match_id), Some(MatchStatus::InProgress)) = (game.match_id, game.match_status)
        {
            all.push(tracked(
                &row,
                &entrants,
                game.game,
                &game.entrants,
                match_id,
            ));
        }
    }
    Ok(all)
}

/// Tournament `id`'s status and version (what the director compares
/// with what it last told), without the rest of its view.
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn status_and_version(connection: &Db, id: i64) -> Result<(TournamentStatus, i64), Error> {
    let row = load(connection, id)?;
    Ok((row.status, row.version))
}

/// The tournament game match `match_id` plays, whatever its status, if it
/// is one: how a replica follows a game another replica started.
///
/// # Errors
/// Database failures.
pub fn tracked_game_of_match(connection: &Db, match_id: i64) -> Result<Option<Tracked>, Error> {
    let Some((id, number)) = storage::game_of_match(connection, match_id)? else {
        return Ok(None);
    };
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let games = storage::load_games(connection, id)?;
    let game = games
        .iter()
        .find(|g| g.game == number)
        .ok_or_else(|| corrupt(format!("game {number} of tournament {id}")))?;
    Ok(Some(tracked(
        &row,
        &entrants,
        number,
        &game.entrants,
        match_id,
    )))
}

/// The ids of the running tournaments.
///
/// # Errors
/// Database failures.
pub fn running(connection: &Db) -> Result<Vec<i64>, Error> {
    storage::ids_with_status(connection, &[TournamentStatus::Running])
}

/// A tournament game as the director reads it after a change.
#[derive(Clone, Debug)]
pub struct GameProgress {
    /// The match's version.
    pub version: i64,
    /// Plies played.
    pub ply: u32,
    /// Where it stands.
    pub status: MatchStatus,
    /// The moves from the ply asked for.
    pub moves: Vec<MoveRow>,
    /// The open entrant's seat to move, if one is.
    pub open_to_move: Option<usize>,
    /// Every timeout of the game so far as (ply, seat), in order.
    pub timeouts: Vec<(u32, usize)>,
    /// The game's forfeits as (ply, seat): a timeout there forfeited the
    /// game, whatever the count (an absent entrant's).
    pub forfeits: Vec<(u32, usize)>,
    /// Whether the open entrant to move is absent or withdrawn: its turn
    /// gets no time.
    pub gone_to_move: bool,
}

/// Match `tracked.match_id` since ply `since`.
///
/// # Errors
/// 404 for an unknown match; database failures.
pub fn progress(connection: &Db, tracked: &Tracked, since: u32) -> Result<GameProgress, Error> {
    let row = game::load_match(connection, tracked.match_id)?;
    let moves = match_storage::load_moves_from(connection, tracked.match_id, since)?;
    let open_to_move = if row.status == MatchStatus::InProgress {
        let side = game::parse_position(&row.position)?.side_to_move();
        tracked
            .open
            .get(side)
            .copied()
            .unwrap_or(false)
            .then_some(side)
    } else {
        None
    };
    let gone_to_move = match open_to_move.and_then(|seat| tracked.entrants.get(seat)) {
        Some(&entrant) => storage::gone(connection, tracked.tournament, entrant)?,
        None => false,
    };
    let timeouts = storage::timeout_list(connection, tracked.match_id)?;
    // Read only when a timeout may be one: the move read after every ply
    // of every game does not pay for it.
    let forfeits = if timeouts.is_empty() {
        Vec::new()
    } else {
        match_storage::load_forfeits(connection, tracked.match_id)?
            .into_iter()
            .map(|forfeit| (forfeit.ply, forfeit.seat))
            .collect()
    };
    Ok(GameProgress {
        version: row.version,
        ply: row.ply,
        status: row.status,
        moves,
        open_to_move,
        timeouts,
        forfeits,
        gone_to_move,
    })
}

/// The position of match `match_id` if it is still at `version`, in
/// progress, with `seat` to move: what a missed deadline plays in.
///
/// # Errors
/// 404 for an unknown match; database failures.
pub fn timeout_position(
    connection: &Db,
    match_id: i64,
    version: i64,
    seat: usize,
) -> Result<Option<(Position, u32)>, Error> {
    let row = game::load_match(connection, match_id)?;
    if row.version != version || row.status != MatchStatus::InProgress {
        return Ok(None);
    }
    let position = game::parse_position(&row.position)?;
    Ok((position.side_to_move() == seat).then_some((position, row.ply)))
}

/// The move played for an entrant that missed its deadline: the greedy
/// bot's, seeded by the match and the ply (so it is reproducible).
pub fn timeout_move(match_id: i64, position: &Position, ply: u32) -> sternhalma::Move {
    // Only the perfect bot can be unable to move; the greedy one always
    // moves (a pass once the game is over).
    SeatBot::greedy(match_id as u64)
        .choose(position, ply)
        .unwrap_or(sternhalma::Move::Pass)
}

/// A recorded timeout.
#[derive(Clone, Debug)]
pub struct TimeoutRecord {
    /// The match's new version.
    pub version: i64,
    /// The ply it happened at.
    pub ply: u32,
    /// The seat's timeouts in the match, this one included.
    pub timeouts: u32,
    /// Whether the seat forfeited (by the server, at its last timeout).
    pub forfeited: bool,
    /// The seat's entrant, and since when it is absent if this timeout
    /// made it so (its `max_timeouts`-th in a row over its games).
    pub absent: Option<(usize, String)>,
}

/// Seat `seat` of match `match_id` missed its deadline at `version`:
/// records the timeout and plays `mv` for it, or, at its `max_timeouts`-th
/// timeout, forfeits the game for it (stored as a forfeit, scored as a
/// resignation). Nothing happens if
/// the match has moved on (the move came in time after all).
///
/// # Errors
/// Database failures.
pub fn record_timeout(
    connection: &mut Db,
    match_id: i64,
    version: i64,
    seat: usize,
    mv: sternhalma::Move,
    max_timeouts: u32,
) -> Result<Committed<Option<TimeoutRecord>>, Error> {
    connection.transaction(|connection| {
        let row = game::load_match(connection, match_id)?;
        if row.version != version || row.status != MatchStatus::InProgress {
            return Ok(None);
        }
        let position = game::parse_position(&row.position)?;
        if position.side_to_move() != seat {
            return Ok(None);
        }
        if !position.is_legal(mv) {
            // The greedy bot plays only legal moves; never store another.
            return Err(Error::Internal(format!(
                "the timeout move {mv} of match {match_id} is illegal"
            )));
        }
        let now = connection.now()?;
        storage::insert_timeout(connection, match_id, row.ply, seat, &now)?;
        let timeouts = storage::timeouts(connection, match_id)?
            .into_iter()
            .find_map(|(s, n)| (s == seat).then_some(n))
            .unwrap_or(0);
        // The seat's entrant: absent (or withdrawn) already, its turn is
        // forfeited at once.
        let entrant = match storage::game_of_match(connection, match_id)? {
            Some((tournament, number)) => {
                let games = storage::load_games(connection, tournament)?;
                games
                    .iter()
                    .find(|g| g.game == number)
                    .and_then(|g| g.entrants.get(seat).copied())
                    .map(|entrant| (tournament, entrant, games))
            }
            None => None,
        };
        let gone = match &entrant {
            Some((tournament, entrant, _)) => storage::gone(connection, *tournament, *entrant)?,
            None => false,
        };
        let forfeited = gone || timeouts >= max_timeouts;
        if forfeited {
            let players = position.layout().player_count();
            let forfeit = if gone {
                Forfeit {
                    seat,
                    ply: row.ply,
                    reason: ForfeitReason::Absent,
                    timeouts: None,
                }
            } else {
                Forfeit {
                    seat,
                    ply: row.ply,
                    reason: ForfeitReason::Timeouts,
                    timeouts: Some(timeouts),
                }
            };
            game::forfeit_seat(connection, &row, players, &forfeit, &now)?;
        } else {
            game::play_checked(connection, match_id, &position, row.ply, mv, &now)?;
        }
        let mut absent = None;
        if let (false, Some((tournament, entrant, games))) = (gone, &entrant) {
            let back = storage::returned_at(connection, *tournament, *entrant)?;
            if timeouts_in_a_row(connection, games, *entrant, back)? >= max_timeouts
                && storage::set_absent(connection, *tournament, *entrant, Some(&now))?
            {
                absent = Some((*entrant, now.clone()));
            }
        }
        Ok(Some(TimeoutRecord {
            version: row.version + 1,
            ply: row.ply,
            timeouts,
            forfeited,
            absent,
        }))
    })
}

/// The timeouts of `entrant` since its last own move (or since it came
/// `back` from being absent, if later), over its games of the tournament
/// (`games`): how many turns it missed in a row.
fn timeouts_in_a_row(
    connection: &Db,
    games: &[GameRow],
    entrant: usize,
    back: Option<String>,
) -> Result<u32, Error> {
    let mut last_own: Option<String> = back;
    let mut timeouts = Vec::new();
    for game in games {
        let (Some(match_id), Some(seat)) = (
            game.match_id,
            game.entrants.iter().position(|&e| e == entrant),
        ) else {
            continue;
        };
        if let Some(at) = storage::last_own_move_at(connection, match_id, seat)? {
            last_own = last_own.max(Some(at));
        }
        timeouts.extend(storage::timeout_times(connection, match_id, seat)?);
    }
    // The times are the database's, one format, so they compare as text.
    let in_a_row = timeouts
        .iter()
        .filter(|&at| last_own.as_ref().is_none_or(|own| at > own))
        .count();
    Ok(u32::try_from(in_a_row).unwrap_or(u32::MAX))
}

fn per_seat_timeouts(connection: &Db, match_id: i64, seats: usize) -> Result<Vec<u32>, Error> {
    let mut counts = vec![0; seats];
    for (seat, n) in storage::timeouts(connection, match_id)? {
        if let Some(slot) = counts.get_mut(seat) {
            *slot = n;
        }
    }
    Ok(counts)
}

/// A finished game's result naming entrants, with every seat's result.
fn game_result(
    connection: &Db,
    match_id: i64,
    seats_entrants: &[usize],
    entrants: &[EntrantRow],
    forfeited: &[bool],
) -> Result<Option<(GameResult, Vec<f64>)>, Error> {
    let row = game::load_match(connection, match_id)?;
    let seats = match_storage::load_seats(connection, match_id)?;
    let position = game::parse_position(&row.position)?;
    let Some(result) = game::result(&row, &seats, &position) else {
        return Ok(None);
    };
    if result.ending.status() == MatchStatus::Abandoned {
        return Ok(None);
    }
    let name = |seat: usize| {
        seats_entrants
            .get(seat)
            .and_then(|&e| entrants.get(e))
            .map_or_else(|| format!("seat {seat}"), |e| e.name.clone())
    };
    // The match's places, by seat name; the entrant of each seat added.
    let places: Vec<PlaceView> = result
        .places
        .iter()
        .map(|p| PlaceView {
            place: p.place,
            seat: p.seat,
            entrant: seats_entrants.get(p.seat).copied().unwrap_or(p.seat),
            name: name(p.seat),
            result: p.result,
        })
        .collect();
    let mut summary = if places.iter().all(|p| p.place == 1) {
        format!(
            "draw between {}",
            places
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else if places.len() == 2 {
        format!("{} beat {}", places[0].name, places[1].name)
    } else {
        places
            .iter()
            .map(|p| format!("{}. {}", p.place, p.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let forfeits: Vec<String> = (0..seats_entrants.len())
        .filter(|&s| forfeited.get(s).copied().unwrap_or(false))
        .map(name)
        .collect();
    if !forfeits.is_empty() {
        summary.push_str(&format!(" ({} forfeited)", forfeits.join(", ")));
    } else if result.ending == Ending::Resignation {
        summary.push_str(&format!(
            " ({} resigned)",
            name(result.resigned_seat.unwrap_or(0))
        ));
    }
    Ok(Some((
        GameResult {
            ending: result.ending,
            summary,
            places,
        },
        result.results,
    )))
}

/// Tournament `id`'s schedule with every game's state and result.
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn games(connection: &Db, id: i64) -> Result<TournamentGames, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let mut games = Vec::new();
    for game in storage::load_games(connection, id)? {
        games.push(tournament_game(connection, &row, &entrants, &game)?.view);
    }
    Ok(TournamentGames {
        tournament_id: id,
        games,
    })
}

/// A game's outcome as [`settle`] records it when the game is over: what
/// [`tournament_game`] would derive from the match, kept so that it is
/// derived once.
#[derive(Serialize, Deserialize)]
struct Outcome {
    seats: Vec<GameSeat>,
    result: Option<GameResult>,
    results: Option<Vec<f64>>,
    /// Each seat's moves judged against perfect play, when a table covered
    /// the game as it was recorded (absent from outcomes recorded before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    judged: Option<Vec<Judged>>,
}

/// Match `match_id`'s moves judged against perfect play by a table this
/// process has installed ([`game::analysed`]), per seat; `None` when no
/// table covers its game. Only extra information for the standings: a
/// failure to replay the match leaves the game unjudged rather than
/// stopping the tournament.
fn judge(connection: &Db, match_id: i64) -> Option<Vec<Judged>> {
    let analysis = game::analysed(connection, match_id).ok().flatten()?;
    Some(
        analysis
            .seats
            .iter()
            .map(|seat| Judged {
                moves: seat.moves,
                kept: seat.kept,
                mistakes: seat.mistakes,
            })
            .collect(),
    )
}

/// A game of the schedule as [`tournament_game`] reads it.
struct GameRead {
    /// The game as the schedule shows it.
    view: TournamentGame,
    /// Its seats' results, once finished.
    results: Option<Vec<f64>>,
    /// Its seats' moves judged against perfect play, once recorded.
    judged: Option<Vec<Judged>>,
}

/// One game of the schedule, and its seats' results once finished: from
/// its recorded outcome once there is one, else from its match.
fn tournament_game(
    connection: &Db,
    row: &TournamentRow,
    entrants: &[EntrantRow],
    game: &GameRow,
) -> Result<GameRead, Error> {
    let status = game_status(game);
    if let Some(json) = &game.outcome {
        let outcome: Outcome = serde_json::from_str(json)
            .map_err(|e| corrupt(format!("the outcome of game {}: {e}", game.game)))?;
        return Ok(GameRead {
            view: TournamentGame {
                game: game.game,
                status,
                match_id: game.match_id,
                seats: outcome.seats,
                result: outcome.result,
            },
            results: outcome.results,
            judged: outcome.judged,
        });
    }
    let (timeouts, forfeits) = match game.match_id {
        Some(match_id) => (
            per_seat_timeouts(connection, match_id, game.entrants.len())?,
            match_storage::load_forfeits(connection, match_id)?,
        ),
        None => (vec![0; game.entrants.len()], Vec::new()),
    };
    // Forfeited for its timeouts, because it was absent, or withdrawn (the
    // match's forfeits; a game stored before they were kept: by its
    // timeouts).
    let forfeited: Vec<bool> = timeouts
        .iter()
        .enumerate()
        .map(|(seat, &n)| n >= row.max_timeouts || forfeits.iter().any(|f| f.seat == seat))
        .collect();
    let (result, results) = match (game.match_id, status) {
        (Some(match_id), GameStatus::Finished) => {
            match game_result(connection, match_id, &game.entrants, entrants, &forfeited)? {
                Some((result, results)) => (Some(result), Some(results)),
                None => (None, None),
            }
        }
        _ => (None, None),
    };
    let seats = game
        .entrants
        .iter()
        .enumerate()
        .map(|(seat, &e)| GameSeat {
            seat,
            entrant: e,
            name: entrants.get(e).map_or_else(String::new, |e| e.name.clone()),
            timeouts: timeouts[seat],
            forfeited: forfeited[seat],
        })
        .collect();
    Ok(GameRead {
        view: TournamentGame {
            game: game.game,
            status,
            match_id: game.match_id,
            seats,
            result,
        },
        results,
        judged: None,
    })
}

/// The game `game` of tournament `id` as the schedule shows it.
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn one_game(connection: &Db, id: i64, game: usize) -> Result<TournamentGame, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let games = storage::load_games(connection, id)?;
    let game = games
        .get(game)
        .ok_or_else(|| Error::NotFound(format!("tournament {id} has no game {game}")))?;
    Ok(tournament_game(connection, &row, &entrants, game)?.view)
}

/// Tournament `id`'s standings, computed from the stored results.
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn standings(connection: &Db, id: i64) -> Result<Standings, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let mut finished = Vec::new();
    let mut live = Vec::new();
    for game in storage::load_games(connection, id)? {
        let status = game_status(&game);
        if status == GameStatus::InProgress {
            let view = tournament_game(connection, &row, &entrants, &game)?.view;
            live.push(LiveGame {
                entrants: game.entrants.clone(),
                timeouts: view.seats.iter().map(|s| s.timeouts).collect(),
                forfeited: view.seats.iter().map(|s| s.forfeited).collect(),
            });
            continue;
        }
        if status != GameStatus::Finished {
            continue;
        }
        let read = tournament_game(connection, &row, &entrants, &game)?;
        if let Some(results) = read.results {
            finished.push(FinishedGame {
                game: game.game,
                entrants: game.entrants.clone(),
                results,
                timeouts: read.view.seats.iter().map(|s| s.timeouts).collect(),
                forfeited: read.view.seats.iter().map(|s| s.forfeited).collect(),
                judged: read.judged,
            });
        }
    }
    let refs: Vec<EntrantRef> = entrants
        .iter()
        .map(|e| EntrantRef {
            entrant: e.entrant,
            name: e.name.clone(),
            kind: if e.bot.is_some() {
                SeatKind::Bot
            } else {
                SeatKind::Open
            },
        })
        .collect();
    let mut standings = standings::compute(&refs, &finished, row.points);
    standings.count_live(&live);
    Ok(standings)
}

/// The entrant of tournament `id` holding `token`.
fn entrant_by_token(
    entrants: &[EntrantRow],
    id: i64,
    token: &TokenHash,
) -> Result<EntrantRow, Error> {
    entrants
        .iter()
        .find(|e| e.token_hash.as_deref() == Some(token.as_slice()))
        .cloned()
        .ok_or_else(|| {
            Error::WrongToken(format!(
                "this token is not the token of any open entrant of tournament {id}"
            ))
        })
}

/// The games of tournament `id` waiting for the move of the entrant
/// holding `token`, each with the whole `move_ms` left (the server's
/// director knows the time left once it has seen the turn, and the route
/// says so).
///
/// # Errors
/// 404 unknown tournament, 403 `wrong_token`; database failures.
pub fn turns(connection: &Db, id: i64, token: &TokenHash) -> Result<(EntrantTurns, bool), Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let entrant = entrant_by_token(&entrants, id, token)?;
    let absent = entrant.absent_since.is_some();
    let mut turns = Vec::new();
    let mut left = false;
    for game in storage::load_games(connection, id)? {
        if !game.entrants.contains(&entrant.entrant) {
            continue;
        }
        match (game.match_id, game.match_status) {
            (None, _) => left |= !game.unplayed,
            (Some(match_id), Some(MatchStatus::InProgress)) => {
                left = true;
                let state = game::load_match(connection, match_id)?;
                let position = game::parse_position(&state.position)?;
                let seat = position.side_to_move();
                if state.status != MatchStatus::InProgress
                    || game.entrants.get(seat) != Some(&entrant.entrant)
                {
                    continue;
                }
                let timeouts = per_seat_timeouts(connection, match_id, game.entrants.len())?;
                turns.push(Turn {
                    match_id,
                    game: game.game,
                    seat,
                    ply: state.ply,
                    legal_moves: position
                        .legal_moves()
                        .into_iter()
                        .map(|mv| MoveView::new(&position, mv))
                        .collect(),
                    position: PositionView::from(&position),
                    // Until the director has seen the turn its clock has
                    // not started: the whole time is left.
                    deadline_ms: Some(u64::from(row.move_ms)),
                    timeouts: timeouts[seat],
                });
            }
            _ => {}
        }
    }
    Ok((
        EntrantTurns {
            tournament_id: id,
            entrant: entrant.entrant,
            name: entrant.name,
            status: row.status,
            done: row.status.is_over() || !left,
            turns,
        },
        absent,
    ))
}
