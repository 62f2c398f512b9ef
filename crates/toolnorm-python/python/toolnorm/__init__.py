"""toolnorm: the tool-call events of AI coding agents as one canonical lifecycle.

``normalize(data)`` reads a whole stream (JSON Lines of Claude Code, Codex, OpenCode,
ACP, Gemini CLI events, or toolnorm's event log) into its parts, as
``toolnorm normalize --format parts`` writes them; ``Normalizer`` reads one in chunks,
each ``push`` returning its updates, as ``--format updates`` writes them. Both release
the GIL while they read. See ``__init__.pyi`` for the signatures.
"""

from ._toolnorm import (
    DEFAULT_OUTPUT_CAP,
    DIALECTS,
    Diagnostic,
    DiagnosticWarning,
    InputError,
    Normalizer,
    OptionError,
    Stats,
    ToolnormError,
    UnrecognizedInputError,
    __version__,
    normalize,
)

__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "DIALECTS",
    "Diagnostic",
    "DiagnosticWarning",
    "InputError",
    "Normalizer",
    "OptionError",
    "Stats",
    "ToolnormError",
    "UnrecognizedInputError",
    "__version__",
    "normalize",
]
