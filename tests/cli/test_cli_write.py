"""The writing commands: remember, revise, forget, dismiss, undismiss, link, pause, resume."""

from __future__ import annotations

from collections.abc import Callable

from cli_support import Cli


def test_remember_prints_the_new_id_and_creates_the_store(run: Cli) -> None:
    assert not run.db.exists()
    out = run.ok("remember", "Alice likes tea").stdout
    assert out.startswith("remembered ")
    item_id = out.split()[1]
    assert run.json("show", item_id)["item"]["text"] == "Alice likes tea"


def test_remember_json_carries_every_option(run: Cli) -> None:
    doc = run.json(
        "remember",
        "Alice is allergic to peanuts",
        "--kind=assertion",
        "--source=user_stated",
        "--key=alice.allergy",
        "--value=peanuts",
        "--author=alice",
        "--tag=health",
        "--tag=food",
        '--meta={"turn": 3, "nested": {"ok": true}}',
        "--importance=0.9",
        "--authority=0.6",
        "--confidence=0.8",
        "--durability=0.7",
        "--valid-from=2024-01-01",
    )
    item = doc["item"]
    assert doc["action"] == "remembered"
    assert (item["kind"], item["source"], item["key"], item["value"], item["author"]) == (
        "assertion",
        "user_stated",
        "alice.allergy",
        "peanuts",
        "alice",
    )
    assert item["tags"] == ["health", "food"]
    assert item["meta"] == {"turn": 3, "nested": {"ok": True}}
    assert item["scores"] | {"value": 0.5} == {
        "importance": 0.9,
        "authority": 0.6,
        "confidence": 0.8,
        "durability": 0.7,
        "value": 0.5,
    }
    assert item["valid_from"] == "2024-01-01T00:00:00.000000Z"  # no offset: read as UTC


def test_remember_again_corroborates(run: Cli) -> None:
    first = run.remember("Alice likes tea")
    out = run.ok("remember", "alice likes tea").stdout
    assert out.strip() == f"corroborated {first} (evidence 2)"


def test_remember_with_parent_and_scope_after_the_command(run: Cli) -> None:
    parent = run.remember("Bob is vegan", scope="user:bob")
    doc = run.json("remember", "Bob skips the cheese board", f"--parent={parent}", "--scope", "user:bob", scope=None)
    assert doc["item"]["parents"] == [parent]
    assert doc["item"]["scope"] == "user:bob"


def test_revise_human_and_json(run: Cli) -> None:
    old = run.remember("Alice is allergic to peanuts", "--key=alice.allergy", "--value=peanuts")
    out = run.ok("revise", old, "Alice is allergic to tree nuts", "--reason=doctor", "--value=tree nuts").stdout
    new = out.split()[3]
    assert out.strip() == f"revised {old} -> {new} (version 2)"
    doc = run.json("revise", new, "Alice is allergic to cashews", "--expected-version=2")
    assert doc["old_id"] == new
    assert doc["item"]["text"] == "Alice is allergic to cashews"
    # not kept: the new text no longer states it (#13, tests/beliefs/test_revise_hygiene.py)
    assert doc["item"]["value"] is None and doc["item"]["key"] == "alice.allergy"


def test_revise_with_a_stale_expected_version_is_a_conflict(run: Cli) -> None:
    item = run.remember("Alice likes tea")
    run.fails(1, "version_conflict", "revise", item, "Alice likes coffee", "--expected-version=7")


def test_forget_closes_and_a_second_forget_is_refused(run: Cli) -> None:
    item = run.remember("Alice likes tea")
    assert run.ok("forget", item, "--reason=changed her mind").stdout.strip() == f"forgot {item}"
    assert run.json("show", item)["item"]["status"] == "forgotten"
    run.fails(1, "already_closed", "forget", item)


def test_dismiss_refuses_relearning_until_undismissed(run: Cli) -> None:
    item = run.remember("Alice owns a cat")
    assert run.json("dismiss", item, "--reason=wrong")["item"]["status"] == "dismissed"
    run.fails(1, "dismissed_value", "remember", "Alice owns a cat")
    assert run.ok("undismiss", "Alice owns a cat").stdout.strip() == "undismissed"
    run.remember("Alice owns a cat")


def test_undismiss_by_key_and_value(run: Cli) -> None:
    item = run.remember("Alice lives in Paris", "--key=alice.city", "--value=Paris")
    run.ok("dismiss", item)
    run.fails(1, "dismissed_value", "remember", "Alice resides in Paris", "--key=alice.city", "--value=paris")
    run.ok("undismiss", "--key=alice.city", "--value=Paris")
    run.remember("Alice resides in Paris", "--key=alice.city", "--value=paris")


def test_undismiss_of_something_never_dismissed_is_not_found(run: Cli) -> None:
    run.remember("Alice likes tea")
    run.fails(1, "not_found", "undismiss", "Alice likes coffee")


def test_link_human_and_json(run: Cli, seeded: Callable[[], dict[str, str]]) -> None:
    ids = seeded()
    out = run.ok("link", ids["satay"], ids["allergy"], "supports", "--author=bob", "--authority=0.8").stdout
    assert f"linked {ids['satay']} --supports--> {ids['allergy']}" in out
    edge = run.json("link", ids["satay"], ids["tea"], "about", '--meta={"why": "test"}')["edge"]
    assert (edge["src"], edge["dst"], edge["type"]) == (ids["satay"], ids["tea"], "about")
    assert edge["meta"] == {"why": "test"}


def test_pause_refuses_learning_and_resume_allows_it(run: Cli) -> None:
    assert "paused" in run.ok("pause", "--reason=review").stdout
    assert run.json("summary")["learning_paused"] is True
    run.fails(1, "learning_paused", "remember", "Alice likes tea")
    assert run.json("resume")["learning_paused"] is False
    run.remember("Alice likes tea")
