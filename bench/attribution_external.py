"""Attribution and extraction scored on an outside labelled set (evaluation only: no rule is tuned on it).

    .venv/bin/python bench/attribution_external.py --data PATH/attribution.jsonl [--relations PATH] [--json out]
        [--errors]

Data (not in the repository): one JSON object per line — ``id``, ``conversation``, ``speaker``,
``text``, ``about`` (the names of the people the message's fact is about; empty when none) and
``fact`` (the fact as the labeller wrote it, null when the message states none). Optionally a
``relations.jsonl`` beside it: ``{"conversation", "a", "relation", "of"}`` relations and
``{"conversation", "alias", "person"}`` aliases. The set was written by someone who never saw
reverie's rules.

Path: exactly the public one, as ``conversation_people.py``: one ``Memory`` per conversation (a
SQLite file, ``durability="fast"``), ``conv.add(text, speaker=..., role=...)`` per message in
file order one minute apart, ``conv.close()``; then per message the claims ``derived_from`` its
memory and the persons they are ``about`` (``mem.person``). The set has no role field: the
speaker ``Assistant`` is ``role="assistant"``, everyone else ``"user"``.

Metrics:

- *extraction* precision / recall per message: a message "yielded" when at least one claim is
  derived from it; positive when ``fact`` is not null.
- *attribution, main claim* (the in-repo set's definition, for comparison): of the messages with
  a labelled person that yielded a claim, the share whose main claim (the first that is not only
  a relation) is about one of the labelled people; recall over all messages with a labelled person.
- *attribution, pairs*: every (message, person) the message's claims are about vs every labelled
  (message, person) — precision and recall, over messages with a labelled fact.

A predicted person matches a labelled name when one of the person's names has the same tokens
(``names.tokens``, case and titles aside). *Strict* uses only reverie's names; *alias-aware* also
accepts a name the labeller lists as that person's alias (``relations.jsonl``) — reverie calling
Robert "Rob" is then right about who, wrong only in not joining the names.
Relations: of the labelled relations, the share ``mem.person(of)`` lists with the same type and person.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine
from reverie import ManualClock, Memory
from reverie.conversation.people.names import tokens
from reverie.errors import InvalidInputError, NotFoundError

SCOPE = "bench:external"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def load(path: Path) -> dict[str, list[dict[str, Any]]]:
    convs: dict[str, list[dict[str, Any]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            convs.setdefault(rec["conversation"], []).append(rec)
    return convs


def load_relations(path: Path | None) -> tuple[list[dict[str, Any]], dict[tuple[str, str], set[str]]]:
    """(relations, (conversation, tokens of a person's name) → the token sets of all their names)."""
    rels: list[dict[str, Any]] = []
    aliases: dict[tuple[str, str], set[str]] = {}
    if path is None or not path.exists():
        return rels, aliases
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        if "alias" in rec:
            names = {tokens(rec["alias"]), tokens(rec["person"])}
            for n in list(names):
                key = (rec["conversation"], n)
                aliases[key] = aliases.get(key, {n}) | names
        else:
            rels.append(rec)
    return rels, aliases


def _names(mem: Memory, person_id: str) -> list[str]:
    try:
        p = mem.person(person_id, scope=SCOPE)
    except (NotFoundError, InvalidInputError):
        return []
    return [p.name, *p.aliases]


def run_conversation(mem: Memory, cid: str, recs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    conv = mem.conversation(cid, scope=SCOPE)
    msgs = []
    for i, r in enumerate(recs):
        role = "assistant" if r["speaker"] == "Assistant" else "user"
        msgs.append(conv.add(r["text"], speaker=r["speaker"], role=role, at=START + timedelta(minutes=i)))
    conv.close()
    rows = []
    for r, m in zip(recs, msgs, strict=True):
        claims = [
            mem.get(e.src, scope=SCOPE) for e in mem.edges(m.item_id or "", scope=SCOPE) if e.type == "derived_from"
        ]
        main = next((c for c in claims if "relation" not in c.meta), claims[0] if claims else None)
        persons: list[list[str]] = []  # the names of each person any claim of the message is about
        for c in claims:
            for e in mem.edges(c.id, scope=SCOPE):
                if e.type == "about" and e.src == c.id:
                    names = _names(mem, e.dst)
                    if names and names not in persons:
                        persons.append(names)
        # As conversation_people.py: the main claim's first named person, looked up by that name.
        label = (main.meta.get("about") or [None])[0] if main is not None else None
        main_names = (_names(mem, label) or [label]) if label else []
        rows.append({**r, "claims": [c.text for c in claims], "main": main_names, "persons": persons})
    return rows


def _match(names: Sequence[str], label: str, cid: str, aliases: dict[tuple[str, str], set[str]]) -> bool:
    want = aliases.get((cid, tokens(label)), {tokens(label)}) if aliases else {tokens(label)}
    return any(tokens(n) in want for n in names)


def score(rows: Sequence[dict[str, Any]], aliases: dict[tuple[str, str], set[str]]) -> dict[str, float]:
    def ratio(a: int, b: int) -> float:
        return a / b if b else float("nan")

    yielded = [r for r in rows if r["claims"]]
    positive = [r for r in rows if r["fact"] is not None]
    tp = [r for r in yielded if r["fact"] is not None]
    with_about = [r for r in rows if r["about"]]
    attributed = [r for r in with_about if r["claims"]]
    right = [r for r in attributed if any(_match(r["main"], a, r["conversation"], aliases) for a in r["about"])]
    pred_pairs = [(r, p) for r in rows if r["fact"] is not None for p in r["persons"]]
    gold_pairs = [(r, a) for r in rows if r["fact"] is not None for a in r["about"]]
    pred_ok = sum(1 for r, p in pred_pairs if any(_match(p, a, r["conversation"], aliases) for a in r["about"]))
    gold_ok = sum(1 for r, a in gold_pairs if any(_match(p, a, r["conversation"], aliases) for p in r["persons"]))
    return {
        "messages": float(len(rows)),
        "labelled_facts": float(len(positive)),
        "extraction_precision": ratio(len(tp), len(yielded)),
        "extraction_recall": ratio(len(tp), len(positive)),
        "attribution_precision": ratio(len(right), len(attributed)),
        "attribution_recall": ratio(len(right), len(with_about)),
        "pair_precision": ratio(pred_ok, len(pred_pairs)),
        "pair_recall": ratio(gold_ok, len(gold_pairs)),
        "claims_written": float(sum(len(r["claims"]) for r in rows)),
    }


def relation_recall(mem_relations: dict[str, list[tuple[str, str, str]]], rels: Sequence[dict[str, Any]]) -> float:
    """Of the labelled relations, the share found (same type; both names match by tokens)."""
    found = 0
    for rel in rels:
        have = mem_relations.get(rel["conversation"], [])
        if any(
            t == rel["relation"] and tokens(p) == tokens(rel["a"]) and tokens(o) == tokens(rel["of"])
            for t, p, o in have
        ):
            found += 1
    return found / len(rels) if rels else float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--data", type=Path, required=True, help="the labelled attribution.jsonl")
    ap.add_argument("--relations", type=Path, help="relations.jsonl (default: beside --data)")
    ap.add_argument("--embedder", choices=["hash", "minilm"], default="hash")
    ap.add_argument("--errors", action="store_true", help="print every miss")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rels, aliases = load_relations(args.relations or args.data.parent / "relations.jsonl")
    rows: list[dict[str, Any]] = []
    found_rel: dict[str, list[tuple[str, str, str]]] = {}
    with tempfile.TemporaryDirectory(prefix="reverie-attr-ext-") as tmp:
        for cid, recs in load(args.data).items():
            path = Path(tmp) / f"{cid}.db"
            clock = ManualClock(START + timedelta(days=1))
            with Memory(path, embedder=args.embedder, clock=clock, durability="fast", seed=0) as mem:
                rows += run_conversation(mem, cid, recs)
                found_rel[cid] = [
                    (r.type, r.person_name, r.of_name)
                    for p in mem.people(scope=SCOPE)
                    for r in mem.person(p.id, scope=SCOPE).relations
                ]
    out: dict[str, Any] = {"strict": score(rows, {}), "alias_aware": score(rows, aliases)}
    out["relation_recall"] = relation_recall(found_rel, rels)
    out["relations_labelled"] = len(rels)
    for mode in ("strict", "alias_aware"):
        print(mode)
        for k, v in out[mode].items():
            print(f"  {k:24s} {v:8.3f}")
    print(f"relation recall          {out['relation_recall']:8.3f} of {len(rels)} labelled relations")
    if args.errors:
        for r in rows:
            bad_claim = bool(r["claims"]) != (r["fact"] is not None)
            bad_about = bool(
                r["about"] and r["claims"] and not any(_match(r["main"], a, r["conversation"], {}) for a in r["about"])
            )
            if bad_claim or bad_about:
                print(f"  {r['id']} {r['speaker']}: {r['text']!r} label={r['about']}/{r['fact']!r} "
                      f"got={r['main'][:1]} {r['claims']}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"embedder": args.embedder, "machine": machine(), **out}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
