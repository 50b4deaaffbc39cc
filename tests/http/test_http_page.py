"""The review page: escaping, CSRF, and that its forms really change the memory."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from xml.etree import ElementTree

import pytest
from fastapi.testclient import TestClient
from http_helpers import SCOPE, assert_error, open_conflict
from hypothesis import given, settings
from hypothesis import strategies as st

from reverie import ManualClock, Memory
from reverie.http import graph, humane
from reverie.model.clock import from_iso
from reverie.model.item import Item

XSS = "<script>alert(1)</script>"


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, "no CSRF field on the page"
    return match.group(1)


def post_form(client: TestClient, action: str, page: str, **fields: str) -> object:
    return client.post(f"/ui/{action}", data={"csrf": csrf_of(page), "scope": SCOPE, **fields}, follow_redirects=False)


def test_page_renders_counts_list_and_picker(client: TestClient, mem: Memory) -> None:
    mem.remember("Alice is allergic to peanuts", scope=SCOPE, kind="assertion", source="user_stated")
    mem.remember("other scope", scope="user:bob")
    r = client.get("/", params={"scope": SCOPE})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    assert "Alice is allergic to peanuts" in html and "user:bob" in html
    assert "by tier" in html and "subconscious" in html and "user_stated" in html
    assert '<script src="/static/review.js"' in html and "<style" not in html
    assert "reverie_csrf" in r.headers["set-cookie"] and "samesite=strict" in r.headers["set-cookie"].lower()


def test_stored_script_is_escaped_everywhere(client: TestClient, mem: Memory) -> None:
    item = mem.remember(XSS, scope=SCOPE, tags=[XSS], author=XSS)
    mem.remember("peer", scope=SCOPE)
    for html in (
        client.get("/", params={"scope": SCOPE}).text,
        client.get("/", params={"scope": SCOPE, "q": XSS}).text,
        client.get(f"/items/{item.id}", params={"scope": SCOPE}).text,
    ):
        assert XSS not in html and "<script>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_search_uses_recall_without_recording_use(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice is allergic to peanuts", scope=SCOPE)
    mem.remember("Bob likes trains", scope=SCOPE)
    html = client.get("/", params={"scope": SCOPE, "q": "peanuts"}).text
    assert "Alice is allergic to peanuts" in html and "Bob likes trains" not in html
    assert mem.get(item.id, scope=SCOPE).last_used_query is None


def test_csrf_refused_without_token_accepted_with_it(client: TestClient, mem: Memory) -> None:
    item = mem.remember("keep me", scope=SCOPE)
    page = client.get("/", params={"scope": SCOPE}).text
    r = client.post("/ui/dismiss", data={"scope": SCOPE, "id": item.id}, follow_redirects=False)
    assert_error(r, 403, "forbidden")
    r = client.post("/ui/dismiss", data={"csrf": "x" * 43, "scope": SCOPE, "id": item.id})
    assert_error(r, 403, "forbidden")
    fresh = TestClient(client.app, base_url="http://127.0.0.1")  # no cookie at all
    with fresh:
        assert_error(fresh.post("/ui/dismiss", data={"csrf": csrf_of(page), "scope": SCOPE, "id": item.id}), 403)
    assert mem.get(item.id, scope=SCOPE).is_current
    assert post_form(client, "dismiss", page, id=item.id).status_code == 303  # type: ignore[attr-defined]
    assert not mem.get(item.id, scope=SCOPE).is_current


def test_dismiss_via_page_removes_from_recall(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice is allergic to peanuts", scope=SCOPE)
    assert [h.item.id for h in mem.recall("peanuts", scope=SCOPE)] == [item.id]
    page = client.get(f"/items/{item.id}", params={"scope": SCOPE}).text
    r = post_form(client, "dismiss", page, id=item.id, reason="not true")
    assert r.headers["location"].startswith(f"/items/{item.id}")  # type: ignore[attr-defined]
    assert mem.recall("peanuts", scope=SCOPE) == []
    assert mem.get(item.id, scope=SCOPE).status == "dismissed"


def test_resolve_via_page_closes_the_conflict(client: TestClient, mem: Memory) -> None:
    a = mem.remember("Alice lives in Paris", scope=SCOPE)
    b = mem.remember("Alice lives in Rome", scope=SCOPE)
    edge_id = open_conflict(mem, a.id, b.id)
    page = client.get("/", params={"scope": SCOPE}).text
    assert "Contradictions (1)" in page and "keep A" in page
    r = post_form(client, "resolve", page, edge_id=edge_id, keep=b.id, reason="asked")
    assert r.status_code == 303  # type: ignore[attr-defined]
    assert mem.contradictions(scope=SCOPE) == []
    assert not mem.get(a.id, scope=SCOPE).is_current and mem.get(b.id, scope=SCOPE).is_current
    assert "Contradictions (0)" in client.get("/", params={"scope": SCOPE}).text


def test_not_a_conflict_via_page_keeps_both_and_stays_closed(client: TestClient, mem: Memory) -> None:
    """Probe 7 #5: the page could only resolve (supersede one of two true claims)."""
    a = mem.remember("The pool opens at 7 am.", scope=SCOPE)
    b = mem.remember("The pool opens at 9 am.", scope=SCOPE)
    edge_id = open_conflict(mem, a.id, b.id)
    page = client.get("/", params={"scope": SCOPE}).text
    assert "Contradictions (1)" in page and "not a conflict" in page
    r = post_form(client, "dismiss_contradiction", page, edge_id=edge_id, reason="summer and winter hours")
    assert r.status_code == 303  # type: ignore[attr-defined]
    assert mem.contradictions(scope=SCOPE) == []
    assert mem.get(a.id, scope=SCOPE).is_current and mem.get(b.id, scope=SCOPE).is_current
    mem.dream(scope=SCOPE)
    assert "Contradictions (0)" in client.get("/", params={"scope": SCOPE}).text


def test_pause_switch_toggles_learning(client: TestClient, mem: Memory) -> None:
    mem.remember("x", scope=SCOPE)
    page = client.get("/", params={"scope": SCOPE}).text
    assert "pause learning" in page
    post_form(client, "learning", page, state="pause", reason="reviewing")
    assert mem.summary(scope=SCOPE)["learning_paused"] is True
    page = client.get("/", params={"scope": SCOPE}).text
    assert "resume learning" in page
    post_form(client, "learning", page, state="resume")
    assert mem.summary(scope=SCOPE)["learning_paused"] is False
    assert_error(post_form(client, "learning", page, state="sideways"), 400, "invalid_input")  # type: ignore[arg-type]


def test_detail_page_actions(client: TestClient, mem: Memory) -> None:
    parent = mem.remember("Alice works at Acme", scope=SCOPE)
    item = mem.remember("Alice commutes to Acme", scope=SCOPE, parents=[parent.id], kind="derivation")
    page = client.get(f"/items/{parent.id}", params={"scope": SCOPE}).text
    assert "Derived from this" in page and "Alice commutes to Acme" in page and "Versions" in page
    post_form(client, "scores", page, id=item.id, importance="0.9", reason="matters")
    assert mem.get(item.id, scope=SCOPE).scores.importance == 0.9
    post_form(client, "promote", page, id=item.id, to="durable")
    assert mem.get(item.id, scope=SCOPE).tier == "durable"
    post_form(client, "promote", page, id=item.id, to="manual")
    assert mem.get(item.id, scope=SCOPE).source == "manual"
    r = post_form(client, "revise", page, id=parent.id, text="Alice works at Initech", reason="new job")
    new_id = r.headers["location"].split("/items/")[1].split("?")[0]  # type: ignore[attr-defined]
    assert mem.get(new_id, scope=SCOPE).text == "Alice works at Initech"
    post_form(client, "forget", page, id=item.id)
    assert mem.get(item.id, scope=SCOPE).status == "forgotten"
    assert "no longer be changed" in client.get(f"/items/{item.id}", params={"scope": SCOPE}).text
    assert_error(post_form(client, "scores", page, id=item.id, value="lots"), 400)  # type: ignore[arg-type]
    assert_error(post_form(client, "nope", page), 404)  # type: ignore[arg-type]


def test_page_errors_use_the_error_shape(client: TestClient) -> None:
    assert_error(client.get("/items/00000000-0000-4000-8000-000000000000", params={"scope": SCOPE}), 404)
    assert_error(client.get("/items/x"), 400, "invalid_input")  # scope missing
    assert_error(client.get("/static/nope.js"), 404)
    assert_error(client.post("/ui/dismiss", json={"id": "x"}), 415)


def test_empty_store_and_static(client: TestClient) -> None:
    assert "No scopes yet" in client.get("/").text
    js = client.get("/static/review.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert client.get("/static/review.css").headers["content-type"].startswith("text/css")


def test_login_cookie_opens_the_page(make_client: Callable[..., TestClient], mem: Memory) -> None:
    mem.remember("secret fact", scope=SCOPE)
    c = make_client(token="s3cret")
    login = c.get("/login").text
    assert_error(c.post("/login", data={"csrf": csrf_of(login), "token": "wrong"}), 401)
    r = c.post("/login", data={"csrf": csrf_of(login), "token": "s3cret"}, follow_redirects=False)
    assert r.status_code == 303
    assert "secret fact" in c.get("/", params={"scope": SCOPE}).text
    assert c.get(f"/v1/scopes/{SCOPE}/summary").status_code == 200  # the cookie also opens the API


def test_page_shows_what_the_last_dream_pass_did(client: TestClient, mem: Memory) -> None:
    for text in (
        "Alice drinks green tea every morning",
        "Alice drinks green tea every morning at home",
        "Every morning Alice drinks green tea",
    ):
        mem.remember(text, scope=SCOPE)
    assert "Last dream pass" not in client.get("/", params={"scope": SCOPE}).text
    report = mem.dream(scope=SCOPE)
    reasons = [a["reason"] for a in report.to_dict()["actions"]]
    assert reasons, "the fixture population should give the pass something to do"
    html_text = client.get("/", params={"scope": SCOPE}).text
    assert "Last dream pass" in html_text
    assert html_lib.escape(reasons[0]) in html_text


def test_the_dream_panel_counts_the_spared_items_and_quotes_the_first_reasons(
    client: TestClient, mem: Memory, clock: ManualClock
) -> None:
    """Cold but protected items (a policy, a manual fact, a parent others derive from) are
    spared by the tier step; the panel says how many and why, escaped like every reason."""
    policy = mem.remember(
        "Never deploy <billing> on Fridays", scope=SCOPE, kind="policy", source="user_stated", confidence=0.95
    )
    mem.remember_manual("Alice is allergic to peanuts", scope=SCOPE, kind="assertion")
    parent = mem.remember("The staging database runs PostgreSQL 15", scope=SCOPE, kind="assertion")
    mem.remember("Staging supports JSON path queries", scope=SCOPE, source="inferred", parents=[parent.id])
    clock.advance(days=40)
    report = mem.dream(scope=SCOPE)
    assert len(report.spared) == 3
    html_text = client.get("/", params={"scope": SCOPE}).text
    assert "Spared by a protection (3)" in html_text
    for entry in report.spared:
        assert html_lib.escape(entry["reason"]) in html_text
        assert html_lib.escape(mem.get(entry["id"], scope=SCOPE).text) in html_text  # named by its text
    assert "Never deploy &lt;billing&gt; on Fridays" in html_text and "<billing>" not in html_text
    assert policy.id in html_text  # as the link to its page


def test_a_scope_with_a_slash_works_through_the_pages_own_links_and_forms(client: TestClient, mem: Memory) -> None:
    scope = "team/alpha"
    item = mem.remember("alpha's deploy key is blue", scope=scope)
    mem.remember("the parent team's secret", scope="team")
    home = client.get("/", params={"scope": scope}).text
    assert "alpha&#x27;s deploy key is blue" in home and "the parent team" not in home
    # The page builds its links itself: the scope travels percent-encoded in the query string.
    link = html_lib.unescape(re.search(r'<a href="(/items/[^"]+)">alpha', home).group(1))  # type: ignore[union-attr]
    assert link == f"/items/{item.id}?scope=team%2Falpha"
    detail = client.get(link)
    assert detail.status_code == 200 and "alpha&#x27;s deploy key is blue" in detail.text
    assert 'name="scope" value="team/alpha"' in detail.text  # the hidden field of every action form
    r = client.post(
        "/ui/dismiss", data={"csrf": csrf_of(detail.text), "scope": scope, "id": item.id}, follow_redirects=False
    )
    assert r.status_code == 303 and r.headers["location"] == f"/items/{item.id}?scope=team%2Falpha&done=dismiss"
    assert mem.get(item.id, scope=scope).status == "dismissed"
    # The parent scope neither showed nor lost anything, and cannot open the child's item.
    assert mem.summary(scope="team")["current"] == 1
    assert_error(client.get(f"/items/{item.id}", params={"scope": "team"}), 404, "not_found")
    assert "alpha" not in client.get("/", params={"scope": "team"}).text.split("<main>")[1]


def test_the_list_filters_by_kind_source_and_tier(client: TestClient, mem: Memory) -> None:
    mem.remember("Alice likes green tea", scope=SCOPE, kind="trait", source="user_stated")
    mem.remember("Alice drank green tea on Monday", scope=SCOPE, kind="episodic")
    cold = mem.remember("Alice once had green tea in Kyoto", scope=SCOPE, kind="episodic")
    mem.set_tier(cold.id, "subconscious", scope=SCOPE)

    def texts(**params: str) -> list[str]:
        html = client.get("/", params={"scope": SCOPE, **params}).text
        section = html.split('<section class="list">')[1].split("</section>")[0]
        return sorted(
            html_lib.unescape(t)
            for t in re.findall(r'<td class="text" data-label="memory"><a href="/items/[^"]+">([^<]+)</a>', section)
        )

    assert texts() == ["Alice drank green tea on Monday", "Alice likes green tea", "Alice once had green tea in Kyoto"]
    assert texts(kind="episodic") == ["Alice drank green tea on Monday", "Alice once had green tea in Kyoto"]
    assert texts(source="user_stated") == ["Alice likes green tea"]
    assert texts(kind="episodic", tier="subconscious") == ["Alice once had green tea in Kyoto"]
    assert texts(kind="", source="", tier="") == texts()  # "any" in every select
    # Search honours the filters too, and a chosen subconscious tier is searched.
    assert texts(q="green tea", kind="trait") == ["Alice likes green tea"]
    assert texts(q="green tea", tier="subconscious") == ["Alice once had green tea in Kyoto"]
    assert "Kyoto" not in str(texts(q="green tea"))
    page = client.get("/", params={"scope": SCOPE, "kind": "trait"}).text
    assert '<option value="trait" selected>trait</option>' in page
    assert_error(client.get("/", params={"scope": SCOPE, "tier": "lukewarm"}), 400, "invalid_input")  # a typo


def test_an_unknown_tier_is_refused_alike_by_the_list_the_search_and_the_json_api(
    client: TestClient, mem: Memory
) -> None:
    """Regression: the page's search refused an unknown tier (400) while its list showed an empty
    table for the same filter, and the JSON list an empty page. The tiers are a closed set, so an
    unknown one is a typo, not an empty selection: every path now refuses it as the JSON API's
    recall always did (400 ``invalid_input``, naming the tiers there are)."""
    mem.remember("Alice likes green tea", scope=SCOPE)
    v1 = f"/v1/scopes/{SCOPE}"
    recall = assert_error(client.post(f"{v1}/recall", json={"query": "tea", "tiers": ["lukewarm"]}), 400)
    for response in (
        client.get("/", params={"scope": SCOPE, "tier": "lukewarm"}),
        client.get("/", params={"scope": SCOPE, "tier": "lukewarm", "q": "green tea"}),
    ):
        body = assert_error(response, 400, recall["code"])
        assert "Input should be 'active', 'durable' or 'subconscious'" in body["error"], body
    # The JSON list refuses it in the query algebra's words, as MCP's list and ``reverie list`` do
    # (tests/test_face_options.py, h-faces33): a 400 too, its code a kind of invalid_input.
    body = assert_error(client.get(f"{v1}/items", params={"tier": "lukewarm"}), 400, "invalid_query")
    assert body["error"] == "unknown tier 'lukewarm'; use one of active, durable, subconscious", body
    # "any" (the empty choice of the select) and a real tier still list.
    assert client.get("/", params={"scope": SCOPE, "tier": ""}).status_code == 200
    assert client.get(f"{v1}/items", params={"tier": "active"}).json()["items"]


def test_a_pass_run_by_another_memory_on_the_file_shows_in_the_panel(
    client: TestClient, mem: Memory, memories: object, db_path: object, clock: ManualClock
) -> None:
    """As a cron ``reverie dream`` would: the page's own ``Memory`` never ran a pass, and shows
    the newest one recorded in the file, with its counts and its first reasons."""
    mem.remember("Alice drinks green tea every morning", scope=SCOPE)
    cron = memories.open(db_path)  # type: ignore[attr-defined]
    older = cron.dream(scope=SCOPE)  # one item: nothing to do
    for text in ("Alice drinks green tea every morning at home", "Every morning Alice drinks green tea"):
        mem.remember(text, scope=SCOPE)
    clock.advance(hours=1)
    newest = cron.dream(scope=SCOPE)
    cron.close()
    assert newest.actions and mem.last_dream_report is None
    html_text = client.get("/", params={"scope": SCOPE}).text
    panel = html_text[html_text.index('<section class="dream">') :]
    shown = re.findall(r'<p class="dream-summary">Ran <time datetime="([^"]+)"', panel)
    assert "Last dream pass" in panel and shown == [from_iso(newest.at).isoformat(timespec="seconds")]
    assert from_iso(older.at).isoformat(timespec="seconds") not in panel
    assert html_lib.escape(newest.actions[0].reason) in panel
    assert f"Actions ({len(newest.actions)})" in panel


def test_the_last_dream_report_is_shown_only_for_its_own_scope(client: TestClient, mem: Memory) -> None:
    for text in (
        "Alice drinks green tea every morning",
        "Alice drinks green tea every morning at home",
        "Every morning Alice drinks green tea",
    ):
        mem.remember(text, scope="team/alpha")
    mem.remember("the parent team's note", scope="team")
    mem.dream(scope="team/alpha")
    assert "Last dream pass" in client.get("/", params={"scope": "team/alpha"}).text
    other = client.get("/", params={"scope": "team"}).text
    assert "Last dream pass" not in other and "green tea" not in other


# -- issue #20: the page for people (items 4-8 at the HTTP level; the browser tests show them) --

HTML = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_a_bad_scope_shows_the_pages_own_error_to_a_browser_and_json_to_a_client(client: TestClient) -> None:
    """Regression: ``/?scope=<malformed>`` answered a person with raw JSON. A browser (it asks
    for text/html) now gets the page with the message; a client keeps the one JSON shape."""
    page = client.get("/", params={"scope": "not a scope!"}, headers=HTML)
    assert page.status_code == 400 and page.headers["content-type"].startswith("text/html")
    assert "That did not work" in page.text and "is malformed" in page.text and "invalid_scope" in page.text
    assert "<header>" in page.text  # the page's own frame
    assert_error(client.get("/", params={"scope": "not a scope!"}), 400, "invalid_scope")
    missing = client.get("/items/00000000-0000-4000-8000-000000000000", params={"scope": SCOPE}, headers=HTML)
    assert missing.status_code == 404 and "That did not work" in missing.text


def test_a_failed_action_shows_the_pages_own_error_to_a_browser(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice likes tea", scope=SCOPE)
    page = client.get(f"/items/{item.id}", params={"scope": SCOPE}).text
    data = {"csrf": csrf_of(page), "scope": SCOPE, "id": item.id, "value": "lots"}
    r = client.post("/ui/scores", data=data, headers=HTML, follow_redirects=False)
    assert r.status_code == 400 and "value must be a number" in r.text and "<header>" in r.text
    assert mem.get(item.id, scope=SCOPE).scores.value == item.scores.value  # nothing changed


def test_only_known_confirmations_are_shown(client: TestClient, mem: Memory) -> None:
    mem.remember("Alice likes tea", scope=SCOPE)
    assert "Learning resumed." in client.get("/", params={"scope": SCOPE, "done": "learning-resume"}).text
    forged = client.get("/", params={"scope": SCOPE, "done": "Your account is locked, call 555-0100"}).text
    assert 'class="flash"' not in forged and "555-0100" not in forged.split("<main>")[1]


def test_undismiss_via_the_form_lets_the_value_be_learned_again(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice hates jazz", scope=SCOPE, key="alice.music", value="no jazz")
    mem.dismiss(item.id, scope=SCOPE, reason="a joke")
    page = client.get(f"/items/{item.id}", params={"scope": SCOPE}).text
    assert 'action="/ui/undismiss"' in page
    r = post_form(client, "undismiss", page, id=item.id, reason="she meant it")
    assert r.headers["location"] == f"/items/{item.id}?scope=user%3Aalice&done=undismiss"  # type: ignore[attr-defined]
    assert mem.remember("Alice hates jazz", scope=SCOPE).is_current  # no longer refused
    live = mem.remember("x", scope=SCOPE)
    r = post_form(client, "undismiss", page, id=live.id)
    assert_error(r, 400, "invalid_input")  # only a dismissed item can be undismissed


def test_correct_it_changes_the_structured_value(client: TestClient, mem: Memory) -> None:
    item = mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    page = client.get(f"/items/{item.id}", params={"scope": SCOPE}).text
    assert 'name="key" value="alice.city"' in page and 'name="value" value="Paris"' in page
    r = post_form(client, "revise", page, id=item.id, text="Alice lives in Lyon", key="alice.city", value="Lyon")
    new_id = r.headers["location"].split("/items/")[1].split("?")[0]  # type: ignore[attr-defined]
    new = mem.get(new_id, scope=SCOPE)
    assert (new.text, new.key, new.value) == ("Alice lives in Lyon", "alice.city", "Lyon")
    detail = client.get(f"/items/{new.id}", params={"scope": SCOPE, "done": "revise"}).text
    assert "current · version 2 of 2" in detail and "alice.city = Lyon" in detail and "Corrected:" in detail


def test_the_status_filter_lists_closed_items(client: TestClient, mem: Memory) -> None:
    gone = mem.remember("Alice hated jazz", scope=SCOPE)
    mem.forget(gone.id, scope=SCOPE)
    mem.remember("Alice likes tea", scope=SCOPE)
    assert "Alice hated jazz" not in client.get("/", params={"scope": SCOPE}).text
    for status in ("forgotten", "all"):
        assert "Alice hated jazz" in client.get("/", params={"scope": SCOPE, "status": status}).text
    assert "Alice hated jazz" not in client.get("/", params={"scope": SCOPE, "status": "dismissed"}).text
    assert "Alice hated jazz" in client.get("/", params={"scope": SCOPE, "status": "all", "q": "jazz"}).text
    assert_error(client.get("/", params={"scope": SCOPE, "status": "gone"}), 400, "invalid_input")


def test_dream_preview_writes_nothing_and_the_run_button_records_a_pass(client: TestClient, mem: Memory) -> None:
    for text in ("Alice drinks green tea", "Alice drinks green tea at home", "Every day Alice drinks green tea"):
        mem.remember(text, scope=SCOPE)
    before = len(mem.events(scope=SCOPE))
    preview = client.get("/dream", params={"scope": SCOPE})
    assert preview.status_code == 200 and "If a dream pass ran now" in preview.text
    assert "a dry run: nothing was changed" in preview.text
    assert len(mem.events(scope=SCOPE)) == before and mem.dream_runs(scope=SCOPE) == []
    r = post_form(client, "dream", preview.text)
    assert r.headers["location"] == "/?scope=user%3Aalice&done=dream"  # type: ignore[attr-defined]
    assert len(mem.dream_runs(scope=SCOPE)) == 1


def test_the_item_page_shows_no_python_reprs_or_raw_times(client: TestClient, mem: Memory) -> None:
    parent = mem.remember("Alice is allergic to peanuts", scope=SCOPE)
    child = mem.remember("Alice avoids satay", scope=SCOPE, parents=[parent.id], source="inferred")
    mem.link(child.id, parent.id, "supports", scope=SCOPE)
    html = client.get(f"/items/{parent.id}", params={"scope": SCOPE}).text
    main = re.sub(r"<[^>]+>", " ", html.split("<main>")[1])  # the text a person reads
    for repr_ in ("{&#x27;", "[]", "None", "— → —"):
        assert repr_ not in main, repr_
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+", main)
    assert child.id not in main and "Alice avoids satay" in main  # links name the other item by its text


def _item(text: str, n: int = 0, **fields: object) -> Item:
    at = datetime(2025, 5, 3, 9, tzinfo=UTC)
    return Item(
        id=f"00000000-0000-4000-8000-{n:012d}",
        scope=SCOPE,
        text=text,
        kind="assertion",
        source="observed",
        recorded_at=at,
        updated_at=at,
        **fields,
    )  # type: ignore[arg-type]


SVG_TAGS = {"svg", "g", "a", "rect", "line", "text", "title"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=5))
def test_the_neighbourhood_svg_is_well_formed_whatever_the_texts(texts: list[str]) -> None:
    """Item text is attacker-controlled: whatever it holds, both pictures parse as XML, hold
    only the elements the layout draws, no event-handler attribute, and the text as text."""
    texts = [t for t in texts if t.strip() and "\x00" not in t and all(ord(c) >= 32 or c in "\t\n" for c in t)]
    if not texts:
        return
    centre, *rest = [_item(t, n) for n, t in enumerate(texts)]
    around = [graph.Neighbour(("supports",), other) for other in rest]
    figure = graph.svg(centre, around, SCOPE)
    for picture in re.findall(r"<svg .*?</svg>", figure, flags=re.S):
        root = ElementTree.fromstring(picture)
        tags = {el.tag.split("}")[-1] for el in root.iter()}
        assert tags <= SVG_TAGS, tags
        assert not [a for el in root.iter() for a in el.attrib if a.lower().startswith("on")]
        titles = [el.text for el in root.iter() if el.tag.endswith("title")]
        flat = re.sub(r"[\t\n]", " ", centre.text)  # XML normalises whitespace in attribute values
        assert root.attrib["aria-label"] == f"Neighbourhood of: {flat}"
        for other in rest:
            assert other.text in titles  # the full text is the tooltip, exactly as stored


def test_times_and_validity_read_as_words() -> None:
    now = datetime(2026, 3, 1, 12, tzinfo=UTC)
    assert humane.ago(now, now) == "just now"
    assert humane.ago(now - timedelta(minutes=5), now) == "5 minutes ago"
    assert humane.ago(now - timedelta(days=1), now) == "1 day ago"
    assert humane.ago(now - timedelta(days=45), now) == "1 month ago"
    assert humane.ago(now + timedelta(days=14), now) == "in 2 weeks"
    assert humane.exact(datetime(2024, 5, 3, 14, 5, 7, 123456, tzinfo=UTC)) == "3 May 2024, 14:05 UTC"
    may, march = datetime(2024, 5, 3, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)
    assert humane.validity(_item("x"), now) == "always"
    assert humane.validity(_item("x", valid_from=may), now) == "true since 3 May 2024"
    assert humane.validity(_item("x", valid_to=march), now) == "true until 1 Mar 2026 (ended)"
    assert humane.validity(_item("x", valid_from=may, valid_to=march), now) == "true 3 May 2024 – 1 Mar 2026 (ended)"
    assert humane.validity(_item("x", valid_from=now + timedelta(days=3)), now) == "true from 4 Mar 2026 (not yet)"
    assert str(humane.time(None, now)) == '<span class="never">never</span>'


def test_the_tier_chart_reads_a_bounded_number_of_items_and_says_so(
    client: TestClient, mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reverie.http import charts

    for text in ("Alice likes tea", "Alice likes jazz", "Alice likes trains"):
        mem.remember(text, scope=SCOPE)
    assert "the newest" not in client.get("/", params={"scope": SCOPE}).text
    monkeypatch.setattr(charts, "TIMELINE_ITEMS", 2)
    html = client.get("/", params={"scope": SCOPE}).text
    assert "by tier (each in its tier today); the newest 2 only" in html


def test_correct_it_refuses_an_emptied_key_and_writes_nothing(client: TestClient, mem: Memory) -> None:
    """A correction keeps its key (``revise`` has no way to drop one): emptying the key field is
    refused with what to do instead, not silently ignored."""
    item = mem.remember("Alice lives in Paris", scope=SCOPE, key="alice.city", value="Paris")
    page = client.get(f"/items/{item.id}", params={"scope": SCOPE}).text
    assert 'name="shown_key" value="alice.city"' in page and 'name="shown_value" value="Paris"' in page
    fields = {"id": item.id, "text": "Alice lives in Lyon", "key": "", "shown_key": "alice.city"}
    r = post_form(client, "revise", page, **fields, value="Paris", shown_value="Paris")
    assert "keeps its key" in assert_error(r, 400, "invalid_input")["error"]
    assert mem.get(item.id, scope=SCOPE).is_current and len(mem.list(scope=SCOPE).items) == 1


def test_more_link_pages_on_past_items_forgotten_meanwhile(client: TestClient, mem: Memory, clock: ManualClock) -> None:
    """Probe 5 #4: the "more…" link held an offset, so items forgotten after page 1 hid as many unseen ones."""
    ids = set()
    for n in range(60):
        ids.add(mem.remember(f"review note number {n}", scope=SCOPE).id)
        clock.advance(seconds=1)
    first = client.get("/", params={"scope": SCOPE})
    shown = set(re.findall(r"/items/([0-9a-f-]{36})", first.text)) & ids
    assert len(shown) == 50
    for item_id in shown:  # reviewed: closed before the reviewer follows "more…"
        mem.forget(item_id, scope=SCOPE, reason="reviewed")
    more = re.search(r'<a href="([^"]+)">more…</a>', first.text)
    assert more, "no more… link"
    second = client.get(html_lib.unescape(more.group(1)))
    assert second.status_code == 200, second.text
    assert set(re.findall(r"/items/([0-9a-f-]{36})", second.text)) & ids == ids - shown
