//! Starting games: the director's settle (outcomes recorded, the next
//! games started as their entrants are free, the end), and the games it
//! follows after a start.

use sternhalma::solve::Tablebases;

use super::*;

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

pub(super) fn tracked(
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
    /// The games over that were asked about, as the schedule now has
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
/// the end (this replica's director knows from the answer). A finished
/// game is judged by the table of `tables` that covers it, if one does.
///
/// # Errors
/// [`Error::NotFound`] for an unknown tournament; database failures.
pub fn settle(
    connection: &mut Db,
    tables: &Tablebases,
    id: i64,
    over: &[usize],
) -> Result<Committed<Settled>, Error> {
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
                let over = read.game;
                if game.outcome.is_none()
                    && matches!(over.status, GameStatus::Finished | GameStatus::Abandoned)
                {
                    // Judged once, here: the standings read it from then on.
                    let judged = match (game.match_id, over.status) {
                        (Some(match_id), GameStatus::Finished) => {
                            judge(connection, tables, match_id)
                        }
                        _ => None,
                    };
                    let json = recorded(&over, read.results, judged)?;
                    storage::set_outcome(connection, id, number, &json)?;
                }
                settled.over.push(over);
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
pub(super) fn start_ready(connection: &Db, id: i64) -> Result<Scheduled, Error> {
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
        storage::set_status(connection, id, TournamentStatus::Finished, now)?;
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
/// [`Error::NotFound`] for an unknown tournament; database failures.
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
/// [`Error::NotFound`] for an unknown tournament; database failures.
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
