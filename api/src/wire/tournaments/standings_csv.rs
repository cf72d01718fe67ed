//! `GET /v1/tournaments/{id}/standings.csv`: a tournament's standings as
//! a teacher's spreadsheet opens them, written by the `csv` crate.
//!
//! RFC 4180, every line ended by `\r\n` (the last one too): the header
//! `rank,entrant,name,kind,games,wins,draws,losses,points,timeouts,
//! forfeits,rating,uncertainty,accuracy` and one column `vs <name>` per
//! entrant in entrant order, then one line per row in rank order. A `vs`
//! column holds the points scored against that entrant, empty for the
//! entrant itself and for entrants never met. Points are printed in their
//! shortest exact form (`1`, `0.5`, `2.5`), rating, uncertainty and
//! accuracy with 3 decimals (accuracy empty when no move was judged).
//!
//! Names are the entrants' own words: a name that a spreadsheet would read
//! as a formula (one starting with `=`, `+`, `-`, `@`, a tab or a carriage
//! return, as OWASP's "CSV injection" lists them) is written with a `'`
//! before it, which spreadsheets show as text and do not evaluate.

use sternhalma_store::tournaments::standings::Standings;

/// The standings as CSV (see the module's documentation).
pub fn to_csv(standings: &Standings) -> String {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let mut header: Vec<String> = [
        "rank",
        "entrant",
        "name",
        "kind",
        "games",
        "wins",
        "draws",
        "losses",
        "points",
        "timeouts",
        "forfeits",
        "rating",
        "uncertainty",
        "accuracy",
    ]
    .iter()
    .map(|h| (*h).to_owned())
    .collect();
    header.extend(
        standings
            .cross_table
            .iter()
            // "vs " first: never a formula.
            .map(|c| format!("vs {}", c.name)),
    );
    record(&mut writer, &header);
    for row in &standings.rows {
        let mut fields = vec![
            row.rank.to_string(),
            row.entrant.to_string(),
            text(&row.name),
            if row.bot { "bot" } else { "open" }.to_owned(),
            row.games.to_string(),
            row.wins.to_string(),
            row.draws.to_string(),
            row.losses.to_string(),
            row.points.to_string(),
            row.timeouts.to_string(),
            row.forfeits.to_string(),
            format!("{:.3}", row.rating),
            format!("{:.3}", row.uncertainty),
            row.accuracy.map(|a| format!("{a:.3}")).unwrap_or_default(),
        ];
        let against = standings
            .cross_table
            .iter()
            .find(|c| c.entrant == row.entrant)
            .map(|c| c.against.as_slice())
            .unwrap_or_default();
        fields.extend(standings.cross_table.iter().map(|column| {
            against
                .iter()
                .find(|cell| cell.opponent == column.entrant && column.entrant != row.entrant)
                .map(|cell| cell.points.to_string())
                .unwrap_or_default()
        }));
        record(&mut writer, &fields);
    }
    let bytes = writer
        .into_inner()
        .expect("writing to memory does not fail");
    String::from_utf8(bytes).expect("the fields are UTF-8")
}

/// Writes one line; to memory, which cannot fail.
fn record(writer: &mut csv::Writer<Vec<u8>>, fields: &[String]) {
    writer
        .write_record(fields)
        .expect("writing to memory does not fail");
}

/// A name as a spreadsheet must show it: text, never a formula.
fn text(name: &str) -> String {
    if name.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{name}")
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sternhalma_store::tournaments::standings::{
        EntrantRef, FinishedGame, Judged, Points, compute,
    };

    fn entrants(names: &[&str]) -> Vec<EntrantRef> {
        names
            .iter()
            .enumerate()
            .map(|(entrant, name)| EntrantRef {
                entrant,
                name: (*name).to_owned(),
                bot: entrant % 2 == 1,
            })
            .collect()
    }

    fn game(game: usize, seats: &[usize], results: &[f64]) -> FinishedGame {
        FinishedGame {
            game,
            entrants: seats.to_vec(),
            results: results.to_vec(),
            timeouts: vec![0; seats.len()],
            forfeited: vec![false; seats.len()],
            judged: None,
        }
    }

    #[test]
    fn names_are_quoted() {
        let names = entrants(&["Smith, \"Ace\"", "bob"]);
        let standings = compute(&names, &[game(0, &[0, 1], &[1.0, -1.0])], Points::default());
        let csv = to_csv(&standings);
        let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
        assert!(csv.ends_with("\r\n"));
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "rank,entrant,name,kind,games,wins,draws,losses,points,timeouts,forfeits,\
             rating,uncertainty,accuracy,\"vs Smith, \"\"Ace\"\"\",vs bob"
        );
        let winner = &standings.rows[0];
        assert_eq!(
            lines[1],
            format!(
                "1,0,\"Smith, \"\"Ace\"\"\",open,1,1,0,0,1,0,0,{:.3},{:.3},,,1",
                winner.rating, winner.uncertainty
            )
        );
        assert!(lines[2].starts_with("2,1,bob,bot,1,0,0,1,0,0,0,"));
    }

    #[test]
    fn a_name_is_never_a_formula() {
        let names = entrants(&["=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)", "ada-1"]);
        let standings = compute(&names, &[], Points::default());
        let csv = to_csv(&standings);
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let header = reader.headers().unwrap().clone();
        assert_eq!(&header[14], "vs =HYPERLINK(\"http://x\")");
        assert_eq!(
            &header[18], "vs ada-1",
            "a dash inside a name is kept as it is"
        );
        let shown: Vec<String> = reader.records().map(|r| r.unwrap()[2].to_owned()).collect();
        for name in [
            "'=HYPERLINK(\"http://x\")",
            "'+1",
            "'-2",
            "'@SUM(A1)",
            "ada-1",
        ] {
            assert!(shown.iter().any(|s| s == name), "{name} in {shown:?}");
        }
        for cell in shown
            .iter()
            .chain(header.iter().map(str::to_owned).collect::<Vec<_>>().iter())
        {
            assert!(!cell.starts_with(['=', '+', '-', '@']), "{cell}");
        }
    }

    #[test]
    fn an_entrant_without_games_and_accuracy() {
        let names = entrants(&["a", "b", "idle"]);
        let mut games = vec![game(0, &[0, 1], &[0.0, 0.0])];
        let judged = |moves, kept| Judged {
            moves,
            kept,
            mistakes: moves - kept,
        };
        games[0].judged = Some(vec![judged(10, 10), judged(9, 6)]);
        let csv = to_csv(&compute(&names, &games, Points::default()));
        let line = |name: &str| {
            csv.split_terminator("\r\n")
                .find(|l| l.split(',').nth(2) == Some(name))
                .unwrap()
                .to_owned()
        };
        assert_eq!(line("idle"), "3,2,idle,open,0,0,0,0,0,0,0,25.000,8.333,,,,");
        assert_eq!(line("a").split(',').nth(13), Some("1.000"));
        assert_eq!(line("b").split(',').nth(13), Some("0.667"));
    }
}
