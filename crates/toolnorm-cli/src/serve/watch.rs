//! Keeping the index current while `toolnorm serve` runs: an incremental index run at
//! start, then one after each burst of changes in the watched folders (the agents'
//! stores, or the paths named), found by the `notify` crate (inotify, FSEvents, …).
//! A store that is not there yet (an agent not used on this machine so far) is watched
//! for through its nearest folder that is, and from the moment it appears, as the others.
//! A run that changed the index clears the cached stats and tells the pages.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
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
    let mut watching = Watching::start(folders(&args), sender);
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
        if let Some(watching) = &mut watching {
            watching.refresh();
        }
        reindex(&args, &catalog).await;
    }
}

/// The folders to watch: the paths named (a file's folder), else every agent's store,
/// there or not.
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
}

/// The folders a change matters in.
#[derive(Debug, Default)]
struct Scope {
    /// Watched with everything under them.
    folders: Vec<PathBuf>,
    /// Not there yet.
    awaited: Vec<PathBuf>,
    /// The nearest folder that is there of each awaited one, watched alone.
    ancestors: Vec<PathBuf>,
}

impl Scope {
    /// Whether a change of `path` matters: it is in a watched folder, or it is one of
    /// an awaited folder's ancestors (or the folder itself) appearing.
    fn concerns(&self, path: &Path) -> bool {
        self.folders.iter().any(|folder| path.starts_with(folder))
            || self.awaited.iter().any(|awaited| awaited.starts_with(path))
    }
}

/// The watcher and what it watches.
struct Watching {
    watcher: RecommendedWatcher,
    scope: Arc<Mutex<Scope>>,
}

impl Watching {
    /// Watches `folders` (those there) and waits for the others, sending `()` on
    /// `sender` for every change that concerns them; none when the platform offers no
    /// watcher (the index is then current as of the start).
    fn start(folders: Vec<PathBuf>, sender: mpsc::UnboundedSender<()>) -> Option<Watching> {
        let scope = Arc::new(Mutex::new(Scope {
            awaited: folders,
            ..Scope::default()
        }));
        let shared = Arc::clone(&scope);
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else {
                return;
            };
            if matches!(
                event.kind,
                notify::EventKind::Access(_) | notify::EventKind::Other
            ) {
                return;
            }
            let scope = shared.lock().unwrap_or_else(PoisonError::into_inner);
            if event.paths.is_empty() || event.paths.iter().any(|path| scope.concerns(path)) {
                let _ = sender.send(());
            }
        })
        .map_err(|error| eprintln!("toolnorm: watching the stores: {error}"))
        .ok()?;
        let mut watching = Watching { watcher, scope };
        watching.refresh();
        Some(watching)
    }

    /// Watches every awaited folder that is now there, with everything under it, and the
    /// nearest folder that is there of each one still awaited. A folder can appear
    /// between a look and the watch set on its parent (an agent creating its store, a
    /// level at a time): the look is taken again until it finds what it watches.
    fn refresh(&mut self) {
        for _ in 0..32 {
            if !self.look() {
                break;
            }
        }
    }

    /// One look: whether it watched anything new.
    fn look(&mut self) -> bool {
        let (awaited, ancestors) = {
            let scope = self.scope.lock().unwrap_or_else(PoisonError::into_inner);
            (scope.awaited.clone(), scope.ancestors.clone())
        };
        // The watcher is not called with the scope locked: its events lock it.
        let mut folders = Vec::new();
        let mut still = Vec::new();
        let mut nearest = Vec::new();
        for folder in awaited {
            if folder.is_dir() {
                match self.watcher.watch(&folder, RecursiveMode::Recursive) {
                    Ok(()) => folders.push(folder),
                    Err(error) => eprintln!("toolnorm: watching {}: {error}", folder.display()),
                }
                continue;
            }
            if let Some(ancestor) = folder.ancestors().skip(1).find(|path| path.is_dir())
                && !nearest.iter().any(|known: &PathBuf| known == ancestor)
            {
                nearest.push(ancestor.to_path_buf());
            }
            still.push(folder);
        }
        for ancestor in &ancestors {
            if !nearest.contains(ancestor) {
                let _ = self.watcher.unwatch(ancestor);
            }
        }
        for ancestor in &nearest {
            if !ancestors.contains(ancestor)
                && let Err(error) = self.watcher.watch(ancestor, RecursiveMode::NonRecursive)
            {
                eprintln!("toolnorm: watching {}: {error}", ancestor.display());
            }
        }
        let changed = !folders.is_empty() || nearest != ancestors;
        let mut scope = self.scope.lock().unwrap_or_else(PoisonError::into_inner);
        scope.folders.extend(folders);
        scope.awaited = still;
        scope.ancestors = nearest;
        changed
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_concerns_the_watched_folders_and_the_way_to_an_awaited_one() {
        let scope = Scope {
            folders: vec![PathBuf::from("/home/u/.claude/projects")],
            awaited: vec![PathBuf::from("/home/u/.pi/agent/sessions")],
            ancestors: vec![PathBuf::from("/home/u")],
        };
        for (path, concerns) in [
            ("/home/u/.claude/projects/p/s.jsonl", true),
            ("/home/u/.pi", true),
            ("/home/u/.pi/agent/sessions", true),
            ("/home/u/.bash_history", false),
            ("/home/u/.claude/settings.json", false),
        ] {
            assert_eq!(scope.concerns(Path::new(path)), concerns, "{path}");
        }
    }
}
