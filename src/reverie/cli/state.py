"""What every command shares: the resolved global options, the open ``Memory``, errors, progress.

Commands never open a ``Memory`` themselves: ``State.memory`` opens it once per invocation and
registers it with the root click context, so it is closed on every exit path (success, error,
``ctx.exit``) — an unclosed SQLite handle would leak a file descriptor and a ResourceWarning.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TextIO, TypeVar

import click

from reverie import (
    InvalidInputError,
    InvalidScopeError,
    Limits,
    Memory,
    NotFoundError,
    ReverieError,
    StorageError,
)
from reverie.cli.messages import for_cli

F = TypeVar("F", bound=Callable[..., Any])

#: The attribute ``creates_store`` sets on a command's function; ``State.memory`` reads it.
CREATES_STORE = "reverie_creates_store"

#: Exit codes: the contract scripts rely on (documented in README_SECTION.md).
EXIT_OK = 0
EXIT_FAILED = 1  # the request was fine but could not be done: not found, conflict, doctor not ok, I/O
EXIT_USAGE = 2  # the request itself was wrong: bad option, malformed input, out-of-range value


@dataclass
class State:
    """The resolved global options of one invocation (command line, then environment, then default)."""

    db: str = "./reverie.db"
    #: ``--create``: any command may create a missing store file, not only ``@creates_store`` ones.
    create: bool = False
    #: ``None``: the embedder the store records (``minilm`` for a new store); see ``embedder_for``.
    embedder: str | None = None
    scope: str | None = None
    #: ``--read-only``: open the store for inspection; every write is refused (``read_only``).
    read_only: bool = False
    #: ``--principal``: every read sees only what this principal may (``reverie.model.visibility``).
    #: A filter for the file's owner, not authentication: whoever runs the CLI can read the file.
    principal: str | None = None
    #: ``--conflict-reader nli``: the NLI model reads, in dream passes, the pairs the rules could not
    #: name (``reverie[nli]``); ``serve`` and ``mcp`` pass it to the ``Memory`` they open.
    conflict_reader: str | None = None
    #: ``--busy-timeout``: how long a write waits for another writer's lock (``None``: 30 s).
    busy_timeout_ms: int | None = None
    json: bool = False
    debug: bool = False
    #: The bounds the ``Memory`` is opened with (``None``: the defaults). No option sets them; a
    #: program that embeds the CLI passes ``obj=State(limits=...)`` to click's ``main`` / ``invoke``.
    #: ``serve`` and ``mcp`` open their own ``Memory`` and do not read it (embed ``create_app`` /
    #: ``build_server`` over a ``Memory`` you open to serve other bounds).
    limits: Limits | None = None
    _memory: Memory | None = None

    def require_scope(self) -> str:
        """The scope for a scoped command; validated by ``Memory`` itself (one rule everywhere)."""
        if not self.scope:
            raise InvalidScopeError("this command needs a scope: pass --scope SCOPE or set REVERIE_SCOPE")
        return self.scope

    def memory(self, *, replay: bool = False) -> Memory:
        """The ``Memory`` at ``--db``, opened on first use and closed when the invocation ends.

        Unless the running command carries ``@creates_store`` a missing file is an error rather
        than a fresh empty store: a typo in ``--db`` would otherwise answer every read with
        "nothing", or put a write in a stray file, missing from the real store.
        ``replay`` opens it for ``import``, which must not let conflict detection add edges the
        export already carries (they are replayed from the file instead).
        """
        if self._memory is None:
            self.require_store(create=self.create or may_create_store())
            kwargs: dict[str, Any] = {"embedder": self.embedder_for(), "limits": self.limits}
            if replay and "detect_conflicts" in inspect.signature(Memory).parameters:
                kwargs["detect_conflicts"] = False
            if self.read_only:
                kwargs["read_only"] = True
            if self.principal is not None:
                kwargs["principal"] = self.principal
            if self.conflict_reader is not None:
                kwargs["conflict_reader"] = self.conflict_reader
            if self.busy_timeout_ms is not None:
                kwargs["busy_timeout_ms"] = self.busy_timeout_ms
            memory = Memory(self.db, **kwargs)
            if replay:  # the export carries its own flags: no "conflicts_unchecked" marker on the copy
                memory._core.mark_unchecked_writes = False
            click.get_current_context().find_root().call_on_close(lambda: _close(memory))
            self._memory = memory
        return self._memory

    def require_store(self, *, create: bool = False, creator: str = "`reverie remember` or `reverie import`") -> None:
        """Refuse a ``--db`` that names no file, unless this command may ``create`` one.

        Why: a typo in ``--db`` would otherwise answer every read with "nothing" (or serve an
        empty store) and leave a stray file behind. ``--read-only`` never creates one.
        """
        if not self.db.strip():  # Path("") is the working directory, which "exists"
            raise InvalidInputError(f"--db is empty ({self.db!r}): pass the store's file path, or set REVERIE_DB to it")
        if (create and not self.read_only) or self.db == ":memory:" or Path(self.db).exists():
            return
        if self.db.lower().startswith(("postgresql://", "postgres://")):
            return  # a server: opening it says whether it is there (and creates the schema if not)
        fix = (
            "it cannot be created with --read-only"
            if self.read_only
            else f"{creator} create one; or pass --create before the command to make it here"
        )
        raise NotFoundError(f"no store at {self.db}: pass --db PATH or set REVERIE_DB ({fix})")

    def embedder_for(self) -> str:
        """``--embedder`` if given, else the one the store records, else ``minilm`` (a new store).

        Why: a store made with ``--embedder hash`` and read without it would otherwise be opened
        with MiniLM and refuse every recall with ``embedder_mismatch`` (and load a model for it).
        """
        if self.embedder is not None:
            return self.embedder
        return recorded_embedder(self.db) or "minilm"

    def emit(self, doc: Any, human: Callable[[], str]) -> None:
        """Write one JSON document (``--json``) or the human rendering, to stdout."""
        if self.json:
            click.echo(json.dumps(doc, indent=2, ensure_ascii=False, default=str))
        else:
            text = human()
            if text:
                click.echo(text)


#: What the CLI can open, by the prefix of the name an embedder records in the store.
_EMBEDDER_NAMES = (("hash-", "hash"), ("minilm-", "minilm"))


def recorded_embedder(db: str) -> str | None:
    """The ``--embedder`` choice matching the model the store at ``db`` records, if any.

    Read through a read-only ``Memory`` (which writes nothing); a missing or unreadable file, a
    store with no vectors yet, or a model the CLI cannot load gives ``None``: the default then
    applies and a mismatch is reported by ``Memory`` itself, naming the recorded model.
    """
    if db == ":memory:" or (not Path(db).is_file() and not db.lower().startswith(("postgresql://", "postgres://"))):
        return None
    try:
        with Memory(db, read_only=True) as peek:
            recorded = peek.store.embedder()
    except ReverieError:
        return None
    name = recorded[0] if recorded else ""
    return next((choice for prefix, choice in _EMBEDDER_NAMES if name.startswith(prefix)), None)


def state() -> State:
    """The current invocation's ``State`` (set up by the group callback)."""
    found = click.get_current_context().find_object(State)
    assert found is not None, "commands run under the reverie group"
    return found


def _set_scope(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.ensure_object(State).scope = value


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(State).json = True


def scoped(f: F) -> F:
    """Adds ``--scope`` to a command, so it may follow the command name as well as precede it."""
    option = click.option(
        "--scope",
        metavar="SCOPE",
        expose_value=False,
        callback=_set_scope,
        help="Scope to act in (overrides the global --scope and REVERIE_SCOPE).",
    )
    return option(f)


def _set_db(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.ensure_object(State).db = value


def _set_embedder(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.ensure_object(State).embedder = value


def _set_read_only(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(State).read_only = True


def store_options(f: F) -> F:
    """Adds ``--db``, ``--embedder`` and ``--read-only`` after the command name, for the servers.

    An MCP client's configuration lists one argument vector (``["mcp", "--db", PATH]``); the
    natural spelling puts the store after the command, so these accept it there too (it wins).
    """
    db = click.option(
        "--db", metavar="PATH", expose_value=False, callback=_set_db, help="The store file (overrides the global --db)."
    )
    embedder = click.option(
        "--embedder",
        type=click.Choice(["minilm", "hash"]),
        expose_value=False,
        callback=_set_embedder,
        help="Embedding model (overrides the global --embedder).",
    )
    read_only = click.option(
        "--read-only",
        is_flag=True,
        expose_value=False,
        callback=_set_read_only,
        help="Serve the store for inspection: every write is refused (read_only).",
    )
    return db(embedder(read_only(f)))


def json_option(f: F) -> F:
    """Adds ``--json`` to a command, so ``reverie list --json`` works as well as ``reverie --json list``."""
    option = click.option(
        "--json", is_flag=True, expose_value=False, callback=_set_json, help="Machine output: one JSON document."
    )
    return option(f)


def creates_store(when: str | None = None) -> Callable[[F], F]:
    """Mark a command that may create a missing store file (put it under ``@click.command``).

    The one list of creators README names ("Only `remember`, `import`, …"): ``State.memory``
    creates a file only for a command carrying this mark, so no command decides it on its own
    (``conversation add``, ``intent create`` and ``task create`` each once passed their own
    ``create=True`` and wrote into a mistyped ``--db``). ``when`` names a flag of the command
    that must be set (``vault claims --remember``: only a remembering run writes).
    """

    def mark(f: F) -> F:
        setattr(f, CREATES_STORE, when or True)
        return f

    return mark


def may_create_store(ctx: click.Context | None = None) -> bool:
    """May the running command (``ctx``, default: the current one) create a missing store file?"""
    ctx = ctx or click.get_current_context(silent=True)
    callback = ctx.command.callback if ctx is not None else None
    flag = getattr(callback, CREATES_STORE, None)
    if flag is None or ctx is None:
        return False
    return flag is True or bool(ctx.params.get(str(flag)))


class CliError(click.ClickException):
    """A failure shown as ``error[<code>]: <message>`` on stderr (and as JSON on stdout with --json).

    click reads ``exit_code`` from the class, so the exit status is chosen by subclass: this one
    exits 1 (could not be done), ``CliUsageError`` exits 2 (the request was wrong).
    """

    exit_code = EXIT_FAILED

    def __init__(self, code: str, message: str, as_json: bool = False, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.as_json = as_json
        self.hint = hint

    @staticmethod
    def from_reverie(err: ReverieError, as_json: bool, scope: str | None = None) -> CliError:
        """``err`` in the CLI's shape, its advice naming ``reverie`` commands (``messages.for_cli``)."""
        # InvalidInputError covers its whole branch: invalid_scope, limit_exceeded, invalid_query.
        cls = CliUsageError if isinstance(err, InvalidInputError) else CliError
        return cls(err.code, for_cli(err.code, err.message, scope), as_json)

    def show(self, file: IO[Any] | None = None) -> None:
        if self.as_json:
            click.echo(json.dumps({"code": self.code, "error": self.message}, ensure_ascii=False))
        click.echo(f"error[{self.code}]: {self.message}", err=True)
        if self.hint:
            click.echo(self.hint, err=True)


class CliUsageError(CliError):
    exit_code = EXIT_USAGE

    @classmethod
    def from_click(cls, err: click.UsageError, as_json: bool) -> CliUsageError:
        """click's own usage errors (unknown option, missing argument, bad choice) in the one error shape."""
        hint = None
        if err.ctx is not None:
            hint = f"{err.ctx.get_usage()}\nTry '{err.ctx.command_path} --help' for help."
        return cls("usage", _long_integers(err.format_message()), as_json, hint)


#: click's refusal of an integer option Python will not convert (past ``sys.get_int_max_str_digits()``).
_NOT_AN_INT = re.compile(r"'(-?\d+)' is not a valid integer\.")


def _long_integers(message: str) -> str:
    """click calls ``--k 1000…0`` (5,001 digits) "not a valid integer" and echoes every digit; say
    what is wrong instead: it is an integer, longer than a number can be read."""

    def say(m: re.Match[str]) -> str:
        digits = len(m.group(1).lstrip("-"))
        limit = sys.get_int_max_str_digits()
        if not limit or digits <= limit:
            return m.group(0)
        return f"an integer of {digits} digits, longer than a number can be read ({limit} digits); no count is so long"

    return _NOT_AN_INT.sub(say, message)


class Progress:
    """A ``click.progressbar`` on stderr, created when the total is first known; silent unless a TTY.

    Silent with ``--json`` or when stderr is not a terminal: a bar's carriage returns in a log file
    or a pipe are noise, and stdout stays clean for the data either way.
    """

    def __init__(self, label: str, enabled: bool) -> None:
        self.label = label
        self.enabled = enabled
        self._bar: Any = None
        self._done = 0

    @classmethod
    def for_state(cls, st: State, label: str, stream: TextIO | None = None) -> Progress:
        stream = stream or sys.stderr
        return cls(label, enabled=not st.json and stream.isatty())

    def update(self, done: int, total: int) -> None:
        """Callback shape of ``Memory.reindex(progress=...)``: items done so far, of ``total``."""
        if not self.enabled:
            return
        if self._bar is None:
            bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            bar.__enter__()
            self._bar = bar
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


def unavailable(what: str) -> CliError:
    """The refusal of a command whose feature this build lacks (exit 2: asking for it is the mistake)."""
    return CliUsageError("not_available", f"{what} is not available in this build", state().json)


def _close(memory: Memory) -> None:
    """Close the command's ``Memory``. A recall's use it kept because another writer held the lock
    is written here, waiting the busy timeout as a write does; if it still cannot be, the answer
    already printed stands and this says so (a process cannot keep it for later), not a traceback."""
    try:
        memory.close()
    except StorageError as exc:
        n = memory.pending_uses
        click.echo(
            f"warning[storage]: the use of {n} recall(s) was not recorded: another writer held the store past the "
            f"busy timeout ({exc.__cause__ or exc}); the answer above stands",
            err=True,
        )
