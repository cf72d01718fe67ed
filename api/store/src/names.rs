//! Names people give seats, entrants and tournaments, as a class sees them
//! on a projector: one normal form (NFC), nothing invisible, nothing that
//! turns the text around, and within one tournament no two names that look
//! alike (`ada` and `аda` with a Cyrillic `а`).
//!
//! Invisible means a control character, a format character (zero-width
//! spaces and joiners, the bidirectional controls U+202A–U+202E and
//! U+2066–U+2069, the byte order mark, soft hyphens), or a name that is
//! only white space. Look-alike means the same UTS #39 skeleton
//! (`unicode-security`, Unicode's table of confusables).

use unicode_normalization::UnicodeNormalization;

/// Why a name is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameProblem {
    /// Empty, or more characters than allowed.
    Length,
    /// Only white space.
    Blank,
    /// A control or invisible (format) character, such as a zero-width
    /// space or a bidirectional control.
    Invisible,
}

impl NameProblem {
    /// The problem in words, for a name of at most `max` characters.
    pub fn describe(self, max: usize) -> String {
        match self {
            NameProblem::Length => format!("a name has 1 to {max} characters"),
            NameProblem::Blank => "a name must show something: it is only spaces".to_owned(),
            NameProblem::Invisible => "a name has no control or invisible characters (zero-width \
                 spaces, joiners, direction marks)"
                .to_owned(),
        }
    }
}

/// `name` in its normal form (NFC, white space at either end removed), or
/// why it is refused: more than `max` characters (counted after
/// normalising), only white space, or a control or invisible character.
///
/// # Errors
/// As above.
pub fn normalize(name: &str, max: usize) -> Result<String, NameProblem> {
    let normal: String = name.nfc().collect();
    if normal.chars().any(is_invisible) {
        return Err(NameProblem::Invisible);
    }
    let trimmed = normal.trim();
    if trimmed.is_empty() && !normal.is_empty() {
        return Err(NameProblem::Blank);
    }
    let chars = trimmed.chars().count();
    if chars == 0 || chars > max {
        return Err(NameProblem::Length);
    }
    Ok(trimmed.to_owned())
}

/// A character that is not seen, or that changes how the text around it
/// is shown: controls, line and paragraph separators, Unicode's default
/// ignorable characters (those the UTS #39 skeleton drops: zero-width
/// spaces and joiners, bidirectional controls, variation selectors, the
/// BOM, tags), and, named below for readers, the best known of them.
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}')
        || unicode_security::skeleton(c.encode_utf8(&mut [0; 4]))
            .next()
            .is_none()
        || matches!(c,
            '\u{00AD}' // soft hyphen
            | '\u{034F}' // combining grapheme joiner
            | '\u{061C}' // Arabic letter mark
            | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' // Hangul fillers
            | '\u{17B4}' | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}' // zero-width space, joiners, direction marks
            | '\u{202A}'..='\u{202E}' // bidirectional embeddings and overrides
            | '\u{2060}'..='\u{206F}' // word joiner, invisible operators, isolates
            | '\u{FE00}'..='\u{FE0F}' // variation selectors
            | '\u{FEFF}' // byte order mark
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}' // tags
        )
}

/// What `name` looks like, for telling look-alikes apart: its UTS #39
/// skeleton. Two names with one skeleton are confusable.
pub fn skeleton(name: &str) -> String {
    unicode_security::skeleton(name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kept_in_their_normal_form() {
        // "é" as e + combining acute becomes the one character.
        assert_eq!(normalize("Ame\u{301}lie", 40).unwrap(), "Am\u{e9}lie");
        assert_eq!(normalize("  Ada  ", 40).unwrap(), "Ada");
        assert_eq!(normalize("Grace Hopper", 40).unwrap(), "Grace Hopper");
        assert_eq!(normalize("玲", 40).unwrap(), "玲");
    }

    #[test]
    fn invisible_and_blank_names_are_refused() {
        for name in [
            "\u{200b}",
            "ada\u{200b}",
            "\u{202e}ada",
            "a\u{2066}d\u{2069}a",
            "\u{feff}ada",
            "ada\n",
            "\u{3164}",
            "ada\u{e0100}",
            "a\u{1d173}da",
            "a\u{2028}da",
        ] {
            assert_eq!(normalize(name, 40), Err(NameProblem::Invisible), "{name:?}");
        }
        assert_eq!(normalize(" ", 40), Err(NameProblem::Blank));
        assert_eq!(normalize("\u{3000}", 40), Err(NameProblem::Blank));
        assert_eq!(normalize("", 40), Err(NameProblem::Length));
        assert_eq!(normalize(&"x".repeat(41), 40), Err(NameProblem::Length));
        assert!(normalize(&"x".repeat(40), 40).is_ok());
    }

    #[test]
    fn look_alikes_share_a_skeleton_and_other_names_do_not() {
        assert_eq!(skeleton("ada"), skeleton("\u{430}da"), "Cyrillic а");
        assert_eq!(skeleton("paypal"), skeleton("\u{440}ay\u{440}al"));
        assert_ne!(skeleton("ada"), skeleton("adb"));
        assert_ne!(skeleton("Ada"), skeleton("Bob"));
    }
}
