//! The databases the index's tests run against: an SQLite file, and, when
//! `TOOLNORM_TEST_POSTGRES` names a PostgreSQL server (`postgres://…/db`; CI starts one
//! with `checks/postgres/start.sh`), a database of the test's own on it, created new.
//! With `TOOLNORM_REQUIRE_POSTGRES=1` a missing server fails the test instead of leaving
//! PostgreSQL untested.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// `--db` values for test `name`: `dir/index.sqlite`, then the PostgreSQL URL if any.
pub fn each(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut databases = vec![dir.join("index.sqlite")];
    match std::env::var("TOOLNORM_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => databases.push(PathBuf::from(fresh(&url, name))),
        _ => assert!(
            std::env::var_os("TOOLNORM_REQUIRE_POSTGRES").is_none(),
            "TOOLNORM_REQUIRE_POSTGRES is set but TOOLNORM_TEST_POSTGRES names no server"
        ),
    }
    databases
}

/// A new, empty database named after the test and this process on the server of `url`;
/// its URL.
fn fresh(url: &str, name: &str) -> String {
    let database = format!("toolnorm_{name}_{}", std::process::id());
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    // Each its own statement: a batch of several runs as one transaction, which
    // CREATE DATABASE refuses.
    client
        .batch_execute(&format!("DROP DATABASE IF EXISTS {database}"))
        .unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE {database}"))
        .unwrap();
    let (server, _) = url.rsplit_once('/').unwrap();
    format!("{server}/{database}")
}
