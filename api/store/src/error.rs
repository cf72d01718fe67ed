//! What the store and the rules of stored play refuse, as data: every
//! error has a stable [`code`](Error::code) and a message for the user. The
//! HTTP edge (`sternhalma-http`, feature `store`) maps each kind to its
//! status and problem body in one place; nothing here knows HTTP.

use sternhalma::search::{BudgetTooLarge, UnknownBotKind};
use sternhalma::{IllegalMove, MoveError, ParseError, PositionError, SetupError};

/// An error of the store, of a stored match's or tournament's rules of
/// play, or of the rules themselves.
#[derive(Clone, Debug)]
pub enum Error {
    /// No such match, tournament, game or entrant (`not_found`).
    NotFound(String),
    /// A token that gives no right here (`wrong_token`).
    WrongToken(String),
    /// The request does not fit the current state of what it names.
    Conflict(Conflict, String),
    /// Well-formed input that the rules of stored play refuse.
    Invalid(Invalid, String),
    /// A move the rules refuse, or that cannot be read.
    Move(MoveError),
    /// A position the rules refuse, or that cannot be read.
    Position(PositionError),
    /// The database (or the system) cannot serve the request now; nothing
    /// is known to be stored, except as [`Unavailable::Lost`] says.
    Unavailable(Unavailable),
    /// The client has stored as many games as it may
    /// (`storage_quota_exceeded`; [`crate::quota`]): nothing was stored.
    Quota(String),
    /// A stored row does not read back as what was written (`storage_error`).
    Corrupt(String),
    /// The database failed (`storage_error`): nothing was stored.
    Storage,
    /// A bug found by a check (`internal`); the message says which.
    Internal(String),
    /// The job failed inside the server before answering
    /// (`internal_error`): nothing was stored.
    Failed,
}

/// Why a request conflicts with the state it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// The match is over or abandoned (`match_closed`).
    MatchClosed,
    /// The move was sent for another ply (`stale_ply`).
    StalePly,
    /// Another seat is to move (`not_your_turn`).
    NotYourTurn,
    /// The seat resigned already (`already_resigned`).
    AlreadyResigned,
    /// The rules refuse the resignation (the core's code: a seat that has
    /// finished, say).
    CannotResign(&'static str),
    /// The tournament is over (`tournament_closed`).
    TournamentClosed,
    /// The tournament runs already (`already_running`).
    AlreadyRunning,
    /// The tournament is not running (`not_running`).
    NotRunning,
    /// The entrant was withdrawn already (`already_withdrawn`).
    AlreadyWithdrawn,
}

impl Conflict {
    /// The stable code.
    pub fn code(self) -> &'static str {
        match self {
            Conflict::MatchClosed => "match_closed",
            Conflict::StalePly => "stale_ply",
            Conflict::NotYourTurn => "not_your_turn",
            Conflict::AlreadyResigned => "already_resigned",
            Conflict::CannotResign(code) => code,
            Conflict::TournamentClosed => "tournament_closed",
            Conflict::AlreadyRunning => "already_running",
            Conflict::NotRunning => "not_running",
            Conflict::AlreadyWithdrawn => "already_withdrawn",
        }
    }
}

/// Why well-formed input is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// No such bot kind (`unknown_bot`).
    UnknownBot,
    /// A seat's bot given a time budget (`budget_not_allowed`).
    BudgetNotAllowed,
    /// A budget over its cap (`budget_too_large`).
    BudgetTooLarge,
    /// A ply the match has not reached (`no_such_ply`).
    NoSuchPly,
    /// A tournament's name (`invalid_name`).
    Name,
    /// An entrant's name (`invalid_entrant_name`).
    EntrantName,
    /// Two entrants of one name (`duplicate_entrant_name`).
    DuplicateEntrantName,
    /// A tournament game's players (`players_per_game`).
    PlayersPerGame,
    /// A gauntlet of more than two players a game (`gauntlet_players`).
    GauntletPlayers,
    /// A reference bot outside a gauntlet (`reference_not_allowed`).
    ReferenceNotAllowed,
    /// Too many entrants (`too_many_entrants`).
    TooManyEntrants,
    /// Too few entrants (`too_few_entrants`).
    TooFewEntrants,
    /// A schedule too long (`too_many_games`).
    TooManyGames,
    /// A setting out of its range (`invalid_setting`).
    Setting,
    /// More bot search than the server allows one tournament
    /// (`too_much_work`).
    TooMuchWork,
    /// A bot that plays from a solved table (`perfect`) on a game no
    /// installed table with depths covers: the table's own code
    /// (`no_tablebase`, `tablebase_other_game`,
    /// `tablebase_without_depths`).
    Tablebase(&'static str),
}

impl Invalid {
    /// The stable code.
    pub fn code(self) -> &'static str {
        match self {
            Invalid::UnknownBot => UnknownBotKind::CODE,
            Invalid::BudgetNotAllowed => "budget_not_allowed",
            Invalid::BudgetTooLarge => BudgetTooLarge::CODE,
            Invalid::NoSuchPly => "no_such_ply",
            Invalid::Name => "invalid_name",
            Invalid::EntrantName => "invalid_entrant_name",
            Invalid::DuplicateEntrantName => "duplicate_entrant_name",
            Invalid::PlayersPerGame => "players_per_game",
            Invalid::GauntletPlayers => "gauntlet_players",
            Invalid::ReferenceNotAllowed => "reference_not_allowed",
            Invalid::TooManyEntrants => "too_many_entrants",
            Invalid::TooFewEntrants => "too_few_entrants",
            Invalid::TooManyGames => "too_many_games",
            Invalid::Setting => "invalid_setting",
            Invalid::TooMuchWork => "too_much_work",
            Invalid::Tablebase(code) => code,
        }
    }
}

/// Why the store cannot serve a request now (`unavailable`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// SQLite's lock is held (busy or locked): nothing was stored.
    Busy,
    /// PostgreSQL rolled the transaction back (a lock or serialisation
    /// conflict, too many connections, a cancelled statement): nothing was
    /// stored.
    Contended,
    /// The connection was lost while the request ran: a write may or may
    /// not have been committed.
    Lost,
    /// No connection can be had, or the writer is gone.
    Down,
    /// The system gave no randomness for a token or a seed.
    NoRandomness,
    /// The disk holding the database is full, or so nearly full that
    /// nothing new is stored (`Store::set_min_free_disk`): nothing was
    /// stored, and nothing stored before is lost.
    DiskFull,
}

impl Unavailable {
    /// The message for the user.
    pub fn message(self) -> &'static str {
        match self {
            Unavailable::Busy => "the database is busy; try again",
            Unavailable::Contended => "the database is busy; nothing was stored, try again",
            Unavailable::Lost => {
                "the database could not be reached; read the state before trying again (a change sent just then may or may not be stored)"
            }
            Unavailable::Down => "the database is not available; try again",
            Unavailable::NoRandomness => "no randomness available for a token; try again",
            Unavailable::DiskFull => {
                "the server's disk is nearly full, so nothing new is stored (nothing stored before is lost); ask the server's operator to free space"
            }
        }
    }
}

impl Error {
    /// The stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::NotFound(_) => "not_found",
            Error::WrongToken(_) => "wrong_token",
            Error::Conflict(conflict, _) => conflict.code(),
            Error::Invalid(invalid, _) => invalid.code(),
            Error::Move(e) => match e {
                MoveError::Malformed(e) => e.code(),
                MoveError::Illegal(e) => e.code(),
            },
            Error::Position(e) => match e {
                PositionError::Malformed(e) => e.code(),
                PositionError::Invalid(e) => e.code(),
            },
            Error::Unavailable(Unavailable::DiskFull) => "disk_full",
            Error::Unavailable(_) => "unavailable",
            Error::Quota(_) => "storage_quota_exceeded",
            Error::Corrupt(_) | Error::Storage => "storage_error",
            Error::Internal(_) => "internal",
            Error::Failed => "internal_error",
        }
    }

    /// A conflict with the state.
    pub fn conflict(conflict: Conflict, detail: impl Into<String>) -> Error {
        Error::Conflict(conflict, detail.into())
    }

    /// Input refused.
    pub fn invalid(invalid: Invalid, detail: impl Into<String>) -> Error {
        Error::Invalid(invalid, detail.into())
    }

    /// Whether a write that failed this way may nevertheless have been
    /// committed (the connection was lost).
    pub fn may_be_stored(&self) -> bool {
        matches!(self, Error::Unavailable(Unavailable::Lost))
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotFound(detail)
            | Error::WrongToken(detail)
            | Error::Conflict(_, detail)
            | Error::Invalid(_, detail)
            | Error::Quota(detail)
            | Error::Internal(detail) => f.write_str(detail),
            Error::Move(e) => e.fmt(f),
            Error::Position(e) => e.fmt(f),
            Error::Unavailable(why) => f.write_str(why.message()),
            Error::Corrupt(_) => f.write_str("a stored match could not be read"),
            Error::Storage => f.write_str("the database failed; nothing was stored"),
            Error::Failed => {
                f.write_str("the request failed inside the server; nothing was stored")
            }
        }
    }
}

impl std::error::Error for Error {}

/// A row that does not read back: logged with what was wrong, answered
/// without it.
pub fn corrupt(what: impl std::fmt::Display) -> Error {
    tracing::error!(%what, "stored match does not read back");
    Error::Corrupt(what.to_string())
}

impl From<UnknownBotKind> for Error {
    fn from(e: UnknownBotKind) -> Error {
        Error::invalid(Invalid::UnknownBot, e.to_string())
    }
}

impl From<BudgetTooLarge> for Error {
    fn from(e: BudgetTooLarge) -> Error {
        Error::invalid(Invalid::BudgetTooLarge, e.to_string())
    }
}

impl From<MoveError> for Error {
    fn from(e: MoveError) -> Error {
        Error::Move(e)
    }
}

impl From<IllegalMove> for Error {
    fn from(e: IllegalMove) -> Error {
        Error::Move(MoveError::Illegal(e))
    }
}

impl From<PositionError> for Error {
    fn from(e: PositionError) -> Error {
        Error::Position(e)
    }
}

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Error {
        Error::Position(PositionError::Malformed(e))
    }
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Error {
        Error::Position(PositionError::Invalid(e))
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        // Not the client's fault: logged, and answered without details.
        tracing::error!(error = %e, "database error");
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                Error::Unavailable(Unavailable::Busy)
            }
            // The disk (or the database's page limit) is full: SQLite
            // rolled the statement back, the file is whole.
            Some(rusqlite::ErrorCode::DiskFull) => Error::Unavailable(Unavailable::DiskFull),
            _ => Error::Storage,
        }
    }
}

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Error {
        use postgres::error::SqlState;
        // Not the client's fault: logged (with the server's own message and
        // detail), and answered without details.
        match e.as_db_error() {
            Some(db) => tracing::error!(
                code = db.code().code(),
                message = db.message(),
                detail = db.detail().unwrap_or(""),
                "database error"
            ),
            None => {
                tracing::error!(error = %e, source = ?std::error::Error::source(&e), "database error")
            }
        }
        let code = e.code().map(SqlState::code).unwrap_or("");
        // Rolled back by the server, nothing stored: a lock or a
        // serialisation conflict, or too many connections.
        let contended = matches!(code, "40001" | "40P01" | "55P03" | "53300" | "57014");
        // The connection is gone (the server shut down or restarted, the
        // network cut, no server at all): a write may or may not have been
        // committed before it went.
        let lost = e.is_closed()
            || code.starts_with("08")
            || matches!(code, "57P01" | "57P02" | "57P03")
            || (code.is_empty()
                && std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>()));
        if code == "53100" {
            // disk_full: the transaction is rolled back.
            Error::Unavailable(Unavailable::DiskFull)
        } else if contended {
            Error::Unavailable(Unavailable::Contended)
        } else if lost {
            Error::Unavailable(Unavailable::Lost)
        } else {
            Error::Storage
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_stable() {
        let cases = [
            (Error::NotFound("no match 3".into()), "not_found"),
            (Error::conflict(Conflict::StalePly, "at ply 4"), "stale_ply"),
            (
                Error::conflict(Conflict::CannotResign("player_finished"), "done"),
                "player_finished",
            ),
            (Error::invalid(Invalid::UnknownBot, "no"), "unknown_bot"),
            (
                Error::invalid(Invalid::Tablebase("no_tablebase"), "none"),
                "no_tablebase",
            ),
            (Error::Unavailable(Unavailable::Lost), "unavailable"),
            (corrupt("column 3 is null"), "storage_error"),
            (Error::Storage, "storage_error"),
            (Error::Failed, "internal_error"),
        ];
        for (error, code) in cases {
            assert_eq!(error.code(), code, "{error:?}");
        }
        assert!(Error::Unavailable(Unavailable::Lost).may_be_stored());
        assert!(!Error::Unavailable(Unavailable::Busy).may_be_stored());
    }

    #[test]
    fn a_corrupt_row_is_not_shown_to_the_user() {
        let error = corrupt("column 7 is Int(3), not text");
        assert_eq!(error.to_string(), "a stored match could not be read");
    }
}
