//! A tournament's schedule as shown: every game with its seats and its
//! result in words, naming entrants; and an open entrant's turns.

use serde::Serialize;
use utoipa::ToSchema;

use sternhalma::wire::schema::PlyCount;
use sternhalma::wire::view::{MoveView, PositionView};
use sternhalma_store::matches::status::Ending as StoredEnding;
use sternhalma_store::tournaments::model as stored;

use super::TournamentStatus;
use crate::wire::matches::Ending;

/// Where a game of the schedule stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Not started.
    Pending,
    /// Its match is under way.
    InProgress,
    /// Over with a result.
    Finished,
    /// Over without a result.
    Abandoned,
}

impl From<stored::GameStatus> for GameStatus {
    fn from(status: stored::GameStatus) -> GameStatus {
        match status {
            stored::GameStatus::Pending => GameStatus::Pending,
            stored::GameStatus::InProgress => GameStatus::InProgress,
            stored::GameStatus::Finished => GameStatus::Finished,
            stored::GameStatus::Abandoned => GameStatus::Abandoned,
        }
    }
}

/// A seat of a tournament game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameSeat {
    /// The seat (player index).
    pub seat: usize,
    /// The entrant in it.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// Timeouts it had in this game.
    pub timeouts: u32,
    /// Whether it forfeited this game (too many timeouts).
    pub forfeited: bool,
}

impl From<&stored::GameSeat> for GameSeat {
    fn from(seat: &stored::GameSeat) -> GameSeat {
        GameSeat {
            seat: seat.seat,
            entrant: seat.entrant,
            name: seat.name.clone(),
            timeouts: seat.timeouts,
            forfeited: seat.forfeited,
        }
    }
}

/// A place in a game's result, by entrant.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlaceView {
    /// 1 for the best; equal results share a place.
    pub place: usize,
    /// The seat.
    pub seat: usize,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// The seat's result (as in the match's `result.results`).
    pub result: f64,
}

impl From<&stored::Place> for PlaceView {
    fn from(place: &stored::Place) -> PlaceView {
        PlaceView {
            place: place.place,
            seat: place.seat,
            entrant: place.entrant,
            name: place.name.clone(),
            result: place.result,
        }
    }
}

/// A game's result, naming entrants.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameResult {
    /// How the match ended.
    pub ending: Ending,
    /// In words, with names.
    #[schema(example = "ada won")]
    pub summary: String,
    /// Every seat, best first.
    pub places: Vec<PlaceView>,
}

impl GameResult {
    /// `result` as shown, in words: who beat whom (or the places), then
    /// who forfeited (the `seats` that did) or resigned.
    pub fn shown(result: &stored::GameResult, seats: &[stored::GameSeat]) -> GameResult {
        GameResult {
            ending: result.ending.into(),
            summary: summary(result, seats),
            places: result.places.iter().map(PlaceView::from).collect(),
        }
    }
}

/// `result` in words: `ada beat grace`, `draw between ada, grace`,
/// `1. ada, 2. grace, 3. alan` with three or more seats; then
/// ` (grace forfeited)` naming the `seats` that forfeited, or
/// ` (grace resigned)`.
fn summary(result: &stored::GameResult, seats: &[stored::GameSeat]) -> String {
    let places = &result.places;
    let name = |seat: usize| {
        places
            .iter()
            .find(|p| p.seat == seat)
            .map_or_else(|| format!("seat {seat}"), |p| p.name.clone())
    };
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
    let forfeits: Vec<String> = seats
        .iter()
        .filter(|s| s.forfeited)
        .map(|s| name(s.seat))
        .collect();
    if !forfeits.is_empty() {
        summary.push_str(&format!(" ({} forfeited)", forfeits.join(", ")));
    } else if result.ending == StoredEnding::Resignation {
        summary.push_str(&format!(
            " ({} resigned)",
            name(result.resigned_seat.unwrap_or(0))
        ));
    }
    summary
}

/// A game of the schedule.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentGame {
    /// Its number in the schedule.
    pub game: usize,
    /// Where it stands.
    pub status: GameStatus,
    /// The match that plays it, once started (`/v1/matches/{id}`).
    pub match_id: Option<i64>,
    /// The seats.
    pub seats: Vec<GameSeat>,
    /// The result, once finished.
    pub result: Option<GameResult>,
}

impl From<&stored::TournamentGame> for TournamentGame {
    fn from(game: &stored::TournamentGame) -> TournamentGame {
        TournamentGame {
            game: game.game,
            status: game.status.into(),
            match_id: game.match_id,
            seats: game.seats.iter().map(GameSeat::from).collect(),
            result: game
                .result
                .as_ref()
                .map(|result| GameResult::shown(result, &game.seats)),
        }
    }
}

/// A tournament's schedule.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentGames {
    /// The tournament.
    pub tournament_id: i64,
    /// Every game, in schedule order.
    pub games: Vec<TournamentGame>,
}

impl TournamentGames {
    /// The schedule of tournament `tournament_id`, its `games` in order.
    pub fn of(tournament_id: i64, games: &[stored::TournamentGame]) -> TournamentGames {
        TournamentGames {
            tournament_id,
            games: games.iter().map(TournamentGame::from).collect(),
        }
    }
}

/// A game waiting for an entrant's move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Turn {
    /// The match: post the move to `/v1/matches/{match_id}/moves` with the
    /// entrant token.
    pub match_id: i64,
    /// The game's number in the schedule.
    pub game: usize,
    /// The entrant's seat.
    pub seat: usize,
    /// The ply to name in the move.
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// The position.
    pub position: PositionView,
    /// Every legal move.
    pub legal_moves: Vec<MoveView>,
    /// Milliseconds left before a timeout, as the server counts them.
    pub deadline_ms: Option<u64>,
    /// Timeouts the entrant has had in this game.
    pub timeouts: u32,
}

/// An entrant's games waiting for its move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EntrantTurns {
    /// The tournament.
    pub tournament_id: i64,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// Where the tournament stands.
    pub status: TournamentStatus,
    /// True when the entrant has no game left to play (or the tournament
    /// is over): stop polling.
    pub done: bool,
    /// The games waiting for its move now (empty at a timeout).
    pub turns: Vec<Turn>,
}

impl From<&stored::EntrantTurns> for EntrantTurns {
    /// The turns, each with the position, its legal moves and the whole
    /// `move_ms` left (until the director has seen a turn its clock has
    /// not started; the route shows the director's time once it has).
    fn from(turns: &stored::EntrantTurns) -> EntrantTurns {
        EntrantTurns {
            tournament_id: turns.tournament_id,
            entrant: turns.entrant,
            name: turns.name.clone(),
            status: turns.status.into(),
            done: turns.done,
            turns: turns
                .turns
                .iter()
                .map(|turn| Turn {
                    match_id: turn.match_id,
                    game: turn.game,
                    seat: turn.seat,
                    ply: turn.ply,
                    position: PositionView::from(&turn.position),
                    legal_moves: turn
                        .position
                        .legal_moves()
                        .into_iter()
                        .map(|mv| MoveView::new(&turn.position, mv))
                        .collect(),
                    deadline_ms: Some(u64::from(turns.move_ms)),
                    timeouts: turn.timeouts,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(place: usize, seat: usize, name: &str, result: f64) -> stored::Place {
        stored::Place {
            place,
            seat,
            entrant: 10 + seat,
            name: name.to_owned(),
            result,
        }
    }

    fn seats(names: &[&str], forfeited: &[usize]) -> Vec<stored::GameSeat> {
        names
            .iter()
            .enumerate()
            .map(|(seat, name)| stored::GameSeat {
                seat,
                entrant: 10 + seat,
                name: (*name).to_owned(),
                timeouts: 0,
                forfeited: forfeited.contains(&seat),
            })
            .collect()
    }

    fn result(ending: StoredEnding, places: Vec<stored::Place>) -> stored::GameResult {
        stored::GameResult {
            ending,
            resigned_seat: (ending == StoredEnding::Resignation)
                .then(|| places.last().map(|p| p.seat))
                .flatten(),
            places,
        }
    }

    #[test]
    fn a_result_in_words_names_the_entrants() {
        let two = seats(&["ada", "grace"], &[]);
        let won = result(
            StoredEnding::Outcome,
            vec![place(1, 1, "grace", 1.0), place(2, 0, "ada", -1.0)],
        );
        assert_eq!(summary(&won, &two), "grace beat ada");
        let drawn = result(
            StoredEnding::Outcome,
            vec![place(1, 0, "ada", 0.0), place(1, 1, "grace", 0.0)],
        );
        assert_eq!(summary(&drawn, &two), "draw between ada, grace");
        let three = seats(&["ada", "grace", "alan"], &[]);
        let ranked = result(
            StoredEnding::Outcome,
            vec![
                place(1, 2, "alan", 1.0),
                place(2, 0, "ada", 0.0),
                place(2, 1, "grace", 0.0),
            ],
        );
        assert_eq!(summary(&ranked, &three), "1. alan, 2. ada, 2. grace");
    }

    #[test]
    fn forfeits_and_resignations_follow_the_places() {
        let resigned = result(
            StoredEnding::Resignation,
            vec![place(1, 0, "grace", 1.0), place(2, 1, "ada", -1.0)],
        );
        // As recorded once by the store, before the words were the server's.
        assert_eq!(
            summary(&resigned, &seats(&["grace", "ada"], &[])),
            "grace beat ada (ada resigned)"
        );
        let forfeited = result(
            StoredEnding::Forfeit,
            vec![place(1, 0, "grace", 1.0), place(2, 1, "ada", -1.0)],
        );
        assert_eq!(
            summary(&forfeited, &seats(&["grace", "ada"], &[1])),
            "grace beat ada (ada forfeited)"
        );
        // With three or more the forfeiters are named in seat order, and a
        // seat missing from the places by its number.
        let left = result(
            StoredEnding::Outcome,
            vec![place(1, 0, "alan", 1.0), place(2, 2, "ada", -1.0)],
        );
        assert_eq!(
            summary(&left, &seats(&["alan", "grace", "ada"], &[1, 2])),
            "alan beat ada (seat 1, ada forfeited)"
        );
        let shown = GameResult::shown(&forfeited, &seats(&["grace", "ada"], &[1]));
        assert_eq!(
            serde_json::to_value(&shown).unwrap(),
            serde_json::json!({
                "ending": "forfeit",
                "summary": "grace beat ada (ada forfeited)",
                "places": [
                    {"place": 1, "seat": 0, "entrant": 10, "name": "grace", "result": 1.0},
                    {"place": 2, "seat": 1, "entrant": 11, "name": "ada", "result": -1.0},
                ],
            })
        );
    }
}
