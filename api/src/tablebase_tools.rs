//! `sternhalma tablebase probe` and `sternhalma tablebase export`: a
//! researcher's batch tools over a table file. The questions, the answers
//! and the positions of each entry are the core's (`sternhalma::solve`:
//! `Query`, `Prober`, `Tablebase::entry`); this reads lines, shares them
//! among threads, and writes the answers in order.

use std::io::{self, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use sternhalma::solve::placement::{write_holes, write_number, write_probe};
use sternhalma::solve::{Answer, Prober, Query, Tablebase};

/// Bytes of standard input read at a time: the lines of a block are shared
/// among the threads, and their answers written in order.
const BLOCK: usize = 4 << 20;

/// Errors printed on standard error at most; the rest are counted.
const ERRORS_SHOWN: u64 = 20;

/// Entries a thread exports at a time.
const ENTRIES: u64 = 1 << 16;

/// How `export` writes a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// `index,side_to_move,south,north,value,depth` with a header line; the
    /// holes of a side separated by spaces (`47 48`), the depth empty for a
    /// draw or a table without depths.
    Csv,
    /// The placement and the probe: `47,48/0,1 0 win in 33`, as
    /// `tablebase probe` reads and answers it.
    Text,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("sternhalma: {message}");
    ExitCode::FAILURE
}

/// Threads asked for, else every core.
pub(crate) fn threads(asked: Option<usize>) -> usize {
    asked
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1)
}

fn open(path: &Path) -> Result<Tablebase, ExitCode> {
    Tablebase::open(path).map_err(fail)
}

/// What a block of lines came to: its answers, its bad lines (line number
/// within the block, message) and how many lines it held.
#[derive(Default)]
struct Answered {
    out: Vec<u8>,
    errors: Vec<(u64, String)>,
    lines: u64,
}

/// Answers every line of `block`: complete lines, each ending in `\n`
/// but perhaps the last.
fn answer_block(table: &Tablebase, block: &[u8], with_move: bool) -> Answered {
    let mut prober = Prober::new(table);
    let mut done = Answered {
        out: Vec::with_capacity(block.len() / 2 + 64),
        ..Answered::default()
    };
    let mut rest = block;
    while !rest.is_empty() {
        let (line, after) = match rest.iter().position(|&b| b == b'\n') {
            Some(at) => (&rest[..at], &rest[at + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        answer_line(&mut prober, line, done.lines, with_move, &mut done);
        done.lines += 1;
        rest = after;
    }
    done
}

fn answer_line(
    prober: &mut Prober<'_>,
    line: &[u8],
    number: u64,
    with_move: bool,
    done: &mut Answered,
) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let answered = std::str::from_utf8(line)
        .map_err(|_| "the line is not UTF-8 text".to_owned())
        .and_then(|text| text.parse::<Query>().map_err(|e| e.to_string()))
        .and_then(|query| {
            if with_move {
                prober.answer(&query)
            } else {
                prober
                    .probe(&query)
                    .map(|probe| Answer { probe, best: None })
            }
            .map_err(|e| e.to_string())
        });
    match answered {
        Ok(answer) => answer.write(&mut done.out),
        Err(message) => {
            done.out.extend_from_slice(b"error: ");
            done.out.extend_from_slice(message.as_bytes());
            done.errors.push((number, message));
        }
    }
    done.out.push(b'\n');
}

/// Splits `block` into about `parts` pieces at line ends.
fn split_lines(block: &[u8], parts: usize) -> Vec<&[u8]> {
    let mut pieces = Vec::with_capacity(parts);
    let mut rest = block;
    for left in (1..=parts).rev() {
        if left == 1 || rest.is_empty() {
            pieces.push(rest);
            break;
        }
        let cut = rest.len() / left;
        let end = match rest[cut..].iter().position(|&b| b == b'\n') {
            Some(at) => cut + at + 1,
            None => rest.len(),
        };
        pieces.push(&rest[..end]);
        rest = &rest[end..];
    }
    pieces
}

/// Counts and shows bad lines: the first [`ERRORS_SHOWN`] on stderr.
#[derive(Default)]
struct BadLines {
    count: u64,
}

impl BadLines {
    fn report(&mut self, what: &str, message: &str) {
        self.count += 1;
        if self.count <= ERRORS_SHOWN {
            eprintln!("sternhalma: {what}: {message}");
        }
    }

    fn finish(&self) -> ExitCode {
        if self.count == 0 {
            return ExitCode::SUCCESS;
        }
        if self.count > ERRORS_SHOWN {
            eprintln!(
                "sternhalma: ... and {} more bad lines",
                self.count - ERRORS_SHOWN
            );
        }
        fail(format!(
            "{} bad line{} (answered `error: ...`)",
            self.count,
            if self.count == 1 { "" } else { "s" }
        ))
    }
}

/// Whether a write failed because the reader went away (`| head`): then
/// the command stops quietly, as Unix tools do.
fn closed(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// `sternhalma tablebase probe FILE [POSITION...]`.
pub fn probe(
    path: &Path,
    positions: &[String],
    threads_asked: Option<usize>,
    with_move: bool,
    unpack: bool,
) -> ExitCode {
    let table = match open(path) {
        Ok(table) if unpack && table.is_packed() => {
            eprintln!(
                "sternhalma: unpacking {} ({} entries)",
                path.display(),
                table.game().ranking().states()
            );
            table.unpacked(threads(threads_asked))
        }
        Ok(table) => table,
        Err(code) => return code,
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut bad = BadLines::default();
    if !positions.is_empty() {
        let mut prober = Prober::new(&table);
        for (i, text) in positions.iter().enumerate() {
            let mut done = Answered::default();
            answer_line(&mut prober, text.as_bytes(), 0, with_move, &mut done);
            if let Some((_, message)) = done.errors.first() {
                bad.report(&format!("position {}", i + 1), message);
            }
            if let Err(e) = out.write_all(&done.out) {
                return if closed(&e) {
                    bad.finish()
                } else {
                    fail(format!("standard output: {e}"))
                };
            }
        }
        return match out.flush() {
            Err(e) if !closed(&e) => fail(format!("standard output: {e}")),
            _ => bad.finish(),
        };
    }
    let threads = threads(threads_asked);
    let mut input = io::stdin().lock();
    let mut carry: Vec<u8> = Vec::new();
    let mut line = 0u64;
    loop {
        let mut block = std::mem::take(&mut carry);
        let mut ended = false;
        // At least a block, and at least one whole line: a line longer
        // than a block is read on until its end.
        let mut wanted = BLOCK.max(block.len() + 1);
        loop {
            while block.len() < wanted {
                let start = block.len();
                block.resize(wanted, 0);
                match input.read(&mut block[start..]) {
                    Ok(0) => {
                        block.truncate(start);
                        ended = true;
                        break;
                    }
                    Ok(n) => block.truncate(start + n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => block.truncate(start),
                    Err(e) => return fail(format!("standard input: {e}")),
                }
            }
            if ended || block.contains(&b'\n') {
                break;
            }
            wanted = block.len() + BLOCK;
        }
        // Complete lines only; the rest waits for the next block.
        let whole = if ended {
            block.len()
        } else {
            block
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(block.len(), |at| at + 1)
        };
        carry = block[whole..].to_vec();
        let lines = &block[..whole];
        let pieces = split_lines(lines, threads);
        let answered: Vec<Answered> = if pieces.len() == 1 {
            vec![answer_block(&table, pieces[0], with_move)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = pieces
                    .iter()
                    .map(|piece| scope.spawn(|| answer_block(&table, piece, with_move)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a probe thread does not panic"))
                    .collect()
            })
        };
        for done in &answered {
            for (number, message) in &done.errors {
                bad.report(&format!("line {}", line + number + 1), message);
            }
            line += done.lines;
            if let Err(e) = out.write_all(&done.out) {
                return if closed(&e) {
                    bad.finish()
                } else {
                    fail(format!("standard output: {e}"))
                };
            }
        }
        if ended && carry.is_empty() {
            break;
        }
    }
    match out.flush() {
        Err(e) if !closed(&e) => fail(format!("standard output: {e}")),
        _ => bad.finish(),
    }
}

/// The rows of entries `range` of `table` in `format`.
fn export_rows(table: &Tablebase, range: std::ops::Range<u64>, format: ExportFormat) -> Vec<u8> {
    let mut out = Vec::with_capacity((range.end - range.start) as usize * 48);
    for index in range {
        let entry = table.entry(index).expect("an index of the table");
        for placement in entry.positions() {
            match format {
                ExportFormat::Csv => {
                    write_number(&mut out, index);
                    out.push(b',');
                    out.push(b'0' + placement.side_to_move as u8);
                    out.push(b',');
                    write_holes(&mut out, placement.south, b' ');
                    out.push(b',');
                    write_holes(&mut out, placement.north, b' ');
                    out.push(b',');
                    out.extend_from_slice(entry.probe.value.name().as_bytes());
                    out.push(b',');
                    if let Some(depth) = entry.probe.depth {
                        write_number(&mut out, u64::from(depth));
                    }
                }
                ExportFormat::Text => {
                    placement.write(&mut out);
                    out.push(b' ');
                    write_probe(&mut out, &entry.probe);
                }
            }
            out.push(b'\n');
        }
    }
    out
}

/// `sternhalma tablebase export FILE`.
pub fn export(path: &Path, format: ExportFormat, threads_asked: Option<usize>) -> ExitCode {
    let table = match open(path) {
        // A packed table unpacked first: every entry is read.
        Ok(table) => table.unpacked(threads(threads_asked)),
        Err(code) => return code,
    };
    let threads = threads(threads_asked) as u64;
    let entries = table.game().ranking().states();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = (|| -> io::Result<()> {
        if format == ExportFormat::Csv {
            out.write_all(b"index,side_to_move,south,north,value,depth\n")?;
        }
        let mut next = 0;
        while next < entries {
            let ranges: Vec<_> = (0..threads)
                .map(|i| {
                    let start = (next + i * ENTRIES).min(entries);
                    start..(start + ENTRIES).min(entries)
                })
                .filter(|r| !r.is_empty())
                .collect();
            next = ranges.last().map_or(entries, |r| r.end);
            let rows: Vec<Vec<u8>> = if ranges.len() == 1 {
                vec![export_rows(&table, ranges[0].clone(), format)]
            } else {
                std::thread::scope(|scope| {
                    let handles: Vec<_> = ranges
                        .iter()
                        .map(|r| {
                            let table = &table;
                            scope.spawn(move || export_rows(table, r.clone(), format))
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().expect("an export thread does not panic"))
                        .collect()
                })
            };
            for chunk in &rows {
                out.write_all(chunk)?;
            }
        }
        out.flush()
    })();
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if closed(&e) => ExitCode::SUCCESS,
        Err(e) => fail(format!("standard output: {e}")),
    }
}
