"""Parsing a Markdown note: front matter, title, headings, ``[[wikilinks]]``, tags, its date.

The front matter reader understands the part of YAML notes use (``key: value``, ``key: [a, b]``,
and ``key:`` followed by ``- item`` lines) and nothing else: it never evaluates anything, and a
block it cannot read is reported as a problem on the note (``Note.problems``) and ignored, so
one broken note never stops an index. Fenced code and inline code are not scanned for links
or tags (a ``[[x]]`` in a code sample is not a link).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import PurePosixPath

_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_TAG = re.compile(r"(?<![\w#&/\[])#([A-Za-z][\w/-]*)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
#: Front-matter keys that date a note, most specific first; the file's mtime is the fallback.
DATE_KEYS = ("updated", "modified", "date", "created")


@dataclass(frozen=True, slots=True)
class Link:
    """One ``[[target#heading|label]]`` occurrence (``line`` is 1-based in the whole file)."""

    target: str
    label: str | None
    heading: str | None
    line: int


@dataclass(frozen=True, slots=True)
class Note:
    """A parsed note. ``body`` is the text after the front matter; ``body_line`` its first line."""

    path: str
    title: str
    front: dict[str, str | list[str]]
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    headings: tuple[str, ...]
    links: tuple[Link, ...]
    body: str
    body_line: int
    dated: datetime | None  # from the front matter; None: use the file's mtime
    problems: tuple[str, ...] = field(default=())

    @property
    def folder(self) -> str:
        """The note's folder ("" at the root)."""
        parent = PurePosixPath(self.path).parent.as_posix()
        return "" if parent == "." else parent

    @property
    def stem(self) -> str:
        return PurePosixPath(self.path).stem


def parse_note(path: str, text: str) -> Note:
    """Parse ``text`` (the note at ``path``); never raises for malformed content.

    A leading byte order mark (Windows editors save UTF-8 with one) is not part of the note: left
    in, it hid the front matter's opening ``---`` and the note lost its date, tags and aliases.
    """
    text = text.removeprefix("\ufeff")
    problems: list[str] = []
    front, body, body_line = _split_front(text, problems)
    headings, links, tags = _scan(body, body_line)
    ftags = _as_list(front.get("tags", front.get("tag", [])))
    title_f = front.get("title")
    title = (title_f if isinstance(title_f, str) and title_f else None) or (headings[0] if headings else None)
    return Note(
        path=path,
        title=title or PurePosixPath(path).stem,
        front=front,
        aliases=tuple(_as_list(front.get("aliases", front.get("alias", [])))),
        tags=tuple(dict.fromkeys(t.lstrip("#") for t in [*ftags, *tags] if t.lstrip("#"))),
        headings=tuple(headings),
        links=tuple(links),
        body=body,
        body_line=body_line,
        dated=_date(front, problems),
        problems=tuple(problems),
    )


def _split_front(text: str, problems: list[str]) -> tuple[dict[str, str | list[str]], str, int]:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 1
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        problems.append("front matter opened with '---' but never closed; read as body text")
        return {}, text, 1
    front = _read_front(lines[1:end], problems)
    return front, "\n".join(lines[end + 1 :]), end + 2


def _read_front(lines: list[str], problems: list[str]) -> dict[str, str | list[str]]:
    out: dict[str, str | list[str]] = {}
    current: str | None = None
    for n, line in enumerate(lines, start=2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and current is not None and isinstance(out.get(current), list):
            out[current] = [*out[current], _unquote(stripped[2:])]
            continue
        m = _KEY.match(stripped)
        if m is None or line[:1].isspace():
            problems.append(f"front matter line {n} is not 'key: value' ({stripped[:40]!r}); front matter ignored")
            return {}
        current, value = m.group(1).lower(), m.group(2).strip()
        if value.startswith("[") and value.endswith("]"):
            out[current] = [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
        else:
            out[current] = _unquote(value) if value else []
    return out


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def _as_list(v: str | list[str]) -> list[str]:
    if isinstance(v, list):
        return [x for x in v if x]
    return [x.strip() for x in v.split(",") if x.strip()]


def _scan(body: str, first_line: int) -> tuple[list[str], list[Link], list[str]]:
    headings: list[str] = []
    links: list[Link] = []
    tags: list[str] = []
    in_code = False
    for n, line in enumerate(body.split("\n"), start=first_line):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        h = _HEADING.match(line)
        if h:
            headings.append(h.group(2))
        plain = _INLINE_CODE.sub("", line)
        links.extend(_link(m.group(1), n) for m in _LINK.finditer(plain))
        if not h:
            tags.extend(m.group(1) for m in _TAG.finditer(_LINK.sub("", plain)))
    return headings, [x for x in links if x.target], tags


def _link(inner: str, line: int) -> Link:
    target, _, label = inner.partition("|")
    target, _, heading = target.partition("#")
    target = target.strip()
    if target.lower().endswith(".md"):
        target = target[:-3]
    return Link(target=target, label=label.strip() or None, heading=heading.strip() or None, line=line)


def _date(front: dict[str, str | list[str]], problems: list[str]) -> datetime | None:
    for key in DATE_KEYS:
        raw = front.get(key)
        if isinstance(raw, str) and raw:
            try:
                return parse_date(raw)
            except ValueError:
                problems.append(f"front matter {key}: {raw[:40]!r} is not an ISO date; the file's mtime is used")
                return None
    return None


def parse_date(raw: str) -> datetime:
    """An ISO date or date-time as an aware UTC datetime (a bare date is midnight UTC)."""
    if len(raw) == 10:
        d = date.fromisoformat(raw)
        return datetime(d.year, d.month, d.day, tzinfo=UTC)
    dt = datetime.fromisoformat(raw)
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)
