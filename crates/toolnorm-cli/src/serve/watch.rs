//! Keeping the index current while `toolnorm serve` runs: an incremental index run at
//! start, then one after each burst of changes in the watched folders (the agents'
//! stores, or the paths named), found by the `notify` crate (inotify, FSEvents, …).
//! A run that changed the index clears the cached stats and tells the pages.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use super::Catalog;
use crate::catalog::IndexArgs;
use crate::catalog::index::update;
use crate::catalog::stores;

/// How long the folders must be quiet before the index is brought up to date: an agent
/// writes a line at a time, so a burst of appends is read once.
const QUIET: Duration = Duration::from_millis(300);

/// Indexes now, then after every burst of changes, for as long as the server runs.
pub(super) async fn keep_indexed(args: Arc<IndexArgs>, catalog: Arc<Catalog>) {
    let (sender, mut changed) = mpsc::unbounded_channel::<()>();
    // The watcher lives as long as this task: dropping it stops the watching.
    let folders = folders(&args);
    let _watcher = watch(&folders, sender);
    reindex(&args, &catalog).await;
    while changed.recv().await.is_some() {
        // Wait until the folders are quiet, taking every change that comes meanwhile.
        loop {
            tokio::time::sleep(QUIET).await;
            let mut more = false;
            while changed.try_recv().is_ok() {
                more = true;
            }
            if !more {
                break;
            }
        }
        reindex(&args, &catalog).await;
    }
}

/// The folders to watch: the paths named (a file's folder), else every agent's store
/// that is there.
fn folders(args: &IndexArgs) -> Vec<PathBuf> {
    if !args.paths.is_empty() {
        return args
            .paths
            .iter()
            .map(|path| match path.is_dir() {
                true => path.clone(),
                false => path
                    .parent()
                    .filter(|parent| !parent.as_os_str().is_empty())
                    .map_or_else(|| PathBuf::from("."), PathBuf::from),
            })
            .collect();
    }
    let env = |name: &str| std::env::var_os(name);
    let Some(home) = args.home.clone().or_else(|| env("HOME").map(PathBuf::from)) else {
        return Vec::new();
    };
    stores::roots(&home, &env)
        .into_iter()
        .filter(|root| root.is_dir())
        .collect()
}

/// A watcher sending `()` on `sender` for every change under `folders`; none when the
/// platform offers none (the index is then current as of the start).
fn watch(folders: &[PathBuf], sender: mpsc::UnboundedSender<()>) -> Option<impl Watcher + use<>> {
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let relevant = event.is_ok_and(|event| {
            !matches!(
                event.kind,
                notify::EventKind::Access(_) | notify::EventKind::Other
            )
        });
        if relevant {
            let _ = sender.send(());
        }
    })
    .map_err(|error| eprintln!("toolnorm: watching the stores: {error}"))
    .ok()?;
    for folder in folders {
        if let Err(error) = watcher.watch(folder, RecursiveMode::Recursive) {
            eprintln!("toolnorm: watching {}: {error}", folder.display());
        }
    }
    Some(watcher)
}

/// One incremental run; when it changed the index, the stats are computed again on the
/// next request and the pages are told.
async fn reindex(args: &Arc<IndexArgs>, catalog: &Catalog) {
    let args = Arc::clone(args);
    let run = tokio::task::spawn_blocking(move || {
        let mut stderr = std::io::stderr();
        update(&args, &mut stderr, false)
    })
    .await;
    match run {
        Ok(Ok((_, counts, _))) if counts.changed() => {
            *catalog.stats.write().await = None;
            let data = serde_json::to_string(&counts).unwrap_or_else(|_| "{}".to_owned());
            let _ = catalog.changes.send(Arc::new(data));
        }
        Ok(Ok(_)) => {}
        Ok(Err(message)) => eprintln!("toolnorm: {message}"),
        Err(error) => eprintln!("toolnorm: indexing: {error}"),
    }
}
