"""The wiki: areas, agent writes as commits git itself can read, promotion only by a token for that move."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from vault_support import SCOPE, git, snapshot, write

from reverie import InvalidInputError, ManualClock, Memory, NotFoundError
from reverie.vault import PromotionTokenError, Vault, VaultAreaError, VaultPathError


def test_a_missing_folder_becomes_a_git_repository_git_itself_reads(tmp_path: Path, mem: Memory) -> None:
    v = Vault(tmp_path / "new" / "wiki", memory=mem, scope=SCOPE)
    assert (v.root / ".git").is_dir()
    v.write_note("people/alice/first.md", "# First\n", person="alice", why="to start")
    git(v, "fsck", "--strict")
    assert git(v, "log", "--format=%s").splitlines() == ["agent: add people/alice/first.md for alice"]


def test_every_agent_write_is_one_commit_saying_what_and_why(vault: Vault) -> None:
    vault.write_note("people/alice/plan.md", "# Plan\nv1\n", person="alice", why="Alice asked for a plan")
    vault.write_note("people/alice/plan.md", "# Plan\nv2\n", person="alice", why="she moved the deadline")
    bodies = git(vault, "log", "--format=%B%x00").split("\x00")
    assert bodies[0].strip() == "agent: update people/alice/plan.md for alice\n\nWhy: she moved the deadline"
    assert bodies[1].strip() == "agent: add people/alice/plan.md for alice\n\nWhy: Alice asked for a plan"
    assert git(vault, "status", "--porcelain") == ""


def test_rewriting_the_same_text_makes_no_empty_commit(vault: Vault) -> None:
    first = vault.write_note("people/bob/a.md", "same\n", person="bob", why="x")
    assert vault.write_note("people/bob/a.md", "same\n", person="bob", why="again") is None
    assert [c for c, _ in vault.log()] == [first]


def test_commit_times_come_from_the_injected_clock(vault: Vault, clock: ManualClock) -> None:
    vault.write_note("people/bob/a.md", "x\n", person="bob", why="x")
    assert git(vault, "log", "-1", "--format=%aI").strip() == clock.now().isoformat()


@pytest.mark.parametrize(
    ("path", "person"),
    [("curated/rules.md", "alice"), ("people/bob/notes.md", "alice"), ("topics/x.md", "alice")],
)
def test_the_agent_cannot_write_outside_the_persons_area(vault: Vault, path: str, person: str) -> None:
    before = snapshot(vault)
    with pytest.raises(VaultAreaError) as err:
        vault.write_note(path, "text\n", person=person, why="try")
    assert err.value.code == "vault_area"
    assert snapshot(vault) == before and vault.log() == []


@pytest.mark.parametrize(
    "path", ["../escape.md", "/tmp/abs.md", "people/alice/../../x.md", ".git/config.md", "a\\b.md"]
)
def test_a_path_that_could_leave_the_vault_is_refused(vault: Vault, path: str) -> None:
    with pytest.raises(VaultPathError) as err:
        vault.write_note(path, "x", person="alice", why="try")
    assert err.value.code == "vault_path"
    assert not (vault.root.parent / "escape.md").exists()


def test_a_write_through_a_symlinked_folder_leaving_the_vault_is_refused(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault.root / "people").mkdir()
    (vault.root / "people" / "alice").symlink_to(outside)
    with pytest.raises(VaultPathError):
        vault.write_note("people/alice/x.md", "x", person="alice", why="try")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"person": "Alice Smith"}, InvalidInputError),
        ({"why": "  "}, InvalidInputError),
        ({"text": "bin\x00ary"}, InvalidInputError),
        ({"text": "x" * 2_000_000}, InvalidInputError),
    ],
)
def test_bad_write_input_is_refused_and_changes_nothing(vault: Vault, kwargs: dict[str, str], error: type) -> None:
    args = {"text": "ok\n", "person": "alice", "why": "because"} | kwargs
    with pytest.raises(error):
        vault.write_note("people/alice/n.md", args["text"], person=args["person"], why=args["why"])
    assert not (vault.root / "people").exists() and vault.log() == []


# -- promotion -----------------------------------------------------------------------------
@pytest.fixture
def drafted(vault: Vault) -> Vault:
    vault.write_note("people/alice/idea.md", "# Idea\nA good one.\n", person="alice", why="draft")
    vault.write_note("people/alice/other.md", "# Other\n", person="alice", why="draft")
    return vault


def test_a_token_moves_exactly_that_note_into_curated_in_one_commit(drafted: Vault) -> None:
    token = drafted.request_promotion("people/alice/idea.md", "alice")
    assert drafted.promote("people/alice/idea.md", token) == "curated/idea.md"
    assert (drafted.root / "curated/idea.md").read_text() == "# Idea\nA good one.\n"
    assert not (drafted.root / "people/alice/idea.md").exists()
    subject = git(drafted, "log", "-1", "--format=%B")
    assert subject.startswith("promote people/alice/idea.md to curated/idea.md") and "Confirmed by alice" in subject
    assert git(drafted, "status", "--porcelain") == ""
    git(drafted, "fsck", "--strict")


def test_promoting_a_note_a_person_wrote_by_hand_and_never_committed(vault: Vault) -> None:
    write(vault, "people/alice/by-hand.md", "# By hand\n")
    token = vault.request_promotion("people/alice/by-hand.md", "alice")
    assert vault.promote("people/alice/by-hand.md", token) == "curated/by-hand.md"
    # Two commits, each with its true author: Alice's text (she confirmed it with her token), then the move.
    assert git(vault, "log", "--format=%an", "--", "people/alice/by-hand.md").splitlines() == ["reverie agent", "alice"]
    assert git(vault, "show", "--name-status", "--no-renames", "--format=", "HEAD~1").split() == [
        "A",
        "people/alice/by-hand.md",
    ]
    assert git(vault, "show", "--name-status", "--no-renames", "--format=", "HEAD").split() == [
        "A",
        "curated/by-hand.md",
        "D",
        "people/alice/by-hand.md",
    ]
    assert git(vault, "status", "--porcelain") == ""


def _refused(v: Vault, note: str, token: str) -> None:
    before, log = snapshot(v), v.log()
    with pytest.raises(PromotionTokenError) as err:
        v.promote(note, token)
    assert err.value.code == "promotion_token"
    assert snapshot(v) == before and v.log() == log


def test_a_wrong_token_changes_nothing(drafted: Vault) -> None:
    drafted.request_promotion("people/alice/idea.md", "alice")
    _refused(drafted, "people/alice/idea.md", "not-the-token")


def test_a_token_for_another_note_changes_nothing(drafted: Vault) -> None:
    token = drafted.request_promotion("people/alice/other.md", "alice")
    _refused(drafted, "people/alice/idea.md", token)


def test_a_reused_token_changes_nothing(drafted: Vault) -> None:
    token = drafted.request_promotion("people/alice/idea.md", "alice")
    drafted.promote("people/alice/idea.md", token)
    drafted.write_note("people/alice/idea.md", "# Idea\nA good one.\n", person="alice", why="again")
    _refused(drafted, "people/alice/idea.md", token)


def test_an_expired_token_changes_nothing(drafted: Vault, clock: ManualClock) -> None:
    token = drafted.request_promotion("people/alice/idea.md", "alice")
    clock.advance(days=8)
    _refused(drafted, "people/alice/idea.md", token)


def test_a_note_edited_after_its_token_was_issued_needs_a_new_confirmation(drafted: Vault) -> None:
    token = drafted.request_promotion("people/alice/idea.md", "alice")
    drafted.write_note("people/alice/idea.md", "# Idea\nChanged after confirming.\n", person="alice", why="edit")
    _refused(drafted, "people/alice/idea.md", token)


def test_a_person_can_only_request_promotion_of_their_own_notes(drafted: Vault) -> None:
    with pytest.raises(VaultAreaError):
        drafted.request_promotion("people/alice/idea.md", "bob")
    with pytest.raises(NotFoundError):
        drafted.request_promotion("people/alice/missing.md", "alice")


def test_promotion_never_overwrites_a_curated_note(drafted: Vault) -> None:
    write(drafted, "curated/idea.md", "# People's version\n")
    token = drafted.request_promotion("people/alice/idea.md", "alice")
    with pytest.raises(VaultAreaError):
        drafted.promote("people/alice/idea.md", token)
    assert (drafted.root / "curated/idea.md").read_text() == "# People's version\n"
    assert (drafted.root / "people/alice/idea.md").exists()


def test_token_ttl_is_configurable(tmp_path: Path, mem: Memory, clock: ManualClock) -> None:
    v = Vault(tmp_path / "w", memory=mem, scope=SCOPE, token_ttl=timedelta(minutes=5))
    v.write_note("people/alice/n.md", "n\n", person="alice", why="x")
    token = v.request_promotion("people/alice/n.md", "alice")
    clock.advance(minutes=6)
    _refused(v, "people/alice/n.md", token)


def test_a_token_never_starts_with_a_dash_a_command_line_would_read_as_an_option(vault: Vault) -> None:
    # Regression: `reverie vault promote NOTE -x…` failed now and then (token_urlsafe can start with "-").
    vault.write_note("people/alice/n.md", "n\n", person="alice", why="x")
    tokens = [vault.request_promotion("people/alice/n.md", "alice") for _ in range(150)]
    assert not [t for t in tokens if t.startswith("-")] and len(set(tokens)) == 150


@pytest.mark.parametrize("name", ["", "a:b", "tab\there", "x" * 101])
def test_a_bad_vault_name_is_refused_before_anything_is_created(tmp_path: Path, mem: Memory, name: str) -> None:
    with pytest.raises(InvalidInputError, match="vault name"):
        Vault(tmp_path / "w", memory=mem, scope=SCOPE, name=name)
    assert not (tmp_path / "w").exists()
