//! The rules of a game as data: every variant of RULES §2–5 and the presets.
//!
//! Text form: a preset name, then any overrides as `option=value`, separated
//! by commas: `classic`, `masters`, `classic,long_jumps=on,max_plies=400`.
//! Printing picks the preset that needs the fewest overrides, so a value
//! always prints the same way and parses back to itself.

use std::fmt;
use std::str::FromStr;

use crate::board::Board;
use crate::error::{ParseError, ParseErrorKind};

/// What the triangles that no set starts in or heads for hold (RULES §2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum UnusedTriangles {
    /// Nothing: pegs may pass through and rest there.
    #[default]
    Empty,
    /// Neutral pegs that never move but can be hopped over.
    Filled,
}

/// Whether a move may end in another player's triangle (RULES §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum Resting {
    /// Any hole.
    #[default]
    Allowed,
    /// Not in a triangle that is another player's start or target, unless it
    /// is one of the mover's own targets; passing through is allowed.
    Forbidden,
}

/// Protection against a peg parked in someone's target (RULES §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum AntiSpoiling {
    /// None: home means every target hole holds one of the set's pegs.
    #[default]
    None,
    /// Home also when the target is full and every hole not held by another
    /// player holds one of the set's pegs (at least one).
    FillAvailable,
    /// A step or hop may land on another player's peg in the mover's target;
    /// the two pegs change places.
    Swap,
}

/// How the game ends once someone finishes (RULES §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum Finish {
    /// The first player to finish wins.
    #[default]
    First,
    /// The round is played out; everyone who finishes in it shares the win.
    Round,
    /// Play goes on until one player is left; the finishing order ranks.
    Ranking,
}

/// Which positions cannot arise, and so which moves do not exist (RULES §7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum IllegalPositions {
    /// Every position is possible; a move may finish another player, and a
    /// player without a move passes.
    #[default]
    None,
    /// The solved game's rules (Sturtevant 2019, two players): a position
    /// where the player to move is home, or (6-peg triangles) a target is
    /// blocked, is illegal, and a move into one does not exist; a player
    /// without a move loses.
    Sturtevant,
}

/// Every rule variant of a game.
///
/// ```
/// use sternhalma::{AntiSpoiling, Rules};
/// let rules: Rules = "classic,anti_spoiling=swap".parse()?;
/// assert_eq!(rules.anti_spoiling, AntiSpoiling::Swap);
/// assert_eq!(Rules::masters().to_string(), "masters");
/// assert_eq!(rules.to_string(), "classic,anti_spoiling=swap");
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct Rules {
    /// What unused triangles hold.
    pub unused_triangles: UnusedTriangles,
    /// Whether moves may end in other players' triangles.
    pub rest_in_foreign_triangles: Resting,
    /// Whether a hop may go over one peg at any distance.
    pub long_jumps: bool,
    /// Anti-spoiling rule.
    pub anti_spoiling: AntiSpoiling,
    /// How the game ends.
    pub finish: Finish,
    /// Plies after which the game is a draw among those not finished. Even
    /// without one, a game ends at ply `u32::MAX` (4,294,967,295).
    pub max_plies: Option<u32>,
    /// Whether a peg in its own target must end every move in it (on in
    /// every preset but `sturtevant`).
    pub target_lock: bool,
    /// Which positions are illegal (none but under `sturtevant`).
    pub illegal_positions: IllegalPositions,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::classic()
    }
}

/// The named rule sets of RULES §5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum Preset {
    /// The common rules: no anti-spoiling, first to finish wins.
    Classic,
    /// Classic, with resting forbidden in others' triangles and the swap rule.
    Masters,
    /// Classic, with fill-available anti-spoiling and the round played out.
    Family,
    /// Classic, with long jumps.
    Super,
    /// For the rhombus boards: fill-available, first to finish, a move limit.
    Research,
    /// The strongly solved game of RULES §7 on small rhombi.
    Sturtevant,
}

impl Preset {
    /// All presets, in the order printing prefers them.
    pub const ALL: [Preset; 6] = [
        Preset::Classic,
        Preset::Masters,
        Preset::Family,
        Preset::Super,
        Preset::Research,
        Preset::Sturtevant,
    ];

    /// The preset for games between programs (bots, tournaments): `masters`.
    /// Under `classic` a peg left in an opponent's target blocks that
    /// opponent's finish forever; under `masters` the swap rule lets the
    /// opponent exchange places with it, and resting forbidden keeps pegs
    /// from parking in other players' triangles at all (`docs/rules.md`).
    pub const FOR_PROGRAMS: Preset = Preset::Masters;

    /// The move limit of the `research` preset.
    pub const RESEARCH_MAX_PLIES: u32 = 200;

    /// The preset's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Preset::Classic => "classic",
            Preset::Masters => "masters",
            Preset::Family => "family",
            Preset::Super => "super",
            Preset::Research => "research",
            Preset::Sturtevant => "sturtevant",
        }
    }

    /// The rules it stands for.
    #[must_use]
    pub fn rules(self) -> Rules {
        let classic = Rules {
            unused_triangles: UnusedTriangles::Empty,
            rest_in_foreign_triangles: Resting::Allowed,
            long_jumps: false,
            anti_spoiling: AntiSpoiling::None,
            finish: Finish::First,
            max_plies: None,
            target_lock: true,
            illegal_positions: IllegalPositions::None,
        };
        match self {
            Preset::Classic => classic,
            Preset::Masters => Rules {
                rest_in_foreign_triangles: Resting::Forbidden,
                anti_spoiling: AntiSpoiling::Swap,
                ..classic
            },
            Preset::Family => Rules {
                anti_spoiling: AntiSpoiling::FillAvailable,
                finish: Finish::Round,
                ..classic
            },
            Preset::Super => Rules {
                long_jumps: true,
                ..classic
            },
            Preset::Research => Rules {
                anti_spoiling: AntiSpoiling::FillAvailable,
                max_plies: Some(Preset::RESEARCH_MAX_PLIES),
                ..classic
            },
            Preset::Sturtevant => Rules {
                anti_spoiling: AntiSpoiling::FillAvailable,
                target_lock: false,
                illegal_positions: IllegalPositions::Sturtevant,
                ..classic
            },
        }
    }

    /// The board the preset is played on unless another is chosen: the
    /// standard star, for `research` Bell's 81-hole rhombus with 10 pegs,
    /// for `sturtevant` the 7×7 rhombus with 3 pegs a side.
    #[must_use]
    pub fn default_board(self) -> Board {
        match self {
            Preset::Research => Board::rhombus(9, 4).expect("9x4 is a valid rhombus"),
            Preset::Sturtevant => Board::rhombus_pegs(7, 3).expect("7x7 holds homes of 3 pegs"),
            _ => Board::STANDARD,
        }
    }

    /// One line on what the preset is and where it comes from.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Preset::Classic => {
                "Star board, unused triangles empty, resting allowed, no anti-spoiling, first to finish wins (Jaques of London)."
            }
            Preset::Masters => {
                "Classic plus resting forbidden in other players' triangles and the swap rule (Masters Traditional Games)."
            }
            Preset::Family => {
                "Classic plus fill-available anti-spoiling and the last round played out; for 2-3 players (wooden family edition)."
            }
            Preset::Super => {
                "Classic plus long jumps (Super Chinese Checkers, Masters Traditional Games)."
            }
            Preset::Research => {
                "Rhombus boards, two players, fill-available, first to finish, 200-ply limit (Bell 2009; Sturtevant 2019)."
            }
            Preset::Sturtevant => {
                "The strongly solved game on small rhombi: two players, fill-available, no target lock, no move into an illegal position, a player without a move loses (Sturtevant 2019; RULES §7)."
            }
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Preset, ParseError> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == text)
            .ok_or_else(|| {
                ParseError::new(
                    ParseErrorKind::Preset,
                    text,
                    "expected classic, masters, family, super, research or sturtevant",
                )
            })
    }
}

/// The kind of values a rule option takes ([`Rules::option_kind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OptionKind {
    /// One name of a closed set (`finish`: `first`, `round`, `ranking`).
    Choice,
    /// On or off (`long_jumps`).
    Switch,
    /// A whole number, or none for no limit (`max_plies`).
    Limit,
}

/// A value given for a rule option, in whichever form a surface received
/// it ([`Rules::set_option_value`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionValue<'a> {
    /// Text, as in the rules text: `round`, `on`, `300`, `none`.
    Text(&'a str),
    /// A boolean, for an on/off option.
    Flag(bool),
    /// A whole number, for `max_plies` (a negative one is refused with the
    /// option's range).
    Number(i128),
    /// No value: `max_plies` without a limit; any other option keeps the
    /// value it has.
    Nothing,
}

impl fmt::Display for OptionValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Text(text) => f.write_str(text),
            OptionValue::Flag(flag) => write!(f, "{flag}"),
            OptionValue::Number(number) => write!(f, "{number}"),
            OptionValue::Nothing => f.write_str("null"),
        }
    }
}

/// The names of the options, in printing order.
pub const OPTION_NAMES: [&str; 8] = [
    "unused_triangles",
    "rest_in_foreign_triangles",
    "long_jumps",
    "anti_spoiling",
    "finish",
    "max_plies",
    "target_lock",
    "illegal_positions",
];

impl Rules {
    /// The ply at which the game ends as if by a move limit: `max_plies`, or
    /// `u32::MAX` when there is none (so the ply counter never overflows).
    #[must_use]
    pub fn ply_limit(&self) -> u32 {
        self.max_plies.unwrap_or(u32::MAX)
    }

    /// The `classic` preset.
    #[must_use]
    pub fn classic() -> Rules {
        Preset::Classic.rules()
    }

    /// The `masters` preset.
    #[must_use]
    pub fn masters() -> Rules {
        Preset::Masters.rules()
    }

    /// The `family` preset.
    #[must_use]
    pub fn family() -> Rules {
        Preset::Family.rules()
    }

    /// The `super` preset.
    #[must_use]
    pub fn super_chinese_checkers() -> Rules {
        Preset::Super.rules()
    }

    /// The `research` preset.
    #[must_use]
    pub fn research() -> Rules {
        Preset::Research.rules()
    }

    /// The `sturtevant` preset: the strongly solved game of RULES §7.
    ///
    /// ```
    /// use sternhalma::{IllegalPositions, Rules};
    /// let rules = Rules::sturtevant();
    /// assert!(!rules.target_lock);
    /// assert_eq!(rules.illegal_positions, IllegalPositions::Sturtevant);
    /// assert_eq!(rules.to_string(), "sturtevant");
    /// ```
    #[must_use]
    pub fn sturtevant() -> Rules {
        Preset::Sturtevant.rules()
    }

    /// The value of an option as text, by its name in [`OPTION_NAMES`].
    #[must_use]
    pub fn option(&self, name: &str) -> Option<String> {
        let value = match name {
            "unused_triangles" => match self.unused_triangles {
                UnusedTriangles::Empty => "empty",
                UnusedTriangles::Filled => "filled",
            },
            "rest_in_foreign_triangles" => match self.rest_in_foreign_triangles {
                Resting::Allowed => "allowed",
                Resting::Forbidden => "forbidden",
            },
            "long_jumps" | "target_lock" => {
                let on = if name == "long_jumps" {
                    self.long_jumps
                } else {
                    self.target_lock
                };
                if on { "on" } else { "off" }
            }
            "illegal_positions" => match self.illegal_positions {
                IllegalPositions::None => "none",
                IllegalPositions::Sturtevant => "sturtevant",
            },
            "anti_spoiling" => match self.anti_spoiling {
                AntiSpoiling::None => "none",
                AntiSpoiling::FillAvailable => "fill_available",
                AntiSpoiling::Swap => "swap",
            },
            "finish" => match self.finish {
                Finish::First => "first",
                Finish::Round => "round",
                Finish::Ranking => "ranking",
            },
            "max_plies" => {
                return Some(
                    self.max_plies
                        .map_or_else(|| "none".to_owned(), |n| n.to_string()),
                );
            }
            _ => return None,
        };
        Some(value.to_owned())
    }

    /// The allowed values of an option, for catalogues and error messages.
    #[must_use]
    pub fn option_values(name: &str) -> Option<&'static [&'static str]> {
        Some(match name {
            "unused_triangles" => &["empty", "filled"],
            "rest_in_foreign_triangles" => &["allowed", "forbidden"],
            "long_jumps" => &["off", "on"],
            "anti_spoiling" => &["none", "fill_available", "swap"],
            "finish" => &["first", "round", "ranking"],
            "max_plies" => &["none", "<whole number>"],
            "target_lock" => &["off", "on"],
            "illegal_positions" => &["none", "sturtevant"],
            _ => return None,
        })
    }

    /// Sets an option from text, as in `rules.set_option("finish", "round")`.
    ///
    /// # Errors
    /// An unknown option or a value it does not take.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), ParseError> {
        let bad = || {
            ParseError::new(
                ParseErrorKind::Rules,
                &format!("{name}={value}"),
                format!("{name} must be {}", Rules::expected(name)),
            )
        };
        match name {
            "unused_triangles" => {
                self.unused_triangles = match value {
                    "empty" => UnusedTriangles::Empty,
                    "filled" => UnusedTriangles::Filled,
                    _ => return Err(bad()),
                }
            }
            "rest_in_foreign_triangles" => {
                self.rest_in_foreign_triangles = match value {
                    "allowed" => Resting::Allowed,
                    "forbidden" => Resting::Forbidden,
                    _ => return Err(bad()),
                }
            }
            "long_jumps" | "target_lock" => {
                let on = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(bad()),
                };
                self.set_switch(name, on);
            }
            "illegal_positions" => {
                self.illegal_positions = match value {
                    "none" => IllegalPositions::None,
                    "sturtevant" => IllegalPositions::Sturtevant,
                    _ => return Err(bad()),
                }
            }
            "anti_spoiling" => {
                self.anti_spoiling = match value {
                    "none" => AntiSpoiling::None,
                    "fill_available" => AntiSpoiling::FillAvailable,
                    "swap" => AntiSpoiling::Swap,
                    _ => return Err(bad()),
                }
            }
            "finish" => {
                self.finish = match value {
                    "first" => Finish::First,
                    "round" => Finish::Round,
                    "ranking" => Finish::Ranking,
                    _ => return Err(bad()),
                }
            }
            "max_plies" => {
                self.max_plies = match value {
                    "none" => None,
                    digits if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                        Some(digits.parse::<u32>().map_err(|_| bad())?)
                    }
                    _ => return Err(bad()),
                }
            }
            _ => return Err(Rules::unknown_option(name)),
        }
        Ok(())
    }

    /// The kind of values an option takes, by its name in [`OPTION_NAMES`].
    #[must_use]
    pub fn option_kind(name: &str) -> Option<OptionKind> {
        Some(match name {
            "unused_triangles"
            | "rest_in_foreign_triangles"
            | "anti_spoiling"
            | "finish"
            | "illegal_positions" => OptionKind::Choice,
            "long_jumps" | "target_lock" => OptionKind::Switch,
            "max_plies" => OptionKind::Limit,
            _ => return None,
        })
    }

    /// Sets an option from a value of any form a surface receives: text in
    /// the rules grammar for any option, a boolean for an on/off option, a
    /// whole number or nothing (no limit) for `max_plies`, and nothing for
    /// any other option to keep its value. This is the one place where
    /// "preset plus overrides" is decided, for Python keywords and JSON
    /// rules objects alike.
    ///
    /// ```
    /// use sternhalma::{OptionValue, Rules};
    /// let mut rules = Rules::classic();
    /// rules.set_option_value("long_jumps", OptionValue::Flag(true))?;
    /// rules.set_option_value("max_plies", OptionValue::Number(300))?;
    /// assert_eq!(rules.to_string(), "super,max_plies=300");
    /// let err = rules.set_option_value("max_plies", OptionValue::Number(-1)).unwrap_err();
    /// assert!(err.to_string().contains("max_plies must be none or a whole number"));
    /// # Ok::<(), sternhalma::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// An unknown option, or a value it does not take.
    pub fn set_option_value(
        &mut self,
        name: &str,
        value: OptionValue<'_>,
    ) -> Result<(), ParseError> {
        let kind = Rules::option_kind(name).ok_or_else(|| Rules::unknown_option(name))?;
        match (kind, value) {
            (_, OptionValue::Text(text)) => return self.set_option(name, text),
            (OptionKind::Switch, OptionValue::Flag(flag)) => self.set_switch(name, flag),
            (OptionKind::Limit, OptionValue::Nothing) => self.max_plies = None,
            // Nothing for any other option keeps the value it has.
            (OptionKind::Choice | OptionKind::Switch, OptionValue::Nothing) => {}
            (OptionKind::Limit, OptionValue::Number(number)) if u32::try_from(number).is_ok() => {
                self.max_plies = u32::try_from(number).ok();
            }
            _ => {
                return Err(ParseError::new(
                    ParseErrorKind::Rules,
                    &format!("{name}={value}"),
                    format!("{name} must be {}", Rules::expected(name)),
                ));
            }
        }
        Ok(())
    }

    /// Sets the on/off option `name` (`long_jumps` or `target_lock`).
    fn set_switch(&mut self, name: &str, on: bool) {
        if name == "target_lock" {
            self.target_lock = on;
        } else {
            self.long_jumps = on;
        }
    }

    /// These rules with overrides applied in order ([`Rules::set_option_value`]).
    ///
    /// # Errors
    /// An unknown option, or a value it does not take.
    pub fn with_overrides<'a>(
        mut self,
        overrides: impl IntoIterator<Item = (&'a str, OptionValue<'a>)>,
    ) -> Result<Rules, ParseError> {
        for (name, value) in overrides {
            self.set_option_value(name, value)?;
        }
        Ok(self)
    }

    /// The values an option takes, in words.
    fn expected(name: &str) -> &'static str {
        match name {
            "unused_triangles" => "empty or filled",
            "rest_in_foreign_triangles" => "allowed or forbidden",
            "long_jumps" | "target_lock" => "on or off (true or false)",
            "illegal_positions" => "none or sturtevant",
            "anti_spoiling" => "none, fill_available or swap",
            "finish" => "first, round or ranking",
            _ => "none or a whole number from 0 to 4294967295",
        }
    }

    fn unknown_option(name: &str) -> ParseError {
        ParseError::new(
            ParseErrorKind::Rules,
            name,
            format!(
                "unknown option; the options are {}",
                OPTION_NAMES.join(", ")
            ),
        )
    }

    /// The options in which `self` differs from `base`, in printing order.
    fn overrides_from(&self, base: &Rules) -> Vec<(&'static str, String)> {
        OPTION_NAMES
            .into_iter()
            .filter_map(|name| {
                let mine = self.option(name)?;
                (Some(&mine) != base.option(name).as_ref()).then_some((name, mine))
            })
            .collect()
    }

    /// The preset these rules are closest to (fewest overrides).
    #[must_use]
    pub fn nearest_preset(&self) -> Preset {
        Preset::ALL
            .into_iter()
            .min_by_key(|p| self.overrides_from(&p.rules()).len())
            .expect("there are presets")
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let preset = self.nearest_preset();
        f.write_str(preset.name())?;
        for (name, value) in self.overrides_from(&preset.rules()) {
            write!(f, ",{name}={value}")?;
        }
        Ok(())
    }
}

impl FromStr for Rules {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Rules, ParseError> {
        let mut parts = text.split(',');
        let preset_name = parts.next().unwrap_or_default();
        // An unknown preset is its own error (kind `Preset`), so that every
        // surface can tell it from a bad override without reading the text.
        let mut rules = preset_name.parse::<Preset>()?.rules();
        let mut seen: Vec<&str> = Vec::new();
        for part in parts {
            let (name, value) = part.split_once('=').ok_or_else(|| {
                ParseError::new(
                    ParseErrorKind::Rules,
                    text,
                    format!("{part:?} is not an override; write option=value, e.g. long_jumps=on"),
                )
            })?;
            if seen.contains(&name) {
                return Err(ParseError::new(
                    ParseErrorKind::Rules,
                    text,
                    format!("{name} is given twice"),
                ));
            }
            seen.push(name);
            rules.set_option(name, value)?;
        }
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_print_by_name_and_round_trip() {
        for preset in Preset::ALL {
            assert_eq!(preset.rules().to_string(), preset.name());
            assert_eq!(preset.name().parse::<Rules>(), Ok(preset.rules()));
        }
    }

    #[test]
    fn presets_match_the_specification() {
        let classic = Rules::classic();
        assert_eq!(classic.unused_triangles, UnusedTriangles::Empty);
        assert_eq!(classic.rest_in_foreign_triangles, Resting::Allowed);
        assert!(!classic.long_jumps);
        assert_eq!(classic.anti_spoiling, AntiSpoiling::None);
        assert_eq!(classic.finish, Finish::First);
        assert_eq!(classic.max_plies, None);
        let masters = Rules::masters();
        assert_eq!(masters.rest_in_foreign_triangles, Resting::Forbidden);
        assert_eq!(masters.anti_spoiling, AntiSpoiling::Swap);
        let family = Rules::family();
        assert_eq!(
            (family.anti_spoiling, family.finish),
            (AntiSpoiling::FillAvailable, Finish::Round)
        );
        assert!(Rules::super_chinese_checkers().long_jumps);
        let research = Rules::research();
        assert_eq!(research.anti_spoiling, AntiSpoiling::FillAvailable);
        assert_eq!(research.finish, Finish::First);
        assert!(research.max_plies.is_some());
        assert_eq!(Preset::Research.default_board().to_string(), "rhombus9p10");
    }

    #[test]
    fn every_combination_round_trips() {
        let mut count = 0;
        for u in ["empty", "filled"] {
            for r in ["allowed", "forbidden"] {
                for l in ["off", "on"] {
                    for a in ["none", "fill_available", "swap"] {
                        for f in ["first", "round", "ranking"] {
                            for m in ["none", "0", "1", "200", "4294967295"] {
                                let text = format!(
                                    "classic,unused_triangles={u},rest_in_foreign_triangles={r},long_jumps={l},anti_spoiling={a},finish={f},max_plies={m}"
                                );
                                let rules: Rules = text.parse().unwrap();
                                let printed = rules.to_string();
                                assert_eq!(printed.parse::<Rules>(), Ok(rules), "{printed}");
                                assert!(printed.len() <= text.len());
                                #[cfg(feature = "serde")]
                                {
                                    let json = serde_json::to_string(&rules).unwrap();
                                    assert_eq!(
                                        serde_json::from_str::<Rules>(&json).unwrap(),
                                        rules
                                    );
                                }
                                count += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(count, 2 * 2 * 2 * 3 * 3 * 5);
    }

    #[test]
    fn malformed_rules_are_refused_with_reasons() {
        for (text, needle) in [
            ("", "expected classic"),
            ("standard", "expected classic"),
            ("classic,long_jumps", "not an override"),
            ("classic,long_jumps=yes", "on or off"),
            ("classic,max_plies=-3", "whole number"),
            ("classic,max_plies=99999999999", "whole number"),
            ("classic,speed=fast", "unknown option"),
            ("classic,finish=round,finish=first", "twice"),
        ] {
            let err = text.parse::<Rules>().unwrap_err();
            assert!(err.to_string().contains(needle), "{text:?}: {err}");
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_defaults_to_classic_and_rejects_unknown_fields() {
        let rules: Rules = serde_json::from_str(r#"{"long_jumps": true}"#).unwrap();
        assert_eq!(rules, Rules::super_chinese_checkers());
        assert!(serde_json::from_str::<Rules>(r#"{"jumps": true}"#).is_err());
        let json = serde_json::to_value(Rules::research()).unwrap();
        assert_eq!(json["anti_spoiling"], "fill_available");
        assert_eq!(json["max_plies"], 200);
    }
}
