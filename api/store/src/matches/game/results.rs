//! How a match ended: the board's outcome, or a resignation's, a
//! forfeit's, an abandonment's, with each seat's result and place. (Its
//! words and its legend are the wire's: `api/src/wire/matches.rs`.)

use super::*;

/// The result of a match that is over: the board's outcome, a
/// resignation's or a forfeit's, or every result 0 for an abandoned match;
/// `None` while it is in progress.
pub(crate) fn result(
    row: &MatchRow,
    seats: &[SeatRow],
    position: &Position,
) -> Option<MatchResult> {
    let ending = row.ending?;
    let players = seats.len();
    let mut result = MatchResult {
        ending,
        resigned_seat: None,
        forfeited_seat: None,
        unavailable_seat: None,
        forfeits: row.forfeits.clone(),
        winners: Vec::new(),
        results: vec![0.0; players],
        reason: None,
        by_progress: None,
        places: Vec::new(),
    };
    match ending {
        Ending::Outcome => {
            let outcome = position.outcome();
            // A game that reached its move limit with nobody finished: a
            // draw, or with resignations a ranking with the resigners last;
            // either way the limit ended it.
            let limit_reached = position
                .rules()
                .max_plies
                .is_some_and(|limit| position.ply() >= limit)
                && position.finishers().is_empty();
            result.reason = match outcome {
                Outcome::Draw { reason } => Some(reason),
                _ if limit_reached => Some(DrawReason::MoveLimit),
                _ => None,
            };
            result.winners = outcome.winners();
            result.results = position.results();
            result.by_progress =
                (result.reason == Some(DrawReason::MoveLimit)).then(|| progress_ranking(position));
        }
        Ending::Resignation | Ending::Forfeit => {
            // A forfeit is scored as a resignation of the seat.
            let left = row.resigned_seat.unwrap_or(0);
            let outcome = Outcome::resignation(players, left);
            result.results = outcome.results(players);
            result.winners = outcome.winners();
            if ending == Ending::Forfeit {
                result.forfeited_seat = Some(left);
            } else {
                result.resigned_seat = Some(left);
            }
        }
        Ending::BotUnavailable => result.unavailable_seat = row.resigned_seat,
        Ending::Abandoned | Ending::BotLimit => {}
    }
    if ending.status() != MatchStatus::Abandoned {
        result.places = places(&result.results, seats);
    }
    Some(result)
}

/// Every seat by place (1 the best; equal results share a place), named.
pub(super) fn places(results: &[f64], seats: &[SeatRow]) -> Vec<Place> {
    let mut places: Vec<Place> = results
        .iter()
        .enumerate()
        .map(|(seat, &value)| Place {
            place: 1 + results.iter().filter(|&&other| other > value).count(),
            seat,
            name: seats.get(seat).map_or_else(String::new, |s| s.name.clone()),
            result: value,
        })
        .collect();
    places.sort_by_key(|place| (place.place, place.seat));
    places
}
