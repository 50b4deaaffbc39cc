"""Parsing notes: wikilinks with aliases, |labels and #headings; front matter; never a crash."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from reverie.vault.graph import LinkGraph
from reverie.vault.parse import parse_note


def test_wikilinks_keep_target_heading_label_and_line() -> None:
    n = parse_note(
        "a.md", "# A\n\nsee [[Sleep And Memory#Naps|a nap]] and ![[pic.png]]\n`[[code]]`\n```\n[[fenced]]\n```\n"
    )
    assert [(x.target, x.heading, x.label, x.line) for x in n.links] == [
        ("Sleep And Memory", "Naps", "a nap", 3),
        ("pic.png", None, None, 3),
    ]


def test_links_resolve_by_path_file_name_or_alias_case_insensitively() -> None:
    notes = [
        parse_note("research/sleep-and-memory.md", "---\naliases: [rest, Slow-wave]\n---\n# S\n"),
        parse_note("ops/sleep-and-memory.md", "# other one\n"),
        parse_note("ops/x.md", "[[SLEEP-AND-MEMORY]] [[rest]] [[research/sleep-and-memory]] [[pic.png]] [[nope]]"),
    ]
    g = LinkGraph(notes)
    assert g.out["ops/x.md"] == {"ops/sleep-and-memory.md", "research/sleep-and-memory.md"}  # own folder first
    assert [d.target for d in g.dead] == ["nope"]  # an attachment is not a dead link


def test_front_matter_lists_tags_aliases_and_dates() -> None:
    n = parse_note(
        "n.md", "---\ntitle: 'Quoted'\ntags:\n  - one\n  - two\naliases: [a, \"b\"]\ndate: 2024-02-03\n---\n#three x"
    )
    assert (n.title, n.tags, n.aliases) == ("Quoted", ("one", "two", "three"), ("a", "b"))
    assert n.dated == datetime(2024, 2, 3, tzinfo=UTC) and n.body_line == 9


def test_a_bad_date_falls_back_to_mtime_with_a_reason() -> None:
    n = parse_note("n.md", "---\nupdated: last tuesday\n---\nx")
    assert n.dated is None and "not an ISO date" in n.problems[0]


def test_front_matter_after_a_byte_order_mark_is_read() -> None:
    """Outside probe 7, finding 14: a note saved with a UTF-8 BOM (Windows editors) lost its front matter."""
    text = "---\nupdated: 2021-01-01\ntags: [ops]\naliases: [Runbook]\n---\nRestart the queue nightly.\n"
    plain, bom = parse_note("p.md", text), parse_note("b.md", "\ufeff" + text)
    assert (bom.dated, bom.tags, bom.aliases, bom.body, bom.body_line, bom.problems) == (
        plain.dated,
        ("ops",),
        ("Runbook",),
        plain.body,
        plain.body_line,
        (),
    )


def test_a_decomposed_file_name_is_a_link_target_typed_composed() -> None:
    """Outside probe 7, finding 13: macOS stores 'Café notes.md' decomposed (NFD); a link typed NFC must find it."""
    nfd = unicodedata.normalize("NFD", "Café notes")
    notes = [
        parse_note("hub.md", "# Hub\nSee [[Café notes]] and [[" + nfd + "]] and [[r\u00e9sum\u00e9]].\n"),
        parse_note(nfd + ".md", "---\naliases: [" + unicodedata.normalize("NFD", "résumé") + "]\n---\nbody\n"),
    ]
    g = LinkGraph(notes)
    assert g.dead == [] and g.out["hub.md"] == {nfd + ".md"}


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_parsing_any_text_never_raises(text: str) -> None:
    n = parse_note("any.md", text)
    assert n.title and all(x.target for x in n.links)


_NAME = st.text(alphabet="abcdefghij -_", min_size=1, max_size=12).filter(lambda s: s.strip() == s and s.strip())


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_NAME, st.one_of(st.none(), _NAME)), min_size=1, max_size=6))
def test_every_written_link_is_read_back_with_its_label(links: list[tuple[str, str | None]]) -> None:
    body = "\n".join(f"[[{t}|{lab}]]" if lab else f"[[{t}]]" for t, lab in links)
    got = parse_note("n.md", body).links
    assert [(x.target, x.label, x.line) for x in got] == [(t, lab, i + 1) for i, (t, lab) in enumerate(links)]
