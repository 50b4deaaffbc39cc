"""Dream-pass benchmark: what a keep budget keeps, and how long one pass takes.

    python bench/dream_retention.py [--items 4000] [--seed 7] [--sizes 10000,100000] [--max 1000000]
                                    [--skip-retention] [--json out.json] [--store-cache DIR]
                                    [--max-pairs-per-item N] [--png chart.png]
    python bench/dream_retention.py --from-json retention.json speed.json [--json merged.json] --png chart.png

Part 1 — retention. A seeded synthetic scope where value is anti-correlated with access for a
load-bearing-but-cold subset. Each item has a hidden *true value*; reverie sees only what an
item carries (kind, source, confidence, tags, uses, parents). The classes, by share of items:

- critical (8%): policies, procedures, verified results, stated by the user with high
  confidence; true value 0.8-1.0; used at most once, soon after being recorded.
- critical, load-bearing (0.5%): just as valuable and cold, stated as a plain observed
  assertion (no salience signal), but 1-3 later *ordinary* items derive from each (their
  ``parents``, set through ``remember_many``): other beliefs rest on it.
- critical, blind (0.2%): valuable and cold with no signal and no dependents — a control for
  what no signal-based policy can see. Part of the headline set, so the headline is bounded
  below 100% by construction.
- chatter (35%): remarks and episodes; true value 0-0.3; used often and recently.
- ordinary (the rest): mixed kinds and sources; true value 0.2-0.7; uses grow with value.

"High-value cold" = true value >= 0.75 and used at most once (all three critical classes).
Under keep budgets of 50 / 30 / 10 % the table compares, on copies of one store: reverie's
dream pass (``keep_budget``), the same pass without the load-bearing protection
(``protect_dependents=0``: the policy before it existed), the pass with neither protection
(blend only), and an access-decay policy (keep the items with the highest uses x
0.5^(idle days / 30)). Per-class keep rates are reported side by side; "orphaned" counts kept
load-bearing items whose dependents the same pass forgot (they lose the protection at the
next pass that finds the scope over budget).

Part 1b — a conversation scope (``bench/chat_retention.py``; ``--chat-conversations 0`` skips it):
what the budget keeps of the claims mined from chat turns, of the turns themselves and of the
person records.

Part 2 — speed. One pass over 10k and 100k items (and up to ``--max``) with the hash
embedder, stores opened with ``durability="fast"`` (each Memory command is its own commit;
with "full" every commit is an fsync). Two passes are timed: the first works through the
whole backlog; the second is a steady-state pass after 1% new items. Wall and CPU seconds are
both reported (this machine is shared; CPU time is the steadier number), with each pass's peak
RSS and the similarity join's candidate pairs and skipped token groups.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from threadpoolctl import threadpool_limits

from chat_retention import chat_retention, print_chat
from reverie import ManualClock, Memory
from reverie.dream import DreamConfig

S = "bench:dream"
T0 = datetime(2025, 1, 1, tzinfo=UTC)
BUDGETS = (0.5, 0.3, 0.1)
HORIZON_DAYS = 180


# -- synthetic text ----------------------------------------------------------------------------
class Words:
    """A seeded Zipfian vocabulary of pronounceable pseudo-words (no accidental near-duplicates)."""

    def __init__(self, rng: np.random.Generator, size: int = 20_000) -> None:
        cons, vows = list("bcdfghjklmnprstvz"), list("aeiou")
        words: set[str] = set()
        while len(words) < size:
            n = int(rng.integers(2, 4))
            words.add("".join(str(rng.choice(cons)) + str(rng.choice(vows)) for _ in range(n)))
        self.words = sorted(words)
        p = 1.0 / np.arange(1, size + 1) ** 1.05
        self.p = p / p.sum()
        self.rng = rng

    def sentences(self, n: int, lo: int = 6, hi: int = 11) -> list[str]:
        lengths = self.rng.integers(lo, hi, size=n)
        flat = self.rng.choice(len(self.words), size=int(lengths.sum()), p=self.p)
        out, at = [], 0
        for k in lengths.tolist():
            out.append(" ".join(self.words[i] for i in flat[at : at + k]).capitalize())
            at += k
        return out


# -- part 1: retention -------------------------------------------------------------------------
@dataclass
class Spec:
    cls: str
    text: str
    kind: str
    source: str
    confidence: float
    tags: list[str]
    true_value: float
    day: int  # recorded on this day
    use_days: list[int]
    parent: int | None = None  # index of the spec this one derives from (its ``parents``)


def retention_specs(n: int, rng: np.random.Generator, words: Words) -> list[Spec]:
    texts = words.sentences(n)
    specs = []
    for i in range(n):
        r = rng.random()
        day = int(rng.integers(0, 120))
        if r < 0.08:
            kind, tags = [("policy", []), ("procedural", []), ("assertion", ["verified"])][int(rng.integers(0, 3))]
            spec = Spec(
                "critical",
                texts[i],
                kind,
                "user_stated",
                rng.uniform(0.85, 1.0),
                tags,
                rng.uniform(0.8, 1.0),
                day,
                _days(rng, day, int(rng.integers(0, 2)), soon=True),
            )
        elif r < 0.087:  # 0.5% load-bearing, then 0.2% blind: the same plain assertion
            spec = Spec(
                "critical_load_bearing" if r < 0.085 else "critical_blind",
                texts[i],
                "assertion",
                "observed",
                rng.uniform(0.6, 0.8),
                [],
                rng.uniform(0.8, 1.0),
                day,
                _days(rng, day, int(rng.integers(0, 2)), soon=True),
            )
        elif r < 0.437:
            kind = ["remark", "episodic"][int(rng.integers(0, 2))]
            source = ["observed", "inferred"][int(rng.integers(0, 2))]
            spec = Spec(
                "chatter",
                texts[i],
                kind,
                source,
                rng.uniform(0.4, 0.7),
                [],
                rng.uniform(0.0, 0.3),
                day,
                _days(rng, day, int(rng.poisson(8)), soon=False),
            )
        else:
            kind = ["observation", "assertion", "semantic", "trait", "hypothesis"][int(rng.integers(0, 5))]
            source = ["observed", "user_stated", "inferred"][int(rng.integers(0, 3))]
            value = rng.uniform(0.2, 0.7)
            spec = Spec(
                "ordinary",
                texts[i],
                kind,
                source,
                rng.uniform(0.5, 0.9),
                [],
                value,
                day,
                _days(rng, day, int(rng.poisson(1 + 6 * value)), soon=False),
            )
        specs.append(spec)
    _derive_children(specs, rng)
    return specs


def _derive_children(specs: list[Spec], rng: np.random.Generator) -> None:
    """Give each load-bearing item 1-3 children: ordinary items recorded on a later day that
    list it as their parent. Nothing else about the children changes (class, value, uses)."""
    free = [i for i, s in enumerate(specs) if s.cls == "ordinary"]
    for i, s in enumerate(specs):
        if s.cls != "critical_load_bearing":
            continue
        later = [j for j in free if specs[j].day > s.day and specs[j].parent is None]
        if not later:
            continue
        n = min(len(later), int(rng.integers(1, 4)))
        for j in rng.choice(len(later), size=n, replace=False).tolist():
            specs[later[j]].parent = i


def _days(rng: np.random.Generator, start: int, uses: int, *, soon: bool) -> list[int]:
    """Distinct days of use after ``start``: soon after it (cold items), or spread to now."""
    end = min(HORIZON_DAYS, start + 5) if soon else HORIZON_DAYS
    pool = np.arange(start + 1, end)
    if uses <= 0 or pool.size == 0:
        return []
    return sorted(rng.choice(pool, size=min(uses, pool.size), replace=False).tolist())


def build_retention_store(path: Path, specs: Sequence[Spec]) -> list[str]:
    """Write the specs day by day (a child's parent is always recorded on an earlier day)."""
    clock = ManualClock(T0)
    ids: list[str] = [""] * len(specs)
    with Memory(path, embedder="hash", clock=clock, seed=1, durability="fast", detect_conflicts=False) as mem:
        for day in sorted({s.day for s in specs}):
            clock.set(T0 + timedelta(days=day))
            rows = [i for i, s in enumerate(specs) if s.day == day]
            cands = [
                {
                    "text": specs[i].text,
                    "kind": specs[i].kind,
                    "source": specs[i].source,
                    "confidence": round(specs[i].confidence, 3),
                    "tags": specs[i].tags,
                    "parents": [ids[p]] if (p := specs[i].parent) is not None else [],
                }
                for i in rows
            ]
            for i, item in zip(rows, mem.remember_many(cands, scope=S), strict=True):
                ids[i] = item.id
        uses: dict[int, list[str]] = {}
        for i, s in enumerate(specs):
            for d in s.use_days:
                uses.setdefault(d, []).append(ids[i])
        for day in sorted(uses):
            clock.set(T0 + timedelta(days=day))
            mem.record_use(S, [(i, 1.0) for i in uses[day]], "bench")
    return ids


def access_decay_keep(path: Path, budget: int) -> set[str]:
    """The baseline: keep what was used most, most recently (uses x 0.5^(idle/30))."""
    now = T0 + timedelta(days=HORIZON_DAYS)
    with Memory(path, embedder="hash", clock=ManualClock(now)) as mem:
        items = mem.store.query(S, _live(), _sort(), limit=10**9)

    def score(it: Any) -> tuple[float, datetime]:
        last = it.last_used_at or it.recorded_at
        idle = (now - last).total_seconds() / 86400
        return (it.use_count * 0.5 ** (idle / 30), it.recorded_at)

    return {it.id for it in sorted(items, key=score, reverse=True)[:budget]}


#: The reverie variants compared: name → DreamConfig fields on top of ``keep_budget``.
VARIANTS: dict[str, dict[str, Any]] = {
    "reverie (blend only)": {"protect_salience": 1.0, "protect_dependents": 0},
    "reverie (no load-bearing rule)": {"protect_dependents": 0},
    "reverie": {},
}


#: New items written between the first and the second pass, as a share of the store.
INFLOW = 0.02


def reverie_keep(src: Path, work: Path, budget: int, name: str) -> tuple[set[str], set[str]]:
    """What one pass keeps, and what a second pass keeps a day later, after ``INFLOW`` new
    unused remarks pushed the scope over budget again (protection is re-read every pass)."""
    dst = work / f"keep-{budget}-{list(VARIANTS).index(name)}.db"
    with Memory(src, embedder="hash") as mem:
        mem.backup(dst)
    cfg = DreamConfig(keep_budget=budget, **VARIANTS[name])
    clock = ManualClock(T0 + timedelta(days=HORIZON_DAYS))
    with Memory(dst, embedder="hash", clock=clock, durability="fast", seed=2, detect_conflicts=False) as mem:
        mem.dream(scope=S, config=cfg)
        kept = {it.id for it in mem.store.query(S, _live(), _sort(), limit=10**9)}
        clock.advance(days=1)
        words = Words(np.random.default_rng(99))
        mem.remember_many(
            [{"text": t, "kind": "remark"} for t in words.sentences(max(1, round(INFLOW * len(kept))))],
            scope=S,
        )
        clock.advance(hours=1)
        mem.dream(scope=S, config=cfg)
        kept2 = {it.id for it in mem.store.query(S, _live(), _sort(), limit=10**9)}
    return kept, kept2


def retention(n: int, seed: int, work: Path) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    specs = retention_specs(n, rng, Words(rng))
    path = work / "retention.db"
    ids = build_retention_store(path, specs)
    value = {ids[i]: s.true_value for i, s in enumerate(specs)}
    cold = {ids[i] for i, s in enumerate(specs) if s.true_value >= 0.75 and len(s.use_days) <= 1}
    by_class = {c: {ids[i] for i, s in enumerate(specs) if s.cls == c} & cold for c in CLASSES}
    children: dict[str, set[str]] = {}
    for s_, item_id in zip(specs, ids, strict=True):
        if s_.parent is not None:
            children.setdefault(ids[s_.parent], set()).add(item_id)
    total = sum(value.values())
    rows = []
    for frac in BUDGETS:
        budget = round(frac * n)
        policies: dict[str, set[str]] = {"access-decay": access_decay_keep(path, budget)}
        second: dict[str, set[str]] = {}
        for name in VARIANTS:
            policies[name], second[name] = reverie_keep(path, work, budget, name)
        for name, kept in policies.items():
            lb_kept = kept & by_class["critical_load_bearing"]
            row: dict[str, Any] = {
                "budget": frac,
                "policy": name,
                "kept": len(kept),
                "hv_cold_kept": len(kept & cold) / len(cold),
            }
            for c in CLASSES:
                row[f"{c}_kept"] = len(kept & by_class[c]) / max(1, len(by_class[c]))
            row["load_bearing_orphaned"] = sum(1 for i in lb_kept if not children.get(i, set()) & kept)
            row["value_kept"] = math.fsum(value[i] for i in kept if i in value) / total  # exact: set order varies
            if name in second:  # after the second pass (the new items carry no true value)
                again = second[name]
                row["second_pass"] = {
                    "hv_cold_kept": len(again & cold) / len(cold),
                    **{f"{c}_kept": len(again & by_class[c]) / max(1, len(by_class[c])) for c in CLASSES},
                    "value_kept": math.fsum(value[i] for i in again if i in value) / total,
                }
            rows.append(row)
    sizes = ", ".join(f"{len(by_class[c])} {c}" for c in CLASSES)
    kids = sum(len(v) for v in children.values())
    print(f"\nretention: {n} items, {len(cold)} high-value cold ({sizes}); {kids} children; seed {seed}")
    return rows


#: The high-value cold classes, reported side by side.
CLASSES = ("critical", "critical_load_bearing", "critical_blind")


# -- part 2: speed -----------------------------------------------------------------------------
def build_speed_store(path: Path, n: int, seed: int, clock: ManualClock) -> None:
    """n items over 90 days: 3% in near-duplicate clusters, 0.2% toggle pairs, 25% used."""
    rng = np.random.default_rng(seed)
    words = Words(rng)
    base = words.sentences(n)
    cands: list[dict[str, Any]] = []
    i = 0
    while len(cands) < n:
        r = rng.random()
        text = base[i]
        i += 1
        if r < 0.01:  # a cluster of 3-4 near-duplicates: reordered words, one extra word
            w = text.split()
            for k in range(int(rng.integers(3, 5))):
                variant = list(w)
                rng.shuffle(variant)
                cands.append({"text": " ".join(variant + (["again"] if k % 2 else [])), "kind": "episodic"})
        elif r < 0.012:  # a state toggle
            cands.append({"text": f"{text} is on"})
            cands.append({"text": f"{text} is off"})
        else:
            kind = ["observation", "remark", "policy", "episodic", "semantic"][int(rng.integers(0, 5))]
            cands.append({"text": text, "kind": kind})
    cands = cands[:n]
    with Memory(path, embedder="hash", clock=clock, seed=3, durability="fast", detect_conflicts=False) as mem:
        ids: list[str] = []
        step = 10_000
        for start in range(0, n, step):
            clock.set(T0 + timedelta(days=90 * start / n))
            ids += [it.id for it in mem.remember_many(cands[start : start + step], scope=S)]
        clock.set(T0 + timedelta(days=90))
        used = rng.choice(len(ids), size=len(ids) // 4, replace=False)
        for start in range(0, used.size, 5_000):
            mem.record_use(S, [(ids[j], 1.0) for j in used[start : start + 5_000].tolist()], "bench")


def _reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark (Linux ``clear_refs`` 5) so a pass's peak is its own."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _peak_rss_mb(reset: bool) -> float:
    """Peak resident memory in MB: since the reset (``VmHWM``) if it worked, else the process's
    peak so far (``ru_maxrss``, kB on Linux), which may be an earlier phase's."""
    if reset:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def timed_pass(mem: Memory, config: DreamConfig | None = None) -> dict[str, Any]:
    reset = _reset_peak_rss()
    wall, cpu = time.perf_counter(), time.process_time()
    report = mem.dream(scope=S, config=config)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = _peak_rss_mb(reset)
    warm = report.timings.get("warm", 0.0)
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "load_avg": round(os.getloadavg()[0], 2),
        "read_s": round(report.timings["read"], 2),
        "plan_s": round(report.timings["plan"], 2),
        "apply_s": round(report.timings["apply"], 2),
        # The ANN warm-up at the end of the pass (idle work a recall would otherwise pay):
        # reported apart, and "pass_wall_s" is the pass without it.
        "warm_s": round(warm, 2),
        "ann_warmed": bool(report.stats.get("ann_warmed", False)),
        "pass_wall_s": round(wall - warm, 2),
        "pass_cpu_s": round(cpu - warm, 2),  # approximate: the single-threaded warm-up is CPU-bound
        "actions": len(report.actions),
        # Peak RSS of the pass (the process's, since a reset just before it when Linux allows).
        "peak_rss_mb": peak,
        "process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "candidate_pairs": int(report.stats.get("candidate_pairs", 0)),
        "near_duplicate_pairs": int(report.stats.get("near_duplicate_pairs", 0)),
        "token_groups_skipped": int(report.stats.get("token_groups_skipped", 0)),
        "by_step": {s: report.count(s) for s in sorted({a.step for a in report.actions})},
    }


def speed(
    n: int, seed: int, work: Path, cache: Path | None = None, config: DreamConfig | None = None
) -> dict[str, Any]:
    """Build (or copy from ``cache``) the n-item store, then time a first and a steady pass."""
    path = work / f"speed-{n}.db"
    clock = ManualClock(T0)
    t = time.perf_counter()
    copied = False
    if cache is None:
        build_speed_store(path, n, seed, clock)
    else:  # the build is seeded, so a cached copy is the same store (a 1M build takes ~10 min)
        cached = cache / f"speed-{n}-seed{seed}.db"
        copied = cached.exists()
        if not copied:
            build_speed_store(cached, n, seed, clock)
            with Memory(cached, embedder="hash", durability="fast") as mem:
                mem.store.checkpoint()  # fold the WAL in: one file to copy
        shutil.copy(cached, path)
    build = time.perf_counter() - t
    clock.set(T0 + timedelta(days=91))
    with Memory(path, embedder="hash", clock=clock, seed=4, durability="fast", detect_conflicts=False) as mem:
        first = timed_pass(mem, config)
        clock.advance(days=1)
        words = Words(np.random.default_rng(seed + 1))
        for start in range(0, n // 100, 10_000):
            mem.remember_many(words.sentences(min(10_000, n // 100 - start)), scope=S)
        clock.advance(hours=1)
        second = timed_pass(mem, config)
    row = {"items": n, "build_s": round(build, 1), "store_copied": copied, "first": first, "steady": second}
    print(f"speed {n}: build {build:.1f}s; first pass {first}; steady pass {second}", flush=True)
    return row


# -- output ------------------------------------------------------------------------------------
def print_retention(rows: list[dict[str, Any]]) -> None:
    print("\n| budget | policy | high-value cold kept | critical | load-bearing (orphaned) | blind | total value |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['budget']:.0%} | {r['policy']} | {r['hv_cold_kept']:.1%} | {r['critical_kept']:.1%} "
            f"| {r['critical_load_bearing_kept']:.1%} ({r['load_bearing_orphaned']}) | {r['critical_blind_kept']:.1%} "
            f"| {r['value_kept']:.1%} |"
        )
    print(f"\nAfter a second pass a day later, {INFLOW:.0%} new unused remarks pushing the scope over budget again:")
    print("\n| budget | policy | high-value cold kept | critical | load-bearing | blind | total value |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if "second_pass" in r:
            q = r["second_pass"]
            print(
                f"| {r['budget']:.0%} | {r['policy']} | {q['hv_cold_kept']:.1%} | {q['critical_kept']:.1%} "
                f"| {q['critical_load_bearing_kept']:.1%} | {q['critical_blind_kept']:.1%} | {q['value_kept']:.1%} |"
            )


def print_speed(rows: list[dict[str, Any]]) -> None:
    print(
        "\n| items | pass | wall s | cpu s | load | read s | plan s | apply s | ANN warm s | peak RSS MB "
        "| candidate pairs | actions (by step) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        for name in ("first", "steady"):
            p = r[name]
            steps = ", ".join(f"{k} {v}" for k, v in p["by_step"].items())
            print(
                f"| {r['items']:,} | {name} | {p['pass_wall_s']} | {p['pass_cpu_s']} | {p['load_avg']} | {p['read_s']} "
                f"| {p['plan_s']} | {p['apply_s']} | {p['warm_s']} | {p['peak_rss_mb']:,} | {p['candidate_pairs']:,} "
                f"| {p['actions']:,} ({steps}) |"
            )


def plot(out: dict[str, Any], path: Path) -> None:
    """Two panels: high-value cold items kept per budget and policy; pass CPU seconds by size."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: `.venv/bin/pip install matplotlib`", file=sys.stderr)
        return
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.4))
    rows = out.get("retention", [])
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    budgets = sorted({r["budget"] for r in rows}, reverse=True)
    width = 0.8 / max(1, len(policies))
    for k, policy in enumerate(policies):
        kept = {r["budget"]: r["hv_cold_kept"] * 100 for r in rows if r["policy"] == policy}
        a.bar([i + k * width for i in range(len(budgets))], [kept.get(x, 0.0) for x in budgets], width, label=policy)
    a.axhline(95, color="red", linestyle="--", linewidth=1, label="target at 30 %: 95 %")
    a.set_xticks([i + width * (len(policies) - 1) / 2 for i in range(len(budgets))], [f"{x:.0%}" for x in budgets])
    a.set(xlabel="keep budget", ylabel="% kept", ylim=(0, 135), title="high-value cold items kept (access-decay: 0 %)")
    a.legend(fontsize=7, ncol=2, loc="upper center")
    speed = out.get("speed", [])
    xs = [r["items"] for r in speed]
    for name in ("first", "steady"):
        b.plot(xs, [r[name]["pass_cpu_s"] for r in speed], marker="o", label=f"{name} pass (CPU s)")
        b.plot(
            xs,
            [r[name]["pass_cpu_s"] + r[name]["warm_s"] for r in speed],
            marker=".",
            linestyle=":",
            label=f"{name} pass + ANN warm-up",
        )
    b.scatter([100_000], [10], marker="x", color="red", zorder=3, label="target at 100k: < 10 s")
    b.set(xscale="log", yscale="log", xlabel="items in scope", ylabel="seconds", title="one dream pass")
    b.legend(fontsize=7)
    for ax in (a, b):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def _live() -> Any:
    from reverie import Q

    return Q.status("live")


def _sort() -> Any:
    from reverie.model.query import parse_sort

    return parse_sort(["id"])


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=4000, help="items in the retention store")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated store sizes to time a pass on")
    ap.add_argument("--max", type=int, default=100_000, help="largest size to time (1000000 adds 1M)")
    ap.add_argument("--skip-retention", action="store_true")
    ap.add_argument(
        "--chat-conversations",
        type=int,
        default=20,
        help="conversations in the chat retention case (part 1b; 0 skips it, as does --skip-retention)",
    )
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--store-cache", type=Path, help="keep the built speed stores here and reuse them")
    ap.add_argument(
        "--max-pairs-per-item",
        type=int,
        help="DreamConfig.max_pairs_per_item for the speed passes (default: its default)",
    )
    ap.add_argument("--png", type=Path, help="also draw the retention and pass-time chart here")
    ap.add_argument(
        "--from-json",
        type=Path,
        nargs="+",
        help="draw --png from saved --json results instead of running (a retention and a speed run may be merged)",
    )
    args = ap.parse_args(argv)
    if args.from_json:
        merged: dict[str, Any] = {}
        for saved in args.from_json:
            merged.update(json.loads(saved.read_text()))
        if args.json:
            args.json.write_text(json.dumps(merged, indent=2))
        if args.png:
            plot(merged, args.png)
        return
    if args.store_cache:
        args.store_cache.mkdir(parents=True, exist_ok=True)
    sizes = sorted({int(s) for s in args.sizes.split(",") if s} | ({args.max} if args.max > 100_000 else set()))
    sizes = [s for s in sizes if s <= args.max]
    work = Path(tempfile.mkdtemp(prefix="reverie-dream-bench-"))
    out: dict[str, Any] = {"seed": args.seed, "durability": "fast", "embedder": "hash"}
    try:
        with threadpool_limits(1):  # pinned BLAS: steadier timings (see DESIGN.md)
            if not args.skip_retention:
                out["retention"] = retention(args.items, args.seed, work)
                print_retention(out["retention"])
                if args.chat_conversations > 0:
                    out["chat_retention"] = chat_retention(work, args.chat_conversations, seed=args.seed)
                    print_chat(out["chat_retention"])
            cfg = None if args.max_pairs_per_item is None else DreamConfig(max_pairs_per_item=args.max_pairs_per_item)
            out["speed"] = [speed(n, args.seed, work, args.store_cache, cfg) for n in sizes]
            print_speed(out["speed"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    if args.png:
        plot(out, args.png)


if __name__ == "__main__":
    main()
