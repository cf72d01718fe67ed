//! What the tournaments' wire still takes from the matches' (until it moves
//! to the server's crate as the matches' did).

use crate::bots::BotSpec;
use crate::matches::dto::SeatKind;

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
