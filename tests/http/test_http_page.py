"""The review page: escaping, CSRF, and that its forms really change the memory."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable

from fastapi.testclient import TestClient
from http_helpers import SCOPE, assert_error, open_conflict

from reverie import ManualClock, Memory
from reverie.model.clock import from_iso

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
        client.get(f"{v1}/items", params={"tier": "lukewarm"}),
    ):
        body = assert_error(response, 400, recall["code"])
        assert "Input should be 'active', 'durable' or 'subconscious'" in body["error"], body
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
