//! What the `/v1/matches` routes answer, built from the stored rows and
//! what [`super::game`] made of them.

use sternhalma::{Played, Position};

use crate::clock::stored;

use crate::bots::BotSpec;
use crate::matches::dto::{
    MatchResult, MatchStatus, MatchSummary, MatchView, MoveRecord, SeatKind, SeatView,
};
use crate::matches::storage::{MatchRow, SeatRow};
use sternhalma::wire::view::{MoveView, PositionView};

/// A seat's (or an entrant's) kind and bot as shown: the seed only when
/// `reveal` (once the game is over: with it anyone could predict the bot's
/// next move).
pub fn shown_bot(bot: Option<&BotSpec>, reveal: bool) -> (SeatKind, Option<BotSpec>) {
    let kind = if bot.is_some() {
        SeatKind::Bot
    } else {
        SeatKind::Open
    };
    let mut bot = bot.cloned();
    if !reveal {
        if let Some(spec) = bot.as_mut() {
            spec.seed = None;
        }
    }
    (kind, bot)
}

/// A seat as the wire shows it. A bot's seed is shown only once the match
/// is over (`reveal`): with it, anyone could compute the bot's next move.
pub fn seat(row: &SeatRow, reveal: bool) -> SeatView {
    let (kind, bot) = shown_bot(row.bot.as_ref(), reveal);
    SeatView {
        seat: row.seat,
        name: row.name.clone(),
        kind,
        bot,
    }
}

/// The state of a match at `position` (its current position), with its
/// result once over.
pub fn state(
    row: &MatchRow,
    seats: &[SeatRow],
    position: &Position,
    result: Option<MatchResult>,
) -> MatchView {
    let in_progress = row.status == MatchStatus::InProgress;
    let legal_moves = if in_progress {
        position
            .legal_moves()
            .into_iter()
            .map(|mv| MoveView::new(position, mv))
            .collect()
    } else {
        Vec::new()
    };
    MatchView {
        id: row.id,
        status: row.status,
        version: row.version,
        created_at: stored(row.created_at),
        updated_at: stored(row.updated_at),
        seats: seats.iter().map(|s| seat(s, !in_progress)).collect(),
        ply: row.ply,
        to_move: in_progress.then(|| position.side_to_move()),
        start_position: row.start_position.clone(),
        position: PositionView::from(position),
        legal_moves,
        result,
    }
}

/// A match in the list.
pub fn summary(row: MatchRow, seats: &[SeatRow], result: Option<MatchResult>) -> MatchSummary {
    let reveal = row.status != MatchStatus::InProgress;
    MatchSummary {
        id: row.id,
        status: row.status,
        ending: row.ending,
        ply: row.ply,
        seats: seats.iter().map(|s| seat(s, reveal)).collect(),
        start_position: row.start_position,
        created_at: stored(row.created_at),
        updated_at: stored(row.updated_at),
        result,
    }
}

/// A move of the history, or one a request stored.
pub fn record(ply: u32, seat: usize, played: &Played, played_at: jiff::Timestamp) -> MoveRecord {
    MoveRecord {
        ply,
        seat,
        mv: MoveView::from(played),
        played_at: stored(played_at),
    }
}
