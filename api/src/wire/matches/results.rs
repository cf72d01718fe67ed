//! A match's result as the API shows it: the result, its words (the
//! summary), the legend under the picture of a finished match, a seat's
//! forfeit and place.

use serde::Serialize;
use utoipa::ToSchema;

use super::{Ending, ForfeitReason};
use sternhalma::wire::schema::PlyCount;
use sternhalma::{DrawReason, Position};
use sternhalma_store::matches::game::MAX_BOT_PLIES;
use sternhalma_store::matches::model::{self as model, Seat};
use sternhalma_store::matches::status as stored;

/// The result of a match that is over.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchResult {
    /// How it ended.
    pub ending: Ending,
    /// The seat that resigned, for a resignation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resigned_seat: Option<usize>,
    /// The seat that forfeited, for a forfeit (its details in `forfeits`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeited_seat: Option<usize>,
    /// Every seat that forfeited, with when and why: the forfeiter of a
    /// `forfeit` ending, and in a game of three or more those that left it
    /// by a forfeit while the others played on (absent when none did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forfeits: Vec<Forfeit>,
    /// The seats in first place (empty for a draw or an abandoned match).
    pub winners: Vec<usize>,
    /// Each seat's result, as the outcome's `results`: +1 best, -1 worst.
    pub results: Vec<f64>,
    /// For a draw, why: `move_limit` (the game reached `max_plies`) or
    /// `no_moves`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<sternhalma::DrawReason>,
    /// For a draw by the move limit, the tie-break: the seats ranked by
    /// progress, best first (finished first, then more pegs home, then less
    /// distance to their targets); seats in one entry share the rank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_progress: Option<Vec<Vec<usize>>>,
    /// The result in words.
    #[schema(example = "player 0 won")]
    pub summary: String,
    /// Every seat by place, best first, with its name (empty for an
    /// abandoned match).
    pub places: Vec<Place>,
}

impl MatchResult {
    /// `result`, of a match with `seats` whose last position is
    /// `position`, with its words.
    pub fn new(result: &model::MatchResult, seats: &[Seat], position: &Position) -> MatchResult {
        MatchResult {
            ending: result.ending.into(),
            resigned_seat: result.resigned_seat,
            forfeited_seat: result.forfeited_seat,
            forfeits: result.forfeits.iter().map(Forfeit::from).collect(),
            winners: result.winners.clone(),
            results: result.results.clone(),
            reason: result.reason,
            by_progress: result.by_progress.clone(),
            summary: summary(result, seats, position),
            places: result.places.iter().map(Place::from).collect(),
        }
    }
}

/// ` (name)` of seat `seat`, or nothing for a seat the match lacks.
fn named(seats: &[Seat], seat: usize) -> String {
    seats
        .get(seat)
        .map_or_else(String::new, |s| format!(" ({})", s.name))
}

/// What a forfeit says after the seat's name: `forfeited (3 timeouts)`.
pub fn forfeit_words(forfeit: &model::Forfeit) -> String {
    match (forfeit.reason, forfeit.timeouts) {
        (stored::ForfeitReason::Timeouts, Some(1)) => "forfeited (1 timeout)".to_owned(),
        (stored::ForfeitReason::Timeouts, Some(n)) => format!("forfeited ({n} timeouts)"),
        (stored::ForfeitReason::Timeouts, None) => "forfeited (timeouts)".to_owned(),
        (stored::ForfeitReason::Withdrawn, _) => "forfeited (withdrawn)".to_owned(),
        (stored::ForfeitReason::Absent, _) => "forfeited (absent)".to_owned(),
    }
}

/// A result in words: the board's outcome (`player 0 won`, with the move
/// limit of a draw by it, and the seats that left by a forfeit), a
/// resignation's or a forfeit's (`seat 1 (ada) forfeited (3 timeouts)`),
/// or why the match was abandoned.
pub fn summary(result: &model::MatchResult, seats: &[Seat], position: &Position) -> String {
    match result.ending {
        stored::Ending::Outcome => {
            let outcome = position.outcome();
            let mut summary = match result.reason {
                Some(DrawReason::MoveLimit) => format!(
                    "{outcome} ({} plies)",
                    position.rules().max_plies.unwrap_or(u32::MAX)
                ),
                _ => outcome.to_string(),
            };
            // Seats that left by a forfeit while the others played on.
            for forfeit in &result.forfeits {
                summary.push_str(&format!(
                    "; seat {}{} {}",
                    forfeit.seat,
                    named(seats, forfeit.seat),
                    forfeit_words(forfeit)
                ));
            }
            summary
        }
        stored::Ending::Resignation | stored::Ending::Forfeit => {
            let left = result.resigned_seat.or(result.forfeited_seat).unwrap_or(0);
            let how = match result.forfeits.iter().find(|f| f.seat == left) {
                _ if result.ending == stored::Ending::Resignation => "resigned".to_owned(),
                Some(forfeit) => forfeit_words(forfeit),
                None => "forfeited".to_owned(),
            };
            format!("seat {left}{} {how}", named(seats, left))
        }
        stored::Ending::BotLimit => {
            format!("abandoned: the bots did not finish within {MAX_BOT_PLIES} plies")
        }
        stored::Ending::BotUnavailable => match result.unavailable_seat {
            Some(seat) => format!(
                "abandoned: the bot of seat {seat}{} could not move on this server",
                named(seats, seat)
            ),
            None => "abandoned: a bot could not move".to_owned(),
        },
        stored::Ending::Abandoned => "abandoned by its creator".to_owned(),
    }
}

/// The legend under the picture of a match that is over, at its last
/// position: how it ended (`finished: seat 1 won; seat 0 forfeited (3
/// timeouts)`), where the position alone would still name a player to
/// move after a resignation, a forfeit or an abandonment. Seats by number
/// (the winners' colours lead it), so that names do not widen the picture.
pub fn legend(
    result: &model::MatchResult,
    seats: &[Seat],
    position: &Position,
) -> sternhalma::Legend {
    if result.ending.status() == stored::MatchStatus::Abandoned {
        return sternhalma::Legend {
            players: Vec::new(),
            text: summary(result, seats, position),
        };
    }
    let mut parts = Vec::new();
    match result.winners.as_slice() {
        [] if result.ending == stored::Ending::Outcome => {
            parts.push(position.outcome().to_string());
        }
        [] => {}
        [winner] => parts.push(format!("seat {winner} won")),
        winners => parts.push(format!(
            "seats {} share first place",
            winners
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    if let Some(seat) = result.resigned_seat {
        parts.push(format!("seat {seat} resigned"));
    }
    if result.ending == stored::Ending::Outcome {
        // Seats that resigned a game of three or more (forfeits below).
        for resignation in position.resignations() {
            if !result.forfeits.iter().any(|f| f.seat == resignation.player) {
                parts.push(format!("seat {} resigned", resignation.player));
            }
        }
    }
    for forfeit in &result.forfeits {
        parts.push(format!("seat {} {}", forfeit.seat, forfeit_words(forfeit)));
    }
    sternhalma::Legend {
        players: result.winners.clone(),
        text: format!("finished: {}", parts.join("; ")),
    }
}

/// A seat's forfeit of a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 0, "ply": 17, "reason": "timeouts", "timeouts": 3}))]
pub struct Forfeit {
    /// The seat.
    pub seat: usize,
    /// Plies played when it forfeited.
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// Why.
    pub reason: ForfeitReason,
    /// For `timeouts`, how many it had in the game (the tournament's
    /// `max_timeouts`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<u32>,
}

impl From<&model::Forfeit> for Forfeit {
    fn from(forfeit: &model::Forfeit) -> Forfeit {
        Forfeit {
            seat: forfeit.seat,
            ply: forfeit.ply,
            reason: forfeit.reason.into(),
            timeouts: forfeit.timeouts,
        }
    }
}

/// A seat's place in a match's result.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Place {
    /// 1 for the best; equal results share a place.
    pub place: usize,
    /// The seat.
    pub seat: usize,
    /// The seat's name (in a tournament, the entrant's).
    #[schema(example = "ada")]
    pub name: String,
    /// The seat's result (as in `results`).
    pub result: f64,
}

impl From<&model::Place> for Place {
    fn from(place: &model::Place) -> Place {
        Place {
            place: place.place,
            seat: place.seat,
            name: place.name.clone(),
            result: place.result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::matches::MatchStatus;
    use sternhalma_store::matches::model::{Forfeit as StoredForfeit, MatchResult as Stored};

    fn seats(names: &[&str]) -> Vec<Seat> {
        names
            .iter()
            .enumerate()
            .map(|(seat, name)| Seat {
                seat,
                name: (*name).to_owned(),
                bot: None,
            })
            .collect()
    }

    fn ended(ending: stored::Ending) -> Stored {
        Stored {
            ending,
            resigned_seat: None,
            forfeited_seat: None,
            unavailable_seat: None,
            forfeits: Vec::new(),
            winners: Vec::new(),
            results: vec![0.0, 0.0],
            reason: None,
            by_progress: None,
            places: Vec::new(),
        }
    }

    fn start() -> Position {
        "rhombus5p3 classic south:22-24/north:0-2 0 0 -"
            .parse()
            .unwrap()
    }

    fn timeouts(seat: usize, n: u32) -> StoredForfeit {
        StoredForfeit {
            seat,
            ply: 4,
            reason: stored::ForfeitReason::Timeouts,
            timeouts: Some(n),
        }
    }

    #[test]
    fn a_resignation_and_a_forfeit_name_the_seat_that_left() {
        let names = seats(&["ada", "bea"]);
        let resigned = Stored {
            resigned_seat: Some(1),
            winners: vec![0],
            results: vec![1.0, -1.0],
            ..ended(stored::Ending::Resignation)
        };
        assert_eq!(
            summary(&resigned, &names, &start()),
            "seat 1 (bea) resigned"
        );
        let shown = legend(&resigned, &names, &start());
        assert_eq!(
            (shown.players, shown.text.as_str()),
            (vec![0], "finished: seat 0 won; seat 1 resigned")
        );

        let forfeited = Stored {
            forfeited_seat: Some(0),
            forfeits: vec![timeouts(0, 3)],
            winners: vec![1],
            results: vec![-1.0, 1.0],
            ..ended(stored::Ending::Forfeit)
        };
        assert_eq!(
            summary(&forfeited, &names, &start()),
            "seat 0 (ada) forfeited (3 timeouts)"
        );
        assert_eq!(
            legend(&forfeited, &names, &start()).text,
            "finished: seat 1 won; seat 0 forfeited (3 timeouts)"
        );
        let one = Stored {
            forfeits: vec![timeouts(0, 1)],
            ..forfeited.clone()
        };
        assert_eq!(
            summary(&one, &names, &start()),
            "seat 0 (ada) forfeited (1 timeout)"
        );
        let unrecorded = Stored {
            forfeits: Vec::new(),
            ..forfeited
        };
        assert_eq!(
            summary(&unrecorded, &names, &start()),
            "seat 0 (ada) forfeited"
        );
    }

    #[test]
    fn an_abandoned_match_says_why_under_its_picture_too() {
        let names = seats(&["ada", "oracle"]);
        let unavailable = Stored {
            unavailable_seat: Some(1),
            ..ended(stored::Ending::BotUnavailable)
        };
        let why = "abandoned: the bot of seat 1 (oracle) could not move on this server";
        assert_eq!(summary(&unavailable, &names, &start()), why);
        let shown = legend(&unavailable, &names, &start());
        assert_eq!((shown.players, shown.text.as_str()), (vec![], why));
        assert_eq!(
            summary(&ended(stored::Ending::BotLimit), &names, &start()),
            format!("abandoned: the bots did not finish within {MAX_BOT_PLIES} plies")
        );
        assert_eq!(
            summary(&ended(stored::Ending::Abandoned), &names, &start()),
            "abandoned by its creator"
        );
    }

    #[test]
    fn an_outcome_names_the_forfeits_of_those_who_left() {
        let names = seats(&["ada", "bea"]);
        let over = Stored {
            forfeits: vec![timeouts(1, 2)],
            ..ended(stored::Ending::Outcome)
        };
        let position = start();
        assert_eq!(
            summary(&over, &names, &position),
            format!(
                "{}; seat 1 (bea) forfeited (2 timeouts)",
                position.outcome()
            )
        );
    }

    #[test]
    fn wire_names_are_the_stored_names() {
        for ending in [
            stored::Ending::Outcome,
            stored::Ending::Resignation,
            stored::Ending::Forfeit,
            stored::Ending::Abandoned,
            stored::Ending::BotLimit,
            stored::Ending::BotUnavailable,
        ] {
            let wire = serde_json::to_value(Ending::from(ending)).unwrap();
            assert_eq!(wire, ending.as_str());
        }
        for status in [
            stored::MatchStatus::InProgress,
            stored::MatchStatus::Finished,
            stored::MatchStatus::Abandoned,
        ] {
            let wire = MatchStatus::from(status);
            assert_eq!(serde_json::to_value(wire).unwrap(), status.as_str());
            assert_eq!(stored::MatchStatus::from(wire), status);
        }
        for reason in [
            stored::ForfeitReason::Timeouts,
            stored::ForfeitReason::Withdrawn,
            stored::ForfeitReason::Absent,
        ] {
            let wire = serde_json::to_value(ForfeitReason::from(reason)).unwrap();
            assert_eq!(wire, reason.as_str());
        }
    }
}
