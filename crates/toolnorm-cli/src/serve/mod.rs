//! `toolnorm serve`: the session catalog as a local web page over the index, kept up to
//! date while the agents write.
//!
//! The server ([`crate::http`]) answers the page (`GET /`), a session's timeline (`GET
//! /sessions/{id}`, the page `toolnorm view` writes) and the JSON API the page uses
//! ([`api`]). Beside it one task keeps the index current ([`watch`]): an incremental
//! `toolnorm index` run at start, then one each time the stores change, after which the
//! page is told (`GET /api/events`, server-sent events) and reloads what it shows.

mod api;
mod page;
mod watch;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use tokio::sync::{RwLock, broadcast};

use crate::catalog::db::Index;
use crate::catalog::{IndexArgs, Location};
use crate::{EXIT_USAGE, io_message};

/// Arguments of `toolnorm serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// What is indexed, and how (as `toolnorm index`).
    #[command(flatten)]
    pub index: IndexArgs,
    /// The port on 127.0.0.1 (0 or none: any free port; the address is printed on stderr).
    #[arg(long, value_name = "P")]
    pub port: Option<u16>,
    /// Serve the index as it is: no indexing at start, no watching the stores.
    #[arg(long)]
    pub no_watch: bool,
}

/// What the handlers share: where the index is, the stats last computed from it, and the
/// channel that tells the pages the index changed.
pub(crate) struct Catalog {
    db: Location,
    /// `/api/stats` as last computed; cleared when the index changes.
    stats: RwLock<Option<Arc<String>>>,
    /// An `indexed` event's data for every run that changed the index.
    changes: broadcast::Sender<Arc<String>>,
}

/// `toolnorm serve`.
pub fn serve(args: ServeArgs, stderr: &mut impl Write) -> ExitCode {
    if let Err(message) = crate::normalize::builder(&args.index.read) {
        let _ = writeln!(stderr, "toolnorm: {message}");
        return ExitCode::from(EXIT_USAGE);
    }
    // The index is created (or migrated) before the first request reads it.
    let db = match Index::open(args.index.db.as_deref()) {
        Ok(index) => index.location().clone(),
        Err(message) => {
            let _ = writeln!(stderr, "toolnorm: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let runtime = match crate::http::runtime() {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(stderr, "toolnorm: {}", io_message(&error));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (changes, _) = broadcast::channel(16);
    let catalog = Arc::new(Catalog {
        db,
        stats: RwLock::new(None),
        changes,
    });
    let served = runtime.block_on(async {
        let (listener, port) = crate::http::bind(args.port).await?;
        let _ = writeln!(stderr, "toolnorm: serving http://127.0.0.1:{port}/");
        let _ = stderr.flush();
        if !args.no_watch {
            tokio::spawn(watch::keep_indexed(
                Arc::new(args.index),
                Arc::clone(&catalog),
            ));
        }
        crate::http::run(listener, api::router(catalog, port)).await
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(stderr, "toolnorm: 127.0.0.1: {}", io_message(&error));
            ExitCode::from(EXIT_USAGE)
        }
    }
}
