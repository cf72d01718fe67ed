//! `GET /v1/tournaments/{id}/events`: the events of a tournament's stream,
//! made from the store's game events and reads.

use serde::Serialize;
use utoipa::ToSchema;

use sternhalma_store::tournaments::model as stored;
use sternhalma_store::tournaments::referee::{self, GameEvent};

use super::{GameResult, GameStatus, Presence, Standings, TournamentView};

/// A seat of a game that starts, for events.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EventSeat {
    /// The seat.
    pub seat: usize,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
}

impl From<referee::EventSeat> for EventSeat {
    fn from(seat: referee::EventSeat) -> EventSeat {
        EventSeat {
            seat: seat.seat,
            entrant: seat.entrant,
            name: seat.name,
        }
    }
}

/// An event of `GET /v1/tournaments/{id}/events`: the SSE `event` field is
/// its `type`, the `data` field this object as JSON.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TournamentEvent {
    /// The tournament's state: the first event of every stream, and again
    /// at each change of status.
    Tournament {
        /// The tournament.
        tournament: Box<TournamentView>,
    },
    /// A game started.
    GameStarted {
        /// Its number.
        game: usize,
        /// Its match.
        match_id: i64,
        /// Who sits where.
        seats: Vec<EventSeat>,
    },
    /// A move was stored.
    Move {
        /// The game.
        game: usize,
        /// Its match.
        match_id: i64,
        /// The ply it was played at.
        ply: u32,
        /// The seat that played it.
        seat: usize,
        /// The entrant in that seat.
        entrant: usize,
        /// Its path (`95-75-57`) or `pass`.
        #[serde(rename = "move")]
        text: String,
    },
    /// An entrant missed its deadline.
    Timeout {
        /// The game.
        game: usize,
        /// Its match.
        match_id: i64,
        /// The ply.
        ply: u32,
        /// The seat.
        seat: usize,
        /// The entrant.
        entrant: usize,
        /// Its timeouts in this game so far.
        timeouts: u32,
        /// Whether it forfeited the game with this one.
        forfeited: bool,
    },
    /// A game ended.
    GameOver {
        /// The game.
        game: usize,
        /// Its match.
        match_id: i64,
        /// `finished` or `abandoned`.
        status: GameStatus,
        /// The result (none for an abandoned game).
        result: Option<GameResult>,
    },
    /// The standings after a game ended.
    Standings {
        /// The standings.
        standings: Box<Standings>,
    },
    /// An open entrant connected (began asking for its turns), went away
    /// (its last long-poll ended), came back from being absent, or was
    /// marked absent.
    Presence {
        /// The entrant.
        entrant: usize,
        /// Its presence now.
        presence: Presence,
    },
    /// The stream fell behind and skipped events: read the state again.
    Lagged {
        /// Events skipped.
        skipped: u64,
    },
}

impl TournamentEvent {
    /// The SSE `event` name.
    pub fn name(&self) -> &'static str {
        match self {
            TournamentEvent::Tournament { .. } => "tournament",
            TournamentEvent::GameStarted { .. } => "game_started",
            TournamentEvent::Move { .. } => "move",
            TournamentEvent::Timeout { .. } => "timeout",
            TournamentEvent::GameOver { .. } => "game_over",
            TournamentEvent::Standings { .. } => "standings",
            TournamentEvent::Presence { .. } => "presence",
            TournamentEvent::Lagged { .. } => "lagged",
        }
    }

    /// The `game_over` event of `game`, a game that ended (none for a game
    /// without a match, which never started).
    pub fn game_over(game: &stored::TournamentGame) -> Option<TournamentEvent> {
        let match_id = game.match_id?;
        Some(TournamentEvent::GameOver {
            game: game.game,
            match_id,
            status: game.status.into(),
            result: game
                .result
                .as_ref()
                .map(|result| GameResult::shown(result, &game.seats)),
        })
    }
}

impl From<GameEvent> for TournamentEvent {
    fn from(event: GameEvent) -> TournamentEvent {
        match event {
            GameEvent::GameStarted {
                game,
                match_id,
                seats,
            } => TournamentEvent::GameStarted {
                game,
                match_id,
                seats: seats.into_iter().map(Into::into).collect(),
            },
            GameEvent::Move {
                game,
                match_id,
                ply,
                seat,
                entrant,
                text,
            } => TournamentEvent::Move {
                game,
                match_id,
                ply,
                seat,
                entrant,
                text,
            },
            GameEvent::Timeout {
                game,
                match_id,
                ply,
                seat,
                entrant,
                timeouts,
                forfeited,
            } => TournamentEvent::Timeout {
                game,
                match_id,
                ply,
                seat,
                entrant,
                timeouts,
                forfeited,
            },
        }
    }
}

/// One event of the stream as SSE frames it: `event: <type>` and
/// `data: <the JSON of a TournamentEvent>`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[allow(dead_code)]
#[schema(example = json!({"event": "move", "data": "{\"type\":\"move\",\"game\":0,\"match_id\":7,\"ply\":0,\"seat\":0,\"entrant\":1,\"move\":\"22-19\"}"}))]
pub struct TournamentSseEvent {
    /// The event's type: `tournament`, `game_started`, `move`, `timeout`,
    /// `game_over`, `standings` or `lagged`.
    #[schema(example = "move")]
    pub event: String,
    /// The event as JSON: a `TournamentEvent` whose `type` is `event`.
    pub data: String,
}
