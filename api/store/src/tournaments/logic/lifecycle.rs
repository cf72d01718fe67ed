//! A tournament's life as its organiser drives it: created from a plan,
//! started, paused, abandoned, an entrant withdrawn, an absent entrant
//! back. Each is a store command: its own transaction, its changes told
//! after the commit.

use super::*;

/// A tournament as created: checked by [`crate::tournaments::plan::plan`].
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

/// Stores a tournament with its entrants and schedule, as its creator's;
/// answers its id. The directors hear of it.
///
/// # Errors
/// [`Error::Quota`] when its games would take the creator past what it may
/// store; database failures.
pub fn create(
    connection: &mut Db,
    plan: &Plan,
    admin_token_hash: &TokenHash,
    creator: &Creator,
) -> Result<Committed<i64>, Error> {
    connection.transaction(|connection| {
        creator.may_store(connection, plan.schedule.len() as u64)?;
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
            now,
        )?;
        for entrant in &plan.entrants {
            storage::insert_entrant(connection, id, entrant)?;
        }
        for (game, seats) in plan.schedule.iter().enumerate() {
            storage::insert_game(connection, id, game, seats)?;
        }
        if let Some(owner) = creator.owner() {
            storage::set_owner(connection, id, owner)?;
        }
        connection.tournament_changed(id);
        Ok(id)
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
/// [`Error::NotFound`] for an unknown tournament, [`Error::WrongToken`],
/// [`Conflict::TournamentClosed`].
pub(super) fn load_to_run(
    connection: &Db,
    id: i64,
    by: &Authority,
) -> Result<TournamentRow, Error> {
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
/// [`Error::NotFound`] for an unknown tournament, [`Error::WrongToken`],
/// [`Conflict::TournamentClosed`] (over), [`Conflict::AlreadyRunning`]
/// (start while running), [`Conflict::NotRunning`] (pause while not
/// running).
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
                            now,
                        )?;
                    }
                }
                TournamentStatus::Abandoned
            }
        };
        storage::set_status(connection, id, status, now)?;
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
/// [`Error::NotFound`] for an unknown tournament or entrant,
/// [`Error::WrongToken`], [`Conflict::TournamentClosed`] (over) or
/// [`Conflict::AlreadyWithdrawn`].
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
        if !storage::withdraw(connection, id, entrant, now)? {
            return Err(Error::conflict(
                Conflict::AlreadyWithdrawn,
                format!(
                    "{} was withdrawn from tournament {id} at {}",
                    taking_part.name,
                    taking_part
                        .withdrawn_at
                        .map_or_else(|| "an earlier time".to_owned(), crate::clock::stored)
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
            match game::forfeit_seat(connection, &state, players, &forfeit, now) {
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
        storage::set_status(connection, id, row.status, now)?;
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
