//! The agents that are Python programs (Kimi, Vibe, OpenHands): each is installed from
//! PyPI into a virtual environment of its own (a variable names it, or by default the
//! package's name beside the npm folder), whose `bin/<command>` is run, and whose
//! `<dist>-<version>.dist-info` folder says the version.

use std::path::{Path, PathBuf};

use super::Recorder;
use crate::error::{Error, Result};

/// An agent installed from PyPI into a virtual environment of its own.
pub(super) struct PythonCli {
    /// The PyPI package (the default virtual environment's folder name).
    pub(super) package: &'static str,
    /// The distribution's name in its `<dist>-<version>.dist-info` folder.
    pub(super) dist: &'static str,
    /// The variable naming its virtual environment instead of the default.
    pub(super) venv_variable: &'static str,
    /// The command, in the virtual environment's `bin/`.
    pub(super) command: &'static str,
}

impl Recorder {
    /// The virtual environment `cli` is installed in.
    pub(super) fn venv_of(&self, cli: &PythonCli) -> PathBuf {
        if let Some(dir) = std::env::var_os(cli.venv_variable) {
            return PathBuf::from(dir);
        }
        self.npm_dir
            .parent()
            .unwrap_or(&self.npm_dir)
            .join(cli.package)
    }

    /// The command of `cli` in its virtual environment.
    pub(super) fn command_of(&self, cli: &PythonCli) -> PathBuf {
        self.venv_of(cli).join("bin").join(cli.command)
    }

    /// The version of `cli` installed in its virtual environment, from the name of its
    /// `<dist>-<version>.dist-info` folder.
    pub(super) fn python_cli_version(&self, cli: &PythonCli) -> Result<String> {
        let venv = self.venv_of(cli);
        dist_info_version(&venv, cli.dist).ok_or_else(|| {
            Error::NotFound(format!(
                "no {}-*.dist-info under {} (is {} installed?)",
                cli.dist,
                venv.join("lib").display(),
                cli.package
            ))
        })
    }
}

/// The version of the Python package installed in the virtual environment `venv`, from
/// the name of its `<dist>-<version>.dist-info` folder (`kimi_cli`, `mistral_vibe`).
fn dist_info_version(venv: &Path, dist: &str) -> Option<String> {
    let prefix = format!("{dist}-");
    std::fs::read_dir(venv.join("lib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|python| python.path().join("site-packages"))
        .flat_map(|site| std::fs::read_dir(site).into_iter().flatten().flatten())
        .find_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let version = name.strip_prefix(&prefix)?.strip_suffix(".dist-info")?;
            Some(version.to_owned())
        })
}
