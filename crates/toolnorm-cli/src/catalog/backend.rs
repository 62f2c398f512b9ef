//! The two databases an index can live in, behind one small interface: an SQLite file
//! (rusqlite, SQLite bundled: the default, no server) or a PostgreSQL database (the
//! `postgres` client, for an index several machines write into).
//!
//! The index's SQL is written once, with SQLite's numbered parameters (`?1`); for
//! PostgreSQL they become `$1`. Where the two differ (a function's name, the schema's
//! types) the caller asks [`Connection::is_postgres`]. Values cross as [`Value`]: an
//! integer, a text or NULL, which is all the index stores. A transaction is `BEGIN` and
//! `COMMIT` on the one connection, so a run that dies midway leaves nothing of it.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use postgres::types::{IsNull, ToSql, Type, to_sql_checked};

/// Where an index is: an SQLite file, or a PostgreSQL URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Location {
    /// An SQLite file.
    File(PathBuf),
    /// A `postgres://` (or `postgresql://`) URL.
    Postgres(String),
}

impl Location {
    /// The location `--db` names: a URL of PostgreSQL, else a file's path.
    pub(crate) fn of(db: &Path) -> Location {
        let text = db.to_string_lossy();
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Location::Postgres(text.into_owned())
        } else {
            Location::File(db.to_path_buf())
        }
    }
}

impl fmt::Display for Location {
    /// The path, or the URL without its password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => {
                // postgres://user:password@host/db → postgres://user:***@host/db
                let hidden = url.split_once("://").and_then(|(scheme, rest)| {
                    let (credentials, host) = rest.split_once('@')?;
                    let (user, _) = credentials.split_once(':')?;
                    Some(format!("{scheme}://{user}:***@{host}"))
                });
                f.write_str(hidden.as_deref().unwrap_or(url))
            }
        }
    }
}

/// A database error, as its driver words it.
#[derive(Debug)]
pub(crate) struct DbError(pub(crate) String);

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<rusqlite::Error> for DbError {
    fn from(error: rusqlite::Error) -> Self {
        DbError(error.to_string())
    }
}

impl From<postgres::Error> for DbError {
    fn from(error: postgres::Error) -> Self {
        // The server's own message (and its detail) rather than only "db error".
        match error.as_db_error() {
            Some(db) => DbError(match db.detail() {
                Some(detail) => format!("{}: {detail}", db.message()),
                None => db.message().to_owned(),
            }),
            None => DbError(error.to_string()),
        }
    }
}

/// A value the index stores or is asked about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Text(String),
}

impl From<i64> for Value {
    fn from(value: i64) -> Self {
        Value::Int(value)
    }
}

impl From<u64> for Value {
    fn from(value: u64) -> Self {
        Value::Int(i64::try_from(value).unwrap_or(i64::MAX))
    }
}

impl From<usize> for Value {
    fn from(value: usize) -> Self {
        Value::Int(i64::try_from(value).unwrap_or(i64::MAX))
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Self {
        Value::Text(value.to_owned())
    }
}

impl From<String> for Value {
    fn from(value: String) -> Self {
        Value::Text(value)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Self {
        value.map_or(Value::Null, Into::into)
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(value) => ToSqlOutput::Borrowed(ValueRef::Integer(*value)),
            Value::Text(value) => ToSqlOutput::Borrowed(ValueRef::Text(value.as_bytes())),
        })
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
            Value::Int(value) => match *ty {
                Type::INT4 => i32::try_from(*value)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*value)?.to_sql(ty, out),
                Type::TEXT | Type::VARCHAR => value.to_string().to_sql(ty, out),
                _ => value.to_sql(ty, out),
            },
            Value::Text(value) => value.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT8 | Type::INT4 | Type::INT2 | Type::TEXT | Type::VARCHAR
        )
    }

    to_sql_checked!();
}

/// A row of a result.
pub(crate) enum Row<'a> {
    Sqlite(&'a rusqlite::Row<'a>),
    Postgres(&'a postgres::Row),
}

impl Row<'_> {
    /// Column `at` as an integer (NULL: none).
    pub(crate) fn int(&self, at: usize) -> Result<Option<i64>, DbError> {
        match self {
            Row::Sqlite(row) => Ok(row.get(at)?),
            Row::Postgres(row) => Ok(row.try_get::<_, Option<i64>>(at)?),
        }
    }

    /// Column `at` as a count (NULL or negative: 0).
    pub(crate) fn count(&self, at: usize) -> Result<u64, DbError> {
        Ok(self
            .int(at)?
            .and_then(|value| u64::try_from(value).ok())
            .unwrap_or(0))
    }

    /// Column `at` as a text (NULL: none).
    pub(crate) fn text(&self, at: usize) -> Result<Option<String>, DbError> {
        match self {
            Row::Sqlite(row) => Ok(row.get(at)?),
            Row::Postgres(row) => Ok(row.try_get::<_, Option<String>>(at)?),
        }
    }

    /// Column `at` as a text, NULL read as empty.
    pub(crate) fn string(&self, at: usize) -> Result<String, DbError> {
        Ok(self.text(at)?.unwrap_or_default())
    }
}

/// An open database.
pub(crate) enum Connection {
    Sqlite(rusqlite::Connection),
    Postgres {
        client: Box<postgres::Client>,
        /// Each statement prepared once per connection, by its SQLite text.
        prepared: HashMap<String, postgres::Statement>,
    },
}

impl Connection {
    /// Connects to the PostgreSQL database at `url` (no TLS: a server on this machine or
    /// a trusted network).
    pub(crate) fn postgres(url: &str) -> Result<Connection, DbError> {
        let client = postgres::Client::connect(url, postgres::NoTls)?;
        Ok(Connection::Postgres {
            client: Box::new(client),
            prepared: HashMap::new(),
        })
    }

    /// Whether this is PostgreSQL (for the SQL the two write differently).
    pub(crate) fn is_postgres(&self) -> bool {
        matches!(self, Connection::Postgres { .. })
    }

    /// Runs statements with no parameters (a schema, `BEGIN`).
    pub(crate) fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        match self {
            Connection::Sqlite(connection) => Ok(connection.execute_batch(sql)?),
            Connection::Postgres { client, .. } => Ok(client.batch_execute(sql)?),
        }
    }

    /// Runs one statement; the rows it changed.
    pub(crate) fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError> {
        match self {
            Connection::Sqlite(connection) => {
                let mut statement = connection.prepare_cached(sql)?;
                Ok(statement.execute(rusqlite::params_from_iter(params))? as u64)
            }
            Connection::Postgres { client, prepared } => {
                let statement = prepare(client, prepared, sql)?;
                Ok(client.execute(&statement, &pg_params(params))?)
            }
        }
    }

    /// Runs a query, handing `each` its rows in order.
    pub(crate) fn each(
        &mut self,
        sql: &str,
        params: &[Value],
        mut each: impl FnMut(&Row<'_>) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        match self {
            Connection::Sqlite(connection) => {
                let mut statement = connection.prepare_cached(sql)?;
                let mut rows = statement.query(rusqlite::params_from_iter(params))?;
                while let Some(row) = rows.next()? {
                    each(&Row::Sqlite(row))?;
                }
                Ok(())
            }
            Connection::Postgres { client, prepared } => {
                let statement = prepare(client, prepared, sql)?;
                for row in client.query(&statement, &pg_params(params))? {
                    each(&Row::Postgres(&row))?;
                }
                Ok(())
            }
        }
    }

    /// Runs a query; `map` of each row.
    pub(crate) fn all<T>(
        &mut self,
        sql: &str,
        params: &[Value],
        mut map: impl FnMut(&Row<'_>) -> Result<T, DbError>,
    ) -> Result<Vec<T>, DbError> {
        let mut all = Vec::new();
        self.each(sql, params, |row| {
            all.push(map(row)?);
            Ok(())
        })?;
        Ok(all)
    }

    /// Runs a query; `map` of its first row, if it has one.
    pub(crate) fn first<T>(
        &mut self,
        sql: &str,
        params: &[Value],
        map: impl FnMut(&Row<'_>) -> Result<T, DbError>,
    ) -> Result<Option<T>, DbError> {
        Ok(self.all(sql, params, map)?.into_iter().next())
    }

    /// Runs `write` in one transaction: all of it is stored, or (an error, a crash) none.
    pub(crate) fn transaction<T>(
        &mut self,
        write: impl FnOnce(&mut Connection) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        self.batch("BEGIN")?;
        match write(self) {
            Ok(value) => {
                self.batch("COMMIT")?;
                Ok(value)
            }
            Err(error) => {
                let _ = self.batch("ROLLBACK");
                Err(error)
            }
        }
    }
}

/// The statement of `sql` (SQLite's `?N` made `$N`), prepared once.
fn prepare(
    client: &mut postgres::Client,
    prepared: &mut HashMap<String, postgres::Statement>,
    sql: &str,
) -> Result<postgres::Statement, DbError> {
    if let Some(statement) = prepared.get(sql) {
        return Ok(statement.clone());
    }
    let statement = client.prepare(&numbered(sql))?;
    prepared.insert(sql.to_owned(), statement.clone());
    Ok(statement)
}

fn pg_params(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params
        .iter()
        .map(|param| param as &(dyn ToSql + Sync))
        .collect()
}

/// `sql` with SQLite's numbered parameters (`?1`) written as PostgreSQL's (`$1`); the
/// index's SQL has no `?` in a string literal.
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(char) = chars.next() {
        if char == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_parameters_are_written_as_postgresql_writes_them() {
        assert_eq!(
            numbered("SELECT a FROM t WHERE b = ?1 AND (?12 IS NULL)"),
            "SELECT a FROM t WHERE b = $1 AND ($12 IS NULL)"
        );
    }

    #[test]
    fn a_location_is_a_url_of_postgresql_or_a_file() {
        assert_eq!(
            Location::of(Path::new("postgres://u:secret@127.0.0.1/db")).to_string(),
            "postgres://u:***@127.0.0.1/db"
        );
        assert!(matches!(
            Location::of(Path::new("postgresql://127.0.0.1/db")),
            Location::Postgres(_)
        ));
        assert_eq!(
            Location::of(Path::new("index.sqlite")),
            Location::File(PathBuf::from("index.sqlite"))
        );
    }
}
