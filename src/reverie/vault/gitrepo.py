"""The vault's git repository, driven through the ``git`` binary with argument lists (no shell).

Why the binary and not a library: the repository must stay readable by ``git`` itself, and no
git library is installed here. Every mutation happens under ``lock()`` — an exclusive
``flock`` on ``.git/reverie.lock`` — so two writer processes take turns: neither sees the
other's half-written index, and git's own ``index.lock`` is never raced. Commit times come
from the caller's clock (``reverie.model.clock``), so a test's history is reproducible.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from reverie.errors import StorageError

AGENT_NAME = "reverie agent"
AGENT_EMAIL = "agent@reverie.invalid"


class GitRepo:
    """One working tree at ``root`` (``init`` creates the repository if it is missing)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def meta_dir(self) -> Path:
        """Where reverie keeps its own state (lock, tokens): inside ``.git``, never committed."""
        return self.root / ".git" / "reverie"

    def init(self) -> None:
        """Create the folder and the repository if missing (an existing one is left as it is)."""
        self.root.mkdir(parents=True, exist_ok=True)
        if not (self.root / ".git").exists():
            self._git(["init", "-q", "-b", "main"])
        self.meta_dir.mkdir(exist_ok=True)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the vault's writer lock (blocks until the other writer is done)."""
        self.meta_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.meta_dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def pending(self, paths: Sequence[str]) -> dict[str, str]:
        """Which of ``paths`` differ from the last commit, on disk or in git's index: path → what
        kind of change (``new``, ``deleted``, ``edited``). Nothing listed: every path is as committed.

        Why: a note that differs from its last commit holds someone's work the agent did not make
        (a person's edit in progress, most likely); committing it under the agent's name, or
        renaming over it, would misattribute or destroy it. ``--no-optional-locks``: a read that
        never rewrites git's index, so it is safe over a vault served read-only.
        """
        if not paths:
            return {}
        if not (self.root / ".git").exists():  # never made a repository (read-only): nothing is committed
            return {p: "new" for p in paths if (self.root / p).exists()}
        status = ["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]
        out = self._git([*status, "--", *paths])
        found: dict[str, str] = {}
        for entry in filter(None, out.split("\0")):
            code, path = entry[:2], entry[3:]
            kind = "new" if code in ("??", "A ", "AM") else "deleted" if "D" in code else "edited"
            if found.get(path) != "deleted":  # "D " plus "??": removed from git, left on disk — a deletion
                found[path] = kind
        return found

    def commit(
        self,
        paths: Sequence[str],
        message: str,
        at: datetime,
        *,
        author: str = AGENT_NAME,
        email: str = AGENT_EMAIL,
    ) -> str | None:
        """Stage ``paths`` (additions, edits, removals) and commit them; the new commit id, or
        None when nothing changed (a re-run that rewrote identical bytes makes no empty commit)."""
        present = [p for p in paths if (self.root / p).exists()]
        gone = [p for p in paths if p not in present]
        if present:
            self._git(["add", "-A", "--", *present])
        if gone:  # removed or moved away: unstage whatever is left of them (a ``git mv`` left nothing)
            self._git(["rm", "-q", "-r", "--cached", "--ignore-unmatch", "--", *gone])
        staged = self._git(["diff", "--cached", "--no-renames", "--name-only", "-z", "--", *paths]).split("\0")
        staged = [p for p in staged if p]
        if not staged:
            return None
        stamp = at.isoformat()
        env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        who = ["-c", f"user.name={author}", "-c", f"user.email={email}"]
        self._git([*who, "commit", "-q", "--no-verify", "-m", message, "--", *staged], env=env)
        return self._git(["rev-parse", "HEAD"]).strip()

    def head(self) -> str | None:
        """The last commit's id; None before the first commit."""
        try:
            return self._git(["rev-parse", "--verify", "-q", "HEAD"]).strip() or None
        except StorageError:
            return None

    def undo_commit(self, made: str, before: str | None) -> None:
        """Take back commit ``made`` (HEAD goes back to ``before``) only if HEAD is still ``made``.

        For a write of two commits whose second failed: the first must not stay behind. The
        compare-and-swap leaves a commit someone made since alone. The working tree is not touched;
        the caller puts the index back with ``unstage``.
        """
        if before is None:
            self._git(["update-ref", "-d", "HEAD", made])
        else:
            self._git(["update-ref", "-m", "reverie: undo a write that failed", "HEAD", before, made])

    def unstage(self, paths: Sequence[str]) -> None:
        """Put git's index for ``paths`` back as the last commit has them (after a failed write).

        Best effort: when git cannot even run (its index locked), nothing was staged by us either.
        """
        try:
            has_head = bool(self._git(["rev-parse", "--verify", "-q", "HEAD"]).strip())
        except StorageError:
            has_head = False
        try:
            if has_head:
                self._git(["reset", "-q", "--", *paths])
            else:
                self._git(["rm", "-q", "-r", "--cached", "--ignore-unmatch", "--", *paths])
        except StorageError:
            pass

    def log(self, limit: int = 20) -> list[tuple[str, str]]:
        """The last commits as (id, subject), newest first; [] before the first commit."""
        try:
            out = self._git(["log", f"-{limit}", "--format=%H%x09%s"])
        except StorageError:
            return []
        return [tuple(line.split("\t", 1)) for line in out.splitlines() if "\t" in line]  # type: ignore[misc]

    def _git(self, args: list[str], env: dict[str, str] | None = None) -> str:
        full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})}
        for leak in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):  # a caller's repo must not redirect ours
            full_env.pop(leak, None)
        try:
            done = subprocess.run(  # nosec B603 - fixed binary, argument list, no shell
                ["git", "-C", str(self.root), *args],  # nosec B607 - git from PATH by design
                capture_output=True,
                text=True,
                env=full_env,
                check=False,
                timeout=120,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StorageError(f"git {args[0]} could not run in {self.root}: {exc}; is git installed?") from exc
        if done.returncode != 0:
            raise StorageError(f"git {' '.join(args[:2])} failed in {self.root}: {done.stderr.strip()[:300]}")
        return done.stdout
