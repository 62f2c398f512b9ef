"""Type stubs of toolnorm (the extension module `toolnorm._toolnorm`, re-exported)."""

import os
from typing import Any, Final, List, Literal, Optional, Sequence, Tuple, TypedDict, Union

__version__: Final[str]

#: The dialects toolnorm reads: the values of ``provider`` besides ``"auto"``.
DIALECTS: Final[Tuple[str, ...]]

#: The default cap on the partial output kept per running call, in bytes (1 MiB).
DEFAULT_OUTPUT_CAP: Final[int]

ToolKind = Literal[
    "web_search", "browser", "file_read", "file_write", "file_edit", "bash", "subagent",
    "mcp", "question", "todo", "unknown",
]
ToolState = Literal["started", "running", "complete", "error"]

class ToolError(TypedDict, total=False):
    message: str
    code: str
    details: Any

class Timing(TypedDict, total=False):
    startedAt: Union[str, float]
    completedAt: Union[str, float]
    elapsedMs: float

class _PartRequired(TypedDict):
    id: str
    name: str
    kind: ToolKind
    title: str
    input: Any
    state: ToolState

class NormalizedToolPart(_PartRequired, total=False):
    """A part of the tool-normalization contract, keys in the order of the JSON."""

    output: Any
    error: ToolError
    timing: Timing
    metadata: dict[str, Any]

_Data = Union[bytes, bytearray, str]
_Path = Union[str, "os.PathLike[str]"]

def normalize(
    data: _Data,
    /,
    *,
    provider: str = "auto",
    rules: Optional[_Path] = None,
    output_cap: Optional[int] = None,
    mcp_servers: Sequence[str] = (),
    cwd: Optional[str] = None,
    redact: bool = False,
    redact_patterns: Optional[_Path] = None,
    redact_pattern: Sequence[str] = (),
    source: Optional[str] = None,
    strict: bool = True,
    deny_unknown: bool = False,
    format: str = "parts",
    otel_content: bool = False,
) -> List[NormalizedToolPart]:
    """Normalizes a whole stream into its parts, as ``toolnorm normalize --format parts``.

    The parts come one per call, each when the call is terminal, the calls still open
    at the end last. The GIL is released while the stream is read.

    ``format`` names another format of ``toolnorm normalize`` written as JSON lines
    (``"updates"``, ``"events"``, ``"acp"``, ``"ai-sdk"``, ``"ag-ui"``, ``"otel"``): the
    list holds its lines as dicts instead. ``"otel"`` gives one OTLP/JSON
    ``ExportTraceServiceRequest`` per line (a span per call, a root span per session);
    ``otel_content=True`` puts each call's input and output on its span.

    Options (those of ``toolnorm normalize``): ``provider`` (``"auto"`` or one of
    ``DIALECTS``), ``rules`` (a TOML rules file, tried before the built-in rules),
    ``output_cap`` (bytes of output kept per call, partial and final, as ``--output-cap``; ``None`` keeps partial output to 1 MiB and the final output whole), ``mcp_servers``
    (to split OpenCode's ``<server>_<tool>``), ``cwd`` (the session's directory, for
    relative paths in titles), ``redact``, ``redact_patterns`` (a TOML file of
    ``[[pattern]]``), ``redact_pattern`` (``"KIND=REGEX"`` strings), ``source``
    (``metadata.source`` of every call, as ``toolnorm normalize DIR`` sets it).

    Raises ``InputError`` when the input has an error diagnostic (``strict=False``:
    a ``DiagnosticWarning`` instead) or, with ``deny_unknown=True``, any diagnostic;
    notices are otherwise ``DiagnosticWarning``s. Raises ``UnrecognizedInputError``
    when no line is an event of a known dialect, ``OptionError`` for an option that
    cannot be used.
    """

class Normalizer:
    """One stream fed in chunks cut anywhere.

    ``push(chunk)`` returns the updates (part snapshots, one per change, as ``toolnorm
    normalize --format updates`` writes them) of the lines the chunk completed;
    ``finish()`` those of the end of the input. The GIL is released while a chunk is
    read. Diagnostics are denied or warned per push as ``normalize`` does them; an
    ``InputError`` raised by ``push`` carries that chunk's ``updates``, and the
    normalizer goes on with the next chunk.
    """

    def __init__(
        self,
        *,
        provider: str = "auto",
        rules: Optional[_Path] = None,
        output_cap: Optional[int] = None,
        mcp_servers: Sequence[str] = (),
        cwd: Optional[str] = None,
        redact: bool = False,
        redact_patterns: Optional[_Path] = None,
        redact_pattern: Sequence[str] = (),
        source: Optional[str] = None,
        strict: bool = True,
        deny_unknown: bool = False,
    ) -> None: ...
    def push(self, chunk: _Data, /) -> List[NormalizedToolPart]:
        """Feeds a chunk; the updates of the lines it completed."""
    def finish(self) -> List[NormalizedToolPart]:
        """Ends the stream; the last updates. The normalizer cannot be fed after it."""
    @property
    def dialect(self) -> Optional[str]:
        """The dialect, once known."""
    @property
    def stats(self) -> Stats:
        """The line counts so far."""
    @property
    def diagnostics(self) -> List[Diagnostic]:
        """Every diagnostic so far, in input order."""
    @property
    def finished(self) -> bool:
        """Whether ``finish()`` was called."""

class Diagnostic:
    """One problem with the input; ``str()`` is the line ``toolnorm normalize`` writes
    on stderr (``line 7: …``, ``line 9: notice: …``)."""

    def __init__(
        self, line: Optional[int], kind: str, severity: Literal["error", "notice"], message: str
    ) -> None: ...

    @property
    def line(self) -> Optional[int]:
        """The 1-based input line, when the problem is about one."""
    @property
    def kind(self) -> str:
        """``invalid-json``, ``lone-surrogate``, ``truncated-line``, ``unknown-event``, ``malformed-event``,
        ``foreign-dialect``, ``undetected-dialect``, ``rejected``, ``unknown-call``, …"""
    @property
    def severity(self) -> Literal["error", "notice"]: ...
    @property
    def message(self) -> str: ...

class Stats:
    """Line counts: every line is in one of ``applied_lines``, ``known_lines``,
    ``notice_lines``, ``error_lines``. ``str()`` is the command's summary line."""

    def __init__(self, *counts: int) -> None:
        """The eleven counts, in the order of the properties below."""

    @property
    def lines(self) -> int: ...
    @property
    def applied_lines(self) -> int: ...
    @property
    def known_lines(self) -> int: ...
    @property
    def notice_lines(self) -> int: ...
    @property
    def error_lines(self) -> int: ...
    @property
    def events(self) -> int: ...
    @property
    def changes(self) -> int: ...
    @property
    def duplicates(self) -> int: ...
    @property
    def diagnostics(self) -> int: ...
    @property
    def errors(self) -> int: ...
    @property
    def notices(self) -> int: ...

class ToolnormError(ValueError):
    """Base of toolnorm's errors."""

class OptionError(ToolnormError):
    """An option that cannot be used."""

class InputError(ToolnormError):
    """Diagnostics the options deny; what was read is still attached."""

    diagnostics: List[Diagnostic]
    stats: Stats
    #: From ``normalize``: the parts read.
    parts: List[NormalizedToolPart]
    #: From ``Normalizer.push`` and ``finish``: the updates of that chunk.
    updates: List[NormalizedToolPart]

class UnrecognizedInputError(InputError):
    """No line of the input is an event of a dialect toolnorm reads."""

class DiagnosticWarning(UserWarning):
    """A diagnostic the options do not deny."""

    diagnostic: Diagnostic
