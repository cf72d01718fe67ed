//! The wire format: how positions, rules and moves are written as JSON, for
//! every surface (the HTTP API, the Python module, stored matches). Behind
//! the `serde` feature.
//!
//! One home for each rule of the format:
//! - the JSON position form ([`PositionJson`], read by [`position`] and
//!   [`setup`]), which also takes the position string;
//! - rules as text or as an object naming a preset and overrides
//!   ([`rules`], built by [`Rules::set_option_value`](crate::Rules::set_option_value));
//! - a move as text, as its ends `{"from", "to"}` or as a full path
//!   `{"path": [...]}` ([`move_text`]), resolved by
//!   [`Position::resolve`](crate::Position::resolve);
//! - numbers as JSON Schema reads them: `7` and `7.0` are the same whole
//!   number ([`whole`]).
//!
//! Errors are [`ParseError`]s whose [`code`](ParseError::code) every
//! surface reports, with the path of the offending field
//! (`players[0][1].pegs[3]`) and messages in the user's words.
//!
//! ```
//! use serde_json::json;
//! use sternhalma::wire;
//! let position = wire::position(&json!({
//!     "board": "star2",
//!     "rules": {"preset": "classic", "long_jumps": true},
//!     "players": [[{"triangle": "south", "pegs": [34, 35, 36]}],
//!                 [{"triangle": "north", "pegs": [0, 1, 2]}]],
//!     "ply": 0.0,
//! }))?;
//! assert_eq!(position.to_string(), "star2 super south:34-36/north:0-2 0 0 -");
//! let err = wire::position(&json!({"board": "star2", "players": [[{"triangle": "south", "pegs": [1.5]}]]}))
//!     .unwrap_err();
//! assert_eq!(err.to_string(), "players[0][0].pegs[0]: expected a hole id (a whole number), found 1.5");
//! # Ok::<(), sternhalma::PositionError>(())
//! ```

mod read;
#[cfg(feature = "utoipa")]
pub mod schema;
#[cfg(feature = "utoipa")]
pub mod view;
pub mod whole;

use serde::Serialize;
use serde_json::Value;

use crate::error::{ParseError, ParseErrorKind};
use crate::game::NewGame;
use crate::moves::MoveText;
use crate::notation::PositionError;
use crate::outcome::{DrawReason, Outcome, OutcomeStatus};
use crate::position::Position;
use crate::rules::{OPTION_NAMES, OptionKind, OptionValue, Preset, Rules};
use crate::setup::{Finisher, PegSet, Resignation, Setup};

pub use read::plain_serde_message;
use read::{Fields, describe};

/// A position as JSON: the same content as the position string. Answers
/// carry it; requests may send it wherever a position is taken.
// `deny_unknown_fields` and `default` describe the request side to the
// schema (only `board` and `players` are required); the type itself is only
// serialised.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "utoipa", schema(example = json!({
    "board": "star4",
    "rules": "classic",
    "players": [[{"triangle": "south", "pegs": [111, 112, 113, 114, 115, 116, 117, 118, 119, 120]}],
                [{"triangle": "north", "pegs": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}]],
    "side_to_move": 0,
    "ply": 0,
    "finished": []
})))]
pub struct PositionJson {
    /// The board: `star1`..`star4` or `rhombus<M>p<P>` (the older
    /// `rhombus<M>x<K>` reads too).
    #[cfg_attr(feature = "utoipa", schema(example = "star4"))]
    pub board: String,
    /// The rules; `classic` if absent. Answers give the text form; requests
    /// may also send an object (a preset and overrides).
    #[cfg_attr(feature = "utoipa", schema(value_type = schema::RulesInput))]
    #[serde(default)]
    pub rules: String,
    /// The players in turn order, each with their sets.
    pub players: Vec<Vec<PegSet>>,
    /// The player to move, 0-based; 0 if absent.
    #[cfg_attr(feature = "utoipa", schema(value_type = schema::PlayerIndex))]
    #[serde(default)]
    pub side_to_move: usize,
    /// Plies played so far, passes included; 0 if absent.
    #[cfg_attr(feature = "utoipa", schema(value_type = schema::PlyCount))]
    #[serde(default)]
    pub ply: u32,
    /// Players who have finished, in finishing order; none if absent.
    #[serde(default)]
    pub finished: Vec<Finisher>,
    /// Players who have resigned a game of three or more, in order; none
    /// if absent (and left out of answers when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resigned: Vec<Resignation>,
}

impl From<&Position> for PositionJson {
    fn from(position: &Position) -> PositionJson {
        let setup = position.to_setup();
        PositionJson {
            board: setup.board.to_string(),
            rules: setup.rules.to_string(),
            players: setup.players,
            side_to_move: setup.side_to_move,
            ply: setup.ply,
            finished: setup.finished,
            resigned: setup.resigned,
        }
    }
}

/// JSON text read into a value; text that is not JSON is a
/// [`ParseErrorKind::Json`] error quoting the start of the text.
///
/// # Errors
/// The text is not JSON.
pub fn parse_json(text: &str) -> Result<Value, ParseError> {
    serde_json::from_str(text).map_err(|e| {
        let shown: String = text.chars().take(40).collect();
        let more = if shown.len() < text.len() { "..." } else { "" };
        ParseError::new(
            ParseErrorKind::Json,
            "",
            format!(
                "{shown:?}{more} is not JSON ({})",
                read::plain_serde_message(&e)
            ),
        )
    })
}

/// A position from the wire: the position string, or the JSON form
/// ([`PositionJson`]), validated.
///
/// # Errors
/// Malformed text or JSON ([`PositionError::Malformed`]), or a position that
/// breaks the rules ([`PositionError::Invalid`], every problem listed).
pub fn position(value: &Value) -> Result<Position, PositionError> {
    match value {
        Value::String(text) => text.parse(),
        other => setup(other)
            .map_err(PositionError::Malformed)?
            .validate()
            .map_err(PositionError::Invalid),
    }
}

/// The unchecked setup of a position in the JSON form.
///
/// # Errors
/// JSON that is not a position object, or a board, rules or triangle name
/// that does not parse.
pub fn setup(value: &Value) -> Result<Setup, ParseError> {
    let fields = Fields::of(
        value,
        "",
        "a position (a position string or an object)",
        &[
            "board",
            "rules",
            "players",
            "side_to_move",
            "ply",
            "finished",
            "resigned",
        ],
    )?;
    let board = fields.string("board")?.parse()?;
    let rules = match fields.optional("rules") {
        None => Rules::classic(),
        Some(value) => rules(value).map_err(|e| e.under("rules"))?,
    };
    let players = fields
        .list("players", "a list of players")?
        .iter()
        .enumerate()
        .map(|(p, sets)| {
            let at = format!("players[{p}]");
            read::list(sets, &at, "a list of peg sets")?
                .iter()
                .enumerate()
                .map(|(s, set)| peg_set(set, &format!("{at}[{s}]")))
                .collect()
        })
        .collect::<Result<_, ParseError>>()?;
    let finished = match fields.optional("finished") {
        None => Vec::new(),
        Some(list) => read::list(list, "finished", "a list of finished players")?
            .iter()
            .enumerate()
            .map(|(i, finisher)| {
                let at = format!("finished[{i}]");
                let fields = Fields::of(finisher, &at, "a finished player", &["player", "ply"])?;
                Ok(Finisher {
                    player: fields.whole("player", "a player index")?,
                    ply: fields.whole("ply", "a ply count")?,
                })
            })
            .collect::<Result<_, ParseError>>()?,
    };
    let resigned = match fields.optional("resigned") {
        None => Vec::new(),
        Some(list) => read::list(list, "resigned", "a list of resigned players")?
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let at = format!("resigned[{i}]");
                let fields = Fields::of(entry, &at, "a resigned player", &["player", "ply"])?;
                Ok(Resignation {
                    player: fields.whole("player", "a player index")?,
                    ply: fields.whole("ply", "a ply count")?,
                })
            })
            .collect::<Result<_, ParseError>>()?,
    };
    Ok(Setup {
        board,
        rules,
        players,
        neutral: None,
        side_to_move: fields.whole_or("side_to_move", "a player index", 0)?,
        ply: fields.whole_or("ply", "a ply count", 0)?,
        finished,
        resigned,
    })
}

fn peg_set(value: &Value, at: &str) -> Result<PegSet, ParseError> {
    let fields = Fields::of(value, at, "a peg set", &["triangle", "pegs"])?;
    let name = fields.string("triangle")?;
    let triangle = name.parse().map_err(|e: ParseError| {
        ParseError::new(
            ParseErrorKind::Json,
            &format!("{at}.triangle"),
            format!("{name:?} is not a triangle; {}", e.reason()),
        )
    })?;
    let pegs = fields
        .list("pegs", "a list of hole ids")?
        .iter()
        .enumerate()
        .map(|(i, hole)| read::whole(hole, &format!("{at}.pegs[{i}]"), "a hole id"))
        .collect::<Result<_, _>>()?;
    Ok(PegSet { triangle, pegs })
}

/// Rules from the wire: the text form (`classic,long_jumps=on`), or an
/// object naming a `preset` (default `classic`) and overriding any option.
/// In an object, a choice takes its name as a string, an on/off option
/// (`long_jumps`, `target_lock`) a boolean, and `max_plies` a whole number
/// or `null` for no limit; `null` for any other option keeps the preset's
/// value.
///
/// ```
/// use serde_json::json;
/// use sternhalma::{Rules, wire};
/// assert_eq!(wire::rules(&json!("super"))?, Rules::super_chinese_checkers());
/// assert_eq!(wire::rules(&json!({"long_jumps": true}))?, Rules::super_chinese_checkers());
/// let solved = json!({"anti_spoiling": "fill_available", "target_lock": false, "illegal_positions": "sturtevant"});
/// assert_eq!(wire::rules(&solved)?, Rules::sturtevant());
/// let err = wire::rules(&json!({"preset": "clasic"})).unwrap_err();
/// assert_eq!(err.code(), "unknown_preset");
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
///
/// # Errors
/// Malformed text, an unknown preset or option, a value an option does not
/// take.
pub fn rules(value: &Value) -> Result<Rules, ParseError> {
    if let Value::String(text) = value {
        return text.parse();
    }
    let mut names = vec!["preset"];
    names.extend(OPTION_NAMES);
    let fields = Fields::of(value, "", "rules (a rules text or an object)", &names)?;
    let preset: Preset = match fields.optional("preset") {
        None | Some(Value::Null) => Preset::Classic,
        Some(_) => fields.string("preset")?.parse()?,
    };
    let mut rules = preset.rules();
    for (name, value) in fields.entries() {
        if name == "preset" {
            continue;
        }
        let kind = Rules::option_kind(name).expect("only option names get here");
        let option = match (kind, value) {
            // `null`: no limit for `max_plies`, the preset's value for any
            // other option (decided by `set_option_value`).
            (_, Value::Null) => OptionValue::Nothing,
            (OptionKind::Choice, Value::String(text)) => OptionValue::Text(text),
            (OptionKind::Switch, Value::Bool(flag)) => OptionValue::Flag(*flag),
            // Any integer reaches the option, which names its range when
            // it is out of it; only a fraction is malformed.
            (OptionKind::Limit, Value::Number(number)) => match read::integer(number) {
                Some(integer) => OptionValue::Number(integer),
                None => {
                    return Err(ParseError::new(
                        ParseErrorKind::Json,
                        name,
                        format!("expected a whole number, found {number}"),
                    ));
                }
            },
            (kind, other) => {
                let expected = match kind {
                    OptionKind::Choice => "a string",
                    OptionKind::Switch => "true or false",
                    OptionKind::Limit => "a whole number, or null for no limit",
                };
                return Err(ParseError::new(
                    ParseErrorKind::Json,
                    name,
                    format!("expected {expected}, found {}", describe(other)),
                ));
            }
        };
        rules.set_option_value(name, option)?;
    }
    Ok(rules)
}

/// A move from the wire: its text (`"115-104"`, `"95-75-57"`, `"pass"`),
/// its ends (`{"from": 115, "to": 104}`) or its full path
/// (`{"path": [95, 75, 57]}`, checked hop by hop when played).
///
/// ```
/// use serde_json::json;
/// use sternhalma::{MoveText, wire};
/// assert_eq!(wire::move_text(&json!({"from": 115, "to": 104.0}))?, MoveText::Path(vec![115, 104]));
/// assert_eq!(wire::move_text(&json!("pass"))?, MoveText::Pass);
/// assert_eq!(wire::move_text(&json!({"path": [115]})).unwrap_err().code(), "malformed_move");
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
///
/// # Errors
/// Malformed move text, a path of fewer than two holes, or JSON of another
/// shape.
pub fn move_text(value: &Value) -> Result<MoveText, ParseError> {
    const SHAPE: &str = "a move (a move text, {\"from\", \"to\"} or {\"path\"})";
    match value {
        Value::String(text) => text.parse(),
        Value::Object(map) if map.contains_key("path") => {
            let fields = Fields::of(value, "", SHAPE, &["path"])?;
            let holes: Vec<usize> = fields
                .list("path", "a list of hole ids")?
                .iter()
                .enumerate()
                .map(|(i, hole)| read::whole(hole, &format!("path[{i}]"), "a hole id"))
                .collect::<Result<_, _>>()?;
            if holes.len() < 2 {
                return Err(ParseError::new(
                    ParseErrorKind::Move,
                    &MoveText::Path(holes).to_string(),
                    "a path needs at least two holes: where the peg starts and where it ends",
                ));
            }
            Ok(MoveText::Path(holes))
        }
        _ => {
            let fields = Fields::of(value, "", SHAPE, &["from", "to"])?;
            Ok(MoveText::Path(vec![
                fields.whole("from", "a hole id")?,
                fields.whole("to", "a hole id")?,
            ]))
        }
    }
}

/// An outcome as the views write it ([`view::OutcomeView`]): its `status`
/// with the detail that status carries (`winner`, `winners`, `ranks` or
/// `reason`), and `results`, one per player, whose length is the number of
/// players answered with it. `summary` and `finished` are allowed and read
/// past (the outcome and the position say them again).
///
/// ```
/// use serde_json::json;
/// use sternhalma::{Outcome, wire};
/// let view = json!({"status": "won", "winner": 1, "results": [-1.0, 1.0], "summary": "player 1 won"});
/// assert_eq!(wire::outcome(&view)?, (Outcome::Won { winner: 1 }, 2));
/// let bad = json!({"status": "won", "winner": 2, "results": [-1.0, 1.0]});
/// assert_eq!(wire::outcome(&bad).unwrap_err().code(), "malformed_json");
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
///
/// # Errors
/// JSON of another shape: an unknown status or draw reason, a detail the
/// status needs missing, a player index outside the game.
pub fn outcome(value: &Value) -> Result<(Outcome, usize), ParseError> {
    const WHAT: &str = "an outcome";
    const FIELDS: [&str; 8] = [
        "status", "winner", "winners", "ranks", "reason", "results", "summary", "finished",
    ];
    let fields = Fields::of(value, "", WHAT, &FIELDS)?;
    let players = fields
        .list("results", "a list of results, one per player")?
        .len();
    let player = |value: &Value, at: &str| -> Result<usize, ParseError> {
        let index: usize = read::whole(value, at, "a player index")?;
        if index >= players {
            return Err(ParseError::new(
                ParseErrorKind::Json,
                at,
                format!(
                    "player {index} is not in a game of {players} players (the length of results)"
                ),
            ));
        }
        Ok(index)
    };
    let players_at = |list: &[Value], at: &str| -> Result<Vec<usize>, ParseError> {
        list.iter()
            .enumerate()
            .map(|(i, value)| player(value, &format!("{at}[{i}]")))
            .collect()
    };
    let name = fields.string("status")?;
    let status = OutcomeStatus::ALL
        .into_iter()
        .find(|status| status.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = OutcomeStatus::ALL.iter().map(|s| s.name()).collect();
            ParseError::new(
                ParseErrorKind::Json,
                "status",
                format!(
                    "{name:?} is no outcome status; expected {}",
                    names.join(", ")
                ),
            )
        })?;
    let outcome = match status {
        OutcomeStatus::InProgress => Outcome::InProgress,
        OutcomeStatus::Won => Outcome::Won {
            winner: player(fields.required("winner")?, "winner")?,
        },
        OutcomeStatus::Tie => Outcome::Tie {
            winners: players_at(
                fields.list("winners", "a list of player indices")?,
                "winners",
            )?,
        },
        OutcomeStatus::Ranking => Outcome::Ranking {
            ranks: fields
                .list("ranks", "a list of ranks, each a list of player indices")?
                .iter()
                .enumerate()
                .map(|(i, rank)| {
                    let at = format!("ranks[{i}]");
                    players_at(read::list(rank, &at, "a list of player indices")?, &at)
                })
                .collect::<Result<_, _>>()?,
        },
        OutcomeStatus::Draw => {
            let name = fields.string("reason")?;
            let reason = DrawReason::ALL
                .into_iter()
                .find(|reason| reason.name() == name)
                .ok_or_else(|| {
                    ParseError::new(
                        ParseErrorKind::Json,
                        "reason",
                        format!("{name:?} is no draw reason; expected move_limit or no_moves"),
                    )
                })?;
            Outcome::Draw { reason }
        }
    };
    Ok((outcome, players))
}

/// A new game from the wire: an object with any of `board`, `layout`,
/// `rules` ([`rules`]) and `first_player`; what is absent (or `null`) takes
/// the defaults of [`NewGame`].
///
/// ```
/// use serde_json::json;
/// use sternhalma::wire;
/// let game = wire::new_game(&json!({"rules": "research"}))?;
/// assert_eq!(game.start().unwrap().board().to_string(), "rhombus9p10");
/// assert_eq!(wire::new_game(&json!({"layout": "5"})).unwrap_err().code(), "invalid_layout");
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
///
/// # Errors
/// An unknown board, layout or rules, or JSON of another shape.
pub fn new_game(value: &Value) -> Result<NewGame, ParseError> {
    let fields = Fields::of(
        value,
        "",
        "a new game",
        &["board", "layout", "rules", "first_player"],
    )?;
    // `null` is the same as absent: the default.
    let text = |key: &str| fields.given(key).map(|_| fields.string(key)).transpose();
    Ok(NewGame {
        board: text("board")?.map(str::parse).transpose()?,
        layout: text("layout")?.map(str::parse).transpose()?,
        rules: fields
            .given("rules")
            .map(|value| rules(value).map_err(|e| e.under("rules")))
            .transpose()?,
        first_player: fields
            .given("first_player")
            .map(|_| fields.whole("first_player", "a player index"))
            .transpose()?,
    })
}
