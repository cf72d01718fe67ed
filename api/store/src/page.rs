//! One page of a list (matches, tournaments), newest first: at most
//! `limit` items with ids below `before`, and where the next page starts.

/// The most items one page holds.
pub const MAX_PAGE: u32 = 200;

/// A page of a list, as a query asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// At most this many items (1 to [`MAX_PAGE`]).
    pub limit: u32,
    /// Only ids below this one.
    pub before: i64,
}

impl Page {
    /// How many ids to read: one more than the page holds, which tells
    /// whether there is a next page.
    pub fn fetch(self) -> u32 {
        self.limit.saturating_add(1)
    }

    /// The ids of this page out of those read (newest first, at most
    /// [`Page::fetch`]), and the `next_before` of the answer: the last id
    /// shown when more remain, else `None`.
    pub fn split(self, mut ids: Vec<i64>) -> (Vec<i64>, Option<i64>) {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let more = ids.len() > limit;
        ids.truncate(limit);
        let next = if more { ids.last().copied() } else { None };
        (ids, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_next_page_is_named_only_when_more_remain() {
        let page = Page {
            limit: 2,
            before: i64::MAX,
        };
        assert_eq!(page.fetch(), 3);
        assert_eq!(page.split(vec![9, 8, 7]), (vec![9, 8], Some(8)));
        assert_eq!(page.split(vec![9, 8]), (vec![9, 8], None));
        assert_eq!(page.split(vec![]), (vec![], None));
    }
}
