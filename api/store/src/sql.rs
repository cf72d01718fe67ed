//! One face for the two databases a server can store into: SQLite in one
//! file (the default) and PostgreSQL (several replicas on one database).
//!
//! The storage code ([`crate::matches::storage`],
//! [`crate::tournaments::storage`]) writes each statement once, with
//! SQLite's numbered placeholders (`?1`, `?2`); on PostgreSQL they become
//! `$1`, `$2`. Values travel as [`Value`] (integer, text, bytes or null)
//! and rows come back as [`Row`]s; every integer column is 64-bit on both.
//! What differs between the two dialects lives here and nowhere else: the
//! clock ([`Db::now`]), how a write transaction starts, and the row lock a
//! write takes on what it is about to check ([`Db::for_update`]).
//!
//! **Writes.** [`Db::write`] runs a job as one transaction, committed when
//! the job answers `Ok`. On SQLite it takes the database's write lock at
//! once (`BEGIN IMMEDIATE`): one writer at a time, so a check and its write
//! can never interleave with another's. On PostgreSQL it is a READ
//! COMMITTED transaction in which the rows a job checks are read with
//! `FOR UPDATE`: a second replica checking the same match waits for the
//! first to commit, then reads its move.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use postgres::types::{IsNull, ToSql, Type, to_sql_checked};

use crate::clock::Clock;
use crate::committed::{Changes, Committed};
use crate::error::{Error, corrupt};

/// Where the stored matches and tournaments live: a SQLite file, or a
/// PostgreSQL database named by its URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file, created if missing.
    Sqlite(PathBuf),
    /// A PostgreSQL database (`postgres://user@host:port/name`); it must
    /// exist, its schema is created and migrated by the server.
    Postgres(String),
}

impl Database {
    /// Reads `--database`: a `postgres://` or `postgresql://` URL names a
    /// PostgreSQL database, anything else a SQLite file.
    pub fn parse(text: &str) -> Database {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            Database::Postgres(text.to_owned())
        } else {
            Database::Sqlite(PathBuf::from(text))
        }
    }

    /// How the database is named in logs and messages: the file's path, or
    /// the URL without its password.
    pub fn display(&self) -> String {
        match self {
            Database::Sqlite(path) => path.display().to_string(),
            Database::Postgres(url) => without_password(url),
        }
    }
}

impl std::str::FromStr for Database {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Database, Self::Err> {
        Ok(Database::parse(text))
    }
}

/// `postgres://user:secret@host/db` as `postgres://user:***@host/db`, and a
/// `password=` parameter of the query string as `password=***`.
fn without_password(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut shown = match base.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((credentials, host)) => match credentials.split_once(':') {
                Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
                None => base.to_owned(),
            },
            None => base.to_owned(),
        },
        None => base.to_owned(),
    };
    if let Some(query) = query {
        let parameters: Vec<String> = query
            .split('&')
            .map(|p| match p.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => p.to_owned(),
            })
            .collect();
        shown.push('?');
        shown.push_str(&parameters.join("&"));
    }
    shown
}

/// A value bound to a statement or read from a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// An integer (booleans are 0 and 1).
    Int(i64),
    /// Text.
    Text(String),
    /// Bytes (token hashes).
    Blob(Vec<u8>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(i64::from(v))
    }
}

impl From<usize> for Value {
    fn from(v: usize) -> Value {
        Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Int(i64::from(v))
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_owned())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}

impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(v.clone())
    }
}

/// A time, as a row stores it ([`crate::clock::stored`]).
impl From<jiff::Timestamp> for Value {
    fn from(v: jiff::Timestamp) -> Value {
        Value::Text(crate::clock::stored(v))
    }
}

impl From<&jiff::Timestamp> for Value {
    fn from(v: &jiff::Timestamp) -> Value {
        Value::Text(crate::clock::stored(*v))
    }
}

impl From<&[u8]> for Value {
    fn from(v: &[u8]) -> Value {
        Value::Blob(v.to_vec())
    }
}

impl From<&Vec<u8>> for Value {
    fn from(v: &Vec<u8>) -> Value {
        Value::Blob(v.clone())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// The parameters of a statement: `params![a, b]`.
macro_rules! params {
    ($($value:expr),* $(,)?) => {
        &[$($crate::sql::Value::from($value)),*][..]
    };
}
pub(crate) use params;

/// A row read back, its columns by name (as the query's select list names
/// them: give an aggregate a name with `AS`).
#[derive(Clone, Debug)]
pub struct Row {
    names: Arc<[String]>,
    values: Vec<Value>,
}

impl Row {
    fn column(&self, name: &str) -> Result<&Value, Error> {
        self.names
            .iter()
            .position(|n| n == name)
            .and_then(|index| self.values.get(index))
            .ok_or_else(|| corrupt(format!("a row without column {name}")))
    }

    /// An integer column, which must not be null.
    ///
    /// # Errors
    /// Another type or null: the row does not read back.
    pub fn int(&self, name: &str) -> Result<i64, Error> {
        self.opt_int(name)?
            .ok_or_else(|| corrupt(format!("column {name} is null")))
    }

    /// An integer column, or null.
    ///
    /// # Errors
    /// Another type.
    pub fn opt_int(&self, name: &str) -> Result<Option<i64>, Error> {
        match self.column(name)? {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v)),
            other => Err(corrupt(format!(
                "column {name} is {other:?}, not an integer"
            ))),
        }
    }

    /// A 0/1 column as a boolean.
    ///
    /// # Errors
    /// Another type or null.
    pub fn bool(&self, name: &str) -> Result<bool, Error> {
        Ok(self.int(name)? != 0)
    }

    /// A text column, which must not be null.
    ///
    /// # Errors
    /// Another type or null.
    pub fn text(&self, name: &str) -> Result<String, Error> {
        self.opt_text(name)?
            .ok_or_else(|| corrupt(format!("column {name} is null")))
    }

    /// A text column, or null.
    ///
    /// # Errors
    /// Another type.
    pub fn opt_text(&self, name: &str) -> Result<Option<String>, Error> {
        match self.column(name)? {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v.clone())),
            other => Err(corrupt(format!("column {name} is {other:?}, not text"))),
        }
    }

    /// A time column ([`crate::clock::stored`]), which must not be null.
    ///
    /// # Errors
    /// Another type, null, or text that is not a time.
    pub fn time(&self, name: &str) -> Result<jiff::Timestamp, Error> {
        self.opt_time(name)?
            .ok_or_else(|| corrupt(format!("column {name} is null")))
    }

    /// A time column, or null.
    ///
    /// # Errors
    /// Another type, or text that is not a time.
    pub fn opt_time(&self, name: &str) -> Result<Option<jiff::Timestamp>, Error> {
        self.opt_text(name)?
            .map(|text| {
                crate::clock::parse_stored(&text)
                    .map_err(|e| corrupt(format!("column {name}: {text:?} is not a time: {e}")))
            })
            .transpose()
    }

    /// A bytes column, which must not be null.
    ///
    /// # Errors
    /// Another type or null.
    pub fn blob(&self, name: &str) -> Result<Vec<u8>, Error> {
        self.opt_blob(name)?
            .ok_or_else(|| corrupt(format!("column {name} is null")))
    }

    /// A bytes column, or null.
    ///
    /// # Errors
    /// Another type.
    pub fn opt_blob(&self, name: &str) -> Result<Option<Vec<u8>>, Error> {
        match self.column(name)? {
            Value::Null => Ok(None),
            Value::Blob(v) => Ok(Some(v.clone())),
            other => Err(corrupt(format!("column {name} is {other:?}, not bytes"))),
        }
    }
}

/// One connection to the database, of either kind. Not shared between
/// threads: the store gives each job a connection of its own.
pub struct Db {
    kind: Kind,
    /// Inside [`Db::write`]: checked rows are locked on PostgreSQL.
    writing: Cell<bool>,
    /// What the transaction under way has changed so far
    /// ([`Db::transaction`]).
    changes: RefCell<Changes>,
    /// The clock [`Db::now`] reads instead of the database's, if set.
    clock: Option<Clock>,
}

enum Kind {
    Sqlite(rusqlite::Connection),
    Postgres(Box<Postgres>),
}

struct Postgres {
    url: String,
    client: RefCell<postgres::Client>,
    /// Prepared statements by their SQLite text.
    statements: RefCell<HashMap<String, postgres::Statement>>,
}

impl Db {
    /// A SQLite connection.
    pub fn sqlite(connection: rusqlite::Connection) -> Db {
        Db {
            kind: Kind::Sqlite(connection),
            writing: Cell::new(false),
            changes: RefCell::default(),
            clock: None,
        }
    }

    /// Connects to the PostgreSQL database at `url`.
    ///
    /// # Errors
    /// The server cannot be reached or refuses the connection.
    pub fn postgres(url: &str) -> Result<Db, postgres::Error> {
        let client = connect_postgres(url, "sternhalma")?;
        Ok(Db {
            kind: Kind::Postgres(Box::new(Postgres {
                url: url.to_owned(),
                client: RefCell::new(client),
                statements: RefCell::new(HashMap::new()),
            })),
            writing: Cell::new(false),
            changes: RefCell::default(),
            clock: None,
        })
    }

    /// The SQLite connection, if this is one (for SQLite-only settings).
    pub fn as_sqlite(&self) -> Option<&rusqlite::Connection> {
        match &self.kind {
            Kind::Sqlite(connection) => Some(connection),
            Kind::Postgres(_) => None,
        }
    }

    /// Whether this is a PostgreSQL connection.
    pub fn is_postgres(&self) -> bool {
        matches!(self.kind, Kind::Postgres(_))
    }

    /// Whether the connection is gone (the PostgreSQL server restarted or
    /// dropped it); a SQLite file never is.
    pub fn is_closed(&self) -> bool {
        match &self.kind {
            Kind::Sqlite(_) => false,
            Kind::Postgres(pg) => pg.client.borrow().is_closed(),
        }
    }

    /// Connects again after [`Db::is_closed`]; prepared statements are
    /// prepared anew.
    ///
    /// # Errors
    /// The server cannot be reached.
    pub fn reconnect(&mut self) -> Result<(), Error> {
        if let Kind::Postgres(pg) = &mut self.kind {
            let client = connect_postgres(&pg.url, "sternhalma")?;
            *pg.client.get_mut() = client;
            pg.statements.get_mut().clear();
        }
        Ok(())
    }

    /// Runs statements that take no parameters and answer no rows
    /// (schema, settings, `BEGIN`).
    ///
    /// # Errors
    /// A database failure.
    pub fn batch(&self, sql: &str) -> Result<(), Error> {
        match &self.kind {
            Kind::Sqlite(connection) => connection.execute_batch(sql)?,
            Kind::Postgres(pg) => pg.client.borrow_mut().batch_execute(sql)?,
        }
        Ok(())
    }

    /// Runs one statement; answers the rows it changed.
    ///
    /// # Errors
    /// A database failure.
    pub fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, Error> {
        match &self.kind {
            Kind::Sqlite(connection) => {
                let changed = connection
                    .prepare_cached(sql)?
                    .execute(rusqlite::params_from_iter(params.iter()))?;
                Ok(changed as u64)
            }
            Kind::Postgres(pg) => {
                let statement = pg.prepare(sql)?;
                Ok(pg
                    .client
                    .borrow_mut()
                    .execute(&statement, &pg_params(params))?)
            }
        }
    }

    /// Runs one query; answers its rows.
    ///
    /// # Errors
    /// A database failure, or a column of a type the storage never uses.
    pub fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, Error> {
        match &self.kind {
            Kind::Sqlite(connection) => {
                let mut statement = connection.prepare_cached(sql)?;
                let names: Arc<[String]> = statement.column_names().map(str::to_owned).collect();
                let mut rows = statement.query(rusqlite::params_from_iter(params.iter()))?;
                let mut all = Vec::new();
                while let Some(row) = rows.next()? {
                    let mut values = Vec::with_capacity(names.len());
                    for index in 0..names.len() {
                        values.push(sqlite_value(row.get_ref(index)?)?);
                    }
                    all.push(Row {
                        names: Arc::clone(&names),
                        values,
                    });
                }
                Ok(all)
            }
            Kind::Postgres(pg) => {
                let statement = pg.prepare(sql)?;
                let rows = pg
                    .client
                    .borrow_mut()
                    .query(&statement, &pg_params(params))?;
                let Some(first) = rows.first() else {
                    return Ok(Vec::new());
                };
                let names: Arc<[String]> = first
                    .columns()
                    .iter()
                    .map(|column| column.name().to_owned())
                    .collect();
                rows.iter().map(|row| pg_row(row, &names)).collect()
            }
        }
    }

    /// The first row of a query, if any.
    ///
    /// # Errors
    /// As [`Db::query`].
    pub fn query_opt(&self, sql: &str, params: &[Value]) -> Result<Option<Row>, Error> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// The one row of a query that always answers one (an aggregate).
    ///
    /// # Errors
    /// As [`Db::query`]; no row at all does not read back.
    pub fn query_one(&self, sql: &str, params: &[Value]) -> Result<Row, Error> {
        self.query_opt(sql, params)?
            .ok_or_else(|| corrupt("a query that answers one row answered none"))
    }

    /// The database's current time, to the millisecond (what a row keeps
    /// of it: [`crate::clock`]), or the [`Clock`] set on this connection.
    ///
    /// # Errors
    /// A database failure.
    pub fn now(&self) -> Result<jiff::Timestamp, Error> {
        if let Some(clock) = &self.clock {
            return Ok(clock.now());
        }
        let sql = match self.kind {
            Kind::Sqlite(_) => "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now",
            Kind::Postgres(_) => {
                "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC',
                                'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS now"
            }
        };
        self.query_one(sql, &[])?.time("now")
    }

    /// Every time this connection stores from now on is `clock`'s, not the
    /// database's: for tests and tools that decide when things happen.
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = Some(clock);
    }

    /// What a write appends to the query of a row it is about to check
    /// and change: ` FOR UPDATE` on PostgreSQL inside [`Db::write`] (a
    /// second replica's write on the same row waits for this one to commit,
    /// then reads what it stored); nothing on SQLite, whose write
    /// transaction already holds the whole database.
    pub fn for_update(&self) -> &'static str {
        if self.writing.get() && self.is_postgres() {
            " FOR UPDATE"
        } else {
            ""
        }
    }

    /// Runs `job` as one write transaction: committed when it answers
    /// `Ok`, rolled back otherwise (and when it panics).
    ///
    /// # Errors
    /// The job's error, or a database failure (nothing is stored).
    pub fn write<T>(&mut self, job: impl FnOnce(&Db) -> Result<T, Error>) -> Result<T, Error> {
        if self.is_closed() {
            self.reconnect()?;
        }
        self.batch(match self.kind {
            Kind::Sqlite(_) => "BEGIN IMMEDIATE",
            Kind::Postgres(_) => "BEGIN ISOLATION LEVEL READ COMMITTED",
        })?;
        self.changes.take();
        let open = Open { db: self };
        self.writing.set(true);
        let answer = job(self)?;
        self.batch("COMMIT")?;
        std::mem::forget(open);
        self.writing.set(false);
        Ok(answer)
    }

    /// [`Db::write`] for a store command: the answer comes back with the
    /// changes the transaction made (`Db::match_changed` and the others),
    /// once it has committed. The store's writer tells them to its
    /// listeners ([`crate::Store`]); a rollback tells nothing.
    ///
    /// # Errors
    /// The job's error, or a database failure (nothing is stored).
    pub fn transaction<T>(
        &mut self,
        job: impl FnOnce(&Db) -> Result<T, Error>,
    ) -> Result<Committed<T>, Error> {
        let answer = self.write(job)?;
        Ok(Committed::new(answer, self.changes.take()))
    }

    /// Match `id` is at `version` now, inside a transaction (recorded by
    /// the two statements that make a match's version grow).
    pub(crate) fn match_changed(&self, id: i64, version: i64) {
        self.changes.borrow_mut().record_match(id, version);
    }

    /// The transaction under way is the bot runner's (a bot's move).
    pub(crate) fn played_by_bot(&self) {
        self.changes.borrow_mut().record_by_bot();
    }

    /// Match `id` was created, inside a transaction.
    pub(crate) fn match_created(&self, id: i64) {
        self.changes.borrow_mut().record_created(id);
    }

    /// Tournament `id` changed, inside a transaction: every director hears
    /// of it, this replica's and the others'.
    pub(crate) fn tournament_changed(&self, id: i64) {
        self.changes.borrow_mut().record_tournament(id);
    }

    /// Tournament `id`'s games were started or its end recorded by this
    /// replica's director, inside a transaction: the other replicas hear of
    /// it.
    pub(crate) fn tournament_scheduled(&self, id: i64) {
        self.changes.borrow_mut().record_scheduled(id);
    }
}

/// A write transaction not yet committed: rolled back when dropped.
struct Open<'a> {
    db: &'a Db,
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.db.writing.set(false);
        // Nothing of a rolled-back transaction is told.
        self.db.changes.take();
        if let Err(error) = self.db.batch("ROLLBACK") {
            tracing::warn!(error = %error, "rollback failed");
        }
    }
}

/// Connects to PostgreSQL at `url` under `name` (its `application_name`,
/// as `pg_stat_activity` shows it). Unless the URL sets them itself:
///
/// - a connection attempt gives up after 10 s, and a connection whose peer
///   is gone (a replica's machine or the network cut, not only its process)
///   is noticed within about a minute (TCP keepalives from 30 s idle);
/// - a statement waits at most 10 s for a row lock (`lock_timeout`: the
///   write fails as [`Error::Unavailable`] and stores nothing), and a transaction left open
///   by a replica that stopped mid-way is ended by the server after 60 s
///   (`idle_in_transaction_session_timeout`), so one replica's trouble
///   cannot hold the rows every other replica needs.
///
/// # Errors
/// The server cannot be reached or refuses the connection.
pub fn connect_postgres(url: &str, name: &str) -> Result<postgres::Client, postgres::Error> {
    let mut config: postgres::Config = url.parse()?;
    if config.get_application_name().is_none() {
        config.application_name(name);
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    if config.get_keepalives_interval().is_none() {
        config
            .keepalives_idle(Duration::from_secs(30))
            .keepalives_interval(Duration::from_secs(10))
            .keepalives_retries(3);
    }
    if config.get_options().is_none() {
        config.options("-c lock_timeout=10s -c idle_in_transaction_session_timeout=60s");
    }
    config.connect(postgres::NoTls)
}

impl Postgres {
    fn prepare(&self, sql: &str) -> Result<postgres::Statement, Error> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = self
            .client
            .borrow_mut()
            .prepare(&dollar_placeholders(sql))?;
        self.statements
            .borrow_mut()
            .insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

/// `?1` as PostgreSQL's `$1` (the storage never uses `?` otherwise).
pub fn dollar_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

fn pg_params(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

fn pg_row(row: &postgres::Row, names: &Arc<[String]>) -> Result<Row, Error> {
    let mut values = Vec::with_capacity(row.len());
    for (index, column) in row.columns().iter().enumerate() {
        let ty = column.type_();
        let value = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(index)?.map(Value::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(index)?
                .map(|v| Value::Int(v.into()))
        } else if *ty == Type::INT2 {
            row.try_get::<_, Option<i16>>(index)?
                .map(|v| Value::Int(v.into()))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(index)?
                .map(|v| Value::Int(v.into()))
        } else if *ty == Type::TEXT || *ty == Type::VARCHAR || *ty == Type::NAME {
            row.try_get::<_, Option<String>>(index)?.map(Value::Text)
        } else if *ty == Type::BYTEA {
            row.try_get::<_, Option<Vec<u8>>>(index)?.map(Value::Blob)
        } else {
            return Err(corrupt(format!("a column of type {ty}")));
        };
        values.push(value.unwrap_or(Value::Null));
    }
    Ok(Row {
        names: Arc::clone(names),
        values,
    })
}

fn sqlite_value(value: rusqlite::types::ValueRef<'_>) -> Result<Value, Error> {
    use rusqlite::types::ValueRef;
    Ok(match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(v) => Value::Int(v),
        ValueRef::Text(v) => Value::Text(
            std::str::from_utf8(v)
                .map_err(|_| corrupt("text that is not UTF-8"))?
                .to_owned(),
        ),
        ValueRef::Blob(v) => Value::Blob(v.to_vec()),
        ValueRef::Real(v) => return Err(corrupt(format!("a real number {v}"))),
    })
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(*v),
            Value::Text(v) => ValueRef::Text(v.as_bytes()),
            Value::Blob(v) => ValueRef::Blob(v),
        }))
    }
}

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) => {
                if *ty == Type::INT8 {
                    v.to_sql(ty, out)
                } else if *ty == Type::INT4 {
                    i32::try_from(*v)?.to_sql(ty, out)
                } else if *ty == Type::INT2 {
                    i16::try_from(*v)?.to_sql(ty, out)
                } else if *ty == Type::BOOL {
                    (*v != 0).to_sql(ty, out)
                } else {
                    Err(format!("an integer bound to a {ty} parameter").into())
                }
            }
            Value::Text(v) => v.as_str().to_sql(ty, out),
            Value::Blob(v) => v.as_slice().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        // Each value checks the parameter's type when it is written.
        true
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_postgres_and_anything_else_a_file() {
        assert_eq!(
            Database::parse("postgres://u@h:5/db"),
            Database::Postgres("postgres://u@h:5/db".into())
        );
        assert_eq!(
            Database::parse("PostgreSQL://u@h/db"),
            Database::Postgres("PostgreSQL://u@h/db".into())
        );
        assert_eq!(
            Database::parse("sternhalma.sqlite3"),
            Database::Sqlite("sternhalma.sqlite3".into())
        );
        assert_eq!(
            Database::parse("./postgres/x.db"),
            Database::Sqlite("./postgres/x.db".into())
        );
    }

    #[test]
    fn a_password_is_not_shown() {
        let db = Database::parse("postgres://ann:s3cret@db.school:5432/ladder");
        assert_eq!(db.display(), "postgres://ann:***@db.school:5432/ladder");
        let db = Database::parse("postgres://ann@db.school/ladder");
        assert_eq!(db.display(), "postgres://ann@db.school/ladder");
        let db = Database::parse("postgres://ann@db.school/ladder?sslmode=disable&password=s3cret");
        assert_eq!(
            db.display(),
            "postgres://ann@db.school/ladder?sslmode=disable&password=***"
        );
    }

    #[test]
    fn numbered_placeholders_become_dollars() {
        assert_eq!(
            dollar_placeholders("SELECT ?1, ?12 WHERE a = ?2 AND b = '?'"),
            "SELECT $1, $12 WHERE a = $2 AND b = '?'"
        );
    }

    #[test]
    fn a_failed_job_stores_nothing_and_the_connection_goes_on() {
        let mut db = Db::sqlite(rusqlite::Connection::open_in_memory().unwrap());
        db.batch("CREATE TABLE t (v INTEGER NOT NULL)").unwrap();
        let failed: Result<(), Error> = db.write(|db| {
            db.execute("INSERT INTO t (v) VALUES (?1)", params![1_i64])?;
            Err(Error::Internal("no".into()))
        });
        assert!(failed.is_err());
        db.write(|db| db.execute("INSERT INTO t (v) VALUES (?1)", params![2_i64]))
            .unwrap();
        let rows = db.query("SELECT v FROM t", &[]).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].int("v").unwrap(), 2);
        assert!(rows[0].int("w").is_err(), "a column the query has not");
        assert_eq!(db.for_update(), "", "SQLite never appends a row lock");
    }
}
