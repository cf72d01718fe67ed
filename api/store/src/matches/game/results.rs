//! How a match ended, as its state, its legend and its places show it:
//! the board's outcome, or a resignation's, a forfeit's, an abandonment's.

use super::*;

/// The result of a match that is over: the board's outcome, a
/// resignation's or a forfeit's, or none for an abandoned match.
pub(crate) fn result(
    row: &MatchRow,
    seats: &[SeatRow],
    position: &Position,
) -> Option<MatchResult> {
    let ending = row.ending?;
    let players = seats.len();
    let mut result = match ending {
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
            let reason = match outcome {
                Outcome::Draw { reason } => Some(reason),
                _ if limit_reached => Some(DrawReason::MoveLimit),
                _ => None,
            };
            let mut summary = match reason {
                Some(DrawReason::MoveLimit) => format!(
                    "{outcome} ({} plies)",
                    position.rules().max_plies.unwrap_or(u32::MAX)
                ),
                _ => outcome.to_string(),
            };
            // Seats that left by a forfeit while the others played on.
            for forfeit in &row.forfeits {
                summary.push_str(&format!(
                    "; seat {}{} {}",
                    forfeit.seat,
                    named(seats, forfeit.seat),
                    forfeit.words()
                ));
            }
            MatchResult {
                ending,
                resigned_seat: None,
                forfeited_seat: None,
                forfeits: Vec::new(),
                winners: outcome.winners(),
                results: position.results(),
                summary,
                reason,
                by_progress: (reason == Some(DrawReason::MoveLimit))
                    .then(|| progress_ranking(position)),
                places: Vec::new(),
            }
        }
        Ending::Resignation | Ending::Forfeit => {
            // A forfeit is scored as a resignation of the seat.
            let left = row.resigned_seat.unwrap_or(0);
            let outcome = Outcome::resignation(players, left);
            let results = outcome.results(players);
            let name = named(seats, left);
            let forfeited = ending == Ending::Forfeit;
            let how = match row.forfeits.iter().find(|f| f.seat == left) {
                Some(forfeit) if forfeited => forfeit.words(),
                _ if forfeited => "forfeited".to_owned(),
                _ => "resigned".to_owned(),
            };
            MatchResult {
                ending,
                resigned_seat: (!forfeited).then_some(left),
                forfeited_seat: forfeited.then_some(left),
                forfeits: Vec::new(),
                winners: outcome.winners(),
                results,
                summary: format!("seat {left}{name} {how}"),
                reason: None,
                by_progress: None,
                places: Vec::new(),
            }
        }
        Ending::Abandoned | Ending::BotLimit | Ending::BotUnavailable => MatchResult {
            ending,
            resigned_seat: None,
            forfeited_seat: None,
            forfeits: Vec::new(),
            winners: Vec::new(),
            results: vec![0.0; players],
            reason: None,
            by_progress: None,
            places: Vec::new(),
            summary: match ending {
                Ending::BotLimit => {
                    format!("abandoned: the bots did not finish within {MAX_BOT_PLIES} plies")
                }
                Ending::BotUnavailable => match row.resigned_seat {
                    Some(seat) => format!(
                        "abandoned: the bot of seat {seat}{} could not move on this server",
                        named(seats, seat)
                    ),
                    None => "abandoned: a bot could not move".to_owned(),
                },
                _ => "abandoned by its creator".to_owned(),
            },
        },
    };
    if ending.status() != MatchStatus::Abandoned {
        result.places = places(&result.results, seats);
    }
    result.forfeits = row.forfeits.clone();
    Some(result)
}

/// ` (name)` of seat `seat`, or nothing for a seat the match lacks.
pub(super) fn named(seats: &[SeatRow], seat: usize) -> String {
    seats
        .get(seat)
        .map_or_else(String::new, |s| format!(" ({})", s.name))
}

/// The legend under the picture of a match that is over, at its last
/// position: how it ended (`finished: seat 1 won; seat 0 forfeited (3
/// timeouts)`), where the position alone would still name a player to
/// move after a resignation, a forfeit or an abandonment. Seats by number
/// (the winners' colours lead it), so that names do not widen the picture.
pub fn legend(result: &MatchResult, position: &Position) -> sternhalma::Legend {
    if result.ending.status() == MatchStatus::Abandoned {
        return sternhalma::Legend {
            players: Vec::new(),
            text: result.summary.clone(),
        };
    }
    let mut parts = Vec::new();
    match result.winners.as_slice() {
        [] if result.ending == Ending::Outcome => parts.push(position.outcome().to_string()),
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
    if result.ending == Ending::Outcome {
        // Seats that resigned a game of three or more (forfeits below).
        for resignation in position.resignations() {
            if !result.forfeits.iter().any(|f| f.seat == resignation.player) {
                parts.push(format!("seat {} resigned", resignation.player));
            }
        }
    }
    for forfeit in &result.forfeits {
        parts.push(format!("seat {} {}", forfeit.seat, forfeit.words()));
    }
    sternhalma::Legend {
        players: result.winners.clone(),
        text: format!("finished: {}", parts.join("; ")),
    }
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
